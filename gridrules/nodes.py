"""Tree nodes that are values: the classes of the syntax tree (ast.py) and of the IR (ir.py).

A node's fields are set once, by __init__; nodes are hashed and compared by value, leaving out fields declared
with compare=False (spans). They are dataclasses, so dataclasses.fields and dataclasses.replace work on them, but
not frozen ones: their methods are written when a class is first used (see _methods), because the hundred-odd
classes are made at every start.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

SPAN = field(default=None, compare=False, repr=False)  # (a node's place in its file: not part of its value)


class Value:
    """The base of node classes: a field cannot be set again, nor deleted."""

    __slots__ = ()

    def __setattr__(self, name, value):
        if name in self.__dict__:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        if name not in self.__dataclass_fields__:
            raise dataclasses.FrozenInstanceError(f"{type(self).__name__} has no field {name!r}")
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")

    def __repr__(self) -> str:
        shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in dataclasses.fields(self) if f.repr)
        return f"{type(self).__qualname__}({shown})"


def _methods(cls) -> None:
    """Write a node class's __init__, __eq__ and __hash__, as dataclass(unsafe_hash=True) would, in one exec,
    when the class is first used rather than when it is defined. Made by dataclass, four execs a class were most
    of the time it took to import the IR (~25 ms of every start, where a warm run unpickles its game and makes
    few nodes), and six a class ~40 ms of the syntax tree's (every parse)."""
    fields = dataclasses.fields(cls)
    params = ", ".join(f.name if f.default is dataclasses.MISSING else f"{f.name}=_default_{f.name}"
                       for f in fields)
    sets = "".join(f"    self.{f.name} = {f.name}\n" for f in fields) or "    pass\n"
    key = "".join(f"self.{f.name}," for f in fields if f.compare)
    other = "".join(f"other.{f.name}," for f in fields if f.compare)
    source = (f"def __init__(self, {params}):\n{sets}"
              f"def __eq__(self, other):\n"
              f"    if other.__class__ is self.__class__:\n        return ({key}) == ({other})\n"
              f"    return NotImplemented\n"
              f"def __hash__(self):\n    return hash(({key}))\n")
    scope = {f"_default_{f.name}": f.default for f in fields}
    exec(source, scope)
    for name in ("__init__", "__eq__", "__hash__"):
        scope[name].__qualname__ = f"{cls.__qualname__}.{name}"  # (so that a TypeError names the class)
        setattr(cls, name, scope[name])


def _first_init(self, *args, **kwargs):
    _methods(type(self))
    type(self).__init__(self, *args, **kwargs)


def _first_eq(self, other):
    _methods(type(self))
    return type(self).__eq__(self, other)


def _first_hash(self):
    _methods(type(self))
    return type(self).__hash__(self)


def node(cls):
    """A node class: a dataclass whose methods are written on first use (_methods)."""
    own = [name for name in ("__init__", "__eq__", "__hash__") if name in cls.__dict__]
    assert not own, f"{cls.__name__} defines {own}: node writes them"
    documented = cls.__doc__ is not None
    cls.__doc__ = cls.__doc__ or cls.__name__  # (dataclass would ask inspect.signature, ~0.2 ms a class)
    cls = dataclass(init=False, repr=False, eq=False)(cls)
    fields = dataclasses.fields(cls)
    assert all(f.default_factory is dataclasses.MISSING for f in fields), f"{cls.__name__}: no default_factory here"
    defaults = [f.default is not dataclasses.MISSING for f in fields]
    if any(d and not later for d, later in zip(defaults, defaults[1:])):
        raise TypeError(f"{cls.__name__}: a field without a default follows one with a default")
    if not documented:
        cls.__doc__ = f"{cls.__name__}({', '.join(f.name for f in dataclasses.fields(cls))})"
    cls.__init__, cls.__eq__, cls.__hash__ = _first_init, _first_eq, _first_hash
    return cls
