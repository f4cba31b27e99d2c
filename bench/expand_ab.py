"""Two versions of gridrules' move code, timed against each other in one process: the generated `expand` of this
checkout and of another (a git worktree of the code before a change), each made for the level's board as an
extension module is (codegen.for_board: the board's shape and the state's layout as constants, no reference
counting where numba allows), run over the same states, alternating, many rounds. Whole searches on this shared
machine vary by +-15 % from run to run, which hides a change of a few per cent; the move code timed alone, the
two versions taking turns, gives its ratio to ~1 %.

    python -m bench.expand_ab RULESET LEVEL --other /work/base [--states 20000] [--rounds 15] [--case N]

The states are the first ones a breadth-first search of this checkout meets. The other checkout's module is
generated in a process of its own (PYTHONPATH=OTHER) and must lay the state out as this one does (checked); both
run on this checkout's runtime helpers and work arrays.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections import deque

BENCH = """

@njit
def _bench_expand(K, SL, SG, MA, MARG, OUT, MOVE, COST, D0, g0, D, g, BM, ab, rounds):
    made = 0
    for _ in range(rounds):
        for i in range(K.shape[0]):
            made += expand(K[i], SL, SG, MA, MARG, OUT, MOVE, COST, D0, g0, D, g, BM, ab)
    return made
"""

_DUMP = """
import json, sys
from gridrules import api
from gridrules.compiled.codegen import for_board
inst = api.load(sys.argv[1], sys.argv[2])[int(sys.argv[3]) - 1]
s = api.system(inst)
a = s._expand_args
print(json.dumps({"made": [for_board(s.source, *s.board, refcounts=r) for r in (False, True)],
                  "board": list(s.board[:2]) + [list(s.board[2])],
                  "SG": [int(x) for x in a[2]], "shapes": [list(x.shape) for x in a[1:]]}))
"""


def states(system, count: int) -> list:
    """The first `count` states of a breadth-first search from the level's start."""
    seen = {system.initial()}
    todo = deque(seen)
    out = []
    while todo and len(out) < count:
        state = todo.popleft()
        out.append(state)
        for _, child, _ in system.successors(state):
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return out


def module(made: list[str]):
    """The module an extension build would compile (made for the board by its checkout's codegen.for_board:
    without reference counting, else with it), as numba's JIT compiles it, with the timing loop added."""
    from gridrules.compiled.system import load_module

    try:
        return load_module(made[0] + BENCH)
    except Exception:  # noqa: BLE001 - (numba refuses the module without reference counting: as extension._build)
        return load_module(made[1] + BENCH)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.expand_ab", description=__doc__.split("\n\n")[0])
    ap.add_argument("ruleset")
    ap.add_argument("level")
    ap.add_argument("--other", required=True, help="the other checkout (its root: gridrules/ is below it)")
    ap.add_argument("--case", type=int, default=1)
    ap.add_argument("--states", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=15)
    args = ap.parse_args(argv)

    import numpy as np

    from gridrules import api

    from gridrules.compiled.codegen import for_board

    inst = api.load(args.ruleset, args.level)[args.case - 1]
    here = api.system(inst)
    env = dict(os.environ, PYTHONPATH=os.path.abspath(args.other))
    dumped = subprocess.run([sys.executable, "-c", _DUMP, args.ruleset, os.path.abspath(args.level),
                             str(args.case)], capture_output=True, text=True, env=env, cwd="/")
    if dumped.returncode != 0:
        print(dumped.stderr, file=sys.stderr)
        return 2
    other = json.loads(dumped.stdout.splitlines()[-1])
    board = (here.board[0], here.board[1], tuple(here.board[2]))
    if tuple(other["board"][2]) != board[2]:
        print("the two checkouts lay the state out differently: their modules cannot share work arrays",
              file=sys.stderr)
        return 2
    K = np.array([list(s) for s in states(here, args.states)], np.uint64)
    mods = {"this": module([for_board(here.source, *board, refcounts=r) for r in (False, True)]),
            "other": module(other["made"])}
    a = here._expand_args
    # (the other checkout's own globals rows and static globals: its lowering may lay them out otherwise, as
    # it did before bool arrays became words; every other work array is this checkout's, of the same shape)
    at_sg, at_rows = 1, (8, 10)  # (SG, then g0 and g, among expand's arrays after the state: EXPAND's signature)
    b = [np.array(other["SG"], np.int64) if k == at_sg else np.zeros(shape, x.dtype) if k in at_rows else x
         for k, (x, shape) in enumerate(zip(a[1:], other["shapes"]))]
    if any(list(x.shape) != shape for x, shape in zip(b, other["shapes"])):
        print("the two checkouts' work arrays differ in shape: their modules cannot share them", file=sys.stderr)
        return 2
    call = {name: (lambda m, w: lambda r: m._bench_expand(K, *w, r))(m, w)
            for (name, m), w in zip(mods.items(), (a[1:], b))}
    made, compiled = {}, {}
    for name, f in call.items():  # (the first call compiles, or loads numba's cache; both make the same children)
        t = time.perf_counter()
        made[name] = f(1)
        compiled[name] = time.perf_counter() - t
    print("first call (compiling, unless numba's cache has it): "
          + ", ".join(f"{name} {s:.1f} s" for name, s in compiled.items()))
    if made["this"] != made["other"]:
        print(f"the two versions make {made['this']:,} and {made['other']:,} children", file=sys.stderr)
        return 1
    reps = 1
    while True:  # (each timing ~0.1 s)
        t = time.perf_counter()
        call["this"](reps)
        if time.perf_counter() - t > 0.1:
            break
        reps *= 2
    times = {name: [] for name in call}
    for _ in range(args.rounds):
        for name, f in call.items():
            t = time.perf_counter()
            f(reps)
            times[name].append((time.perf_counter() - t) / (reps * len(K)) * 1e9)
    for name in call:
        print(f"{name:5}: ns a state expanded: best {min(times[name]):.1f}, median {statistics.median(times[name]):.1f}")
    ratios = [o / t for o, t in zip(times["other"], times["this"])]
    print(f"other / this: best-to-best {min(times['other']) / min(times['this']):.3f}, "
          f"median of the rounds' ratios {statistics.median(ratios):.3f} ({len(K):,} states, "
          f"{made['this']:,} children a pass)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
