"""runtime.py's helpers a second time, for native code built without numba's reference counting
(codegen.for_board with refcounts=False; only extension modules are built so).

numba compiles a function called from code without reference counting without it too, then keeps that version as
the function's one version for its signature, and caches it on disk under the function's module name: code with
reference counting calling runtime.py's own helpers must never get it. These are the same functions under a
module name of their own, so their versions and cache entries are apart.
"""
from pathlib import Path

_SOURCE = Path(__file__).with_name("runtime.py")
exec(compile(_SOURCE.read_text(), str(_SOURCE), "exec"))  # (this module's globals: its own dispatchers)
