"""Front end: the text DSL (lark) and the YAML form, both producing `gridrules.ast` trees."""
from .parse import parse_dsl, parse_snippet
from .yaml_form import parse_yaml  # noqa: E402

__all__ = ["parse_dsl", "parse_snippet", "parse_yaml"]
