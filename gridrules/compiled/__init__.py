"""The compiled backend: each game instance's IR lowered to Python source, compiled by numba, cached on disk.

Generated modules live in a cache directory gridrules owns (GRIDRULES_CACHE, else ~/.cache/gridrules), named by
a hash of their source, the gridrules version and the numba version, so a changed rule file or upgrade never
reuses stale native code; numba's own cache of each module's machine code sits beside them.
"""
from __future__ import annotations

import os
import pickle
import sys
from pathlib import Path

from ..cache import cache_dir, ensure_root


def runtime_copy(source: bytes | None = None) -> Path:
    """Where _runtime_unrefcounted keeps its copy of runtime.py (`source`: runtime.py's text, read if not
    given): named by the text's digest, so that each version's helpers and their cache entries are apart."""
    import hashlib

    if source is None:
        source = Path(__file__).with_name("runtime.py").read_bytes()
    return cache_dir() / "modules" / f"_runtime_unrefcounted_{hashlib.sha256(source).hexdigest()[:20]}.py"


# numba reads NUMBA_CACHE_DIR when it is imported: set it first (unless the user chose one); if numba was
# imported already, tell its config directly, or every run would compile again.
os.environ.setdefault("NUMBA_CACHE_DIR", str(cache_dir() / "numba"))
if "numba" in sys.modules:
    from numba.core import config as _numba_config

    if not _numba_config.CACHE_DIR:
        _numba_config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]


def import_numba() -> None:
    """import numba without the import of scipy it makes only to check scipy's version (when scipy is installed
    and not loaded yet): part of every start-up that gridrules never uses. The modules that need numba
    (runtime, loops, the generated ones through them) call it first; nothing else does, so a run that loads
    an extension module (extension.py) never imports numba."""
    if _patched:
        return
    ensure_root()  # (the cache folder made and tagged before numba writes there: numba would make it untagged)
    if "numba" not in sys.modules and "scipy" not in sys.modules:
        sys.modules["scipy"] = None  # (an import of scipy now fails at once: numba then skips the check)
        try:
            import numba  # noqa: F401
        finally:
            del sys.modules["scipy"]
    _load_cached_code_first()
    _damaged_indexes_dropped()
    _patched.append(True)


_patched: list = []



def prepare_to_compile() -> None:
    """Load numba's NumPy support before numba compiles anything, without its BLAS probe: at its first compile
    numba imports scipy.linalg (when scipy is installed) only to learn whether BLAS exists for np.dot and
    friends, about 0.35 s. The generated code never uses BLAS, so unless scipy is loaded already the probe is
    told "no" at once; np.dot still imports scipy itself later, if ever typed. (A run that only loads cached
    code needs none of this: see _load_cached_code_first.)"""
    if "scipy" in sys.modules or "numba.np.arraymath" in sys.modules:
        return
    sys.modules["scipy"] = None  # (an import of scipy now fails at once)
    try:
        import numba.np.arraymath  # noqa: F401  (its BLAS probe runs here)
    finally:
        del sys.modules["scipy"]


def about_to_compile(notice, text: str) -> None:
    """numba is about to compile: load what a compile needs (prepare_to_compile), and tell notice(text) if given."""
    prepare_to_compile()
    if notice is not None:
        notice(text)


def _load_cached_code_first() -> None:
    """Let numba load gridrules' cached machine code without first registering everything it can compile.
    Before every cache load numba refreshes its target context, which imports and registers all its typing and
    lowering implementations (~0.5 s, most of a warm start); code read from the cache is compiled already and
    needs only numba's runtime (NRT) up. A compile still refreshes the context itself, as it always does. Only
    gridrules' own functions (its modules and generated ones) load this way, and only where numba's Cache has
    the methods this relies on; anywhere else numba does what it always does."""
    from numba.core import caching
    from numba.core.runtime import rtsys

    cache = caching.Cache
    if not all(hasattr(cache, name) for name in ("load_overload", "_load_overload",
                                                 "_guard_against_spurious_io_errors")):
        return
    usual = cache.load_overload

    def load_overload(self, sig, target_context):
        module = getattr(getattr(self, "_py_func", None), "__module__", None) or ""
        if not module.startswith(("gridrules.", "gridrules_gen_")):
            return usual(self, sig, target_context)
        rtsys.initialize(target_context)
        with self._guard_against_spurious_io_errors():
            return self._load_overload(sig, target_context)

    cache.load_overload = load_overload


def _damaged_indexes_dropped() -> None:
    """Make numba read a cache's index file that is damaged (a write cut short, a full disk) as no index: numba
    failed on it at every load and every save, so every compiled run was an internal error until the cache was
    cleared. Such a file goes, and what it indexed is compiled and indexed afresh; a damaged data file (a
    function's compiled code) goes too, and that function is compiled again. Only reading the index is
    guarded (any other failure of a load or save is reported as it was), and only where numba reads its
    indexes as this relies on."""
    from numba.core import caching

    index_file = getattr(caching, "IndexDataCacheFile", None)
    usual = getattr(index_file, "_load_index", None)
    if usual is None:
        return

    def load_index(self):
        try:
            return usual(self)
        except (EOFError, pickle.UnpicklingError, ValueError, TypeError, AttributeError, IndexError):
            try:
                os.unlink(self._index_path)
            except OSError:
                pass
            return {}

    index_file._load_index = load_index

    usual_data = getattr(index_file, "_load_data", None)
    if usual_data is None:
        return

    def load_data(self, name):  # (a damaged data file alike: numba's `load` reads an OSError as no entry)
        try:
            return usual_data(self, name)
        except (EOFError, pickle.UnpicklingError, ValueError, TypeError, AttributeError, IndexError) as err:
            try:
                os.unlink(self._data_path(name))
            except OSError:
                pass
            raise OSError(f"a damaged cache file: {err}") from None

    index_file._load_data = load_data


def numba_index(py_file: Path, function: str, first_line: int) -> Path:
    """The index file numba's cache keeps for a function once it has compiled it: numba names the folder after
    the source's folder and the file after the module, function and first line. (Looked up by name: listing the
    folder, which holds every generated module's files, took ~0.1 s in a cache grown large.)"""
    import_numba()  # (first: numba's own import would load scipy, see there)
    from numba.core import config
    from numba.core.caching import _CacheLocator

    folder = Path(config.CACHE_DIR or cache_dir() / "numba") / _CacheLocator.get_suitable_cache_subpath(str(py_file))
    version = f"{sys.version_info[0]}{sys.version_info[1]}{getattr(sys, 'abiflags', '')}"
    return folder / f"{py_file.stem}.{function}-{first_line}.py{version}.nbi"
