"""`gridrules query`, `moves` and `solve` on the bundled lianliankan ruleset."""
from __future__ import annotations

import json
import random

from cli_support import ROOT

SAMPLE = ROOT / "rulesets" / "lianliankan" / "levels" / "hdu1175-sample.txt"
EDGE = "1 2 2 1\n3 0 0 3\n"


def deal(rows, cols, kinds, seed) -> str:
    rnd = random.Random(f"test-{seed}")
    cells = [t for t in range(1, kinds + 1) for _ in range(rows * cols // kinds)]
    rnd.shuffle(cells)
    return "\n".join(" ".join(map(str, cells[r * cols:(r + 1) * cols])) for r in range(rows)) + "\n"


def test_hdu1175_sample(run):
    r = run("query", "lianliankan", SAMPLE)
    assert r.code == 0, r.all
    assert r.out.split() == ["YES", "NO", "NO", "NO", "NO", "YES"]


def test_the_judge_reads_several_cases_and_large_tile_numbers(run, write):
    level = write("two.txt", "1 3\n100 0 100\n1\n1 1 1 3\n2 2\n5 0\n0 5\n2\n1 1 2 2\n1 1 1 1\n0 0\n")
    r = run("query", "lianliankan", level)
    assert r.code == 0, r.all
    assert r.out.split() == ["YES", "YES", "NO"]  # (1, 1)-(2, 2) turns once; a cell with itself: NO


def test_a_judge_board_too_large_to_list_its_moves(run, write):
    """A 40 x 40 board has 1,279,200 pairs of cells, past the moves a level may list: `query` answers its
    questions (it builds only the moves asked about), `solve` refuses it (exit 2) before reading its cells."""
    rows = ["1 0 0 1" + " 0" * 36] + ["0" + " 0" * 39] * 38 + ["2" + " 0" * 38 + " 2"]
    level = write("big.txt", "40 40\n" + "\n".join(rows) + "\n3\n1 1 1 4\n1 1 40 1\n40 1 40 40\n0 0\n")
    r = run("query", "lianliankan", level)
    assert r.code == 0 and r.out.split() == ["YES", "NO", "YES"] and "error" not in r.err, r.all
    r = run("solve", "lianliankan", level)
    assert r.code == 2 and r.out == ""
    assert r.err == ("error: action `remove` has 1,279,200 parameter combinations on this level (its parameters "
                     "`a`, `b` take 1,600 values each, unordered), more than the 1,000,000 moves a level may list; "
                     "`gridrules query` asks about single moves without listing them all\n")


def test_an_unclearable_board_is_proved_so(run, write):
    level = write("crossed.txt", "1 2\n2 1\n")  # each pair needs three turns, through the ring or not
    r = run("solve", "lianliankan", level)
    assert r.code == 1 and "unsolvable" in r.out


def test_solving_a_shisen_sho_deal(run, write):
    level = write("deal.txt", deal(8, 18, 36, 0))
    r = run("solve", "lianliankan", level)
    assert r.code == 0, r.all
    assert r.out.startswith("72 moves (optimal)")


def test_the_default_search_is_a_path_search_that_follows_the_rules_order(run, write):
    """Without gravity the removals persist, and `solve` runs IDA* (which bans failed ones); with gravity they are
    ranked (`ranks`), and IDA* follows that order, restarting in random orders when it stalls. A game that does
    neither is solved with A* (tests/cli/test_cli_solve.py)."""
    level = write("deal.txt", deal(4, 6, 6, 3))
    for gravity, algorithm in (("off", "idastar"), ("down", "idastar")):
        r = run("solve", "lianliankan", level, "--param", f"gravity={gravity}", "--format", "json")
        rec = json.loads(r.out)
        assert r.code in (0, 1) and rec["algorithm"] == algorithm, r.all
    r = run("solve", "lianliankan", level, "--algorithm", "astar", "--format", "json")
    assert json.loads(r.out)["algorithm"] == "astar"  # (a search named is the search run)


# ---- listing moves -------------------------------------------------------------------------------------
def test_moves_lists_each_pair_with_its_path(run):
    r = run("moves", "lianliankan", SAMPLE)
    assert r.code == 0, r.all
    assert "case 1: 4 legal moves" in r.out
    assert "  1,1-3,4  path 1,1 2,1 2,4 3,4" in r.out
    assert "case 2: 1 legal move\n  1,3-2,3  path 1,3 2,3" in r.out


def test_moves_hint_count_dead_board_and_json(run, write):
    level = write("edge.txt", EDGE)
    r = run("moves", "lianliankan", level, "--hint")
    assert r.out == "hint: 1,1-1,4  path 1,1 0,1 0,4 1,4\n"
    r = run("moves", "lianliankan", level, "--count")
    assert r.out == "3 legal moves\n"
    r = run("moves", "lianliankan", level, "--after", "1,2-1,3")
    assert r.code == 0 and r.out == "2 legal moves\n  1,1-1,4  path 1,1 1,4\n  2,1-2,4  path 2,1 2,4\n"
    r = run("moves", "lianliankan", level, "--after", "1,2-1,3 2,1-2,4 1,1-1,4")
    assert r.code == 0 and r.out == "no legal move (the goal is reached)\n"
    crossed = write("crossed.txt", "1 2\n2 1\n")
    r = run("moves", "lianliankan", crossed)
    assert r.code == 1 and r.out == "no legal move (a dead board)\n"  # each pair needs three turns
    r = run("moves", "lianliankan", level, "--format", "json", "--hint")
    assert r.out == ('{"level": "%s", "count": 3, "goal": false, "deadlock": false, "moves": [{"move": "1,1-1,4", '
                     '"paths": [[[1, 1], [0, 1], [0, 4], [1, 4]]]}]}\n' % level)


def test_query_moves_in_either_order(run, write):
    level = write("edge.txt", EDGE)
    r = run("query", "lianliankan", level, "1,4-1,1", "1,1-1,4", "2,1-2,2", "1,2-1,2")
    assert r.code == 0, r.all
    assert r.out.split() == ["YES", "YES", "NO", "NO"]


def test_an_unordered_pair_may_be_typed_in_either_order(run, write):
    """`remove` is `unordered`: `3,4-1,1` is the move `1,1-3,4` in --solution and --after (and query's MOVEs),
    printed in the rules' order."""
    r = run("show", "lianliankan", SAMPLE, "--case", "1", "--solution", "3,4-1,1")
    assert r.code == 1, r.all  # (one pair of four removed: the goal is not reached)
    assert r.out.split("\n\n")[1].splitlines()[0] == "move 1/1: 1,1-3,4"
    assert r.err == "case 1: the goal is not reached after 1 move\n"
    level = write("edge.txt", EDGE)
    r = run("moves", "lianliankan", level, "--after", "1,3-1,2 2,4-2,1")
    assert r.code == 0 and r.out == "1 legal move\n  1,1-1,4  path 1,1 1,4\n"
    r = run("show", "lianliankan", level, "--solution", "1,3-1,2 2,4-2,1 1,4-1,1")
    assert r.code == 0 and r.out.endswith("goal reached after 3 moves\n")


def test_a_near_miss_is_matched_against_the_pair_in_either_order(run, write):
    """`3,4-1,2` is one character from `3,4-1,1`, the legal `1,1-3,4` reversed: that is the suggestion (before,
    the reversed pair was refused and `3,4-1,1` drew `1,4-3,1`)."""
    r = run("show", "lianliankan", SAMPLE, "--case", "1", "--solution", "3,4-1,2")
    assert r.code == 2 and r.out == "case 1 (3x4, lianliankan)\n1 2 3 4\n0 0 0 0\n4 3 2 1\n"  # (the board first)
    assert r.err == ("error: case 1: move 1 `3,4-1,2` is not legal at the start; the legal moves are: 1,1-3,4, "
                     "1,2-3,3, 1,3-3,2, 1,4-3,1; did you mean `1,1-3,4`?\n")
    level = write("edge.txt", EDGE)
    r = run("moves", "lianliankan", level, "--after", "2,1-1,1")  # (reversed, still not a pair)
    assert r.code == 2 and r.out == ""
    # (every legal pair, either way round, is 4 away from 2,1-1,1 counted by its numbers: the first one listed; as
    # `show --solution` suggests)
    assert r.err == (f"error: {level}: --after move 1 `2,1-1,1` is not legal there; the legal moves are: 1,1-1,4, "
                     "1,2-1,3, 2,1-2,4; did you mean `1,1-1,4`?\n")


def test_only_an_unordered_action_takes_its_arguments_in_either_order(run, write):
    """An action without `unordered` takes its arguments only in its notation's order."""
    rules = write("swap.grl", 'game swap "Swap"\nlayer tile: 0..9\naction swap(a: cell, b: cell) "{a}-{b}":\n'
                              '    require a != b and tile[a] != 0 and tile[a] == tile[b]\n'
                              '    tile[a] = 0\n    tile[b] = 0\ngoal: empty(cells where tile != 0)\n'
                              'level grid:\n    \'0\'..\'9\' : tile = value\n')
    level = write("pair.txt", "10\n01\n")
    r = run("query", rules, level, "1,1-2,2", "2,2-1,1", "1,2-2,1")
    assert r.code == 0, r.all
    assert r.out.split() == ["YES", "YES", "NO"]  # (both orders are moves of their own here)
    r = run("moves", rules, level)
    assert r.out == "2 legal moves\n  1,1-2,2\n  2,2-1,1\n"


def test_query_and_moves_mistakes_exit_2(run, write, walk):
    grid = write("edge.txt", EDGE)
    two = write("two.txt", "1 2\n1 1\n0\n1 2\n2 2\n0\n0 0\n")
    cases = [
        (["query", "lianliankan", SAMPLE, "1,1-3,4"],
         f"`{SAMPLE}` asks its own queries; give no MOVEs with it"),
        (["query", "lianliankan", grid], f"`{grid}` asks no queries; give the MOVEs to check after it"),
        (["query", "lianliankan", two, "1,1-1,2", "--level-format", "numbers"],
         "ragged grid"),
        (["moves", "lianliankan", grid, "--hint", "--count"], "give either --hint or --count, not both"),
        (["moves", "lianliankan", grid, "--after", "1,1-2,1"],
         "edge.txt: --after move 1 `1,1-2,1` is not legal there; the legal moves are: 1,1-1,4, 1,2-1,3, 2,1-2,4"),
        (["moves", "lianliankan", SAMPLE, "--case", "3"], f"--case 3: `{SAMPLE}` holds 2 levels"),
        (["query", "lianliankan", two, "1,1-1,2", "--level-format", "hdu1175"],
         f"`{two}` holds 2 levels; MOVEs need a file with one level"),
    ]
    for args, message in cases:
        r = run(*args)
        assert r.code == 2, (args, r.all)
        assert message in r.err, (args, r.err)
        assert "Traceback" not in r.all and r.out == ""


def test_query_needs_an_action_taking_the_cells(run, write, walk):
    level = write("walk.txt", "S.\n.T\n")
    r = run("query", walk, level, "R")
    assert r.code == 0 and r.out == "YES\n"  # a move in the walker's own notation
    rules = write("one.grl", 'game one "One"\nlayer tile: 0..9\naction clear(a: cell) "{a}":\n'
                             '    require tile[a] != 0\n    tile[a] = 0\ngoal: empty(cells where tile != 0)\n'
                             'level hdu1175:\n    * : tile = value\n')
    questions = write("q.txt", "2 2\n1 0\n0 1\n1\n1 1 2 2\n0 0\n")
    r = run("query", rules, questions)
    assert r.code == 2 and r.out == ""
    assert "error: no action of `one` takes (cell, cell), which the queries give" in r.err


def test_show_draws_each_pairs_path(run, write):
    """`show` draws the path that joins each pair on the board before it is removed: `-`/`|` along the runs,
    `+` at the corners, through the ring outside the board when the path goes there."""
    level = write("ring.txt", "AB.\n.BA\n")
    r = run("show", "lianliankan", level, "--solution", "1,1-2,3 1,2-2,2")
    assert r.code == 0, r.all
    first, second = r.out.split("\n\n")[1:3]
    assert first.splitlines() == [
        "move 1/2: 1,1-2,3",
        "  path 1,1 3,1 3,3 2,3:",
        " AB.",
        " |BA",
        " +-+",
        "  after the move:",
        ".B.",
        ".B.",
    ]
    assert second.splitlines()[:4] == ["move 2/2: 1,2-2,2", "  path 1,2 2,2:", ".B.", ".B."]
    over = write("over.txt", "1 2 0 0\n0 0 2 0\n3 0 0 1\n3 0 0 0\n")
    r = run("show", "lianliankan", over, "--solution", "1,1-3,4")
    assert r.code == 1, r.all  # (the goal is not reached after one pair)
    assert r.out.split("\n\n")[1].splitlines()[1:7] == [
        "  path 1,1 0,1 0,4 3,4:",
        "  + - - +",
        "  1 2 0 |",
        "  0 0 2 |",
        "  3 0 0 1",
        "  3 0 0 0",
    ]


def test_query_notes_a_move_no_move_of_the_level_is_written_as(run, write):
    """A typo was answered NO with no word why (a robustness sweep): the answer stays NO, as a judge expects, and
    stderr says the text is no move of the level, with the nearest one or how moves are written."""
    level = write("edge.txt", EDGE)
    r = run("query", "lianliankan", level, "foo", "1,1-1,4", "1,1-1,9", "2,1-2,2")
    assert r.code == 0, r.all
    assert r.out.split() == ["NO", "YES", "NO", "NO"]  # (2,1-2,2 is a move of the level, not legal: no note)
    assert r.err == ("note: `foo` is no move of this level, so the answer is NO; its moves are written like "
                     "`1,1-1,2`\n"
                     "note: `1,1-1,9` is no move of this level, so the answer is NO; did you mean `1,1-1,4`?\n")


def test_moves_listed_by_either_backend(run):
    """`moves --backend reference` compiles nothing (a new parameter value took 25..60 s to compile before its
    moves were listed); both backends list the same moves in the same order."""
    args = ("moves", "lianliankan", SAMPLE, "--case", "1")
    ref, nat = run(*args, "--backend", "reference"), run(*args)
    assert ref.code == nat.code == 0, ref.all + nat.all
    assert ref.out == nat.out and ref.out.startswith("case 1: 4 legal moves\n")
    new_value = run(*args, "-p", "turns=7", "--backend", "reference")
    assert new_value.code == 0 and new_value.out.startswith("case 1: ") and new_value.err == ""
