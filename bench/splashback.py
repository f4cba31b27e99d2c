"""Splash Back benchmark (issue 4): play consecutive seeded random levels with the anytime search. Part of
`python -m bench.run` (as `splashback`, 1 s per level); alone:

    python -m bench.splashback                        # 100 levels, 2 s per level, starting with 10 drops
    python -m bench.splashback --levels 20 --budget 5 --clear-reward 1

Each level is Splash Back's random board of shared/spec/drops.md (bench.gen.drops_board "level": 24 drops at
distinct cells of the 6x6 board, two 1s, five 2s, eight 3s, nine 4s). The hand carries over: a level starts
with the drops the last one ended with. Every level gets the same budget of search time (the compiled backend,
`anytime` guided by the ruleset's `seed004` evaluation); the best line found is replayed by the reference rules
before it counts. The run ends after the last level, or when a level cannot be cleared with the drops in hand
(game over). Reported: levels cleared, the hand after each level, and per level the search time, the time to
the first clearing line and to the line played; for comparison, the same levels played greedily (always the
click whose position `seed004` likes best).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from . import gen


def _text(board) -> str:
    return "\n".join(" ".join(map(str, row)) for row in board) + "\n"


def _level(board, hand: int, clear_reward: int):
    from gridrules import api

    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write(_text(board))
    try:
        (inst,) = api.load("splashback", f.name, [f"supply={hand}", f"clear_reward={clear_reward}"],
                           level_format="numbers")
    finally:
        Path(f.name).unlink()
    return inst


def play_greedy(board, hand: int, clear_reward: int) -> dict:
    """One level played greedily, for comparison: always the click whose position `seed004` likes best."""
    from gridrules import api

    inst = _level(board, hand, clear_reward)
    system = api.system(inst, "compiled", "seed004")
    state, clicks = inst.initial, 0
    t = time.perf_counter()
    while not system.is_goal(state):
        children = system.successors(state)
        if not children:
            return {"cleared": False, "hand": hand, "seconds": time.perf_counter() - t}
        state = min(children, key=lambda m: system.heuristic(m[1]))[1]
        clicks += 1
    return {"cleared": True, "hand": system.score(state), "clicks": clicks, "seconds": time.perf_counter() - t}


def play_level(board, hand: int, budget: float, clear_reward: int) -> dict:
    """One level with `hand` drops: the best line the anytime search finds within `budget` seconds, replayed."""
    from gridrules import api
    from solvers import Budget, solve

    inst = _level(board, hand, clear_reward)
    system = api.system(inst, "compiled", "seed004")
    system.successors(inst.initial)  # (loads the compiled module before the clock starts)
    found = []
    t = time.perf_counter()
    sol = solve(system, "anytime", Budget(time_limit=budget, improved=lambda s: found.append(s.stats.seconds)))
    took = time.perf_counter() - t
    if sol.moves is None:
        return {"cleared": False, "hand": hand, "seconds": took, "status": sol.status}
    ref = api.system(inst, "reference")
    state = inst.initial
    for move in sol.moves:
        state = ref.step(state, move)[0]
    assert ref.is_goal(state) and ref.score(state) == sol.score, (board, sol)
    return {"cleared": True, "hand": sol.score, "clicks": len(sol.moves), "seconds": took,
            "first_s": found[0], "best_s": found[-1], "proven": sol.optimal, "expanded": sol.stats.expanded}


def greedy(levels: int, start: int, clear_reward: int, seed: int) -> dict:
    hand, hands = start, []
    for k in range(levels):
        res = play_greedy(gen.drops_board("level", k, seed=seed), hand, clear_reward)
        if not res["cleared"]:
            break
        hand = res["hand"]
        hands.append(hand)
    return {"cleared": len(hands), "hands": hands}


def run(levels: int, budget: float, start: int, clear_reward: int, seed: int, verbose: bool) -> dict:
    hand = start
    played = []
    for k in range(levels):
        res = play_level(gen.drops_board("level", k, seed=seed), hand, budget, clear_reward)
        played.append(res)
        if verbose:
            print(f"level {k + 1}: {res}", file=sys.stderr, flush=True)
        if not res["cleared"]:
            break
        hand = res["hand"]
    cleared = [p for p in played if p["cleared"]]
    seconds = [p["seconds"] for p in played]
    return {
        "levels": levels, "budget_s": budget, "start": start, "clear_reward": clear_reward,
        "cleared": len(cleared), "game_over_at": None if len(cleared) == levels else len(played),
        "hands": [p["hand"] for p in cleared],
        "clicks_median": statistics.median(p["clicks"] for p in cleared) if cleared else None,
        "proven_best": sum(1 for p in cleared if p["proven"]),
        "seconds_median": round(statistics.median(seconds), 3), "seconds_max": round(max(seconds), 3),
        "first_line_median_s": round(statistics.median(p["first_s"] for p in cleared), 3) if cleared else None,
        "best_line_median_s": round(statistics.median(p["best_s"] for p in cleared), 3) if cleared else None,
        "expanded_median": statistics.median(p["expanded"] for p in cleared) if cleared else None,
        "greedy": greedy(levels, start, clear_reward, seed),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--levels", type=int, default=100)
    ap.add_argument("--budget", type=float, default=2.0, help="seconds of search per level")
    ap.add_argument("--start", type=int, default=10, help="drops in hand at the first level")
    ap.add_argument("--clear-reward", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--verbose", "-v", action="store_true", help="each level on stderr as it is played")
    args = ap.parse_args(argv)
    t = time.perf_counter()
    res = run(args.levels, args.budget, args.start, args.clear_reward, args.seed, args.verbose)
    print(f"splashback ({time.perf_counter() - t:.0f} s): {res}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
