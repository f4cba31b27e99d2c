"""Two versions of gridrules' native search, timed against each other: this checkout and another (a git worktree of
the code before a change) each load the level once in a process of its own, build their extension modules, then
run the same search in turn, A B B A ..., many rounds. The machine's speed drifts over seconds (whole runs of one
code vary 1.6..3.0 s here on a busy day); a pair run back to back sees about the same machine, so the median of
the pairs' ratios shows a change of a few per cent that separate runs hide. It checks that both versions expand
and make the same number of states.

    python -m bench.search_ab RULESET LEVEL --other /work/base [--algorithm bfs] [--rounds 10] [--max-states N]

Where bench.expand_ab times the move code alone, this times everything a search does (the table, the frontier,
the bound, fresh memory): for changes to loops.py, search.py or a rule file.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

_WORKER = r"""
import json, sys, time
from gridrules import api
from gridrules.compiled import extension
from solvers import Budget
ruleset, level, case, algorithm, max_states = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
inst = api.load(ruleset, level)[case - 1]
heuristic = api.search_plan(inst.game, algorithm, None)[1]

def run():
    system = api.system(inst, "compiled", heuristic)
    budget = Budget(time_limit=3600, max_states=max_states if max_states > 0 else None)
    t = time.perf_counter()
    sol = api.solve(system, algorithm, budget)
    return time.perf_counter() - t, sol.stats.expanded, sol.stats.generated

run()  # (native code compiled or loaded; the extension modules a `gridrules solve` would build, built now)
extension.build_wanted_now()
run()
print("ready", flush=True)
for _ in sys.stdin:
    print(json.dumps(run()), flush=True)
"""


def _worker(checkout: str, args) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=os.path.abspath(checkout))
    env.setdefault("OPENBLAS_NUM_THREADS", "1")  # (as the CLI and bench.run have it: no BLAS threads spinning)
    ruleset, level = (os.path.abspath(p) if os.path.exists(p) else p for p in (args.ruleset, args.level))
    return subprocess.Popen([sys.executable, "-c", _WORKER, ruleset, level, str(args.case), args.algorithm,
                             str(args.max_states)],
                            env=env, cwd="/", stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.search_ab", description=__doc__.split("\n\n")[0])
    ap.add_argument("ruleset")
    ap.add_argument("level")
    ap.add_argument("--other", required=True, help="the other checkout (its root: gridrules/ is below it)")
    ap.add_argument("--case", type=int, default=1, help="which level of the file (default 1)")
    ap.add_argument("--algorithm", default="bfs", help="bfs, astar, idastar or iddfs (default bfs)")
    ap.add_argument("--rounds", type=int, default=10, help="pairs of runs (default 10)")
    ap.add_argument("--max-states", type=int, default=0, help="stop each search there (default: no limit)")
    args = ap.parse_args(argv)

    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    procs = {"other": _worker(args.other, args), "this": _worker(here, args)}
    for name, p in procs.items():
        if p.stdout.readline().strip() != "ready":
            print(f"the {name} checkout's search did not start", file=sys.stderr)
            return 2
    times: dict[str, list[float]] = {"other": [], "this": []}
    counts = {}
    for r in range(args.rounds):
        for name in ("other", "this") if r % 2 == 0 else ("this", "other"):
            procs[name].stdin.write("run\n")
            procs[name].stdin.flush()
            answer = procs[name].stdout.readline()
            if not answer:  # (its error is on stderr, above)
                print(f"the {name} checkout's search failed", file=sys.stderr)
                return 2
            seconds, expanded, generated = json.loads(answer)
            times[name].append(seconds)
            counts.setdefault(name, set()).add((expanded, generated))
    for p in procs.values():
        p.stdin.close()
        p.wait()
    if len(counts["this"] | counts["other"]) != 1:
        print(f"the searches differ: this {sorted(counts['this'])}, other {sorted(counts['other'])}", file=sys.stderr)
        return 1
    (expanded, generated), = counts["this"]
    ratios = [o / t for o, t in zip(times["other"], times["this"])]
    print(f"{args.ruleset} {args.level}: {args.algorithm}, {expanded:,} expanded, {generated:,} made, "
          f"{args.rounds} pairs")
    print(f"  other {statistics.median(times['other']):.3f} s, this {statistics.median(times['this']):.3f} s "
          f"(medians; each {min(times['this'] + times['other']):.3f}..{max(times['this'] + times['other']):.3f} s)")
    print(f"  other / this: {statistics.median(ratios):.3f}x (median of the pairs; {min(ratios):.3f}..{max(ratios):.3f}),"
          f" this quicker in {sum(x > 1 for x in ratios)} of {len(ratios)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
