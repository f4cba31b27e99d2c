"""Every user mistake is exit 2 with a clear message on stderr, never a traceback."""
from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys

import pytest
from cli_support import SAMPLE

GOOD_HDU = "3\n0 1 2\n1 1 2\n2 2 1\n0\n"


@pytest.mark.parametrize("name, content, extra, message", [
    ("missing", None, [], "does not exist"),
    ("binary.txt", b"\x00\x01\x02\xff", [], "binary file"),
    ("utf16.txt", "3\n0 1 2\n1 1 2\n2 2 1\n0\n".encode("utf-16"), [], "is UTF-16 or UTF-32 text"),
    ("empty.txt", "", [], "the level file is empty"),
    ("blank.txt", "\n  \n", [], "the level file is empty"),
    ("ragged.txt", "012\n01\n", [], "ragged grid"),
    ("unknown.txt", "01?\n012\n", [], "unknown character `?`"),
    ("colour7.txt", "3\n0 1 7\n1 1 2\n2 2 1\n0\n", [], "value 7 is outside"),
    ("ok.txt", GOOD_HDU, ["--param", "nosuch=1"], "unknown parameter `nosuch`"),
    ("ok.txt", GOOD_HDU, ["--param", "colours=many"], "parameter `colours` must be an integer"),
    ("ok.txt", GOOD_HDU, ["--param", "colours"], "NAME=VALUE"),
    ("ok.txt", GOOD_HDU, ["--param", "colours=1_0"], "parameter `colours` must be an integer, not `1_0`"),
    ("ok.txt", GOOD_HDU, ["--param", "colours=\u0665"], "parameter `colours` must be an integer, not `\u0665`"),
    ("ok.txt", GOOD_HDU, ["--param", "pivot=1,\u0661"], "parameter `pivot` must be a cell `row,col`"),
    ("ok.txt", GOOD_HDU, ["--algorithm", "dfs"], "'dfs' is not one of"),
    ("ok.txt", GOOD_HDU, ["--heuristic", "nosuch"], "no heuristic `nosuch`"),
    ("ok.txt", GOOD_HDU, ["--level-format", "nosuch"], "does not read `nosuch` levels"),
    ("ok.txt", GOOD_HDU, ["--max-states", "0"], "--max-states"),
    ("ok.txt", GOOD_HDU, ["--format", "xml"], "--format"),
])
def test_input_errors_exit_2(run, tmp_path, name, content, extra, message):
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    r = run("solve", "floodit", path, *extra)
    assert r.code == 2, r.all
    assert message in r.err
    assert "Traceback" not in r.all
    assert r.out == ""


def test_level_errors_point_at_the_cell(run, write):
    level = write("unknown.txt", "01?\n012\n")
    r = run("solve", "floodit", level)
    assert r.code == 2
    assert f"{level}:1:3: unknown character `?`" in r.err
    assert "^" in r.err  # the caret under the bad cell


def test_colour_out_of_range_with_default_colours(run, write):
    level = write("colour7.txt", "3\n0 1 7\n1 1 2\n2 2 1\n0\n")
    r = run("solve", "floodit", level)
    assert r.code == 2 and f"{level}:2:5:" in r.err and "0..5" in r.err


def test_unknown_ruleset(run):
    r = run("solve", "flodit", SAMPLE)
    assert r.code == 2 and "no ruleset named `flodit`" in r.err and "floodit" in r.err
    assert "Traceback" not in r.all


def test_missing_rule_file(run, tmp_path):
    r = run("solve", tmp_path / "nosuch.grl", SAMPLE)
    assert r.code == 2 and "does not exist" in r.err and "Traceback" not in r.all


def test_a_name_too_long_to_look_up_and_a_device_are_usage_errors(run, tmp_path):
    """The system refuses to look up a name of over 255 bytes (Path.exists raised); a device would be read
    until memory runs out."""
    long = tmp_path / ("a" * 300 + ".txt")
    r = run("solve", "floodit", long)
    assert (r.code, r.out) == (2, "") and "Traceback" not in r.all
    assert r.err == f"error: cannot read level file `{long}`: File name too long\n"
    r = run("validate", tmp_path / ("b" * 300 + ".grl"))
    assert r.code == 2 and "File name too long" in r.err and "Traceback" not in r.all
    r = run("solve", "floodit", "/dev/zero")
    assert (r.code, r.err) == (2, "error: level file `/dev/zero` is a device, not a file\n")


def test_a_nul_byte_in_a_text_file_is_located(run, write):
    level = write("nul.txt", "012\n0\x001\n")
    r = run("solve", "floodit", level)
    assert (r.code, r.err) == (2, f"error: level file `{level}` holds a NUL byte at line 2, column 2: text has none\n")


@pytest.mark.parametrize("command, data, where", [
    ("solve", b"012\ncaf\xe9\n", "byte 0xE9 at line 2, column 4"),  # (Latin-1)
    ("solve", b"\xef\xbb\xbf3\n0 1 \xff\n", "byte 0xFF at line 2, column 5"),  # (after a byte-order mark)
    ("validate", "game g\n# caf\u00e9 \u2014 ok ".encode() + b"\xc3\n", "byte 0xC3 at line 2, column 13"),
])
def test_text_that_is_not_utf8_is_located(run, write, command, data, where):
    """(It was located by its byte offset in the file.) Columns count characters, as a rule error's do."""
    path = write("latin1.grl" if command == "validate" else "latin1.txt", data)
    r = run(command, str(path)) if command == "validate" else run(command, "floodit", path)
    what = "rule file" if command == "validate" else "level file"
    assert (r.code, r.err) == (2, f"error: {what} `{path}` is not UTF-8 text: {where} is not UTF-8 (an editor can "
                                  "save the file as UTF-8)\n")


NESTED_LOOPS = "game g\nlayer a: 0..1\naction go():\n" + "".join(
    "    " * (k + 1) + f"for x{k} in 0..0:\n" for k in range(21)) + "    " * 22 + "a[(0, 0)] = 1\n" + \
    "goal: a[(0, 0)] == 1\nlevel grid:\n    '.': pass\n"
LONG_SUM = "game g\nlayer a: 0..300\naction go():\n    a[(0, 0)] = " + " + ".join(["1"] * 210) + \
    "\ngoal: a[(0, 0)] == 210\nlevel grid:\n    '.': pass\n"


DEEP_NOT = LONG_SUM.replace("1 + " * 209 + "1", "210").replace("goal: a[(0, 0)] == 210", "goal: " + "not " * 301 +
                                                                 "a[(0, 0)] != 210")


@pytest.mark.parametrize("rules", [LONG_SUM, DEEP_NOT])
def test_long_sums_and_chains_of_not_compile(run, write, rules):
    """A sum of 210 terms, 301 `not`s in a row: their code goes into temporaries before its parentheses nest
    past the 200 levels Python's parser takes (codegen._NESTING)."""
    path, level = write("g.grl", rules), write("g.txt", ".\n")
    r = run("solve", path, level)
    assert r.code == 0 and r.out.startswith("1 move (optimal)\n"), r.all


@pytest.mark.parametrize("rules, why", [(NESTED_LOOPS, "too many statically nested blocks")])
def test_rules_nested_past_what_python_compiles_are_a_usage_error(run, write, rules, why):
    """The compiled backend writes Python: 21 loops in loops pass the checker but not Python's compiler (20
    nested blocks). Exit 2 with the way out; the reference backend runs them."""
    path, level = write("g.grl", rules), write("g.txt", ".\n")
    r = run("solve", path, level)
    assert r.code == 2 and "Traceback" not in r.all
    assert r.err.splitlines()[-1] == (f"error: the compiled backend cannot run `g`: its rules nest deeper than Python "
                                      f"compiles ({why}); split the long expression or loop nest, or use --backend "
                                      "reference")
    r = run("solve", "--backend", "reference", path, level)
    assert r.code == 0 and r.out.startswith("1 move (optimal)"), r.all


def test_rule_errors_in_solve_are_exit_2_with_location(run, write):
    rules = write("bad.grl", "game bad\nlayer colour: 0..5\ngoal: nosuch\n")
    r = run("solve", rules, SAMPLE)
    assert r.code == 2 and "Traceback" not in r.all
    assert re.search(rf"{re.escape(str(rules))}:\d+:\d+: ", r.err)


def test_missing_arguments_are_usage_errors(run):
    r = run("solve", "floodit")
    assert r.code == 2 and "Missing argument" in r.err
    r = run("nosuch-command")
    assert r.code == 2


def test_unknown_backend(run):
    r = run("solve", "floodit", SAMPLE, "--backend", "nosuch")
    assert r.code == 2 and "nosuch" in r.err and "reference" in r.err and "compiled" in r.err


def test_compiled_backend_stops_on_the_same_rule_error(run):
    """A cell layer stored off the board: both backends stop with the same located rule error (exit 2)."""
    args = ("solve", "tests/golden/runtime/cell_layer_off_board.grl", "tests/golden/runtime/cell_layer_off_board.txt")
    ref, nat = run(*args, "--backend", "reference"), run(*args, "--backend", "compiled")
    assert ref.code == nat.code == 2
    message = "layer `target` would be stored holding a cell outside the 1x2 board"
    assert message in ref.err and message in nat.err
    assert "tests/golden/runtime/cell_layer_off_board.grl:7:5: " + message in nat.err


def test_a_mistyped_extensions_setting_is_an_error_before_any_command(run):
    r = run("list", env={"GRIDRULES_EXTENSIONS": "abc"})
    assert r.code == 2 and r.out == ""
    assert r.err == ("error: GRIDRULES_EXTENSIONS is `abc`: set it to 0 (no extension modules) or 1 (build and use "
                     "them: the default)\n")
    for value in ("0", "1", ""):
        ok = run("list", env={"GRIDRULES_EXTENSIONS": value})
        assert ok.code == 0 and ok.err == "", value


def test_a_mistyped_backend_setting_names_the_variable_not_the_option(run):
    """(click's own message named `--backend`, which the user had not given.) It is an error only where it would
    be used: not beside an explicit --backend, nor for a command that uses no backend."""
    bad = {"GRIDRULES_BACKEND": "foo"}
    r = run("solve", "floodit", "hdu4127-sample.txt", env=bad)
    assert r.code == 2 and r.out == ""
    assert r.err == ("error: GRIDRULES_BACKEND is `foo`: set it to compiled (native code: the default) or reference "
                     "(the plain-Python interpreter)\n")
    for args in (("solve", "floodit", "hdu4127-sample.txt", "--backend", "reference"), ("list",)):
        ok = run(*args, env=bad)
        assert ok.code == 0 and ok.err == "", args
    ok = run("solve", "floodit", "hdu4127-sample.txt", "--format", "json", env={"GRIDRULES_BACKEND": "reference"})
    assert ok.code == 0 and json.loads(ok.out.splitlines()[0])["backend"] == "reference"


def test_compiling_is_announced_once(run, tmp_path, monkeypatch):
    """A first use of the compiled backend (the default) says on stderr that it compiles native code; a second
    run does not."""
    import gridrules.cli
    import gridrules.compiled.system as compiled

    monkeypatch.delenv("GRIDRULES_BACKEND", raising=False)
    monkeypatch.setattr(gridrules.cli, "_noticed", [])  # (once per process: each test starts afresh)
    monkeypatch.setattr(compiled, "needs_compiling", lambda source: True)
    first = run("solve", "floodit", SAMPLE)
    assert first.code == 0 and first.err.count("compiling native code for `floodit` (once") == 1
    monkeypatch.setattr(compiled, "needs_compiling", lambda source: False)
    monkeypatch.setattr(gridrules.cli, "_noticed", [])
    again = run("solve", "floodit", SAMPLE, "--backend", "compiled")
    assert again.code == 0 and "compiling" not in again.err


# ---- arguments found by fuzzing ---------------------------------------------------------------------
SECONDS_WANTED = "is not a number of seconds greater than 0 and at most 1,000,000,000 (about 31 years)"


@pytest.mark.parametrize("command", ["solve", "show"])
@pytest.mark.parametrize("value", ["inf", "1e400", "nan", "-inf", "0", "-3", "1000000000.5", "soon"])
def test_time_limit_takes_finite_seconds_up_to_a_billion(run, command, value):
    """float() reads `inf`, `1e400` and `nan`, which the search's timer cannot take (an internal error once)."""
    r = run(command, "floodit", SAMPLE, "--time-limit", value)
    assert r.code == 2, r.all
    assert r.err.splitlines()[-1] == f"Error: Invalid value for '--time-limit': `{value}` {SECONDS_WANTED}"
    assert r.out == "" and "Traceback" not in r.all


def test_time_limit_of_a_billion_seconds_runs(run):
    r = run("solve", "floodit", SAMPLE, "--time-limit", "1e9", "--backend", "reference")
    assert r.code == 0, r.all
    assert r.out == "case 1: 0 moves (optimal)\ncase 2: 3 moves (optimal): 1 2 1\n"


def test_max_states_beyond_64_bits_is_refused(run):
    """The native searches count states in 64-bit integers: a larger --max-states was an internal error."""
    r = run("solve", "floodit", SAMPLE, "--max-states", "99999999999999999999")
    assert r.code == 2, r.all
    assert r.err.splitlines()[-1] == ("Error: Invalid value for '--max-states': `99999999999999999999` is not a whole "
                                      "number from 1 to 1,000,000,000,000,000")
    assert r.out == ""


@pytest.mark.parametrize("args, message", [
    (("solve", "--max-states", "1e5x"), "'--max-states': `1e5x` is not a whole number from 1 to 1,000,000,000,000,000"),
    (("solve", "--max-states", "2.5"), "'--max-states': `2.5` is not a whole number from 1 to 1,000,000,000,000,000"),
    (("solve", "--max-states", "0"), "'--max-states': `0` is not a whole number from 1 to 1,000,000,000,000,000"),
    (("solve", "--jobs", "-1"), "'--jobs' / '-j': `-1` is not a whole number of at least 0"),
    (("show", "--case", "first"), "'--case': `first` is not a whole number of at least 1"),
    (("moves", "--case", "0"), "'--case': `0` is not a whole number of at least 1"),
])
def test_counts_that_are_no_whole_number_in_range(run, args, message):
    """(click's IntRange said "'1e5' is not a valid integer range.")"""
    r = run(args[0], "floodit", SAMPLE, *args[1:])
    assert r.code == 2, r.all
    assert r.err.splitlines()[-1] == "Error: Invalid value for " + message
    assert r.out == "" and "Traceback" not in r.all


@pytest.mark.parametrize("value", ["1e5", "100_000", "100000"])
def test_a_count_may_be_written_in_exponent_form_or_with_underscores(run, value):
    r = run("solve", "floodit", SAMPLE, "--max-states", value)
    assert r.code == 0, r.all
    assert r.out == "case 1: 0 moves (optimal)\ncase 2: 3 moves (optimal): 1 2 1\n"


RULESET_EMPTY = ("Error: Invalid value for 'RULESET': the empty string names no ruleset; give a bundled ruleset's "
                 "name (see `gridrules list`) or a rule file's path")
LEVEL_EMPTY = ("the empty string names no level file; give a level file's path or the name of one of the "
               "ruleset's sample levels")


@pytest.mark.parametrize("command", ["solve", "show", "moves", "query"])
def test_empty_ruleset_or_level_is_a_usage_error(run, command):
    """An empty argument used to be read as the current folder (``rule file `.` is a directory``)."""
    r = run(command, "", SAMPLE)
    assert r.code == 2, r.all
    assert r.err.splitlines()[-1] == RULESET_EMPTY
    assert r.out == ""
    r = run(command, "floodit", "")
    assert r.code == 2, r.all
    assert r.err.splitlines()[-1] == f"Error: Invalid value for 'LEVEL': {LEVEL_EMPTY}"
    assert r.out == ""


def test_validate_refuses_an_empty_file_or_level(run):
    r = run("validate", "floodit", "")
    assert r.code == 2, r.all
    assert r.err.splitlines()[-1] == RULESET_EMPTY.replace("'RULESET'", "'FILE...'")
    assert r.out == ""
    r = run("validate", "floodit", "--level", "")
    assert r.code == 2, r.all
    assert r.err.splitlines()[-1] == f"Error: Invalid value for '--level': {LEVEL_EMPTY}"
    assert r.out == ""


# Three Flood-It boards; the second holds a colour 9 (line 6, column 3).
ONE_WRONG_OF_THREE = "3\n0 1 2\n1 1 2\n2 2 1\n2\n1 9\n1 2\n2\n0 1\n1 0\n0\n"
WRONG_AT = "6:3: value 9 is outside `colour`'s domain 0..5"


def test_a_wrong_level_of_several_is_reported_in_its_place_and_the_others_solved(run, write):
    """Nothing the user had is lost: the levels around a wrong one are still solved, its line names the place of
    the error, the error itself is on stderr (file:line:col, the line, a caret), and the exit code is 2."""
    level = write("three.txt", ONE_WRONG_OF_THREE)
    r = run("solve", "floodit", level, "--backend", "reference")
    assert r.code == 2
    assert r.out == (f"case 1: 3 moves (optimal): 1 2 1\ncase 2: error at {level}:6:3 (on stderr)\n"
                     "case 3: 2 moves (optimal): 1 0\n")
    assert r.err.startswith(f"{level}:{WRONG_AT}\n  1 9\n    ^\n") and "Traceback" not in r.all
    records = [json.loads(line) for line in run("solve", "floodit", level, "--backend", "reference",
                                                "--format", "json").out.splitlines()]
    assert [rec["status"] for rec in records] == ["solved", "error", "solved"]
    assert records[1]["error"] == f"{level}:{WRONG_AT}" and records[1]["moves"] is None
    assert set(records[1]) == set(records[0]) | {"error"}


def test_show_moves_and_validate_go_past_a_wrong_level(run, write):
    level = write("three.txt", ONE_WRONG_OF_THREE)
    shown = run("show", "floodit", level)
    assert shown.code == 2 and f"case 2: error at {level}:6:3 (on stderr)\n" in shown.out
    assert shown.out.count("(3x3, floodit)") == 1 and shown.out.count("(2x2, floodit)") == 1
    listed = run("moves", "floodit", level, "--backend", "reference")
    assert listed.code == 2 and listed.out.splitlines()[2:4] == [f"case 2: error at {level}:6:3 (on stderr)",
                                                                 "case 3: 1 legal move"]
    checked = run("validate", "floodit", "--level", level)
    assert checked.code == 2
    assert checked.out == f"floodit: ok\n{level}: 1 of 3 levels wrong (format hdu4127)\n"
    assert f"{level}:{WRONG_AT}" in checked.err


def test_the_wrong_level_itself_or_a_file_of_one_stops_with_its_error(run, write):
    level = write("three.txt", ONE_WRONG_OF_THREE)
    for command in ("show", "moves"):
        picked = run(command, "floodit", level, "--case", "2")
        assert picked.code == 2 and picked.out == "" and picked.err.startswith(f"{level}:{WRONG_AT}\n")
        assert run(command, "floodit", level, "--case", "3").code == 0
    alone = write("one.txt", "2\n1 9\n1 2\n0\n")
    r = run("solve", "floodit", alone)
    assert r.code == 2 and r.out == "" and r.err.startswith(f"{alone}:2:3: value 9 is outside")


def test_query_stops_at_a_wrong_level_after_the_answers_before_it(run, write):
    """A judge reads the answers in order: the first case's are printed, then the second case's error."""
    level = write("pairs.txt", "3 4\n1 2 3 4\n0 0 0 0\n4 3 2 1\n1\n1 1 3 4\n2 2\n1 -1\n1 1\n1\n1 1 2 2\n0 0\n")
    r = run("query", "lianliankan", level, "--backend", "reference")
    assert r.code == 2 and r.out == "YES\n"
    assert r.err.startswith(f"{level}:8:3: value -1 is outside `tile`'s domain")


def test_query_on_a_file_whose_every_level_is_wrong_reports_the_first_error(run, write):
    """Not `asks no queries`: levels that failed may have asked some, so the first one's error comes, where it is."""
    level = write("both.txt", "1 2\n1 999\n1\n1 1 1 2\n1 2\n1 998\n1\n1 1 1 2\n0 0\n")
    r = run("query", "lianliankan", level, "--backend", "reference")
    assert r.code == 2 and r.out == ""
    assert r.err.startswith(f"{level}:2:3: value 999 is outside `tile`'s domain")


def test_a_judge_file_whose_case_holds_no_number_there_is_read_past_it(run, write):
    """HDU 4127: a cell that is no number spoils its case alone (its size and the count of its numbers still say
    where the next case starts); a size that is no number stops the file, where it is."""
    level = write("tokens.txt", "3\n1 2 3\n1 x 3\n1 2 3\n2\n1 1\n1 2\n0\n")
    r = run("solve", "floodit", level, "--backend", "reference")
    assert r.code == 2 and r.out == f"case 1: error at {level}:3:3 (on stderr)\ncase 2: 1 move (optimal): 2\n"
    assert r.err.startswith(f"{level}:3:3: expected a number, found `x`\n")
    size = write("size.txt", "3\n1 2 3\n1 2 3\n1 2 3\nx\n1 1\n1 2\n0\n")
    r = run("solve", "floodit", size, "--backend", "reference")
    assert r.code == 2 and r.out == "" and r.err.startswith(f"{size}:5:1: expected a number, found `x`\n")


def test_a_query_off_its_board_spoils_the_queries_not_the_board(run, write):
    """HDU 1175: `solve` still solves a case one of whose queries names a cell off its board; `query` stops there
    with that error, as it does at a case whose board holds a wrong number."""
    board = "3 4\n1 2 3 4\n0 0 0 0\n4 3 2 1\n"
    level = write("pairs.txt", f"{board}1\n1 1 3 9\n{board}1\n1 1 3 4\n0 0\n")
    solved = run("solve", "lianliankan", level, "--backend", "reference")
    assert solved.code == 0 and solved.out.count("4 moves (optimal)") == 2
    asked = run("query", "lianliankan", level, "--backend", "reference")
    assert asked.code == 2 and asked.out == ""
    assert asked.err.startswith(f"{level}:6:5: query 1 of case 1 names the cell 3,9, outside the 3x4 board\n")
    checked = run("validate", "lianliankan", "--level", level)
    assert checked.code == 2 and checked.out.endswith(f"{level}: 1 of 2 levels wrong (format hdu1175)\n")
    spoiled = write("spoiled.txt", f"{board}1\n1 1 3 4\n3 4\n1 2 3 4\n0 ? 0 0\n4 3 2 1\n1\n1 1 3 4\n0 0\n")
    r = run("solve", "lianliankan", spoiled, "--backend", "reference")
    assert r.code == 2 and r.out.splitlines()[1] == f"case 2: error at {spoiled}:9:3 (on stderr)"


def _interrupted_in_c() -> None:
    """Ctrl-C as it lands in a callback that C calls (libc's qsort calling a comparison, as LLVM calls numba's
    object-cache callback): Python cannot raise it there and hands it to sys.unraisablehook."""
    import ctypes

    def compare(a, b):
        raise KeyboardInterrupt

    numbers = (ctypes.c_int * 2)(2, 1)
    cmp = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)(compare)
    ctypes.CDLL(None).qsort(numbers, 2, ctypes.sizeof(ctypes.c_int), cmp)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="calls libc's qsort")
def test_ctrl_c_that_a_callback_swallowed_is_an_interrupt_not_a_bug(run, monkeypatch):
    """Ctrl-C while numba compiles can land in its object-cache callback (C calling Python), which cannot raise
    it: Python printed `Exception ignored ... KeyboardInterrupt` and numba then failed (`no compiled object
    yet`), reported as an internal error (exit 4). Now the command ends as interrupted (exit 130), at that error
    or, when nothing fails, once it is done (its answers printed); the noise is not printed."""
    import gridrules.api

    solve = gridrules.api.solve

    def compile_cut_short(*args, **kwargs):
        _interrupted_in_c()
        raise RuntimeError("no compiled object yet for <Library '_goal'>")

    monkeypatch.setattr(gridrules.api, "solve", compile_cut_short)
    r = run("solve", "floodit", "hdu4127-sample.txt")
    assert (r.code, r.out, r.err) == (130, "", "interrupted\n")

    def interrupted_then_done(*args, **kwargs):
        _interrupted_in_c()
        return solve(*args, **kwargs)

    monkeypatch.setattr(gridrules.api, "solve", interrupted_then_done)
    r = run("solve", "floodit", "hdu4127-sample.txt")
    assert (r.code, r.err) == (130, "interrupted\n")
    assert r.out == "case 1: 0 moves (optimal)\ncase 2: 3 moves (optimal): 1 2 1\n"
    hook = sys.unraisablehook
    assert run("list").code == 0 and sys.unraisablehook is hook  # (the hook is a command's alone)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
def test_output_that_cannot_be_written_is_an_input_error_not_a_bug(tmp_path):
    """stdout on a full disk was reported as an internal error (exit 4); stderr on a full disk made a rule error
    exit 1 (the report itself failed); stdout closed lost every answer without a word (exit 0)."""
    gridrules = [sys.executable, "-m", "gridrules"]
    with open("/dev/full", "w") as full:
        r = subprocess.run(gridrules + ["list"], stdout=full, stderr=subprocess.PIPE, text=True)
    assert (r.returncode, r.stderr) == (2, "error: cannot write the output: No space left on device\n")
    bad = tmp_path / "bad.grl"
    bad.write_text("game x\nlayer a: bool\naction f(p: cell):\n    a[p] = 3\ngoal: true\n")
    with open("/dev/full", "w") as full:
        r = subprocess.run(gridrules + ["validate", str(bad)], stdout=subprocess.PIPE, stderr=full, text=True)
    assert (r.returncode, r.stdout) == (2, "")
    r = subprocess.run(shlex.join(gridrules) + " list >&-", shell=True, capture_output=True, text=True)
    assert (r.returncode, r.stderr) == (2, "error: standard output is closed: gridrules prints its answers there\n")


def test_a_symbolic_link_to_nothing_is_named_as_such(run, tmp_path, monkeypatch):
    """A link that loops, or points at a file not there, was reported as a file that does not exist (a level) or
    as no ruleset of that name (`validate NAME`, a bare name being a bundled ruleset's unless a file is there)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "loop.txt").symlink_to(tmp_path / "loop.txt")
    (tmp_path / "gone.grl").symlink_to(tmp_path / "missing.grl")
    for args, what in ((("solve", "floodit", "loop.txt"), "level file"), (("validate", "loop.txt"), "rule file"),
                       (("validate", "gone.grl"), "rule file")):
        r = run(*args)
        assert r.code == 2 and r.out == ""
        assert r.err == (f"error: {what} `{args[-1]}` is a symbolic link to nothing that can be read (a file not "
                         "there, or a loop of links)\n"), args


def test_too_many_moves_shows_the_range_a_parameter_widened(run):
    """(the message named the action's parameter `c` alone, never the `colours` that --param had made huge)"""
    r = run("moves", "floodit", "hdu4127-sample.txt", "-p", "colours=2000000")
    assert r.code == 2 and r.out == ""
    assert r.err == ("error: action `flood` has 2,000,000 parameter combinations on this level (its parameter `c` in "
                     "`0..colours-1` takes 2,000,000 values), more than the 1,000,000 moves a level may list; "
                     "`gridrules query` asks about single moves without listing them all\n")


OUT_OF_MEMORY = ("out of memory: the search outgrew this machine's memory before it finished; `--max-states N` "
                 "stops a search at N states, with the best solution found so far and the least cost it proved")


def test_running_out_of_memory_is_a_budget_not_a_bug(run, monkeypatch):
    """A search whose arrays outgrow the machine's memory (numpy's MemoryError) said "internal error ... This is
    a bug in gridrules" (exit 4, found by a robustness review); it is a budget that ran out: exit 3, and the way
    to stay within one."""
    import gridrules.compiled.search as search

    def no_room(*args, **kwargs):
        raise MemoryError("Unable to allocate 2.00 GiB for an array with shape (268435456,) and data type int64")

    monkeypatch.setattr(search, "native_search", no_room)
    r = run("solve", "floodit", SAMPLE)
    assert r.code == 3, r.all
    assert r.err.strip() == f"error: {OUT_OF_MEMORY}", r.err
    assert "bug" not in r.all and "Traceback" not in r.all
