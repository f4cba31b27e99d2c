"""The reference backend: a plain-Python interpreter of the IR, the oracle every other backend must match."""
from .system import ReferenceSystem

__all__ = ["ReferenceSystem"]
