"""`gridrules solve` and `show --trace` on the bundled drops ruleset."""
from __future__ import annotations

from cli_support import ROOT

SAMPLE = ROOT / "rulesets" / "drops" / "levels" / "seed000.txt"


def test_seed000_sample_needs_five_clicks(run):
    r = run("solve", "drops", SAMPLE)
    assert r.code == 0, r.all
    lines = r.out.splitlines()
    assert lines[0] == "5 moves (optimal)"
    assert len(lines[1].split()) == 5


def test_unit_timing_and_clicks_on_empty_cells_are_parameters(run, write):
    lone = write("lone.txt", "0 0 0\n0 1 0\n0 0 0\n")
    for params in ([], ["-p", "timing=unit"], ["-p", "any_cell=true"]):
        r = run("solve", "drops", lone, *params)
        assert r.code == 0, r.all
        assert r.out.splitlines()[0] == "4 moves (optimal)"


def test_show_trace_draws_each_step_of_the_chain(run, write):
    level = write("row.txt", "4 0 3\n")
    r = run("show", "drops", level, "--solution", "1,1 1,3", "--trace")
    assert r.code == 0, r.all
    # the burst at (1, 1): the droplet going right crosses the empty cell (step 1: it sits there), then feeds
    # the 3 (step 2); the others left the board at step 1. Then the 4 is clicked and bursts: its droplet going
    # left crosses both empty cells and leaves.
    assert r.out.split("\n\n")[1].splitlines() == [
        "move 1/2: 1,1",
        "  chain step 1/2 (time 1): 1 particle flying",
        "0 > 3",
        "  chain step 2/2 (time 3): 0 particles flying",
        "0 0 4",
    ]
    assert r.out.split("\n\n")[2].splitlines() == [
        "move 2/2: 1,3",
        "  chain step 1/3 (time 1): 1 particle flying",
        "0 < 0",
        "  chain step 2/3 (time 3): 1 particle flying",
        "< 0 0",
        "  chain step 3/3 (time 5): 0 particles flying",
        "0 0 0",
    ]
    assert "goal reached after 2 moves" in r.out


def test_trace_needs_moves(run):
    r = run("show", "drops", SAMPLE, "--trace")
    assert r.code == 2 and "--trace shows the moves of --solution or --solve" in r.err


def test_a_click_on_an_empty_cell_suggests_a_cell_nearby(run):
    """The sample's corner 1,1 is empty: the nearest drops are 1,2 and 2,1, and the first of them is suggested
    (compared as characters, `5,1` was)."""
    r = run("show", "drops", SAMPLE, "--solution", "1,1")
    assert r.code == 2
    assert r.err == (f"error: {SAMPLE}: move 1 `1,1` is not legal at the start; the legal moves are: 1,2, 1,3, 1,4, "
                     "1,5, 1,6, 2,1, 2,2, 2,3, 2,4, 2,5, 2,6, 3,1, 3,2, 3,3, 3,5, 4,1, 4,2, 4,3, 4,5, 4,6, 5,1, 5,2, "
                     "5,3, 5,4, 5,5, 5,6, 6,2, 6,4, 6,6; did you mean `1,2`?\n")
    r = run("show", "drops", SAMPLE, "--solution", "3,4")  # (empty, between 3,3 and 3,5, below 2,4)
    assert r.code == 2 and r.err.endswith("did you mean `2,4`?\n")


def test_bad_boards_are_input_errors(run, write):
    for text, message in (("0 1 5\n", "value 5 is outside `drop`'s domain 0..4"),
                          ("0 1 2\n3 x 4\n", "expected a number, found `x`"),
                          ("0 1 2\n3 4\n", "ragged grid")):
        r = run("solve", "drops", write("bad.txt", text))
        assert r.code == 2, r.all
        assert message in r.err and "Traceback" not in r.all
