"""Which of the compiled backend's files in the cache this copy of gridrules will never read again
(`gridrules cache --prune`).

A generated module is named by a digest of its source and of what its machine code depends on (system._versions:
the gridrules and numba versions, runtime.py), so a module whose name no longer matches its own text was made by
another gridrules, numba or runtime, and so was numba's machine code for it. numba keeps the machine code of each
source folder in a folder of its own named after that folder's path: those of folders that are not this copy's
(another checkout or install, or one since removed) are not read by it either. Extension modules are named by a
digest of a source they do not keep, so which of them are current cannot be told: they are kept.
"""
from __future__ import annotations

import time
from pathlib import Path

from ..cache import cache_dir
from . import runtime_copy


def _read_folders() -> list[Path]:
    """The source folders whose machine code numba caches for this copy: its packages' folders and the cache's
    folder of generated modules."""
    import gridrules
    import solvers

    folders = [cache_dir() / "modules"]
    for package in (gridrules, solvers):
        root = Path(package.__file__).parent  # (as imported, not resolved: numba names the folder from __file__)
        folders += [root] + [p for p in root.rglob("*") if p.is_dir() and p.name != "__pycache__"]
    return folders


def _current_module(path: Path, runtime: Path) -> bool:
    """Whether a module of the cache's `modules` folder is one this copy reads (runtime: its runtime copy)."""
    from .system import _module_name

    if path.stem.startswith("_runtime_unrefcounted_"):
        return path.name == runtime.name
    try:
        return path.stem == _module_name(path.read_text())
    except (OSError, UnicodeDecodeError):
        return False


def stale_files(numba_folder: Path | None) -> list[Path]:
    """The generated modules, runtime copies and numba machine code in the cache that this copy of gridrules
    will not read again. numba_folder: where numba keeps its cache, when that is the gridrules cache's own
    `numba` folder (None: it is elsewhere, and nothing of it is counted)."""
    from numba.core.caching import _CacheLocator  # (how numba names a source folder's cache folder)

    runtime = runtime_copy()
    modules = cache_dir() / "modules"
    stale, current = [], set()
    files = [p for p in sorted(modules.iterdir()) if p.is_file()] if modules.is_dir() else []
    for path in files:
        if path.suffix == ".py" and _current_module(path, runtime):
            current.add(path.stem)
        elif path.suffix == ".py":
            stale.append(path)
    for path in files:
        if path.suffix == ".counts":  # (system.refusal_note: numba refused the module without counting)
            if path.stem not in current:
                stale.append(path)
        elif path.suffix != ".py":  # (write_atomic's .tmp: one that never finished, unless it is being written now)
            try:
                if time.time() - path.stat().st_mtime > 3600:
                    stale.append(path)
            except OSError:
                pass
    if numba_folder is None or not numba_folder.is_dir():
        return stale
    ours = {_CacheLocator.get_suitable_cache_subpath(str(folder / "x.py")) for folder in _read_folders()}
    generated = _CacheLocator.get_suitable_cache_subpath(str(modules / "x.py"))
    for folder in sorted(numba_folder.iterdir()):
        if not folder.is_dir() or folder.name not in ours:
            stale.append(folder)
        elif folder.name == generated:  # (each file names its module first: NAME.function-line.pyXY.nbi)
            stale += [p for p in sorted(folder.iterdir()) if p.name.split(".")[0] not in current]
    return stale
