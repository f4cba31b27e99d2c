"""The cache directory gridrules owns: GRIDRULES_CACHE, else $XDG_CACHE_HOME/gridrules, else ~/.cache/gridrules.

It holds the parser tables of the rule language, checked rule files and the compiled backend's generated modules
and machine code; everything in it can be deleted at any time and is rebuilt on demand.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


def cache_dir() -> Path:
    """The folder, as an absolute path: a relative GRIDRULES_CACHE (or `~/...` the shell left alone) is taken from
    where gridrules runs, and messages name the folder meant."""
    root = os.environ.get("GRIDRULES_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "gridrules")
    return Path(root).expanduser().absolute()


# The Cache Directory Tagging Specification's tag (bford.info/cachedir): backup tools skip the folder, and
# `gridrules cache --prune / --clear` delete only in a folder that carries it (one GRIDRULES_CACHE names may be
# a folder of the user's own).
TAG = "CACHEDIR.TAG"
TAG_TEXT = (b"Signature: 8a477f597d28d172789f06886806bc55\n"
            b"# This file is a cache directory tag created by gridrules; it may be deleted with the folder.\n")


def tagged(root: Path) -> bool:
    """Whether gridrules made this cache folder (it carries the tag) or it is the default one (gridrules' own by
    its place), which gets the tag now if an older gridrules made it without."""
    if (root / TAG).is_file():
        return True
    if os.environ.get("GRIDRULES_CACHE") or not root.is_dir():
        return False
    store(root / TAG, TAG_TEXT)
    return True


def ensure_root() -> Path:
    """The cache folder, made (and tagged) if it is not there yet; best effort, as for any cache file."""
    root = cache_dir()
    if not root.exists():
        try:
            root.mkdir(parents=True, exist_ok=True)
            write_atomic(root / TAG, TAG_TEXT)
        except OSError:
            pass
    return root


def unusable(why: str) -> str:
    """The start of the message for a cache folder gridrules cannot use (`why` says how)."""
    what = "GRIDRULES_CACHE" if os.environ.get("GRIDRULES_CACHE") else "the cache folder"
    return f"{what} `{cache_dir()}` cannot be used ({why})"


def not_usable(err: OSError) -> str | None:
    """What to tell the user when `err` came from the cache folder (it is a file, say, or cannot be written), which
    the compiled backend needs for its generated modules; None for any other error."""
    name = getattr(err, "filename", None)
    root = cache_dir()
    if not name or not (Path(name) == root or root in Path(name).parents):
        return None
    return (unusable(f"{err.strerror or err}: {name}") + ": point GRIDRULES_CACHE at a folder gridrules may write, "
            "or use --backend reference")


def write_atomic(path: Path, data: bytes) -> None:
    """Write a file so that a reader sees the old contents or the new, never a part (OSError when it cannot)."""
    root = cache_dir()
    if root in path.parents and path.name != TAG:
        ensure_root()  # (the cache's first file: its folder made, and tagged, first)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError as err:
        Path(tmp).unlink(missing_ok=True)
        if err.filename:
            raise
        raise OSError(err.errno, err.strerror, str(path)) from err  # (a full disk names no file: this one)
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
