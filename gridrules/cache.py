"""The cache directory gridrules owns: GRIDRULES_CACHE, else $XDG_CACHE_HOME/gridrules, else ~/.cache/gridrules.

It holds the parser tables of the rule language, checked rule files and the compiled backend's generated modules
and machine code; everything in it can be deleted at any time and is rebuilt on demand.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


def cache_dir() -> Path:
    root = os.environ.get("GRIDRULES_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "gridrules")
    return Path(root)


def write_atomic(path: Path, data: bytes) -> None:
    """Write a file so that a reader sees the old contents or the new, never a part (OSError when it cannot)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def store(path: Path, data: bytes) -> None:
    """write_atomic, best effort: a cache file that cannot be written only costs its work again next time."""
    try:
        write_atomic(path, data)
    except OSError:
        pass
