"""In-process measurements through the Python API, run in a child process by bench/run.py.

A child process per measurement keeps a slow or memory-hungry backend from hanging or bloating the harness
(run.py kills it at a wall-clock limit), and lets it measure memory per stored state from the child's peak RSS.

    python -m bench.worker TASK JSON-ARGS      -> prints one JSON object (the result) as its last line

Every task goes through the public API only: gridrules.api.load / api.system(inst, backend=...) and
solvers.solve(system, algorithm, Budget(...)), so a new backend is measured without changing this file.
"""
from __future__ import annotations

import json
import resource
import statistics
import sys
import time


def _rss_bytes() -> int:
    """Peak resident memory of this process so far."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux reports KiB


def _rss_now() -> int | None:
    """Resident memory now (Linux), or None where /proc is missing."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        return None


class _MemoryProbe:
    """A Budget.progress callback: resident memory growth since the search began, per stored state, sampled
    while the search's tables are alive (a finished search frees them, so measuring afterwards says little)."""

    def __init__(self):
        import gc

        gc.collect()
        self.base = _rss_now()
        self.sample = None  # (growth in bytes, stored states)

    def __call__(self, stats) -> None:
        now = _rss_now()
        if now is not None and self.base is not None and stats.peak_states:
            self.sample = (now - self.base, stats.peak_states)


def default_algorithm(game) -> str:
    """What `gridrules solve` uses when no --algorithm is given: A* when there is an admissible heuristic."""
    return "astar" if any(h.admissible for h in game.heuristics) else "bfs"


def _solve(system, algorithm, time_limit, max_cost=None, progress=None):
    from solvers import Budget

    budget = Budget(time_limit=time_limit, max_cost=max_cost, admissible=getattr(system, "admissible", True),
                    progress=progress, progress_every=0.5)
    t0 = time.perf_counter()
    sol = _search(system, algorithm, budget)
    return sol, time.perf_counter() - t0


def _search(system, algorithm, budget):
    """The backend's own (native) search where it has one, as `gridrules solve` does; else solvers/."""
    from gridrules import api

    return api.solve(system, algorithm, budget)


def _warm_up(system, algorithm) -> None:
    """An untimed, tiny search first: a backend that compiles or loads native code on first use does so
    here, so the timed search measures searching (whole-process figures include everything). Then the
    extension modules a `gridrules solve` of it would have built in the background as it exited, built now:
    the timed searches run as a user's later runs do."""
    from gridrules.compiled import extension
    from solvers import Budget

    _search(system, algorithm, Budget(time_limit=60.0, max_states=200))  # the time limit only as a safety net
    extension.build_wanted_now()


def _record(sol, seconds) -> dict:
    st = sol.stats
    return {"status": sol.status, "cost": sol.cost, "length": None if sol.moves is None else len(sol.moves),
            "optimal": bool(sol.optimal), "seconds": seconds, "expanded": st.expanded, "generated": st.generated,
            "peak": st.peak_states}


def task_series(args: dict) -> dict:
    """Solve the levels of one file one after another: per level, system(inst) + solve, each under
    `time_limit`; stop starting new levels once `budget` seconds are spent (they are reported as not run)."""
    from gridrules import api

    t0 = time.perf_counter()
    insts = api.load(args["ruleset"], args["level"], args.get("params") or None)
    load_s = time.perf_counter() - t0
    algorithm = args.get("algorithm") or default_algorithm(insts[0].game)
    budget = args.get("budget")
    if args.get("warmup"):  # an untimed level of the same size first: caches warm, as for a user's 2nd run
        for inst in api.load(args["ruleset"], args["warmup"], args.get("params") or None)[:1]:
            _warm_up(api.system(inst, args["backend"]), algorithm)
    results = []
    start = time.perf_counter()
    for inst in insts:
        if budget is not None and time.perf_counter() - start > budget:
            break
        t1 = time.perf_counter()
        system = api.system(inst, args["backend"])
        build_s = time.perf_counter() - t1
        sol, solve_s = _solve(system, algorithm, args["time_limit"], inst.limit)
        rec = _record(sol, solve_s)
        rec["build"] = build_s
        rec["total"] = build_s + solve_s
        results.append(rec)
    return {"levels": len(insts), "load_s": load_s, "algorithm": algorithm, "results": results}


def task_solve(args: dict) -> dict:
    """Solve every level of each file in `levels` (one process for them all), `repeat` times each (median
    time), after an untimed warm-up; also the memory per stored state (peak-RSS growth / peak states).
    Returns {"results": [[record per level] per file]}."""
    from gridrules import api

    files = []
    algorithm = args.get("algorithm")
    for path in args["levels"]:
        insts = api.load(args["ruleset"], path, args.get("params") or None)
        algorithm = args.get("algorithm") or default_algorithm(insts[0].game)
        out = []
        for inst in insts:
            system = api.system(inst, args["backend"])
            _warm_up(system, algorithm)
            runs = []
            rss_before = _rss_bytes()
            probe = _MemoryProbe()
            for _ in range(max(1, args.get("repeat", 1))):
                sol, seconds = _solve(system, algorithm, args["time_limit"], inst.limit,
                                      probe if not runs else None)
                runs.append((seconds, sol))
                if sol.status not in ("solved", "unsolvable"):
                    break  # a budget ran out: repeating would only take as long again
            rss_after = _rss_bytes()
            seconds = statistics.median(s for s, _ in runs)
            rec = _record(runs[-1][1], seconds)
            rec["runs"] = len(runs)
            rec["bytes_per_state_layout"] = inst.layout.bytes_per_state()
            # Memory per stored state, only where the search stored enough states for it to mean something:
            # from the progress samples (resident memory growth while the search runs), else, for a backend
            # whose search does not report progress, from the growth of the process's peak resident memory.
            peak = rec["peak"]
            rec["rss_growth"] = rss_after - rss_before
            rec["bytes_per_stored_state"] = None
            if probe.sample and probe.sample[1] >= 50_000:
                rec["bytes_per_stored_state"] = probe.sample[0] / probe.sample[1]
                rec["memory_measure"] = "resident growth during the search"
            elif peak >= 50_000 and rss_after > rss_before:
                rec["bytes_per_stored_state"] = (rss_after - rss_before) / peak
                rec["memory_measure"] = "peak resident growth"
            rec["moves"] = None if runs[-1][1].moves is None else list(runs[-1][1].moves)
            out.append(rec)
        files.append(out)
    return {"algorithm": algorithm, "results": files}


def _norm(successors) -> list:
    """(move, state, cost) triples in a form every backend's states compare in (packed words as ints)."""
    out = []
    for move, state, cost in successors:
        try:
            state = tuple(int(w) for w in state)
        except TypeError:
            pass
        out.append((str(move), state, int(cost)))
    return out


def task_successors(args: dict) -> dict:
    """Successor generation through the TransitionSystem interface, on the same sample of states for every
    backend: the reference backend's breadth-first order from the initial state, first `sample` states.
    Each backend calls successors() on every sampled state (consuming the moves), in passes repeated for at
    least `min_seconds`, and its time per state is that of the fastest pass (the mean is reported beside it);
    the result also says whether the backends' successor lists agree."""
    from gridrules import api
    from gridrules.errors import GridrulesError

    out = []
    for level in args["levels"]:
        insts = api.load(args["ruleset"], level["path"], level.get("params") or None)
        for inst in insts[: level.get("max_levels", 3)]:
            ref = api.system(inst, "reference")
            root = ref.initial()
            seen, order, k = {root}, [root], 0
            while k < len(order) and len(order) < args["sample"]:
                for _move, child, _cost in ref.successors(order[k]):
                    if child not in seen:
                        seen.add(child)
                        order.append(child)
                k += 1
            order = order[: args["sample"]]
            row = {"level": f"{level['label']}" + (f" {inst.level}" if len(insts) > 1 else ""),
                   "states": len(order), "backends": {}}
            expected = [_norm(ref.successors(s)) for s in order]
            row["moves"] = sum(len(x) for x in expected)
            for backend in args["backends"]:
                try:
                    system = ref if backend == "reference" else api.system(inst, backend)
                except GridrulesError as err:
                    row["backends"][backend] = {"error": str(err)}
                    continue
                got = [_norm(system.successors(s)) for s in order]  # warm-up and the agreement check
                agree = got == expected
                # Passes over the sample until min_seconds (at least 3); the fastest pass is kept, as timeit
                # does: a shared machine's pauses slow some passes, never speed one up.
                passes, t0 = [], time.perf_counter()
                while len(passes) < 3 or time.perf_counter() - t0 < args["min_seconds"]:
                    t = time.perf_counter()
                    for s in order:
                        for _ in system.successors(s):
                            pass
                    passes.append(time.perf_counter() - t)
                row["backends"][backend] = {"seconds_per_state": min(passes) / len(order),
                                            "mean_seconds_per_state": sum(passes) / len(passes) / len(order),
                                            "calls": len(passes) * len(order), "agree": agree}
            out.append(row)
    return {"results": out}


TASKS = {"series": task_series, "solve": task_solve, "successors": task_successors}


def main() -> int:
    task, raw = sys.argv[1], sys.argv[2]
    result = TASKS[task](json.loads(raw))
    result["peak_rss"] = _rss_bytes()
    sys.stdout.write(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
