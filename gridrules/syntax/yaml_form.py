def parse_yaml(*a, **k): raise NotImplementedError
