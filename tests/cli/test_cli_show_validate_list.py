"""`gridrules show`, `validate` and `list`, and the generic board renderer."""
from __future__ import annotations

import json
import re

from cli_support import ROOT, SAMPLE

from gridrules import api
from gridrules.render import Renderer
from rulesets import bundled

# ---- show ------------------------------------------------------------------------------------------


def test_show_prints_every_level_in_its_own_notation(run):
    r = run("show", "floodit", SAMPLE)
    assert r.code == 0, r.all
    # (beside each board the flooded region the rules keep, below it the region's colour)
    assert r.out.splitlines() == ["case 1 (2x2, floodit)", "board   flooded", "0 0     ##", "0 0     ##", "now = 0", "",
                                  "case 2 (3x3, floodit)", "board   flooded", "0 1 2   #..", "1 1 2   ...",
                                  "2 2 1   ...", "now = 0"]


def test_show_solution_prints_the_board_after_each_move(run):
    r = run("show", "floodit", SAMPLE, "--case", "2", "--solution", "1 2 1")
    assert r.code == 0, r.all
    out = r.out
    # (the board as a player sees it: the rules' `show colour` paints the flooded region in its colour)
    assert "move 1/3: 1\nboard   flooded\n1 1 2   ##.\n1 1 2   ##.\n2 2 1   ...\nnow = 1" in out
    assert "move 2/3: 2\nboard   flooded\n2 2 2   ###\n2 2 2   ###\n2 2 1   ##.\nnow = 2" in out
    assert "move 3/3: 1\nboard   flooded\n1 1 1   ###\n1 1 1   ###\n1 1 1   ###\nnow = 1" in out
    assert "goal reached after 3 moves" in out


def test_show_rejects_an_illegal_move(run):
    r = run("show", "floodit", SAMPLE, "--case", "2", "--solution", "1 5")
    assert r.code == 2
    assert "move 2 `5` is not legal" in r.err and "legal moves are: 2" in r.err
    assert "move 1/2: 1" in r.out  # the boards up to the bad move were printed
    assert "Traceback" not in r.all


SPILL = """\
game spill "Spill"
layer ink: 0..2
layer wet: bool
global now: 0..2
show ink: SHOWN
def seen(p: cell):
    if wet[p]:
        return now
    return ink[p]
action pour(c: 0..2) "{c}":
    require c != now
    let edge = neighbours(cells where wet) where ink == c
    require any(edge)
    wet[group(edge, ink)] = true
    now = c
goal: empty(cells where not wet) or seen((0, 0)) == 3
init:
    now = ink[(0, 0)]
    wet[region((0, 0), ink == ink[(0, 0)])] = true
level grid:
    '0'..'2' : ink = value
"""


def test_show_draws_a_layer_as_its_show_rule_says(run, write):
    """The board drawn is the `show` rule's value at each cell, not the layer the rules keep; a `show` rule that
    faults is a located error (exit 2), after the boards drawn before it."""
    level = write("spill.txt", "0120\n1201\n")
    r = run("show", write("spill.grl", SPILL.replace("SHOWN", "seen(here)")), level, "--solution", "1")
    assert r.code == 1, r.all
    assert "move 1/1: 1\nboard   wet\n1120    ##..\n1201    #...\nnow = 1\n" in r.out
    r = run("show", write("bad.grl", SPILL.replace("SHOWN", "ink[(here.row + 1, here.col)]")), level)
    assert r.code == 2 and "Traceback" not in r.all
    assert "bad.grl:5:11: reading layer `ink` at (2, 0), which is outside the 2x4 board" in r.err, r.err
    assert r.out.endswith("spill.txt (2x4, spill)\n"), r.out  # (the level's title, then the fault)


def test_show_moves_that_do_not_win_exit_1(run):
    r = run("show", "floodit", SAMPLE, "--case", "2", "--solution", "1")
    assert r.code == 1 and "not reached" in r.err


def test_show_solution_needs_a_case_for_multi_level_files(run):
    r = run("show", "floodit", SAMPLE, "--solution", "1")
    assert r.code == 2 and "--case" in r.err
    r = run("show", "floodit", SAMPLE, "--case", "3")
    assert r.code == 2 and "holds 2 levels" in r.err
    r = run("show", "floodit", SAMPLE, "--solve", "--solution", "1")
    assert r.code == 2


def test_show_solve_replays_the_solution(run):
    r = run("show", "floodit", SAMPLE, "--case", "2", "--solve")
    assert r.code == 0, r.all
    assert "solution: 3 moves (optimal): 1 2 1" in r.out and "move 3/3: 1" in r.out


def test_show_marks_a_body_and_lists_globals(run, block, write):
    level = write("b1.txt", "+++....\n+S++++.\n+++++++\n.++++G+\n..++++.\n")
    r = run("show", block, level, "--solution", "R D")
    assert r.code == 1, r.all  # two moves do not win
    boards = r.out.split("\n\n")
    assert boards[0].splitlines()[1:6] == ["+++....", "+@++++.", "+++++++", ".++++G+", "..++++."]
    assert "block = Up at 2,2" in boards[0]
    assert boards[1].splitlines()[0:3] == ["move 1/2: R", "+++....", "++@@++."]  # lying along the row
    assert "block = Row at 2,3" in boards[1]
    assert "block = Row at 3,3" in boards[2]


def test_show_colour_highlights_instead_of_markers(run, block, write):
    level = write("b1.txt", "+++....\n+S++++.\n+++++++\n.++++G+\n..++++.\n")
    r = run("show", block, level, "--color")
    assert "\x1b[" in r.out and "S" in r.out  # the start tile itself, highlighted


# ---- the renderer ----------------------------------------------------------------------------------


def test_renderer_keeps_static_markers_and_draws_unlegended_layers_beside(write):
    rules = write("paint.grl", """\
game paint "Walker that paints"
layer wall: bool static
layer seen: bool
global me: cell
global target: cell static

action step(d: dir) "{d}":
    let n = me + d
    require on_board(n) and not wall[n]
    seen[me] = true
    me = n

goal: me == target

level grid:
    '.' : pass
    '#' : wall[here] = true
    'S' : me = here
    'T' : target = here
""")
    level = write("open.txt", "S..\n.#.\n..T\n")
    inst = api.load(str(rules), str(level))[0]
    s = api.system(inst, "reference")
    fmt = inst.game.formats[0]
    r = Renderer(inst, fmt)
    state = s.apply(s.apply(inst.initial, "R"), "R")
    lines = r.board(state).splitlines()
    assert lines[0].split() == ["board", "seen"]
    assert lines[1].split() == ["..@", "##@"]
    assert lines[3].split() == ["..T", "..."]  # the target keeps its own character
    assert "me = 1,3   (@ on the board)" in lines


def test_renderer_falls_back_to_layers_without_a_usable_legend(write):
    rules = write("numbers.grl", """\
game nums
layer height: 0..9
action up(p: cell) "{p}":
    require height[p] < 9
    height[p] += 1
goal: empty(cells where height < 9)
level numbers:
    * : height = value
""")
    level = write("n.txt", "1 2\n3 4\n")
    inst = api.load(str(rules), str(level))[0]
    text = Renderer(inst, inst.game.formats[0]).board(inst.initial)
    assert text.splitlines() == ["1 2", "3 4"]


# ---- validate --------------------------------------------------------------------------------------


def test_validate_bundled_rule_files(run):
    paths = list(bundled().values())
    paths += [p for folder in {p.parent for p in paths} for p in sorted(folder.glob("*.yaml"))]
    r = run("validate", *paths)
    assert r.code == 0, r.all
    assert r.out.splitlines() == [f"{p}: ok" for p in paths]


def test_validate_by_bundled_name(run):
    r = run("validate", "floodit")
    assert r.code == 0 and r.out.strip() == "floodit: ok"


def test_validate_syntax_error_is_exit_2_with_location(run, write):
    rules = write("broken.grl", 'game broken\nlayer colour: 0..5\naction flood(c: 0..5) "{c}":\n'
                                '    colour[(0, 0)] = c +\ngoal: true\n')
    r = run("validate", rules)
    assert r.code == 2
    assert f"{rules}:4:" in r.err and re.search(r":4:\d+: ", r.err)
    assert "^" in r.err and "Traceback" not in r.all
    assert ": ok" not in r.out


def test_validate_semantic_error_is_exit_2_with_location(run, write):
    rules = write("wrong.grl", 'game wrong\nlayer colour: 0..5\naction flood(c: 0..5) "{c}":\n'
                               '    colour[(0, 0)] = nosuch\ngoal: true\nlevel grid:\n    \'0\'..\'5\' : colour = value\n')
    r = run("validate", rules)
    assert r.code == 2
    assert f"{rules}:4:22: unknown name `nosuch`" in r.err
    assert "Traceback" not in r.all


def test_validate_checks_every_file_and_exits_with_the_worst(run, write):
    bad = write("bad.grl", "game bad\n")
    good = bundled()["floodit"]
    r = run("validate", good, bad)
    assert r.code == 2
    assert f"{good}: ok" in r.out and f"{bad}:" in r.err


def test_validate_missing_and_binary_files(run, write, tmp_path):
    r = run("validate", tmp_path / "none.grl")
    assert r.code == 2 and "does not exist" in r.err
    r = run("validate", write("bin.grl", b"\x00\x01"))
    assert r.code == 2 and "binary" in r.err and "Traceback" not in r.all


def test_validate_levels(run, write):
    r = run("validate", "floodit", "--level", SAMPLE)
    assert r.code == 0, r.all
    assert f"{SAMPLE}: ok (2 levels, format hdu4127)" in r.out
    bad = write("colour7.txt", "3\n0 1 7\n1 1 2\n2 2 1\n0\n")
    r = run("validate", "floodit", "--level", bad)
    assert r.code == 2 and f"{bad}:2:5:" in r.err


def test_validate_checks_the_params_without_a_level(run):
    """--param is checked against each rule file's parameters, as `solve` checks it, with or without --level: a
    rule file whose parameters refuse it is not `ok`."""
    r = run("validate", "floodit", "-p", "colours=banana", "-p", "nosuch=1")
    assert r.code == 2 and r.out == ""
    assert r.err == "error: floodit: parameter `colours` must be an integer, not `banana`\n"
    r = run("validate", "floodit", "-p", "nosuch=1")
    assert r.code == 2 and r.out == ""
    assert r.err == ("error: floodit: unknown parameter `nosuch` for floodit (its parameters: colours, pivot, free, "
                     "move_limit)\n")
    r = run("validate", "floodit", "bloxorz", "-p", "colours=4")
    assert r.code == 2 and r.out == "floodit: ok\n"
    assert r.err == "error: bloxorz: unknown parameter `colours` for bloxorz (its parameters: swap_cost)\n"
    r = run("validate", "floodit", "-p", "colours", "--level", SAMPLE)
    assert r.code == 2 and r.out == ""
    assert r.err == "error: floodit: --param takes NAME=VALUE, not `colours`\n"
    r = run("validate", "floodit", "-p", "colours=4")
    assert r.code == 0 and r.out == "floodit: ok\n" and r.err == ""


# ---- list ------------------------------------------------------------------------------------------


def test_list_shows_bundled_rulesets(run):
    r = run("list")
    assert r.code == 0, r.all
    assert "floodit — Flood-It" in r.out
    assert "param colours: int = 6" in r.out
    assert "level formats: hdu4127, grid" in r.out
    assert r.err == ""


def test_list_json(run):
    r = run("list", "--format", "json")
    assert r.code == 0
    infos = {x["name"]: x for x in map(json.loads, r.out.splitlines())}
    assert set(infos) == set(bundled())
    flood = infos["floodit"]
    assert flood["title"] == "Flood-It"
    assert {"name": "colours", "type": "int", "default": "6"} in flood["params"]
    assert "hdu4127-sample.txt" in flood["sample_levels"]


DIMMER = """\
game dimmer "a notation with a blank"
global level: 0..9
action dim(by: 1..3) "dim {by}":
    require level >= by
    level -= by
action go() "go":
    require level == 0
    level = 9
goal: level == 0
init:
    level = 5
level grid:
    '.' : pass
"""


def test_moves_whose_notation_holds_a_blank_are_read_whole(run, write):
    """`--solution` and `--after` take moves separated by blanks; a notation with a blank (`dim {by}`) is read as
    the longest run of words that is a legal move, so the moves `solve` prints can be given back."""
    rules, level = write("dimmer.grl", DIMMER), write("dimmer.txt", ".\n")
    r = run("solve", rules, level)
    solution = r.out.splitlines()[-1]
    assert r.code == 0 and solution in ("dim 2 dim 3", "dim 3 dim 2"), r.all
    r = run("show", rules, level, "--solution", solution)
    assert r.code == 0, r.all
    assert f"move 1/2: {solution[:5]}" in r.out and f"move 2/2: {solution[6:]}" in r.out
    assert "goal reached after 2 moves" in r.out
    r = run("moves", rules, level, "--after", "dim 1 dim 1")
    assert r.code == 0 and r.out.splitlines() == ["3 legal moves", "  dim 1", "  dim 2", "  dim 3"], r.all
    r = run("show", rules, level, "--solution", "dim 3 dim 3 go")
    assert r.code == 2 and r.err.startswith(f"error: {level}: move 2 `dim 3` is not legal after move 1; the legal "
                                            "moves are: dim 1, dim 2"), r.all
    assert "move 1/3: dim 3" in r.out  # (three moves typed: the illegal one is as long as a `dim` move)
    r = run("show", rules, level, "--solution", "dim 1 go dim 1")
    assert r.code == 2 and f"move 2 `go` is not legal after move 1" in r.err and "move 1/3: dim 1" in r.out, r.all


AMBIGUOUS = """\
game ambiguous "notations that spell each other"
global t: 0..20
action add(c: 1..2) "{c}":
    t += c
action jump(x: 1..2, y: 1..2) "{x} {y}":
    t += 5 * x + y
goal: t == 3
level grid:
    '.' : pass
"""


def test_show_solve_replays_the_searchs_own_moves(run, write):
    """A search's moves are replayed one by one, never re-read from their text: `1 2` (two `add` moves) is
    also the text of one `jump`."""
    rules, level = write("amb.grl", AMBIGUOUS), write("amb.txt", ".\n")
    r = run("show", rules, level, "--solve", "--backend", "reference")
    assert r.code == 0 and "move 1/2: 1" in r.out and "move 2/2: 2" in r.out, r.all
    assert "goal reached after 2 moves" in r.out


def test_validate_checks_the_level_format_without_a_level(run):
    """--level-format names a format of each rule file, as `solve` checks it, with or without --level (`validate
    floodit --level-format foo` said ok)."""
    r = run("validate", "floodit", "bloxorz", "--level-format", "hdu4127")
    assert r.code == 2 and r.out == "floodit: ok\n"
    assert r.err == ("error: bloxorz: `bloxorz` does not read `hdu4127` levels; it reads: bloxorz_seed002, "
                     "bloxorz\n")


def test_moves_of_one_level_need_its_case_in_a_file_of_several(run):
    """`show --solution` and `moves --after` play moves of one level: in a file of several they need --case (moves
    --after stopped at the first level, where its moves were not legal, and never listed the others)."""
    for args, option in ((("show", "floodit", SAMPLE, "--solution", "1"), "--solution"),
                         (("moves", "floodit", SAMPLE, "--after", "1"), "--after")):
        r = run(*args)
        assert r.code == 2 and r.out == ""
        assert r.err == (f"error: `{ROOT / 'rulesets/floodit/levels' / SAMPLE}` holds 2 levels; pick the one {option} "
                         "is for with --case N\n")
    r = run("moves", "floodit", SAMPLE, "--after", "1", "--case", "2")
    assert (r.code, r.out) == (0, "case 2: 1 legal move\n  2\n")


def test_validate_given_a_level_file_as_a_rule_file_says_to_use_level(run):
    """`validate RULES LEVEL` reads LEVEL as rules: its parse error gets a hint to give it with --level."""
    level = SAMPLE
    r = run("validate", "floodit", level)
    assert r.code == 2 and r.out == "floodit: ok\n"
    assert r.err.endswith(f"  hint: `{level}` was read as a rule file; a level file is checked with --level: "
                          f"`gridrules validate floodit --level {level}`\n")


def test_validate_finds_what_parameter_values_break_before_any_level(run, write):
    """Without --level, `validate -p` said ok to values every level would refuse: a domain they leave empty
    (Flood-It's `colour: 0..colours-1` with colours=0) or a value outside its parameter's range. Only what
    depends on the parameters alone is worked out (the board's size needs a level), and a level's set-up says
    it once where there is one."""
    from gridrules.instance import parameters_break

    r = run("validate", "floodit", "-p", "colours=0")
    assert r.code == 2 and r.out == ""
    assert r.err.startswith(f"{ROOT / 'rulesets/floodit/floodit.grl'}:12:15: layer `colour` has an empty domain "
                            "0..-1 with these parameters\n")
    assert run("validate", "floodit", "-p", "colours=4").code == 0
    rules = write("k.grl", "game x\nparam k: 2..9 = 3\nlayer a: bool\naction f(p: cell):\n    a[p] = not a[p]\n"
                           "goal: empty(cells where a)\nlevel grid:\n    '.' : pass\n")
    r = run("validate", rules, "-p", "k=12")
    assert (r.code, r.out, r.err) == (2, "", f"error: {rules}: parameter `k` must be in 2..9, not 12\n")
    for name, info in bundled().items():  # (every bundled ruleset's own defaults, given: nothing to find)
        game = api.load_rules(name)
        defaults = {p.name: p.default.value for p in game.params if hasattr(p.default, "value")}
        assert parameters_break(game, defaults) is None, name
