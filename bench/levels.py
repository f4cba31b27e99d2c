"""What a file's levels cost besides their searches: `gridrules solve` loads the file (reading and instantiating
every level), and for each level sets up the compiled system, searches, then replays the solution through the
reference rules (a reference system and `verify`). Each part is timed on its own, in one process, after an
untimed warm-up level (native code loaded, extension modules built), so that a change to any of them shows
beside the search it accompanies:

    python -m bench.levels                          # floodit14's first 200 boards (bench.run's data)
    python -m bench.levels --boards 1000
    python -m bench.levels RULESET LEVEL-FILE       # any file of levels, every level

Not run by `bench.run`, which reports the totals (floodit14: in-process and whole process).
"""
from __future__ import annotations

import argparse
import time

from . import gen
from .run import write_data
from .worker import _solve, _warm_up


def measure(ruleset: str, path: str, boards: int | None, time_limit: float) -> dict:
    from gridrules import api
    from gridrules.cli import verify

    t0 = time.perf_counter()
    insts = api.load(ruleset, path)
    load_s = time.perf_counter() - t0
    loaded = len(insts)
    insts = insts[:boards] if boards else insts
    plan, heuristic = api.search_plan(insts[0].game, None, None)  # (what `gridrules solve` runs, level by level)
    warm = api.system(insts[-1], "compiled", heuristic)
    _warm_up(warm, api.level_algorithm(warm, plan))
    parts = {"system": 0.0, "search": 0.0, "reference system": 0.0, "replay": 0.0}
    for inst in insts:
        t1 = time.perf_counter()
        system = api.system(inst, "compiled", heuristic)
        t2 = time.perf_counter()
        sol, _ = _solve(system, api.level_algorithm(system, plan), time_limit, inst.limit)
        t3 = time.perf_counter()
        ref = api.system(inst, "reference")
        t4 = time.perf_counter()
        ok, why = verify(ref, sol)
        t5 = time.perf_counter()
        if sol.moves is not None and not ok:
            raise SystemExit(f"{inst.level}: the solution does not replay: {why}")
        for name, seconds in zip(parts, (t2 - t1, t3 - t2, t4 - t3, t5 - t4)):
            parts[name] += seconds
    return {"levels": len(insts), "load_s": load_s, "loaded": loaded, "parts": parts}


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.levels", description=__doc__.split("\n\n")[0])
    ap.add_argument("ruleset", nargs="?", default="floodit")
    ap.add_argument("level", nargs="?", help="a file of levels (default: floodit14's 1000 boards, bench.run's data)")
    ap.add_argument("--boards", type=int, default=None, help="only the first N levels (default: 200 of floodit14's)")
    ap.add_argument("--time-limit", type=float, default=10.0, help="seconds a search (default 10)")
    args = ap.parse_args()
    path, boards = args.level, args.boards
    if path is None and args.ruleset != "floodit":
        ap.error("give the file of levels to time with a ruleset other than floodit")
    if path is None:
        path = str(write_data("floodit-14x14-1000-seed1.txt", gen.hdu_text(gen.floodit_boards(1000, 14, 6, seed=1))))
        boards = boards or 200
    r = measure(args.ruleset, path, boards, args.time_limit)
    n = r["levels"]
    print(f"{args.ruleset} {path}: {n} levels timed")
    per_level = r["load_s"] / r["loaded"]
    print(f"  loading the file ({r['loaded']} levels): {r['load_s']:.3f} s, {per_level * 1e3:.2f} ms a level")
    for name, seconds in r["parts"].items():
        print(f"  {name:17s} {seconds:8.3f} s, {seconds / n * 1e3:7.2f} ms a level")
    besides = per_level + sum(s for k, s in r["parts"].items() if k != "search") / n
    print(f"  besides the search: {besides * 1e3:.2f} ms a level")


if __name__ == "__main__":
    main()
