"""`gridrules solve`: answers, JSON Lines, verification, exit codes."""
from __future__ import annotations

import json
import re
import os
import shutil
import subprocess
import sys

import pytest
from cli_support import ROOT, SAMPLE

from gridrules import api
from gridrules.cli import EXIT_BUDGET, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_OK, EXIT_UNSOLVABLE, worst


def replay(inst, moves):
    """Replay moves with the reference system; the final state and the total cost."""
    s = api.system(inst, "reference")
    state, cost = s.initial(), 0
    for m in moves:
        step = next(((nxt, k) for text, nxt, k in s.successors(state) if text == m), None)
        assert step is not None, f"move {m} is not legal"
        state, cost = step[0], cost + step[1]
    return s, state, cost


def test_hdu_sample_text(run):
    r = run("solve", "floodit", SAMPLE)
    assert r.code == EXIT_OK, r.all
    assert r.out.splitlines() == ["case 1: 0 moves (optimal)", "case 2: 3 moves (optimal): 1 2 1"]
    # no progress or chatter when stderr is not a terminal; only the once-a-run notice that native code is being
    # compiled, where this process is the first to need it (a cold cache: CI after the loops or the code generator
    # changed)
    notices = ("compiling native code for `floodit` (once: ", "compiling the native search loops (once: ")
    assert [line for line in r.err.splitlines() if not line.startswith(notices)] == []
    assert len(r.err.splitlines()) <= 1, r.err  # (said once, whatever compiled)
    again = run("solve", "floodit", SAMPLE)  # everything is loaded in this process now: nothing to say at all
    assert again.code == EXIT_OK and again.out == r.out and again.err == ""


def test_hdu_sample_answers_are_0_and_3_with_every_algorithm(run):
    for algorithm in ("bfs", "astar", "idastar", "iddfs"):
        r = run("solve", "floodit", SAMPLE, "--algorithm", algorithm, "--format", "json")
        assert r.code == EXIT_OK, r.all
        records = [json.loads(line) for line in r.out.splitlines()]
        assert [x["cost"] for x in records] == [0, 3]
        assert all(x["optimal"] and x["verified"] and x["algorithm"] == algorithm for x in records)


def test_hdu_sample_json_fields_and_moves_replay(run):
    r = run("solve", "floodit", SAMPLE, "--format", "json")
    assert r.code == EXIT_OK, r.all
    lines = r.out.splitlines()
    assert len(lines) == 2  # JSON Lines: one object per level
    records = [json.loads(line) for line in lines]
    insts = api.load("floodit", str(SAMPLE))
    for rec, inst in zip(records, insts):
        for key in ("level", "status", "cost", "length", "moves", "optimal", "verified", "algorithm", "backend",
                    "stats"):
            assert key in rec
        assert set(rec["stats"]) >= {"expanded", "generated", "seconds"}
        assert rec["status"] == "solved" and rec["optimal"] is True and rec["verified"] is True
        assert rec["algorithm"] == "astar"  # floodit declares admissible heuristics
        assert rec["length"] == len(rec["moves"]) and all(isinstance(m, str) for m in rec["moves"])
        s, state, cost = replay(inst, rec["moves"])
        assert s.is_goal(state) and cost == rec["cost"]
    assert [x["level"] for x in records] == ["case 1", "case 2"]
    assert [x["cost"] for x in records] == [0, 3]


def test_compiled_is_the_default_backend(run, monkeypatch):
    """`compiled` unless --backend or GRIDRULES_BACKEND says otherwise; both give the same answers."""
    monkeypatch.delenv("GRIDRULES_BACKEND", raising=False)
    runs = {"default": run("solve", "floodit", SAMPLE, "--format", "json"),
            "--backend": run("solve", "floodit", SAMPLE, "--format", "json", "--backend", "reference"),
            "env": run("solve", "floodit", SAMPLE, "--format", "json", env={"GRIDRULES_BACKEND": "reference"})}
    records = {k: [json.loads(line) for line in r.out.splitlines()] for k, r in runs.items()}
    assert {k: [x["backend"] for x in v] for k, v in records.items()} == {
        "default": ["compiled"] * 2, "--backend": ["reference"] * 2, "env": ["reference"] * 2}
    assert len({tuple((x["cost"], tuple(x["moves"])) for x in v) for v in records.values()}) == 1
    bad = run("solve", "floodit", SAMPLE, env={"GRIDRULES_BACKEND": "native"})
    assert bad.code == 2 and bad.err.startswith("error: GRIDRULES_BACKEND is `native`: set it to compiled")
    bad = run("solve", "floodit", SAMPLE, "--backend", "native")
    assert bad.code == 2 and "'native' is not one of 'compiled', 'reference'" in bad.err


def test_single_level_file_prints_summary_then_moves(run, write):
    level = write("board.txt", "012\n112\n221\n")
    r = run("solve", "floodit", level)
    assert r.code == EXIT_OK, r.all
    assert r.out.splitlines() == ["3 moves (optimal)", "1 2 1"]


def test_bundled_sample_found_by_name(run):
    r = run("solve", "floodit", "hdu4127-sample.txt")
    assert r.code == EXIT_OK, r.all
    assert "case 2: 3 moves (optimal)" in r.out


def test_default_algorithm_is_bfs_without_admissible_heuristic(run, walk, write):
    level = write("open.txt", "S..\n.#.\n..T\n")
    r = run("solve", walk, level, "--format", "json")
    rec = json.loads(r.out)
    assert r.code == EXIT_OK and rec["algorithm"] == "bfs" and rec["cost"] == 4 and rec["optimal"]


def test_inadmissible_heuristic_is_not_claimed_optimal(run, walk, write):
    level = write("open.txt", "S..\n.#.\n..T\n")
    r = run("solve", walk, level, "--heuristic", "far", "--format", "json")
    rec = json.loads(r.out)
    assert r.code == EXIT_OK and rec["status"] == "solved" and rec["verified"]
    assert rec["algorithm"] == "astar" and rec["heuristic"] == "far" and rec["optimal"] is False
    r = run("solve", walk, level, "--heuristic", "far")
    assert "(not proven optimal)" in r.out


def test_impossible_level_is_proved_unsolvable(run, walk, write):
    level = write("walled.txt", "S.#T\n..#.\n")
    r = run("solve", walk, level)
    assert r.code == EXIT_UNSOLVABLE, r.all
    assert "unsolvable" in r.out
    r = run("solve", walk, level, "--format", "json")
    rec = json.loads(r.out)
    assert r.code == EXIT_UNSOLVABLE
    assert rec["status"] == "unsolvable" and rec["optimal"] is True and rec["moves"] is None
    assert rec["verified"] is False


def test_max_states_1_exhausts_the_budget(run, write):
    level = write("b5.txt", "14412\n43540\n40324\n11534\n43351\n")
    r = run("solve", "floodit", level, "--max-states", "1")
    assert r.code == EXIT_BUDGET, r.all
    assert "budget exhausted" in r.out
    r = run("solve", "floodit", level, "--max-states", "1", "--format", "json")
    rec = json.loads(r.out)
    assert r.code == EXIT_BUDGET and rec["status"] == "budget_exhausted" and rec["optimal"] is False


def test_a_search_stopped_early_says_what_it_proved(run, write):
    """Stopped after a few states, each search says the least cost it has ruled out below, on both backends, in
    text and JSON; never more than the optimum (9 moves: `solve` proves it)."""
    level = write("b5.txt", "14412\n43540\n40324\n11534\n43351\n")
    assert run("solve", "floodit", level).out.startswith("9 moves (optimal)")
    for backend in ("compiled", "reference"):
        for algorithm in ("astar", "bfs", "idastar", "iddfs"):
            r = run("solve", "floodit", level, "--max-states", "3", "-a", algorithm, "--backend", backend)
            assert r.code == EXIT_BUDGET, r.all
            proved = re.search(r"no solution found; proven: every solution costs at least (\d+)$", r.out.strip())
            assert proved and 0 < int(proved[1]) <= 9, (backend, algorithm, r.out)
            rec = json.loads(run("solve", "floodit", level, "--max-states", "3", "-a", algorithm, "--backend",
                                 backend, "--format", "json").out)
            assert rec["bound"] == int(proved[1]) and rec["moves"] is None


def test_exit_code_is_the_worst_of_the_levels():
    assert worst([]) == EXIT_OK
    assert worst([EXIT_OK, EXIT_UNSOLVABLE, EXIT_OK]) == EXIT_UNSOLVABLE
    assert worst([EXIT_UNSOLVABLE, EXIT_BUDGET]) == EXIT_BUDGET
    assert worst([EXIT_BUDGET, EXIT_INTERRUPTED, EXIT_UNSOLVABLE]) == EXIT_INTERRUPTED
    assert worst([EXIT_INTERRUPTED, EXIT_INTERNAL]) == EXIT_INTERNAL


def fake_search(monkeypatch, fn):
    """Every search, Python or native, becomes fn(system, algorithm, budget)."""
    import solvers
    from gridrules.compiled.system import CompiledSystem

    monkeypatch.setattr(solvers, "solve", fn)
    monkeypatch.setattr(CompiledSystem, "search", lambda self, algorithm, budget=None: fn(self, algorithm, budget))


def test_a_solution_that_does_not_replay_is_an_internal_error(run, monkeypatch):
    from solvers import Solution, Stats

    def bogus(system, algorithm, budget):
        return Solution("solved", ("5",), 1, True, Stats(), algorithm)

    fake_search(monkeypatch, bogus)
    r = run("solve", "floodit", SAMPLE, "--format", "json")
    assert r.code == EXIT_INTERNAL
    assert "failed verification" in r.err and "Traceback" not in r.all
    assert all(json.loads(line)["verified"] is False for line in r.out.splitlines())
    r = run("solve", "floodit", SAMPLE)  # (as text: the moves that do not replay are not printed)
    assert r.code == EXIT_INTERNAL
    assert r.err == "".join(f"gridrules: internal error: the astar solution of case {k} failed verification: move 1 "
                            "`5` is not legal there\nThis is a bug in gridrules; please report it with the command "
                            "you ran and its files.\n" for k in (1, 2))
    assert r.out == ("case 1: no answer (the solution found did not replay: an internal error)\n"
                     "case 2: no answer (the solution found did not replay: an internal error)\n")


def test_unexpected_exception_is_exit_4_with_traceback_only_on_request(run, monkeypatch):
    def broken(system, algorithm, budget):
        raise RuntimeError("boom")

    fake_search(monkeypatch, broken)
    r = run("solve", "floodit", SAMPLE)
    assert r.code == EXIT_INTERNAL
    assert "internal error" in r.err and "boom" in r.err and "report" in r.err
    assert "Traceback" not in r.all
    r = run("solve", "floodit", SAMPLE, env={"GRIDRULES_DEBUG": "1"})
    assert r.code == EXIT_INTERNAL and "Traceback" in r.err


def test_interrupted_search_prints_best_so_far_and_exits_130(run, monkeypatch):
    from solvers import Solution, Stats

    def interrupted(system, algorithm, budget):
        if system.inst.level == "case 1":
            return Solution("solved", (), 0, True, Stats(), algorithm)
        return Solution("interrupted", ("1", "2", "1"), 3, False, Stats(), algorithm)

    fake_search(monkeypatch, interrupted)
    r = run("solve", "floodit", SAMPLE)
    assert r.code == EXIT_INTERRUPTED
    assert "case 2: interrupted" in r.out and "best found: 3 moves (not proven optimal): 1 2 1" in r.out


def test_ctrl_c_outside_the_search_exits_130(run, monkeypatch):
    from gridrules import cli

    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_load", interrupt)
    r = run("solve", "floodit", SAMPLE)
    assert r.code == EXIT_INTERRUPTED and "interrupted" in r.err and "Traceback" not in r.all


def test_progress_reporter_runs_only_after_a_second():
    from gridrules.cli import _Progress
    from solvers import Stats

    quiet = _Progress("", "astar", enabled=False)
    quiet(Stats(expanded=10, seconds=5.0))
    assert quiet.live is None
    p = _Progress("case 1: ", "bfs", enabled=True)
    p(Stats(expanded=10, seconds=0.5))
    assert not p.shown
    p(Stats(expanded=1000, seconds=2.0, depth=7))
    assert p.shown and "case 1: bfs: 1,000 states expanded, depth 7, 500 states/s" in p.text(Stats(1000, seconds=2.0, depth=7))
    p(Stats(expanded=2000, seconds=2.5, depth=8))
    p.close()
    assert p.live is None


def test_verbose_prints_statistics_on_stderr(run):
    r = run("solve", "floodit", SAMPLE, "-v")
    assert r.code == EXIT_OK
    assert "expanded" in r.err and "expanded" not in r.out


def test_help_documents_exit_codes_and_default_algorithm(run):
    r = run("solve", "--help")
    assert r.code == 0
    assert "Exit codes" in r.out and "130" in r.out
    assert "astar" in r.out and "admissible" in r.out and "bfs" in r.out


def test_installed_entry_point_and_python_m(tmp_path):
    exe = shutil.which("gridrules")
    if exe is None:
        pytest.skip("the gridrules console script is not installed (pip install -e .)")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.run([exe, "solve", "floodit", str(SAMPLE)], capture_output=True, text=True, cwd=tmp_path,
                       env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == ["case 1: 0 moves (optimal)", "case 2: 3 moves (optimal): 1 2 1"]
    p = subprocess.run([sys.executable, "-m", "gridrules", "solve", "floodit", str(tmp_path / "none.txt")],
                       capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    assert p.returncode == 2 and "does not exist" in p.stderr and "Traceback" not in p.stderr


def test_verify_replays_every_printed_solution():
    """The replay that guards every printed solution rejects an illegal move, a wrong cost and a non-goal end."""
    from gridrules import api
    from gridrules.cli import verify
    from solvers import SOLVED, Solution, Stats

    (inst,) = api.load("bloxorz", "rulesets/bloxorz/levels/level16.txt")
    ref = api.system(inst, "reference")
    good = ("R", "R", "R", "R", "swap", "R", "D", "swap")  # a prefix of the optimum: legal, not a goal

    def check(moves, cost):
        return verify(ref, Solution(SOLVED, tuple(moves), cost, True, Stats(), "test"))

    assert check(good, len(good)) == (False, "its 8 moves do not end in a goal")
    assert check(("R", "nosuch"), 2) == (False, "move 2 `nosuch` is not legal there")
    from solvers import solve

    best = solve(ref, "astar")
    assert check(best.moves, best.cost) == (True, None)
    assert check(best.moves, best.cost + 1) == (False, f"its moves cost {best.cost}, the solver said {best.cost + 1}")


def test_the_cycle_collector_is_held_while_starting_up_and_runs_during_searches():
    """`gridrules` holds Python's cycle collector off while it starts (numpy, the rules, the native code: ~12..15 %
    of a warm run was the collector running while start-up made its objects) and turns it on, with start-up's
    objects frozen out of its way, before the first search: a search in Python makes garbage of its own. In
    `--jobs` workers too."""
    code = ("import gc, sys\n"
            "from gridrules import api\n"
            "from gridrules.cli import main\n"
            "real = api.solve\n"
            "def solve(*args):\n"
            "    print('collector on:', gc.isenabled(), 'frozen:', gc.get_freeze_count() > 0, flush=True)\n"
            "    return real(*args)\n"
            "api.solve = solve\n"
            "print('before main, on:', gc.isenabled(), flush=True)\n"
            "try:\n"
            "    main(sys.argv[1:])\n"
            "finally:\n"
            "    print('after main, on:', gc.isenabled(), flush=True)\n")
    level = str(ROOT / "rulesets/floodit/levels/hdu4127-sample.txt")
    for extra in ([], ["--jobs", "2"]):
        r = subprocess.run([sys.executable, "-c", code, "solve", "floodit", level, "--backend", "reference", *extra],
                           capture_output=True, text=True, timeout=600)
        assert r.returncode == EXIT_OK, r.stderr
        lines = [line for line in r.stdout.splitlines() if not line.startswith("case")]
        assert lines[0] == "before main, on: True"
        assert lines[1:-1] == ["collector on: True frozen: True"] * 2, r.stdout  # (the sample's two cases)
        assert sorted(line for line in r.stdout.splitlines() if line.startswith("case")) == [
            "case 1: 0 moves (optimal)", "case 2: 3 moves (optimal): 1 2 1"]
    r = subprocess.run([sys.executable, "-c", code, "validate", "floodit"], capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == EXIT_OK, r.stderr
    assert r.stdout.splitlines()[-1] == "after main, on: True"  # (no search: the collector as it was)
