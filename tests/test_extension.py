"""Extension modules (gridrules/compiled/extension.py): a game's generated module and a native search loop built
ahead of time into one CPython extension module, which later processes load without numba."""
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gridrules import api
from gridrules.compiled import extension

ROOT = Path(__file__).resolve().parent.parent
FLOODIT = ROOT / "rulesets/floodit/levels/hdu4127-sample.txt"


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """Extension modules built and looked for in a folder of this test's own, forgotten after it."""
    monkeypatch.setattr(extension, "_path", lambda module: tmp_path / (module + ".so"))
    monkeypatch.setattr(extension, "cache_dir", lambda: tmp_path)  # (job files: tmp_path/extensions)
    monkeypatch.setattr(extension, "_WANTED", {})
    monkeypatch.setattr(extension, "_STARTED", set())
    monkeypatch.setenv("GRIDRULES_EXTENSIONS", "1")  # (conftest turns them off for the other tests)
    before = set(sys.modules)
    yield tmp_path
    for name in set(sys.modules) - before:
        if name.startswith("gridrules_ext_"):
            del sys.modules[name]


def _searched(sol):
    s = sol.stats
    return sol.status, sol.moves, sol.cost, sol.optimal, s.expanded, s.generated, s.duplicates, s.peak_states


@pytest.mark.parametrize("ruleset, level, case, algorithm", [
    ("floodit", FLOODIT, 1, "astar"),
    ("drops", ROOT / "rulesets/drops/levels/seed000.txt", 0, "astar"),  # (its tables grow: rehash)
    ("lianliankan", ROOT / "rulesets/lianliankan/levels/hdu1175-sample.txt", 0, "idastar"),  # (deadlock tests)
])
def test_a_search_through_an_extension_module_is_the_search_numbas_jit_runs(folder, ruleset, level, case,
                                                                             algorithm):
    inst = api.load(ruleset, str(level))[case]
    jit = api.system(inst)
    loop = "deepening" if algorithm == "idastar" else "best_first"
    assert extension.load(jit.source, loop, jit.deadlocks, jit.board) is None
    expected = _searched(api.solve(jit, algorithm))
    assert expected[0] == "solved"

    assert extension.build(jit.source, loop, jit.deadlocks, jit.board) is not None
    ahead = api.system(inst)
    assert _searched(api.solve(ahead, algorithm)) == expected
    assert ahead._mod is None  # (the search never loaded the generated module, nor numba's JIT code)


def test_a_failed_build_leaves_its_reason_and_is_not_tried_again(folder, monkeypatch):
    inst = api.load("floodit", str(FLOODIT))[1]
    system = api.system(inst)

    def broken(*args):
        raise OSError("no C compiler here")

    monkeypatch.setattr(extension, "_build", broken)
    with pytest.raises(RuntimeError, match="no C compiler here"):
        extension.build(system.source, "best_first", False, system.board)
    note = next(folder.glob("*.failed")).read_text()
    assert "OSError: no C compiler here" in note
    extension.want(system.source, "best_first", False, system.board)
    assert not extension.build_wanted()  # (nothing started: the note says it failed)
    assert api.solve(system, "astar").cost == 3  # (numba's JIT runs the search, as before)


def test_a_module_numba_compiles_only_with_reference_counting_is_tried_without_once(tmp_path, monkeypatch):
    """The first build of a module numba refuses without reference counting tries that, notes the refusal and
    builds with counting; a build for another board shape reads the note and does not try again."""
    from numba.core.errors import NumbaError

    module = tmp_path / "gridrules_gen_x.py"
    module.write_text(api.system(api.load("floodit", str(FLOODIT))[1]).source)
    tried = []

    def compile_(source, loop, dead, out):
        tried.append((Path(out).name, "without reference counting" in source.splitlines()[0]))
        if tried[-1][1]:
            raise NumbaError("cannot allocate without NRT")

    monkeypatch.setattr(extension, "_compile", compile_)
    extension._build(str(module), "best_first", False, (3, 3, ()), str(tmp_path / "a.so"))
    extension._build(str(module), "best_first", False, (5, 5, ()), str(tmp_path / "b.so"))
    assert tried == [("a.so", True), ("a.so", False), ("b.so", False)]
    assert "cannot allocate without NRT" in (tmp_path / "gridrules_gen_x.counts").read_text()


def test_an_extension_module_that_does_not_load_is_noted_and_the_jit_runs_the_search(folder):
    inst = api.load("floodit", str(FLOODIT))[1]
    system = api.system(inst)
    module = extension.name(system.source, "best_first", False, system.board)
    (folder / (module + ".so")).write_bytes(b"not a shared object")
    assert api.solve(system, "astar").cost == 3
    assert "does not load" in (folder / (module + ".failed")).read_text()
    extension.want(system.source, "best_first", False, system.board)
    assert not extension.build_wanted()


def test_a_process_starts_each_build_once(folder, monkeypatch):
    """The CLI asks for builds after every level of a file (a build started early serves its later levels): a
    module already being built for this process is not asked for again, nor is one already built."""
    started = []
    monkeypatch.setattr(extension.subprocess, "Popen", lambda args, **kw: started.append(args))
    inst = api.load("floodit", str(FLOODIT))[1]
    system = api.system(inst)
    extension.want(system.source, "best_first", False, system.board)
    assert extension.build_wanted() and len(started) == 1
    extension.want(system.source, "best_first", False, system.board)
    assert not extension.build_wanted() and len(started) == 1
    extension.want(system.source, "deepening", False, system.board)  # (another loop: another module)
    assert extension.build_wanted() and len(started) == 2
    built = extension.name(system.source, "best_first", True, system.board)  # (one built already)
    (folder / (built + ".so")).write_bytes(b"")
    extension.want(system.source, "best_first", True, system.board)
    assert not extension.build_wanted() and len(started) == 2
    assert len(list((folder / "extensions").glob("*.jobs"))) == 2  # (for the build processes to take)


def test_a_build_process_that_finds_the_lock_held_leaves_its_jobs_to_the_holder(tmp_path, monkeypatch):
    """Build processes build one at a time: one that finds the lock held ends at once and leaves its job file;
    the holder takes every job file there, its own and those left to it, and builds each."""
    import fcntl
    import json

    built = []
    monkeypatch.setattr(extension, "_build_or_note", lambda *job: built.append(job[-1]))
    monkeypatch.setattr(os, "nice", lambda increment: 0)  # (this is the test's own process)
    outs = [str(tmp_path / f"ext{k}.so") for k in range(3)]
    for k, out in enumerate(outs):
        job_file = tmp_path / f"{extension.builder()}-{k}.jobs"  # (this gridrules's: see the test below)
        job_file.write_text(json.dumps([["m.py", "best_first", False, [3, 3, [1, 2]], out]]))
    with open(tmp_path / "build.lock", "w") as held:  # (another process building)
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        extension._build_jobs(tmp_path)
        assert built == [] and len(list(tmp_path.glob("*.jobs"))) == 3
    extension._build_jobs(tmp_path)
    assert built == outs and not list(tmp_path.glob("*.jobs"))


def test_a_cache_that_cannot_be_written_builds_nothing_and_loses_nothing(folder, monkeypatch):
    import gridrules.compiled.system as compiled

    def unwritable(source):
        raise PermissionError("read-only cache")

    inst = api.load("floodit", str(FLOODIT))[1]
    system = api.system(inst)
    extension.want(system.source, "best_first", False, system.board)
    monkeypatch.setattr(compiled, "module_file", unwritable)
    assert not extension.build_wanted()


def test_the_cli_builds_extensions_in_the_background_and_the_next_run_starts_without_numba(tmp_path):
    """Two board shapes: the module of the first is asked for after the first level, while the second level
    runs, and the second's as the run ends, while the first is still being built; both are built, one after
    the other, and the next run needs neither numba nor a build."""
    level = tmp_path / "two-boards.txt"
    level.write_text("2\n0 1\n1 0\n3\n0 1 2\n1 1 2\n2 2 1\n0\n")
    env = dict(os.environ, GRIDRULES_CACHE=str(tmp_path / "cache"), NUMBA_CACHE_DIR=str(tmp_path / "numba"),
               GRIDRULES_EXTENSIONS="1")
    first = subprocess.run([sys.executable, "-m", "gridrules", "solve", "floodit", str(level)], env=env,
                           capture_output=True, text=True, timeout=600)
    assert first.returncode == 0, first.stderr
    assert "building native extension modules in the background" in first.stderr
    built = tmp_path / "cache" / "extensions"
    deadline = time.monotonic() + 600
    while len(list(built.glob("gridrules_ext_*"))) < 2 and time.monotonic() < deadline:
        failed = list(built.glob("*.failed"))
        assert not failed, failed[0].read_text()
        time.sleep(0.5)
    assert len(list(built.glob("gridrules_ext_*"))) == 2, list(built.iterdir())
    code = ("import sys\nfrom gridrules.cli import main\n"
            "try:\n    main(['solve', 'floodit', sys.argv[1]])\n"
            "finally:\n    print('numba imported:', 'numba' in sys.modules, file=sys.stderr)\n")
    second = subprocess.run([sys.executable, "-c", code, str(level)], env=env, capture_output=True, text=True,
                            timeout=600)
    assert second.returncode == 0, second.stderr
    assert second.stdout == first.stdout == "case 1: 2 moves (optimal): 1 0\ncase 2: 3 moves (optimal): 1 2 1\n"
    assert second.stderr.strip() == "numba imported: False"  # (nor compiled, nor built again: nothing said)


def test_building_an_extension_leaves_the_cached_loop_helpers_untyped_for_the_games_own_code(folder):
    """A helper of the loops that takes a game's entry point (`expand`) is compiled afresh for an extension, not
    typed for the game's dispatcher in numba's disk cache: that cache's index would otherwise name every game
    module ever built, and loading it would import them all (and fail once one no longer imports)."""
    from numba.core import types
    from numba.core.registry import CPUDispatcher

    from gridrules.compiled import loops, runtime

    inst = api.load("lianliankan", str(ROOT / "rulesets/lianliankan/levels/hdu1175-sample.txt"))[0]
    jit = api.system(inst)
    assert extension.build(jit.source, "deepening", jit.deadlocks, jit.board) is not None
    helpers = [f for m in (loops, runtime) for f in vars(m).values() if isinstance(f, CPUDispatcher)]
    assert loops._begin_iteration in helpers
    typed_for = {f.__name__: type(arg) for f in helpers for sig in f.signatures for arg in sig
                 if isinstance(arg, types.Dispatcher)}
    assert typed_for == {}


def test_copies_of_gridrules_sharing_a_cache_take_only_their_own_jobs_and_heed_only_their_own_notes(folder,
                                                                                                 monkeypatch):
    """Another installation's builder must not build this one's modules (its runtime and loops differ: the build
    fails) nor this one's builder another's; a failure note another copy left is not this one's word."""
    import json

    started = []
    monkeypatch.setattr(extension.subprocess, "Popen", lambda args, **kw: started.append(args))
    inst = api.load("floodit", str(FLOODIT))[1]
    system = api.system(inst)
    module = extension.name(system.source, "best_first", False, system.board)
    (folder / (module + ".failed")).write_text("Traceback: built by another copy, without the builder line\n")
    extension.want(system.source, "best_first", False, system.board)
    assert extension.build_wanted() and len(started) == 1  # (the foreign note does not stop it)
    jobs = folder / "extensions"
    [own] = jobs.glob("*.jobs")
    assert own.name.startswith(extension.builder() + "-")
    foreign = jobs / "0123456789ab-1-2.jobs"
    foreign.write_text(json.dumps([["/nowhere/gridrules_gen_x.py", "best_first", False, [3, 3, []],
                                    str(folder / "gridrules_ext_foreign.so")]]))
    legacy = jobs / "77-3.jobs"  # (an older gridrules's job file: no builder in its name)
    legacy.write_text(foreign.read_text())
    taken = extension._take_jobs(jobs)
    assert [job[-1] for job in taken] == [str(extension._path(module))]
    assert not own.exists() and foreign.exists() and legacy.exists()
    monkeypatch.setattr(extension.os, "nice", lambda increment: 0)  # (not this test process's priority)
    extension._build_jobs(jobs)  # (nothing of its own left: it returns, and leaves the others' jobs alone)
    assert foreign.exists() and legacy.exists() and not list(folder.glob("*foreign*"))
    (folder / (module + ".failed")).write_text(f"builder {extension.builder()}\nOSError: no C compiler\n")
    extension._STARTED.clear()
    extension.want(system.source, "best_first", False, system.board)
    assert not extension.build_wanted() and len(started) == 1  # (its own note: not tried again)
