"""runtime.py's helpers a second time, for native code built without numba's reference counting
(codegen.for_board with refcounts=False; only extension modules are built so).

numba compiles a function called from code without reference counting without it too, then keeps that version as
the function's one version for its signature; and it caches a function on disk by its source file, name and
signature, whatever the flags it was compiled with. Code with reference counting calling runtime.py's own helpers
must never get such a version, nor code without it one that counts (which would compile code numba refuses
without reference counting, such as a helper that allocates). So these are the same functions compiled from a copy
of runtime.py in the cache, named by its digest: their versions and their cache entries are apart.
"""
from pathlib import Path

from ..cache import write_atomic
from . import runtime_copy

_SOURCE = Path(__file__).with_name("runtime.py").read_bytes()
_COPY = runtime_copy(_SOURCE)
if not _COPY.exists() or _COPY.read_bytes() != _SOURCE:
    write_atomic(_COPY, _SOURCE)
exec(compile(_SOURCE, str(_COPY), "exec"))  # (this module's globals: its own dispatchers)
