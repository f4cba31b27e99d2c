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


# The cache's folders, as `gridrules cache` names them.
PARTS = {
    "numba": "machine code (numba's cache)",
    "modules": "generated modules",
    "extensions": "extension modules",
    "pruned": "generated modules, pruned",
    "rules": "checked rule files",
    "parser": "the rule language's parser tables",
}


def size_of(path: Path) -> tuple[int, int]:
    """(bytes, files) of a file or of everything under a folder; what vanishes meanwhile is not counted."""
    if path.is_symlink() or path.is_file():
        try:
            return path.lstat().st_size, 1
        except OSError:
            return 0, 0
    total = files = 0
    for folder, _, names in os.walk(path):
        for name in names:
            try:
                total += os.lstat(os.path.join(folder, name)).st_size
                files += 1
            except OSError:
                pass
    return total, files


def remove(paths) -> tuple[int, int, list[str]]:
    """Delete files and folders: (bytes freed, files deleted, a message for each that could not be deleted)."""
    import shutil

    freed = count = 0
    problems: list[str] = []
    for path in paths:
        size, files = size_of(path)
        try:
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink(missing_ok=True)
        except OSError as err:
            problems.append(f"{path}: {err.strerror or err}")
            continue
        freed += size
        count += files
    return freed, count, problems
