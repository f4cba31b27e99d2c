"""`gridrules solve` on the bundled splashback ruleset: a scored game, solved by the anytime search."""
from __future__ import annotations

import json
import re

from cli_support import ROOT

SAMPLE = ROOT / "rulesets" / "splashback" / "levels" / "seed000.txt"


def test_seed000_sample_is_played_with_the_anytime_search(run):
    r = run("solve", "splashback", SAMPLE, "--time-limit", "2")
    assert r.code == 0, r.all
    summary, moves = r.out.splitlines()
    m = re.fullmatch(r"(\d+) moves, score (\d+) \(not proven best\)", summary)
    assert m and int(m[1]) == len(moves.split()) and int(m[2]) >= 12
    # each better line of play is told on stderr as it is found, the last one being the answer
    better = re.findall(r"better after [0-9.]+ s: (\d+) moves, score (\d+)", r.err)
    assert better and better[-1] == (m[1], m[2])
    assert [int(s) for _, s in better] == sorted(int(s) for _, s in better)


def test_a_small_board_is_proven_best(run, write):
    level = write("small.txt", "4 4 4 0\n0 0 0 0\n0 0 0 1\n")
    r = run("solve", "splashback", level, "--format", "json", "-p", "clear_reward=1")
    assert r.code == 0, r.all
    record = json.loads(r.out)
    assert (record["status"], record["score"], record["length"], record["optimal"], record["verified"]) == (
        "solved", 7, 5, True, True)
    assert record["algorithm"] == "anytime" and record["heuristic"] == "seed004"


def test_an_empty_hand_is_proven_unsolvable(run, write):
    level = write("lone.txt", "0 0 0\n0 1 0\n0 0 0\n")
    r = run("solve", "splashback", level, "-p", "supply=3")
    assert r.code == 1, r.all
    assert r.out.startswith("unsolvable (proven")


def test_a_cost_search_is_refused_for_a_scored_game(run):
    r = run("solve", "splashback", SAMPLE, "--algorithm", "astar")
    assert r.code == 2 and r.out == ""
    assert r.err == ("error: `splashback` ranks solutions by its score; astar finds the cheapest solution, not the "
                     "best-scored one: use --algorithm anytime\n")


def test_anytime_on_a_cost_game_is_a_cost_search(run):
    r = run("solve", "drops", ROOT / "rulesets" / "drops" / "levels" / "seed000.txt", "--algorithm", "anytime",
            "--time-limit", "20")
    assert r.code == 0, r.all
    assert r.out.splitlines()[0] in ("5 moves (optimal)", "5 moves (not proven optimal)")
    assert "better after" in r.err


def test_only_the_anytime_search_tells_better_solutions(run, write):
    lone = write("lone.txt", "0 0 0\n0 1 0\n0 0 0\n")
    r = run("solve", "drops", lone, "--backend", "reference", "--algorithm", "bfs")  # (bfs offers each goal it
    assert r.code == 0 and r.out.startswith("4 moves") and "better" not in r.err, r.all  # meets as incumbent)


def test_show_replays_a_line_and_tells_its_score(run, write):
    level = write("small.txt", "4 4 4 0\n0 0 0 0\n0 0 0 1\n")
    r = run("show", "splashback", level, "--solution", "1,2 3,4 3,4 3,4 3,4")
    assert r.code == 0, r.all
    assert r.out.rstrip().endswith("goal reached after 5 moves, score 6")
    assert "hand = 10" in r.out.split("move 2/5")[0]  # one spent, one earned by the chain of three
