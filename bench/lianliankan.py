"""Lianliankan benchmarks (issue 5): path queries, hints and whole-board solving with the compiled backend.
Part of `python -m bench.run` (as `lianliankan`, all three); alone:

    python -m bench.lianliankan                    # everything: pairs, hdu, deals (200 per gravity mode)
    python -m bench.lianliankan --only deals --deals 50 --time-limit 1

pairs  every legal pair of a seeded 18x8 Shisen-Sho deal (36 types x 4): one listing of the legal moves in
       native code (the expand entry point, which finds them among the 10,296 pairs by buckets of equal
       kind), median over deals; target < 100 us
hdu    a 1000x1000 HDU 1175 case with 50 queries: reading the level, then answering (target < 1 s)
deals  seeded 18x8 deals, gravity off and down, under a time limit per deal, counting boards decided
       (cleared, or proved impossible) within it (target >= 99%), beside greedy play (the first legal pair, until
       stuck). The search `gridrules solve` picks: without gravity IDA* (its bans of failed persisting removals read
       by the rules' relaxation), with gravity down A* (both guided by pairs_left, exact on clearable boards)
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from . import gen, run_named


def _instance(board, params=()):
    from gridrules import api

    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(" ".join(map(str, row)) for row in board) + "\n")
    try:
        return api.load("lianliankan", f.name, list(params))[0]
    finally:
        Path(f.name).unlink()


def pairs(count: int) -> dict:
    from gridrules import api

    times, legal = [], []
    for k in range(count):
        inst = _instance(gen.lianliankan_deal(index=k))
        sys_ = api.system(inst)
        args = (np.array(inst.initial, np.uint64), sys_.SL, sys_.SG, sys_.MA, sys_.MARG, sys_.OUT, sys_.MOVE,
                sys_.COST, *sys_.work)
        sys_.work[5][3] = 0  # every legal move, no safe-move shortcut
        legal.append(sys_.mod.expand(*args))
        runs = []  # (each call timed alone, the median kept: one call is long enough to time, and a shared
        for _ in range(200):  # machine's pauses land in a few calls, not in all of them)
            t = time.perf_counter()
            sys_.mod.expand(*args)
            runs.append(time.perf_counter() - t)
        times.append(statistics.median(runs))
        sys_.work[5][3] = 1  # (searching again: a safe move taken alone)
    us = statistics.median(times) * 1e6
    return {"deals": count, "instances": len(sys_.moves), "median_legal_pairs": statistics.median(legal),
            "median_us": round(us, 1), "target_us": 100, "ok": us < 100}


def hdu(n: int) -> dict:
    from gridrules import api

    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write(gen.hdu1175_case(n, n))
    try:
        t0 = time.perf_counter()
        (inst,) = api.load("lianliankan", f.name, every_move=False)  # (only the asked moves are built)
        t1 = time.perf_counter()
        questions = [q for q, _ in inst.raw.queries]
        api.query(inst, questions)  # (loads the compiled module)
        t2 = time.perf_counter()
        answers = api.query(inst, questions)
        t3 = time.perf_counter()
    finally:
        Path(f.name).unlink()
    return {"size": f"{n}x{n}", "queries": len(answers), "yes": sum(answers), "load_s": round(t1 - t0, 2),
            "first_answer_s": round(t2 - t1, 3), "answer_s": round(t3 - t2, 3), "target_s": 1.0,
            "ok": t3 - t2 < 1.0}


def deals(count: int, time_limit: float) -> dict:
    from gridrules import api
    from solvers import Budget

    out = {}
    for gravity in ("off", "down"):
        decided, cleared, greedy, times, algorithms = 0, 0, 0, [], {}
        for k in range(count):
            inst = _instance(gen.lianliankan_deal(index=k), [f"gravity={gravity}"])
            sys_ = api.system(inst)
            algorithm = api.level_algorithm(sys_, "astar")  # (what `gridrules solve` runs)
            algorithms[algorithm] = algorithms.get(algorithm, 0) + 1
            t = time.perf_counter()
            sol = sys_.search(algorithm, Budget(time_limit=time_limit, admissible=True))
            times.append(time.perf_counter() - t)
            decided += sol.status in ("solved", "unsolvable")
            cleared += sol.status == "solved"
            state = inst.initial
            while True:  # greedy: the first legal pair, until none is left
                moves = sys_.successors(state, every=True)
                if not moves:
                    break
                state = moves[0][1]
            greedy += sys_.is_goal(state)
        out[gravity] = {"algorithms": algorithms, "deals": count, "decided": decided,
                        "decided_pct": round(100 * decided / count, 1),
                        "cleared": cleared, "greedy_cleared": greedy, "median_s": round(statistics.median(times), 3),
                        "max_s": round(max(times), 3), "ok": decided >= 0.99 * count}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="pairs,hdu,deals")
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--pairs", type=int, default=20)
    ap.add_argument("--size", type=int, default=1000)
    ap.add_argument("--time-limit", type=float, default=1.0)
    args = ap.parse_args(argv)
    return run_named(args.only, {"pairs": lambda: pairs(args.pairs), "hdu": lambda: hdu(args.size),
                                 "deals": lambda: deals(args.deals, args.time_limit)})


if __name__ == "__main__":
    sys.exit(main())
