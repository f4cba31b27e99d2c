"""Extension modules built ahead of time: a game's generated module and one native search loop compiled together
(numba.pycc) into a CPython extension module, which later runs import without numba and call without numba's
dispatcher. A whole process (the CLI's `solve`) then starts ~0.2 s sooner (numba's import) and each search
starts ~0.1 ms sooner (typing the loop's arguments), and the loop calls the game's entry points directly rather
than through function pointers.

An extension module is built for one board shape: the generated code, which reads the board's dimensions at
run time so that one JIT-compiled module serves every board, gets them as constants (codegen.for_board), and its
bitboard loops and shifts are then known in advance (~2x on Flood-It's heuristic), as are the places of the
state's fields (`board` is the rows, the columns and the head of SG that says where the fields lie:
CompiledSystem.board); and, where numba compiles that, without numba's reference counting (~2x again).

An extension is built in a process of its own (`python -m gridrules.compiled.extension`) and moved into the
cache atomically: cache_dir()/extensions/NAME.so, NAME a hash of the generated source, the board (its shape and
the state's layout), the loop, whether the loop runs deadlock tests, everything the generated module's name
depends on (system._versions), loops.py, codegen.py, this file and this machine's CPU (the code is built for it).
Building needs a C compiler; a build that fails leaves a note beside, so later runs do not try again, and the
search runs on numba's JIT as it would have.
"""
from __future__ import annotations

import functools
import hashlib
import importlib.machinery
import importlib.util
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

from ..cache import cache_dir


def numba_version() -> str:
    """What tells numba's installations apart: a digest of its version file, read rather than imported
    (importing numba costs ~0.2 s a start), else its version."""
    spec = importlib.util.find_spec("numba")
    if spec is not None and spec.origin:
        version_file = Path(spec.origin).with_name("_version.py")
        if version_file.is_file():
            return hashlib.sha256(version_file.read_bytes()).hexdigest()[:12]
    from . import import_numba

    import_numba()
    import numba

    return numba.__version__


def _cpu() -> str:
    """What the native code is built for: this CPU's features (Linux), else its name."""
    try:
        with open("/proc/cpuinfo") as info:
            return next((line for line in info if line.startswith("flags")), "")
    except OSError:
        import platform

        return platform.machine() + platform.processor()


@functools.lru_cache(maxsize=64)
def name(source: str, loop: str, dead: bool, board: tuple) -> str:
    """The extension module's name (and its file's): a digest of all its code depends on."""
    key = "\n".join([source, _depends(), loop, str(dead), str(board)])
    return "gridrules_ext_" + hashlib.sha256(key.encode()).hexdigest()[:20]


@functools.cache
def _depends() -> str:
    """What else an extension module's code depends on: what the generated module's name does, the loops, how
    the module is made for a board (codegen.for_board, this file), and the CPU it is built for."""
    from .system import _versions

    here = Path(__file__).parent
    code = b"".join((here / name).read_bytes() for name in ("loops.py", "codegen.py", "extension.py"))
    return "\n".join([_versions(), hashlib.sha256(code).hexdigest(), _cpu()])


def _path(module: str) -> Path:
    return cache_dir() / "extensions" / (module + sysconfig.get_config_var("EXT_SUFFIX"))


def enabled() -> bool:
    """Whether extension modules are built and used: unless GRIDRULES_EXTENSIONS=0."""
    return os.environ.get("GRIDRULES_EXTENSIONS") != "0"


def load(source: str, loop: str, dead: bool, board: tuple):
    """The extension module of this generated source, loop and board (CompiledSystem.board), or None when none
    has been built (or they are turned off)."""
    if not enabled():
        return None
    module = name(source, loop, dead, board)
    if module in sys.modules:
        return sys.modules[module]
    path = _path(module)
    if not path.exists():
        return None
    loader = importlib.machinery.ExtensionFileLoader(module, str(path))
    spec = importlib.util.spec_from_file_location(module, path, loader=loader)
    try:
        ext = importlib.util.module_from_spec(spec)
        loader.exec_module(ext)
    except (ImportError, OSError) as err:  # (damaged, say: the JIT runs the search, and no build is retried)
        from ..cache import store

        store(path.with_name(module + ".failed"), f"{path} does not load: {err}".encode())
        path.unlink(missing_ok=True)
        return None
    sys.modules[module] = ext
    return ext


_WANTED: dict[str, tuple[str, str, bool, tuple[int, int]]] = {}  # extension name -> want's arguments
_STARTED: set[str] = set()  # the extensions this process has started building (build_wanted)


def want(source: str, loop: str, dead: bool, board: tuple) -> None:
    """Note that a search ran loops.<loop> over this generated source on a board of this shape on numba's JIT,
    for want of its extension module: build_wanted builds those noted (nothing, while extensions are off)."""
    if enabled():
        _WANTED.setdefault(name(source, loop, dead, board), (source, loop, dead, board))


def build_wanted() -> bool:
    """Start building the extension modules noted by `want` (and not failed before, nor started by this process
    already) in a process of its own that outlives this one, at a low priority; such processes build one at a
    time (a lock in the cache: _build_jobs). Whether a build was asked for."""
    import json
    import time

    from ..cache import write_atomic
    from .system import module_file

    wanted = list(_WANTED.items())
    _WANTED.clear()
    if not sys.executable:
        return False
    job_file = None
    try:  # (a cache that cannot be written only means no extension: nothing is lost)
        jobs = []
        for module, (source, loop, dead, board) in wanted:
            path = _path(module)
            if module not in _STARTED and not path.exists() and not path.with_name(module + ".failed").exists():
                jobs.append([str(module_file(source)), loop, dead, [*board[:2], list(board[2])], str(path)])
        if not jobs:
            return False
        folder = cache_dir() / "extensions"
        job_file = folder / f"{os.getpid()}-{time.time_ns()}.jobs"
        write_atomic(job_file, json.dumps(jobs).encode())  # (whole: the lock's holder may take it at once)
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))  # (this process's imports)
        subprocess.Popen([sys.executable, "-m", __name__, str(folder)], env=env, stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        _STARTED.update(module for module, _ in wanted)
    except OSError:
        if job_file is not None:
            Path(job_file).unlink(missing_ok=True)
        return False
    return True


def build_wanted_now() -> None:
    """Build the extension modules noted by `want` here and now (what build_wanted starts in a process of its
    own), those that failed before excepted: for benchmarks, whose warm-ups stand for a user's earlier run."""
    wanted = list(_WANTED.values())
    _WANTED.clear()
    for source, loop, dead, board in wanted:
        module = name(source, loop, dead, board)
        if load(source, loop, dead, board) is None and not _path(module).with_name(module + ".failed").exists():
            try:
                build(source, loop, dead, board)
            except RuntimeError:  # (its note says why; numba's JIT runs the search, as it would have)
                pass


def build(source: str, loop: str, dead: bool, board: tuple):
    """Build the extension module now, in this process, and load it (a RuntimeError, and its note NAME.failed
    left beside, when the build fails)."""
    from .system import module_file

    module = name(source, loop, dead, board)
    _build_or_note(str(module_file(source)), loop, dead, board, str(_path(module)))
    return load(source, loop, dead, board)


def _build_jobs(folder: Path) -> None:
    """The builds asked for in the job files of `folder` (build_wanted), one after another, by one process at a
    time (the lock): a process that finds the lock held leaves its job file to the holder, which takes every
    job file there until none is left, and looks once more after it lets go of the lock. So a run whose levels
    have several board shapes, asking for each shape's module as it meets it, gets each built, and runs in a
    row that ask while a build goes on leave no processes waiting."""
    try:
        os.nice(10)
    except OSError:
        pass
    try:
        import fcntl
    except ImportError:  # (no locks here: builds may overlap, each moving its module into place whole)
        fcntl = None
    while any(folder.glob("*.jobs")):
        with open(folder / "build.lock", "w") as lock:
            if fcntl is not None:
                try:
                    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    return  # (the holder takes this process's jobs)
            while jobs := _take_jobs(folder):
                for module_path, loop, dead, board, out in jobs:
                    if not Path(out).exists():
                        try:
                            _build_or_note(module_path, loop, dead, (*board[:2], tuple(board[2])), out)
                        except RuntimeError:
                            pass


def _take_jobs(folder: Path) -> list:
    """The jobs of every job file in `folder`, the files removed (by the lock's holder alone)."""
    import json

    jobs = []
    for job_file in sorted(folder.glob("*.jobs")):
        try:
            jobs += json.loads(job_file.read_text())
        except (OSError, ValueError):  # (a file half written, or gone: its process writes it whole, then starts)
            continue
        finally:
            job_file.unlink(missing_ok=True)
    return jobs


def _build_or_note(module_path: str, loop: str, dead: bool, board: tuple, out: str) -> None:
    """_build, or on failure a note of why beside where the module would be, then a RuntimeError."""
    import traceback

    try:
        _build(module_path, loop, dead, board, out)
    except Exception as err:  # (any failure to build means only that the JIT runs the search, as it can)
        from ..cache import store

        failed = Path(out).with_name(Path(out).name.split(".")[0] + ".failed")
        store(failed, traceback.format_exc().encode())
        raise RuntimeError(f"building {out} failed: {err}") from err


def _wrapper(loop_name: str, entries: dict):
    """The exported function: loops.<loop_name> with the game's entry points bound and its work tuple given as
    six arrays (an export takes arrays and numbers only), with the signature it is exported with."""
    import inspect

    from numba import njit, types

    from . import loops

    native = getattr(loops, loop_name)
    names = list(inspect.signature(native.py_func).parameters)
    args = native.signature.args
    assert names[-1] == "W" and all(isinstance(a, types.FunctionType) for a in args[:4]), names
    work = [f"W{k}" for k in range(len(args[-1]))]
    params = ", ".join(names[4:-1] + work)
    code = (f"def {loop_name}({params}):\n"
            f"    LOOP(expand, heuristic, goal, dead, {', '.join(names[4:-1])}, ({', '.join(work)},))\n")
    scope = dict(entries, LOOP=njit(_uncached_callees(native.py_func)))
    exec(compile(code, f"<{loop_name} export>", "exec"), scope)
    return scope[loop_name], types.void(*args[4:-1], *args[-1])


def _uncached_callees(py_func):
    """py_func, its helpers that take a game's entry point (`expand`, say) replaced, at any depth, by copies numba
    does not cache on disk. Called with the game's dispatchers (not function pointers), such a helper is typed
    for them, and a cached one would add to its cache index a typing that names the game's module: every later
    load of that index (a JIT run's, another build's) would import each game module ever built, and fail once
    one no longer imports (a runtime helper it calls removed, say)."""
    import inspect
    import types as pytypes

    from numba import njit
    from numba.core.registry import CPUDispatcher

    takes_entry = {"expand", "heuristic", "goal", "dead"}
    copies: dict = {}  # helper -> its uncached copy (made before its own callees: a helper may call itself)

    def function(func, scope: dict):
        return pytypes.FunctionType(func.__code__, scope, func.__name__, func.__defaults__, func.__closure__)

    def rebound(func) -> dict:
        """func's globals, its helpers that take an entry point replaced by their copies."""
        scope = dict(func.__globals__)
        for name in func.__code__.co_names:
            helper = scope.get(name)
            if isinstance(helper, CPUDispatcher) and takes_entry & set(inspect.signature(helper.py_func).parameters):
                if helper not in copies:
                    inner = {}  # (filled once the copy is known: its callees may include itself)
                    copies[helper] = njit(function(helper.py_func, inner))
                    inner.update(rebound(helper.py_func))
                scope[name] = copies[helper]
        return scope

    return function(py_func, rebound(py_func))


def _build(module_path: str, loop_name: str, dead: bool, board: tuple, out: str) -> None:
    """Compile the generated module at module_path, made for a board of this shape, with loops.<loop_name> (and
    loops.rehash) into the extension module `out`: without numba's reference counting where the module allows
    it, else with it (codegen.for_board): a module that makes arrays goes straight to counting, and one that numba
    refuses for another reason gets a note beside it (system.counted_only)."""
    from . import import_numba
    from .codegen import for_board
    from .system import counted_only, note_refusal

    import_numba()
    from numba.core.errors import NumbaError

    text = Path(module_path).read_text()
    # (numba's refusal is the module's, whatever the board: its note spares the other board shapes the attempt)
    if not counted_only(text, Path(module_path)):
        try:
            _compile(for_board(text, *board, refcounts=False), loop_name, dead, out)
            return
        except NumbaError as err:  # (the module allocates an array, or returns one it was not given)
            note_refusal(Path(module_path), err)
    _compile(for_board(text, *board), loop_name, dead, out)


def _compile(source: str, loop_name: str, dead: bool, out: str) -> None:
    """pycc's part of _build: through a folder beside `out`, then moved into place."""
    import tempfile
    import warnings

    from numba import njit
    from numba.core.errors import NumbaExperimentalFeatureWarning, NumbaPendingDeprecationWarning

    from . import loops
    from .system import load_module

    target = Path(out)
    # (imported as a run on the JIT would import it, its entry points compiled or read from numba's cache: pycc
    # links that code in)
    mod = load_module(source)
    entries = dict(expand=mod.expand, heuristic=mod.heuristic, goal=mod.goal,
                   dead=mod.deadlock if dead else mod.goal)
    target.parent.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings(), tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        warnings.simplefilter("ignore", NumbaPendingDeprecationWarning)  # (pycc: see bench/README.md)
        warnings.simplefilter("ignore", NumbaExperimentalFeatureWarning)  # (the first-class functions of loops)
        from numba.pycc import CC

        cc = CC(target.name.split(".")[0])
        cc.output_dir = tmp
        cc.target_cpu = "host"
        cc.verbose = False
        func, signature = _wrapper(loop_name, entries)
        cc.export(loop_name, signature)(func)
        cc.export("rehash", loops.rehash.signature)(njit(loops.rehash.py_func))
        cc.compile()
        built = next(Path(tmp).glob(target.name.split(".")[0] + "*"))
        os.replace(built, target)


if __name__ == "__main__":
    _build_jobs(Path(sys.argv[1]))
