"""The cache directory (GRIDRULES_CACHE): parser tables and checked rule files are kept there (a damaged or stale
entry is rebuilt, errors are never kept), and numba's files for a compiled module are found by name."""
from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from helpers import ROOT

VALIDATE = [sys.executable, "-m", "gridrules", "validate", str(ROOT / "rulesets/floodit/floodit.grl")]


def test_parser_tables_are_cached_and_a_damaged_file_is_rebuilt(tmp_path):
    env = dict(os.environ, GRIDRULES_CACHE=str(tmp_path))
    first = subprocess.run(VALIDATE, capture_output=True, text=True, env=env)
    assert first.returncode == 0, first.stderr
    (tables,) = (tmp_path / "parser").glob("*.lark")
    whole = tables.read_bytes()
    tables.write_bytes(whole[: len(whole) // 3])  # e.g. two processes raced, or the disk filled up
    again = subprocess.run(VALIDATE, capture_output=True, text=True, env=env)
    assert (again.returncode, again.stderr) == (0, "")
    assert again.stdout == first.stdout
    assert len(tables.read_bytes()) > len(whole) // 2  # written again in full


def test_a_checked_rule_file_is_kept_and_read_back_without_parsing(tmp_path, monkeypatch):
    from gridrules import api
    from gridrules.compiled.codegen import generate
    from gridrules.reference.system import interpreter

    monkeypatch.setenv("GRIDRULES_CACHE", str(tmp_path))
    first = api.load_rules("floodit")
    (kept,) = (tmp_path / "rules").glob("*.pickle")

    def no_parsing(*args):
        raise AssertionError("parsed again")

    monkeypatch.setattr(api, "compile_rules", no_parsing)
    again = api.load_rules("floodit")
    assert again == first and again is not first
    # the same native code: the compiled backend generates the same module from the game read back
    level = str(ROOT / "rulesets/floodit/levels/hdu4127-sample.txt")
    sources = []
    for game in (first, again):
        fmt, raws = api.read_levels(game, level)
        inst = api.instantiate(game, raws[0], fmt, {})
        sources.append(generate(inst, None, interpreter(inst))[0])
    assert sources[0] == sources[1]

    kept.write_bytes(kept.read_bytes()[:100])  # damaged (a full disk, a killed process): checked again
    monkeypatch.undo()
    monkeypatch.setenv("GRIDRULES_CACHE", str(tmp_path))
    assert api.load_rules("floodit") == first
    assert len(kept.read_bytes()) > 100


def test_an_edited_rule_file_is_checked_again_and_errors_are_never_kept(tmp_path, monkeypatch):
    from gridrules import api
    from gridrules.errors import ErrorList

    monkeypatch.setenv("GRIDRULES_CACHE", str(tmp_path / "cache"))
    rules = tmp_path / "lamp.grl"
    rules.write_text("game lamp\nlayer on: bool\naction press(c: cell):\n    on[c] = not on[c]\n"
                     "goal: empty(cells where not on)\nlevel grid:\n    '.' : pass\n    '#' : on = true\n")
    assert [a.name for a in api.load_rules(str(rules)).actions] == ["press"]
    rules.write_text(rules.read_text().replace("press", "toggle"))
    assert [a.name for a in api.load_rules(str(rules)).actions] == ["toggle"]
    rules.write_text(rules.read_text().replace("not on[c]", "not on[d]"))
    for _ in range(2):
        with pytest.raises(ErrorList) as err:
            api.load_rules(str(rules))
        (error,) = err.value.errors
        assert (error.span.source.path, error.span.line, error.message) == (str(rules), 4, "unknown name `d`")
    assert len(list((tmp_path / "cache" / "rules").glob("*.pickle"))) == 2


def test_rules_load_where_the_cache_cannot_be_written(tmp_path, monkeypatch):
    from gridrules import api

    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("GRIDRULES_CACHE", str(blocked))
    assert api.load_rules("floodit").name == "floodit"


def test_needs_compiling_looks_up_the_index_files_numba_writes(monkeypatch):
    from gridrules import api
    from gridrules.compiled.system import _module_name, needs_compiling

    (inst, _) = api.load("floodit", str(ROOT / "rulesets/floodit/levels/hdu4127-sample.txt"))
    native = api.system(inst)
    native.successors(inst.initial)  # (compiled now, or loaded from numba's cache: its files exist either way)
    loaded = native.jit_source  # (the module numba's JIT runs: the generated one without reference counting)
    assert loaded != native.source and "_nrt=False" in loaded
    monkeypatch.delitem(sys.modules, _module_name(loaded))  # (a module already imported needs nothing)
    assert not needs_compiling(loaded)
    assert needs_compiling(loaded + "# another module\n")


LAZY = r"""
import sys
from numba.core import base

refreshed = []
usual = base.BaseContext.refresh
base.BaseContext.refresh = lambda self: (refreshed.append(1), usual(self))[1]

from gridrules import api
from gridrules.compiled.system import _module_name
from solvers import solve

costs = [solve(api.system(inst), "astar").cost for inst in api.load("floodit", sys.argv[1])]
print(costs, len(refreshed))
if len(sys.argv) > 2:  # then a game never compiled before, in the same process
    open(sys.argv[2] + "/lamps.grl", "w").write(
        "game lamps\nlayer on: bool\naction press(c: cell):\n    on[c] = not on[c]\n"
        f"goal: count(cells where on) == 2 and {sys.argv[3]} > 0\nlevel grid:\n    '.' : pass\n    '#' : on = true\n")
    (inst,) = api.load(sys.argv[2] + "/lamps.grl", sys.argv[2] + "/lamps.txt")
    native = api.system(inst)
    print(_module_name(native.source))
    print(solve(native, "bfs").cost, len(refreshed) > 0)
"""


def test_cached_native_code_loads_without_numbas_registries_and_compiling_still_works(tmp_path):
    from gridrules.cache import cache_dir
    from gridrules.compiled import numba_index

    sample = str(ROOT / "rulesets/floodit/levels/hdu4127-sample.txt")
    (tmp_path / "lamps.txt").write_text("#..\n...\n")
    run = [sys.executable, "-c", LAZY, sample]
    warm = subprocess.run(run, capture_output=True, text=True)  # (compiles whatever is not cached yet)
    assert warm.returncode == 0, warm.stderr
    # a goal of its own (a number in it) makes a new module: it must compile after the cached code was loaded
    # the short way; its files are deleted after, so that the cache does not grow run after run
    again = subprocess.run(run + [str(tmp_path), str(time.time_ns())], capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    floodit, module, lamps = again.stdout.splitlines()
    try:
        assert (floodit, lamps) == ("[0, 3] 0", "1 True")
    finally:
        (cache_dir() / "modules" / f"{module}.py").unlink(missing_ok=True)
        for f in numba_index(cache_dir() / "modules" / f"{module}.py", "expand", 1).parent.glob(f"{module}.*"):
            f.unlink()


def twice(x):
    return 2 * x


def test_a_search_loop_says_when_it_compiles_and_loads_quietly_later(tmp_path, monkeypatch):
    from numba import types
    from numba.core import config

    from gridrules.compiled.loops import _Native

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))  # (numba's cache, empty; numba may read it again)
    monkeypatch.setattr(config, "CACHE_DIR", str(tmp_path))
    heard = []
    first = _Native(types.int64(types.int64), twice)
    assert not first.cached()
    assert first.load(heard.append)(21) == 42
    assert len(heard) == 1 and heard[0].startswith("compiling the native search loops (once")
    again = _Native(types.int64(types.int64), twice)  # (as a later run finds it)
    assert again.cached() and again.load(heard.append)(4) == 8
    assert len(heard) == 1


def test_a_search_loop_compiles_in_another_process_while_this_one_works(tmp_path, monkeypatch):
    """warm_up (a first run, while it compiles a game's module) has another process compile a loop into the
    cache; load then waits for it and reads the cache, saying nothing more."""
    from numba.core import config

    from gridrules.compiled.loops import _Native
    from native_sample import tripled

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))  # (the other process reads it from the environment)
    monkeypatch.setattr(config, "CACHE_DIR", str(tmp_path))
    heard = []
    loop = _Native(tripled.signature, tripled.py_func)  # (this process's own, fresh)
    assert not loop.cached()
    loop.warm_up(heard.append)
    worker = loop._warming
    assert worker is not None and len(heard) == 1 and heard[0].startswith("compiling the native search loops")
    loop.warm_up(heard.append)  # (one process at a time)
    assert loop._warming is worker
    compiled = loop.load(heard.append)
    assert worker.returncode == 0 and loop.cached() and loop._warming is None
    assert compiled(14) == 42 and sum(compiled.stats.cache_hits.values()) == 1
    assert len(heard) == 1
    loop.warm_up(heard.append)  # (loaded: nothing to start)
    assert loop._warming is None


def test_rules_too_deep_to_pickle_are_checked_and_run_but_not_kept(tmp_path, monkeypatch):
    """pickle recurses once a nesting level: rules that the checker takes but pickle cannot (an expression some
    400 levels deep) are used as checked, and checked again next time, rather than crashing the run."""
    from gridrules import api

    monkeypatch.setenv("GRIDRULES_CACHE", str(tmp_path / "cache"))
    rules = tmp_path / "lamp.grl"
    rules.write_text("game lamp\nlayer on: bool\naction press(c: cell):\n    on[c] = not on[c]\n"
                     "goal: empty(cells where not on)\nlevel grid:\n    '.' : pass\n    '#' : on = true\n")

    def too_deep(*args, **kwargs):
        raise RecursionError("maximum recursion depth exceeded while pickling an object")

    monkeypatch.setattr(api.pickle, "dumps", too_deep)
    assert [a.name for a in api.load_rules(str(rules)).actions] == ["press"]
    assert not list((tmp_path / "cache").rglob("*.pickle"))


def test_a_relative_or_tilde_cache_setting_is_made_absolute(tmp_path, monkeypatch):
    """A relative GRIDRULES_CACHE is taken from where gridrules runs, and `~` is the home folder even where the
    shell left it alone: the folder is absolute, so messages and the processes gridrules starts mean one place."""
    from gridrules.cache import cache_dir

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GRIDRULES_CACHE", "here/cache")
    assert cache_dir() == tmp_path / "here" / "cache"
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GRIDRULES_CACHE", "~/gr")
    assert cache_dir() == tmp_path / "home" / "gr"


def _cache_cli(root, *args, env=None):
    given = env or {}
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}  # (importing gridrules.compiled here
    env.update(GRIDRULES_CACHE=str(root), **given)                         # set it to the default cache's)
    return subprocess.run([sys.executable, "-m", "gridrules", *args], capture_output=True, text=True, env=env)


def test_a_cache_folder_made_by_the_parser_alone_is_tagged_so_it_can_be_cleared(tmp_path):
    """`validate` caches only the parser's tables; the folder it makes carries the tag all along (it was made
    without, and `cache --clear` then refused it as a folder gridrules had not made)."""
    root = tmp_path / "cache"
    assert _cache_cli(root, "validate", "floodit").returncode == 0
    assert (root / "CACHEDIR.TAG").is_file() and list((root / "parser").glob("*.lark"))
    cleared = _cache_cli(root, "cache", "--clear")
    assert cleared.returncode == 0, cleared.stderr
    assert not root.exists()


def test_the_cache_report_makes_no_folder_and_a_file_in_its_way_is_an_error(tmp_path):
    root = tmp_path / "a" / "b"
    for args, said in (((), f"{root}: nothing cached yet (the folder is made by the first run that needs it)\n"),
                       (("--prune",), f"nothing to delete: {root} is not there\n"),
                       (("--clear",), f"nothing to delete: {root} is not there\n")):
        r = _cache_cli(root, "cache", *args)
        assert (r.returncode, r.stdout, r.stderr) == (0, said, ""), args
    assert not (tmp_path / "a").exists()
    numba = _cache_cli(root, "cache", env={"NUMBA_CACHE_DIR": str(tmp_path / "n")})  # (said even then)
    assert numba.stdout.endswith(f"numba's machine code is kept in {tmp_path / 'n'} (NUMBA_CACHE_DIR), outside "
                                 "this cache: not counted nor deleted here\n")
    (tmp_path / "f").write_text("mine\n")
    for args in ((), ("--clear",)):
        r = _cache_cli(tmp_path / "f" / "sub", "cache", *args)
        assert r.returncode == 2 and r.stdout == ""
        assert r.stderr == (f"error: GRIDRULES_CACHE `{tmp_path / 'f' / 'sub'}` cannot be used (`{tmp_path / 'f'}` is "
                            "a file, not a folder): point GRIDRULES_CACHE at a folder (or unset it)\n")
    assert (tmp_path / "f").read_text() == "mine\n"


DAMAGED = """
import sys
sys.path.insert(0, sys.argv[1])
from gridrules.compiled import import_numba
import_numba()
import gridrules_gen_damaged_index as m
print(m.twice(21))
"""


@pytest.mark.parametrize("kind", ["nbi", "nbc"])
@pytest.mark.parametrize("damage", [b"", b"\x80\x04garbage", b"\x00" * 40])
def test_a_damaged_numba_index_of_gridrules_code_is_compiled_again_not_an_error(tmp_path, damage, kind):
    """numba fails on a truncated or garbled index file at every load and every save (a write cut short, a full
    disk): the search loops then failed every run with `EOFError` until the cache was cleared. The index goes
    and the function compiles again. A damaged data file (the compiled code, .nbc) was an internal
    `UnpicklingError` at every run (found by a robustness review): it goes too."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "gridrules_gen_damaged_index.py").write_text(
        "from numba import njit\n\n@njit(cache=True)\ndef twice(x):\n    return 2 * x\n")
    env = dict(os.environ, GRIDRULES_CACHE=str(tmp_path / "cache"))
    env.pop("NUMBA_CACHE_DIR", None)
    run = [sys.executable, "-c", DAMAGED, str(tmp_path / "src")]
    first = subprocess.run(run, capture_output=True, text=True, env=env)
    assert (first.returncode, first.stdout) == (0, "42\n"), first.stderr
    (index,) = (tmp_path / "cache" / "numba").rglob(f"gridrules_gen_damaged_index.twice-*.{kind}")
    index.write_bytes(damage)
    again = subprocess.run(run, capture_output=True, text=True, env=env)
    assert (again.returncode, again.stdout) == (0, "42\n"), again.stderr
    assert index.stat().st_size > 40  # (written afresh)


def test_a_cache_file_that_cannot_be_written_is_named(tmp_path, monkeypatch):
    """A full disk names no file (`OSError(ENOSPC)` from a write or a close): write_atomic names the one it wrote,
    so the CLI says the cache cannot be used rather than that the output cannot be written."""
    import errno

    from gridrules import cache

    def full(src, dst):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setenv("GRIDRULES_CACHE", str(tmp_path))
    monkeypatch.setattr(cache.os, "replace", full)
    target = tmp_path / "rules" / "x.pickle"
    with pytest.raises(OSError) as err:
        cache.write_atomic(target, b"data")
    assert (err.value.errno, err.value.filename) == (errno.ENOSPC, str(target))
    assert cache.not_usable(err.value).startswith(f"GRIDRULES_CACHE `{tmp_path}` cannot be used (No space left")
    assert list((tmp_path / "rules").iterdir()) == []  # (its temporary file gone too)
