"""A native loop of its own module, for the tests of loops._Native: a process that warm_up starts imports it."""
from numba import types

from gridrules.compiled.loops import _Native


def tripled(x):
    return 3 * x


tripled = _Native(types.int64(types.int64), tripled)
