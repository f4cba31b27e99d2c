"""The compiled backend: each game instance's IR lowered to Python source, compiled by numba, cached on disk.

Generated modules live in a cache directory gridrules owns (GRIDRULES_CACHE, else ~/.cache/gridrules), named by
a hash of their source, the gridrules version and the numba version, so a changed rule file or upgrade never
reuses stale native code; numba's own cache of each module's machine code sits beside them.
"""
from __future__ import annotations

import os

from ..cache import cache_dir


# numba reads NUMBA_CACHE_DIR when it is imported: set it first (unless the user chose one); if numba was
# imported already, tell its config directly, or every run would compile again.
os.environ.setdefault("NUMBA_CACHE_DIR", str(cache_dir() / "numba"))
if "numba" in __import__("sys").modules:
    from numba.core import config as _numba_config

    if not _numba_config.CACHE_DIR:
        _numba_config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]
