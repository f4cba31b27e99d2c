"""`gridrules solve --jobs N`: a file's levels solved in forked processes, with the output of one process."""
from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time

import pytest
from cli_support import ROOT

from gridrules.cli import EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="--jobs forks on Linux only")

BOARDS = [[[0, 1, 2], [1, 1, 2], [2, 2, 1]], [[0, 0], [0, 0]], [[0, 1], [1, 0]], [[2, 0, 1, 1], [0, 1, 2, 0],
          [1, 2, 0, 1], [2, 2, 1, 0]], [[3, 1, 1], [0, 2, 3], [1, 3, 0]], [[0, 1, 0], [1, 0, 1], [0, 1, 0]]]


def hdu(boards) -> str:
    return "".join(f"{len(b)}\n" + "".join(" ".join(map(str, row)) + "\n" for row in b) for b in boards) + "0\n"


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_several_processes_print_what_one_prints(run, write, fmt):
    level = write("boards.txt", hdu(BOARDS))

    def results(r):
        if fmt == "text":
            return r.out
        records = [json.loads(line) for line in r.out.splitlines()]
        for rec in records:
            del rec["stats"]["seconds"]
        return records

    one = run("solve", "floodit", level, "--format", fmt)
    for jobs in ("2", "3", "0"):
        many = run("solve", "floodit", level, "--format", fmt, "--jobs", jobs)
        assert (many.code, results(many)) == (one.code, results(one)) == (EXIT_OK, results(one))
    assert len(one.out.splitlines()) == len(BOARDS)
    if fmt == "json":
        assert [rec["index"] for rec in results(one)] == list(range(1, len(BOARDS) + 1))


# Level 2 divides by zero while its first moves are made.
DIVIDES = """\
game divides "Divides"
layer v: 0..9
action take(p: cell) "{p}":
    require v[p] > 0
    v[p] = v[p] - 1 + 0 * (1 / v[(0, 0)])
goal: empty(cells where v != 0)
level hdu4127:
    * : v = value
"""


def test_a_rule_error_in_another_process_is_reported_as_here(run, write):
    """A rule that fails on one level of several: that level's line names the error's place, the located error
    is on stderr, the other levels are still solved, exit 2: as when one process solves them."""
    rules = write("divides.grl", DIVIDES)
    level = write("divides.txt", hdu([[[1]], [[0, 1], [1, 1]], [[2]]]))
    run("solve", rules, level)  # (compiled now: neither run below says it compiles)
    one = run("solve", rules, level)
    many = run("solve", rules, level, "--jobs", "2")
    assert one.code == many.code == EXIT_USAGE
    assert one.out == many.out == (f"case 1: 1 move (optimal): 1,1\ncase 2: error at {rules}:5:28 (on stderr)\n"
                                   "case 3: 2 moves (optimal): 1,1 1,1\n")
    assert one.err == many.err and f"{rules}:5:28: division by zero" in many.err


def test_an_unexpected_exception_in_another_process_is_an_internal_error_as_here(run, monkeypatch):
    """A bug met by a forked process: exit 4, its type and message, its traceback only on request."""
    from solvers import Solution, Stats
    from gridrules.compiled.system import CompiledSystem

    def search(self, algorithm, budget=None):
        if self.inst.level == "case 2":
            raise RuntimeError("boom")
        return Solution("solved", (), 0, True, Stats(), algorithm)

    monkeypatch.setattr(CompiledSystem, "search", search)
    level = ROOT / "rulesets/floodit/levels/hdu4127-sample.txt"
    run("solve", "floodit", level)  # (compiled now: neither run below says it compiles)
    one, many = run("solve", "floodit", level), run("solve", "floodit", level, "--jobs", "2")
    assert one.code == many.code == EXIT_INTERNAL
    assert "internal error: RuntimeError: boom" in many.err and "Traceback" not in many.all
    assert one.err == many.err
    debug = run("solve", "floodit", level, "--jobs", "2", env={"GRIDRULES_DEBUG": "1"})
    assert debug.code == EXIT_INTERNAL and "Traceback" in debug.err and "RuntimeError: boom" in debug.err


def _ctrl_c_heard() -> None:
    """In the command's process before it starts: SIGINT's default, as a terminal's Ctrl-C finds it. A process
    started with SIGINT ignored keeps it ignored (Python respects that), and the tests may run in one: a shell
    without job control starts `pytest ... &` with SIGINT and SIGQUIT ignored, and these tests then failed as
    though the command had not heard the Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _solving_in_two(tmp_path, size: int, count: int, seed: int):
    """`gridrules solve` started on a file of a 1x1 board and `count` random size x size Flood-It boards, the
    reference backend and two processes (slow searches, the first level printed at once): (the file, the
    process)."""
    rng = random.Random(seed)
    boards = [[[0]]] + [[[rng.randrange(6) for _ in range(size)] for _ in range(size)] for _ in range(count)]
    level = tmp_path / f"slow-{size}.txt"
    level.write_text(hdu(boards))
    env = dict(os.environ, GRIDRULES_EXTENSIONS="0")
    proc = subprocess.Popen([sys.executable, "-m", "gridrules", "solve", "floodit", str(level), "--jobs", "2",
                             "--backend", "reference", "--time-limit", "60"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT, preexec_fn=_ctrl_c_heard)
    return level, proc


def test_ctrl_c_stops_the_other_processes(tmp_path):
    """Ctrl-C once the first level is printed: the levels in the other processes are given up, exit 130, no
    traceback, and the command ends at once."""
    _, proc = _solving_in_two(tmp_path, 14, 6, seed=5)
    try:
        first = proc.stdout.readline()
        assert first.startswith("case 1: 0 moves"), first
        time.sleep(1.0)  # (the other processes are searching)
        t = time.perf_counter()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert time.perf_counter() - t < 10
    assert proc.returncode == EXIT_INTERRUPTED, err
    assert "interrupted; 6 levels not solved" in err and "Traceback" not in err + out


def test_jobs_are_one_per_level_at_most_and_one_where_there_is_no_fork(monkeypatch, capsys):
    from gridrules.cli import _processes

    assert (_processes(8, 3), _processes(2, 1), _processes(1, 9)) == (3, 1, 1)
    assert _processes(0, 1000) == len(os.sched_getaffinity(0))
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(sys, "platform", "darwin")
    assert _processes(4, 10) == 1
    assert capsys.readouterr().err == ("warning: --jobs solves levels in parallel on Linux only; here they are "
                                       "solved one after another\n")
    assert _processes(4, 1) == 1 and capsys.readouterr().err == ""  # (one level: nothing to say)


def _killed_left(level) -> list[int]:
    """The processes still running a command on `level` (its path in their command line), killed now."""
    left = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if str(level).encode() in f.read():
                    os.kill(int(pid), signal.SIGKILL)
                    left.append(int(pid))
        except OSError:  # (ended meanwhile)
            pass
    return left


def test_ctrl_c_while_the_processes_start_leaves_none_behind(tmp_path):
    """Ctrl-C moments after the first level, while the other processes are being forked: a robustness sweep found
    one arriving in the middle of their start left those forked so far waiting for work, holding the output open
    after the command had ended (the caller waited for ever). Each run must end at once, with exit 130, and leave
    no process of its own behind."""
    for delay in [k * 0.0025 for k in range(24)]:  # (the start takes some 10..40 ms: a sweep meets it)
        level, proc = _solving_in_two(tmp_path, 14, 6, seed=5)
        try:
            assert proc.stdout.readline().startswith("case 1: 0 moves")
            time.sleep(delay)
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=20)
        finally:
            proc.kill()
            stray = _killed_left(level)
        assert proc.returncode == EXIT_INTERRUPTED and "Traceback" not in err, (delay, err)
        assert not stray, delay


def test_the_other_processes_end_with_the_command(tmp_path):
    """The command killed (`kill PID`, SIGTERM: no Ctrl-C to act on) takes its forked processes with it: they
    went on searching their levels, holding the output open, until each was done."""
    level, proc = _solving_in_two(tmp_path, 20, 4, seed=7)
    try:
        assert proc.stdout.readline().startswith("case 1: 0 moves")
        time.sleep(1.0)  # (the other processes are searching)
        proc.terminate()
        out, err = proc.communicate(timeout=20)  # (returns once every holder of the output has ended)
    finally:
        proc.kill()
        stray = _killed_left(level)
    assert proc.returncode == -signal.SIGTERM and out == "" and not stray
