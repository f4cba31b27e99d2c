"""The benchmark harness: gridrules against the seeds' reference programs and the issue's targets.

    python -m bench.run                       # everything, at the issue's sizes
    python -m bench.run --quick               # a small subset, under a minute (a smoke test)
    python -m bench.run --only floodit8,startup
    python -m bench.run --count floodit12=3 --count floodit14=200 --time-limit 10
    python -m bench.run --json results.json   # also write every figure as JSON

Benchmarks (bench/README.md says what each measures and why):
    startup          `gridrules solve floodit` on the seed sample: cold (empty caches) and warm wall time
    successors       successor generation of every backend against the reference backend, per bundled ruleset
    floodit8         100 random 8x8 boards in one HDU file: seed 001's C program vs gridrules, whole processes
    floodit12        10 random 12x12 boards: seed 001's C program (MAXN raised) vs gridrules
    floodit14        1000 random 14x14 boards solved optimally in-process: median, total, distribution
    bloxorz-samples  seed 002's Pascal program vs gridrules on its two sample levels
    bloxorz-large    generated 60x60 maps: full-space BFS states/s, bytes per state; seed 002 on a large map
    drops            seeded 6x6 boards (3s and 4s; dense): seed 000's Pascal program vs gridrules, by optimal depth
    splashback       100 consecutive seeded levels with the anytime search (1 s each), and greedy play
    lianliankan      pair listing, HDU 1175's 1000x1000 case, 200 seeded deals decided within 1 s each

Every backend that exists is measured: the harness asks gridrules which backends it has (the names that
`gridrules.api.system(inst, backend=...)` accepts, found from its error message, the CLI's --backend help and
a few likely names), so a new backend shows up here without changing the harness. Whole processes are timed
with time.perf_counter() around subprocess.run; in-process figures come from bench/worker.py (a child process
using the API). Every search runs under a time budget (--time-limit): a backend that is too slow is reported as
"timed out at X s", never left to hang.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from . import gen, seeds

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = seeds.BUILD / "data"

BENCHMARKS = ["startup", "successors", "floodit8", "floodit12", "floodit14", "bloxorz-samples", "bloxorz-large",
              "drops", "splashback", "lianliankan"]

# sizes: the (full) and a small subset (--quick); --count NAME=N overrides the main count
FULL = {"floodit8": 100, "floodit12": 10, "floodit14": 1000, "bloxorz-large": 60, "successors": 300,
        "startup": 5, "bloxorz-samples": 5, "drops": 40, "splashback": 100, "lianliankan": 200}
QUICK = {"floodit8": 5, "floodit12": 1, "floodit14": 20, "bloxorz-large": 40, "successors": 30,
         "startup": 1, "bloxorz-samples": 1, "drops": 3, "splashback": 3, "lianliankan": 5}
SPLASHBACK_BUDGET = 1.0  # seconds of anytime search per level
DEAL_LIMIT = 1.0  # seconds per Lianliankan deal: the target is "decided within 1 s"


# ---- small helpers ------------------------------------------------------------------------------

@dataclass
class Proc:
    rc: int | None
    seconds: float
    stdout: str
    stderr: str
    timed_out: bool


def timed(cmd: list[str], *, timeout: float, cwd=None, env=None, stdin_path=None) -> Proc:
    """Run a whole process; wall time by perf_counter around subprocess.run. A process past `timeout` is
    killed and reported as timed out (its time is then the timeout)."""
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    env = bench_env() if env is None else env
    try:
        t0 = time.perf_counter()
        try:
            p = subprocess.run(cmd, cwd=cwd, env=env, stdin=stdin, capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired as e:
            return Proc(None, time.perf_counter() - t0, (e.stdout or b"").decode(errors="replace"),
                        (e.stderr or b"").decode(errors="replace"), True)
        return Proc(p.returncode, time.perf_counter() - t0, p.stdout.decode(errors="replace"),
                    p.stderr.decode(errors="replace"), False)
    finally:
        if stdin_path:
            stdin.close()


def wait_for_extension_builds(timeout: float = 300) -> float:
    """Wait until no extension module is being built in the background (a `gridrules solve` on numba's JIT
    starts one after its levels: gridrules/compiled/extension.py), so that a timed run neither shares the cores with
    it nor misses what it builds. The seconds waited."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < timeout:
        if not any(b"gridrules.compiled.extension" in cmdline for cmdline in _cmdlines()):
            break
        time.sleep(0.2)
    return time.perf_counter() - t0


def _cmdlines():
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            yield (proc / "cmdline").read_bytes()
        except OSError:
            continue


def bench_env() -> dict:
    """The environment of every measured process: Python may keep bytecode (under bench/.build/pycache, not
    in the source tree) even where the caller's environment says PYTHONDONTWRITEBYTECODE, so `warm` means
    warm for Python too."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(seeds.BUILD / "pycache")
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    # (as gridrules' CLI sets for itself: OpenBLAS's threads spin after numpy's import, taking a core from the
    # search; the in-process worker imports numpy without the CLI)
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    return env


def git_revision() -> str:
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                             timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return rev + (" (with uncommitted changes)" if dirty else "")
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"


def gridrules_cmd() -> list[str]:
    exe = shutil.which("gridrules")
    return [exe] if exe else [sys.executable, "-m", "gridrules"]


def worker(task: str, args: dict, timeout: float) -> dict:
    """Run a bench/worker.py task in a child process; {"error": ...} when it fails or runs past `timeout`."""
    p = timed([sys.executable, "-m", "bench.worker", task, json.dumps(args)], timeout=timeout, cwd=ROOT)
    if p.timed_out:
        return {"error": f"killed after {p.seconds:.0f} s (wall-clock limit of the measurement)", "killed": True}
    if p.rc != 0:
        tail = " | ".join((p.stderr or p.stdout).strip().splitlines()[-3:])
        return {"error": f"worker exited with {p.rc}: {tail}"}
    return json.loads(p.stdout.strip().splitlines()[-1])


def fmt_s(x: float | None) -> str:
    if x is None:
        return "-"
    if x >= 100:
        return f"{x:.0f} s"
    if x >= 1:
        return f"{x:.2f} s"
    if x >= 0.01:
        return f"{x * 1000:.0f} ms"
    return f"{x * 1000:.2f} ms"


def fmt_speed(ratio: float | None) -> str:
    """A speed ratio (reference time / gridrules time): `2.5x faster` or `40x slower`."""
    if ratio is None or ratio <= 0:
        return "-"
    if ratio >= 1:
        return f"{ratio:.3g}x faster" if ratio < 1000 else f"{ratio:,.0f}x faster"
    inv = 1 / ratio
    return f"{inv:.3g}x slower" if inv < 1000 else f"{inv:,.0f}x slower"


def fmt_n(n) -> str:
    return "-" if n is None else f"{n:,.0f}"


def verdict(ok: bool | None) -> str:
    return "n/a" if ok is None else ("PASS" if ok else "FAIL")


def table(title: str, header: list[str], rows: list[list], notes: list[str] = ()) -> None:
    cells = [[str(c) for c in header]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) if i < len(r) else 0 for r in cells) for i in range(len(header))]
    print(f"\n== {title}")
    print("  " + "  ".join(h.ljust(w) for h, w in zip(cells[0], widths)).rstrip())
    print("  " + "  ".join("-" * w for w in widths))
    for r in cells[1:]:
        print("  " + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    for n in notes:
        print(f"  * {n}")
    sys.stdout.flush()


def write_data(name: str, text: str) -> Path:
    DATA.mkdir(parents=True, exist_ok=True)
    path = DATA / name
    if not path.exists() or path.read_text() != text:
        path.write_text(text)
    return path


# ---- backends ----------------------------------------------------------------------------------

LIKELY_BACKENDS = ("reference", "compiled", "numba", "native")
# where gridrules and numba keep their on-disk caches: pointed at empty folders for a cold run
COLD_VARS = (("XDG_CACHE_HOME", "xdg"), ("GRIDRULES_CACHE", "gridrules"), ("GRIDRULES_CACHE_DIR", "gridrules2"),
             ("NUMBA_CACHE_DIR", "numba"))


def discover_backends() -> tuple[list[str], list[str]]:
    """The backends `gridrules.api.system` accepts (reference first), and notes on how they were found."""
    from gridrules import api
    from gridrules.errors import UsageError

    inst = api.load("floodit", str(ROOT / "rulesets/floodit/levels/hdu4127-sample.txt"))[0]
    candidates: list[str] = list(LIKELY_BACKENDS)
    notes = []
    try:
        api.system(inst, backend="\u2205no-such-backend")
    except UsageError as err:
        m = re.search(r"available:\s*([^)]*)\)", str(err))
        if m:
            listed = [x.strip() for x in m.group(1).split(",") if x.strip()]
            candidates = listed + candidates
            notes.append(f"api.system lists: {', '.join(listed)}")
    try:
        helptext = subprocess.run(gridrules_cmd() + ["solve", "--help"], capture_output=True, text=True,
                                  timeout=60).stdout
        m = re.search(r"--backend\s+\[([^\]]+)\]", helptext)
        if m:
            listed = m.group(1).split("|")
            candidates += listed
            notes.append(f"CLI --backend choices: {', '.join(listed)}")
    except (OSError, subprocess.TimeoutExpired):
        pass
    extra = [b for b in os.environ.get("BENCH_BACKENDS", "").split(",") if b]
    candidates += extra
    found = []
    for name in dict.fromkeys(candidates):
        try:
            api.system(inst, backend=name)
        except UsageError:
            continue
        found.append(name)
    missing = [b for b in LIKELY_BACKENDS if b not in found]
    if missing:
        notes.append(f"not available today: {', '.join(missing)}")
    found.sort(key=lambda b: b != "reference")
    return found, notes


# ---- the benchmarks ------------------------------------------------------------------------------

class Harness:
    def __init__(self, opts):
        self.opts = opts
        self.quick = opts.quick
        self.counts = dict(QUICK if opts.quick else FULL)
        self.counts.update(opts.count)
        self.time_limit = opts.time_limit or (2.0 if opts.quick else 10.0)
        self.backends = opts.backends
        self.results: dict = {}
        self.gr = gridrules_cmd()

    def warm(self, backend: str, ruleset: str = "floodit", level: Path | None = None) -> str | None:
        """One untimed run, so the timed ones find warm caches (for Flood-It: a board of the same size as the
        timed ones, but not one of them); an error text when the CLI refuses the backend."""
        level = level or ROOT / "rulesets/floodit/levels/hdu4127-sample.txt"
        p = timed(self.gr + ["solve", ruleset, str(level), "--backend", backend, "--time-limit", "1"], timeout=300)
        wait_for_extension_builds()
        if p.rc == 3:  # the warm-up search may run out of its 1 s: the caches are filled all the same
            return None
        if p.rc != 0:
            return (p.stderr.strip().splitlines() or [f"exit {p.rc}"])[-1]
        return None

    def solve_file(self, backend: str, path: Path, timeout: float) -> Proc:
        """`gridrules solve floodit PATH --format json` as a whole process: the median of 3 runs (one for the
        reference backend, which takes long; fewer when a run is killed)."""
        runs = []
        for _ in range(1 if backend == "reference" else 3):
            runs.append(timed(self.gr + ["solve", "floodit", str(path), "--backend", backend, "--format", "json",
                                         "--time-limit", str(self.time_limit)], timeout=timeout))
            if runs[-1].timed_out:
                break
        return sorted(runs, key=lambda r: r.seconds)[len(runs) // 2]

    # -- startup
    def startup(self) -> dict:
        sample = str(ROOT / "rulesets/floodit/levels/hdu4127-sample.txt")
        runs = self.counts["startup"]
        rows, out = [], {}
        cold_runs = not self.quick
        base = timed([sys.executable, "-c", "pass"], timeout=60).seconds
        imp = timed([sys.executable, "-c", "import gridrules.cli, gridrules.api, solvers"], timeout=60).seconds
        for backend in self.backends:
            cmd = self.gr + ["solve", "floodit", sample, "--backend", backend]
            with tempfile.TemporaryDirectory(prefix="gridrules-cold-") as cold:
                env = bench_env()
                if cold_runs:  # the cold run, then the warm ones, in empty cache folders of their own
                    for var, sub in COLD_VARS:
                        env[var] = os.path.join(cold, sub)
                first = timed(cmd, timeout=300, env=env) if cold_runs else None
                waited = wait_for_extension_builds()
                warm = []
                for _ in range(runs + 1):
                    warm.append(timed(cmd, timeout=300, env=env))
                    waited += wait_for_extension_builds()
                warm = warm[1:]  # the first warm run only fills what the cold one left
                env2 = dict(env)
                env2["PYTHONPYCACHEPREFIX"] = os.path.join(cold, "pyc")
                for var, sub in COLD_VARS:
                    env2[var] = os.path.join(cold, "again-" + sub)
                nobc = timed(cmd, timeout=300, env=env2) if cold_runs else None
                waited += wait_for_extension_builds()
            bad = [p for p in [first, nobc] + warm if p is not None and p.rc != 0]
            warm_s = statistics.median(p.seconds for p in warm)
            rows.append([backend, "warm (median of %d)" % runs, fmt_s(warm_s), "< 0.8 s", verdict(warm_s < 0.8)])
            if cold_runs:
                rows.append([backend, "cold: empty caches", fmt_s(first.seconds), "< 15 s",
                             verdict(first.seconds < 15)])
                rows.append([backend, "cold, no Python bytecode cache", fmt_s(nobc.seconds), "(informational)", ""])
            else:
                rows.append([backend, "cold", "skipped with --quick", "< 15 s", "n/a"])
            if bad:
                rows.append([backend, "error", bad[0].stderr.strip().splitlines()[-1:] or bad[0].rc, "", "FAIL"])
            out[backend] = {"warm_median_s": warm_s, "warm_runs_s": [p.seconds for p in warm],
                            "cold_s": first and first.seconds, "cold_no_bytecode_s": nobc and nobc.seconds,
                            "background_builds_waited_s": waited, "errors": [p.stderr[-300:] for p in bad]}
        rows.append(["python", "`python -c pass`", fmt_s(base), "", ""])
        rows.append(["python", "import gridrules.cli, api, solvers", fmt_s(imp), "", ""])
        table("startup: `gridrules solve floodit hdu4127-sample.txt` wall time",
              ["backend", "run", "wall", "target", "result"], rows,
              ["cold = fresh empty " + ", ".join(v for v, _ in COLD_VARS) + " (a backend's on-disk cache must "
               "live under one of them for this row to be cold); Python bytecode stays warm",
               "the bytecode row also points PYTHONPYCACHEPREFIX at an empty folder (a fresh install "
               "without byte-compilation)",
               "a run whose search ran on numba's JIT builds extension modules in the background after its levels "
               "(gridrules/compiled/extension.py); the harness waits for them before each timed run"])
        out["python_pass_s"], out["import_s"] = base, imp
        return out

    # -- successors
    def successors(self) -> dict:
        from rulesets import bundled

        sample = self.counts["successors"]
        min_seconds = 0.2 if self.quick else 1.0
        rows, out, notes = [], {}, []
        # the reference backend always: the target is a ratio against it (--backends compiled measured nothing)
        backends = ["reference"] + [b for b in self.backends if b != "reference"]
        for name, rule in bundled().items():
            levels = [{"path": str(p), "label": p.name} for p in sorted((rule.parent / "levels").glob("*"))
                      if p.is_file()]
            if name == "floodit" and not self.quick:
                board = gen.floodit_board(14, 6, 1, 0)
                levels.append({"path": str(write_data("floodit-14x14-seed1-0.txt", gen.grid_text(board))),
                               "label": "generated 14x14"})
            if name == "bloxorz" and not self.quick:
                bm = gen.bloxorz_map(60, 1, switches=6)
                levels.append({"path": str(write_data("bloxorz-60-seed1.txt", bm.own_text())),
                               "label": "generated 60x60"})
            res = worker("successors", {"ruleset": name, "levels": levels, "backends": backends,
                                        "sample": sample, "min_seconds": min_seconds},
                         timeout=600)
            out[name] = res
            if "error" in res:
                rows.append([name, "-", "-", "-", res["error"], "", ""])
                continue
            totals = {b: 0.0 for b in backends}
            for r in res["results"]:
                ref = r["backends"].get("reference", {}).get("seconds_per_state")
                for b in backends:
                    info = r["backends"].get(b, {})
                    if "error" in info:
                        rows.append([name, r["level"], r["states"], b, info["error"], "", ""])
                        continue
                    per = info["seconds_per_state"]
                    totals[b] += per * r["states"]
                    ratio = ref / per if ref and per else None
                    rows.append([name, r["level"], r["states"], b, f"{per * 1e6:,.1f} us",
                                 f"{ratio:.1f}x" if ratio else "-",
                                 "yes" if info["agree"] else "NO: differs from reference"])
            ref_total = totals.get("reference")
            others = backends[1:]
            if not others:
                rows.append([name, "all levels", "", "-", "", "", "target >= 50x: FAIL (no backend but reference)"])
            for b in others:
                ratio = ref_total / totals[b] if totals[b] else None
                rows.append([name, "all levels", "", b, "", f"{ratio:.1f}x" if ratio else "-",
                             f"target >= 50x: {verdict(ratio is not None and ratio >= 50)}"])
        table(f"successors: successors() per state through the TransitionSystem interface "
              f"(first {sample} states in BFS order)",
              ["ruleset", "level", "states", "backend", "per call", "vs reference", "agrees / result"], rows,
              notes + ["per call: the fastest of at least 3 passes over the sample (the machine's pauses slow some "
                       "passes, never speed one up); the JSON also holds the mean",
                       "every backend expands the same states (the reference backend's BFS order); "
                       "`agrees` compares each successor list (moves, states, costs) with the reference's"])
        return out

    # -- Flood-It 8x8
    def floodit8(self) -> dict:
        n = self.counts["floodit8"]
        boards = gen.floodit_boards(n, 8, 6, seed=1)
        path = write_data(f"floodit-8x8-{n}-seed1.txt", gen.hdu_text(boards))
        out, rows = {"boards": n, "file": str(path)}, []
        try:
            prog = seeds.floodit_c(8)
        except seeds.SeedError as err:
            print(f"\n== floodit8: skipped the C comparison: {err}")
            prog = None
        c_s, c_ans = None, None
        if prog:
            runs = [timed([str(prog.exe)], timeout=600, stdin_path=path) for _ in range(3)]
            c_s = statistics.median(p.seconds for p in runs)
            c_ans = [int(x) for x in runs[0].stdout.split()]
            rows.append(["seed 001 C (gcc -O2, %s)" % prog.note, fmt_s(c_s), "1x", f"{len(c_ans)} answers", "", ""])
            out["c_s"], out["c_answers"] = c_s, c_ans
        warmup = write_data("floodit-8x8-warmup.txt", gen.hdu_text(gen.floodit_boards(2, 8, 6, seed="warmup")))
        for b in self.backends:
            err = self.warm(b, "floodit", warmup)
            if err:
                rows.append([f"gridrules --backend {b}", "CLI error", "", err, "", "FAIL"])
                continue
            limit = self.time_limit
            p = self.solve_file(b, path, timeout=n * limit + 120)
            recs = [json.loads(x) for x in p.stdout.splitlines() if x.startswith("{")]
            costs = [r["cost"] if r["status"] == "solved" else None for r in recs]
            exhausted = sum(1 for r in recs if r["status"] == "budget_exhausted")
            agree = sum(1 for a, c in zip(costs, c_ans or []) if a == c)
            speed = c_s / p.seconds if c_s else None
            ok = None if c_s is None else (speed >= 1.0 and not exhausted and not p.timed_out and len(recs) == n)
            wall = fmt_s(p.seconds) + (" (killed)" if p.timed_out else "")
            note = f"{agree}/{n} agree with C" if c_ans else f"{len(recs)} solved"
            if exhausted:
                note += f"; {exhausted} hit the {limit:g} s limit"
            rows.append([f"gridrules --backend {b}", wall, fmt_speed(speed), note, ">= 1x (as fast)", verdict(ok)])
            out[b] = {"wall_s": p.seconds, "speed_vs_c": speed, "agree": agree, "exhausted": exhausted,
                      "costs": costs, "timed_out": p.timed_out, "rc": p.rc}
        table(f"floodit8: {n} random 8x8 boards, 6 colours, one HDU file; whole process vs whole process, warm cache",
              ["program", "wall", "speed vs C", "answers", "target", "result"], rows,
              [f"gridrules runs with --time-limit {self.time_limit:g} per level (default algorithm: A* with the "
               "ruleset's admissible heuristics); the C time is the median of 3 runs, and so is the compiled "
               "backend's (the reference's: one run)"])
        return out

    # -- Flood-It 12x12
    def floodit12(self) -> dict:
        n = self.counts["floodit12"]
        boards = gen.floodit_boards(n, 12, 6, seed=1)
        path = write_data(f"floodit-12x12-{n}-seed1.txt", gen.hdu_text(boards))
        c_limit = 60.0 if not self.quick else 2.0
        out, rows = {"boards": n}, []
        c_times, c_ans = [None] * n, [None] * n
        try:
            prog = seeds.floodit_c(14)
        except seeds.SeedError as err:
            print(f"\n== floodit12: skipped the C comparison: {err}")
            prog = None
        if prog:
            for i, b in enumerate(boards):
                one = write_data(f"floodit-12x12-seed1-{i}.txt", gen.hdu_text([b]))
                p = timed([str(prog.exe)], timeout=c_limit, stdin_path=one)
                c_times[i] = p.seconds
                c_ans[i] = None if p.timed_out else int(p.stdout.split()[0])
        per_backend = {}
        warmup = write_data("floodit-12x12-warmup.txt", gen.hdu_text(gen.floodit_boards(1, 12, 6, seed="warmup")))
        for b in self.backends:
            err = self.warm(b, "floodit", warmup)
            if err:
                per_backend[b] = {"error": err}
                continue
            limit = self.time_limit
            p = self.solve_file(b, path, timeout=n * limit + 120)
            recs = [json.loads(x) for x in p.stdout.splitlines() if x.startswith("{")]
            per_backend[b] = {"wall_s": p.seconds, "timed_out": p.timed_out, "records": recs}
        for i in range(n):
            row = [i + 1, fmt_s(c_times[i]) + (" (killed)" if c_ans[i] is None and prog else ""),
                   c_ans[i] if c_ans[i] is not None else "-"]
            for b in self.backends:
                recs = per_backend[b].get("records", [])
                if i < len(recs):
                    r = recs[i]
                    text = (f"{r['cost']} in {fmt_s(r['stats']['seconds'])}" if r["status"] == "solved"
                            else f"timed out at {r['stats']['seconds']:.1f} s")
                else:
                    text = "not run"
                row.append(text)
            rows.append(row)
        total_c = sum(t for t in c_times if t is not None) if prog else None
        c_complete = prog is not None and all(a is not None for a in c_ans)
        summary = []
        for b in self.backends:
            info = per_backend[b]
            if "error" in info:
                summary.append([b, "CLI error", info["error"], "", "FAIL"])
                continue
            recs = info["records"]
            solved = [r for r in recs if r["status"] == "solved"]
            agree = sum(1 for i, r in enumerate(recs) if r["status"] == "solved" and r["cost"] == c_ans[i])
            speed = total_c / info["wall_s"] if total_c else None
            # where C was killed its total is a lower bound, and so is the speed-up: it passes only if even
            # the lower bound reaches the target
            ok = None if not prog else (len(solved) == n and speed is not None and speed >= 20)
            text = f"{len(solved)}/{n} solved, {agree} agree with C"
            if len(solved) < n:
                text += f"; {n - len(solved)} timed out at {self.time_limit:g} s"
            speed_text = fmt_speed(speed)
            if prog and not c_complete:
                speed_text = ">= " + speed_text + f" (C killed on {sum(a is None for a in c_ans)} boards)"
            summary.append([b, fmt_s(info["wall_s"]) + (" (killed)" if info["timed_out"] else ""),
                            speed_text, text, verdict(ok)])
            # the boards C finished: its processes against gridrules' in-process solve times on them
            both = [i for i in range(min(n, len(recs))) if c_ans[i] is not None and recs[i]["status"] == "solved"]
            if prog and both and (not c_complete or len(both) < n):
                c_sum = sum(c_times[i] for i in both)
                g_sum = sum(recs[i]["stats"]["seconds"] for i in both)
                summary.append([b, f"in-process {fmt_s(g_sum)}", fmt_speed(c_sum / g_sum if g_sum else None),
                                f"on the {len(both)} boards both finished (C {fmt_s(c_sum)})", "(informational)"])
            out[b] = {"wall_s": info["wall_s"], "speed_vs_c": speed, "solved": len(solved), "agree": agree,
                      "per_board_s": [r["stats"]["seconds"] for r in recs],
                      "costs": [r["cost"] for r in recs]}
        out["c_s"], out["c_answers"], out["c_total_s"] = c_times, c_ans, total_c
        table(f"floodit12: {n} random 12x12 boards, 6 colours — per board (C: one process per board; gridrules: "
              f"in-process solve time)",
              ["board", "C wall", "C answer"] + [f"gridrules {b}" for b in self.backends], rows)
        table(f"floodit12 totals: C {fmt_s(total_c)} (sum of its {n} processes"
              + ("" if c_complete else ", some killed") + ") vs one gridrules process over all boards",
              ["backend", "gridrules wall", "speed vs C", "answers", "target >= 20x faster"], summary,
              [f"C: seed 001 with {prog.note if prog else '-'} (gcc -O2), killed after {c_limit:g} s per board",
               f"gridrules: --time-limit {self.time_limit:g} per board, warm cache; its wall time the median of 3 "
               "processes (the reference's: one)"])
        return out

    # -- Flood-It 14x14
    def floodit14(self) -> dict:
        n = self.counts["floodit14"]
        boards = gen.floodit_boards(n, 14, 6, seed=1)
        path = write_data(f"floodit-14x14-{n}-seed1.txt", gen.hdu_text(boards))
        budget = self.opts.budget or (3.0 if self.quick else 120.0)
        warmup = write_data("floodit-14x14-warmup.txt", gen.hdu_text(gen.floodit_boards(1, 14, 6, seed="warmup")))
        per_board = min(self.time_limit, budget)
        rows, out = [], {"boards": n, "budget_s": budget}
        for b in self.backends:
            res = worker("series", {"ruleset": "floodit", "level": str(path), "backend": b, "warmup": str(warmup),
                                    "time_limit": per_board, "budget": budget}, timeout=budget + per_board + 300)
            if "error" in res:
                rows.append([b, res["error"], "", "", "", "", "FAIL"])
                out[b] = res
                continue
            rs = res["results"]
            run = len(rs)
            solved = [r for r in rs if r["status"] == "solved" and r["optimal"]]
            timeouts = [r for r in rs if r["status"] != "solved"]
            times = sorted(r["total"] for r in rs)
            total = sum(times)
            complete = run == n and not timeouts
            med = statistics.median(times) if times else None
            lengths = [r["cost"] for r in solved]

            def q(p):
                return times[min(len(times) - 1, int(p * len(times)))] if times else None
            dist = (f"min {fmt_s(times[0])}, p10 {fmt_s(q(0.1))}, p90 {fmt_s(q(0.9))}, max {fmt_s(times[-1])}"
                    if times else "-")
            med_text = fmt_s(med) + ("" if complete else f" (of {run} run, timed-out ones included)")
            total_text = fmt_s(total) + ("" if complete else f" for {run} of {n} boards")
            len_text = (f"sum {sum(lengths):,} (mean {statistics.mean(lengths):.2f}, {min(lengths)}..{max(lengths)})"
                        if lengths else "-")
            rows.append([b, f"{len(solved)}/{n} optimal" + (f", {len(timeouts)} timed out at {per_board:g} s"
                                                           if timeouts else "")
                         + (f", {n - run} not run (budget {budget:g} s spent)" if run < n else ""),
                         med_text, total_text, len_text, dist,
                         f"median {verdict(complete and med < 0.003)}, total {verdict(complete and total < 5)}"])
            out[b] = {"run": run, "optimal": len(solved), "timeouts": len(timeouts), "median_s": med,
                      "total_s": total, "sum_lengths": sum(lengths), "lengths": lengths, "times": times,
                      "algorithm": res["algorithm"], "load_s": res["load_s"]}
            if b != "reference":  # (its whole file would take hours)
                rows += self.floodit14_whole(b, path, warmup, n, per_board, out[b])
        table(f"floodit14: {n} random 14x14 boards, 6 colours, each solved optimally in-process "
              f"(system(inst) + solvers.solve, default algorithm)",
              ["backend", "boards", "median", "total", "optimal lengths", "per-board distribution",
               "target: median < 3 ms, total < 5 s"], rows,
              ["reference figure (shared/spec/floodit.md): the best public exact solver (Java, A*) solves 1000 such "
               "boards in about 5 s in total, median 3 ms, worst 91 ms; optimal lengths 16..23, mean about 20",
               f"each board runs under --time-limit {per_board:g} s; no new board starts after {budget:g} s"])
        return out

    def floodit14_whole(self, backend: str, path: Path, warmup: Path, n: int, per_board: float, out: dict) -> list:
        """The issue's total as a whole process: `gridrules solve floodit FILE` over every board (each solved,
        replayed through the reference rules and printed), warm, with one process and with one per core."""
        rows = []
        self.warm(backend, "floodit", warmup)
        for jobs in (1, 2):
            p = timed(self.gr + ["solve", "floodit", str(path), "--backend", backend, "--format", "json",
                                 "--jobs", str(jobs), "--time-limit", str(per_board)], timeout=n * per_board + 300)
            recs = [json.loads(x) for x in p.stdout.splitlines() if x.startswith("{")]
            optimal = [r for r in recs if r["status"] == "solved" and r["optimal"] and r["verified"]]
            whole = len(optimal) == n and not p.timed_out
            rows.append([f"{backend}: whole process, --jobs {jobs}", f"{len(optimal)}/{n} optimal, verified", "",
                         fmt_s(p.seconds) + (" (killed)" if p.timed_out else ""),
                         f"sum {sum(r['cost'] for r in optimal):,}", "", f"total {verdict(whole and p.seconds < 5)}"])
            out[f"whole_process_jobs{jobs}_s"] = p.seconds
        return rows

    # -- Bloxorz samples
    def run_pascal(self, prog, level_text: str, timeout: float) -> dict:
        with tempfile.TemporaryDirectory(prefix="seed002-") as d:
            Path(d, "bloxorz.in").write_text(level_text)
            p = timed([str(prog.exe)], timeout=timeout, cwd=d)
            outp = Path(d, "bloxorz.out")
            text = outp.read_text(errors="replace") if outp.exists() else ""
        lines = text.splitlines()
        res = {"seconds": p.seconds, "rc": p.rc, "timed_out": p.timed_out, "output": text[:400]}
        if p.timed_out:
            res["error"] = f"killed after {p.seconds:.0f} s"
        elif p.rc != 0:
            m = re.search(r"Runtime error (\d+)", p.stdout + p.stderr)
            code = m.group(1) if m else p.rc
            why = {"201": "range check error", "203": "heap overflow", "202": "stack overflow",
                   "215": "arithmetic overflow"}.get(str(code), "")
            res["error"] = f"runtime error {code}" + (f" ({why})" if why else "")
        elif lines and lines[0].strip().isdigit():
            res["length"] = int(lines[0])
            res["moves"] = lines[1] if len(lines) > 1 else ""
        else:
            res["error"] = "no solution: " + (lines[0].strip() if lines else "empty output")
        return res

    def bloxorz_samples(self) -> dict:
        repeat = self.counts["bloxorz-samples"]
        levels = [ROOT / "rulesets/bloxorz/levels/level16.txt", ROOT / "rulesets/bloxorz/levels/level33.txt"]
        if self.quick:
            levels = levels[:1]
        out, rows = {}, []
        try:
            prog = seeds.bloxorz_pascal()
        except seeds.SeedError as err:
            print(f"\n== bloxorz-samples: skipped the Pascal comparison: {err}")
            prog = None
        for b in self.backends:
            for lv in levels:
                err = self.warm(b, "bloxorz", lv)
            if err:
                rows.append([b, "CLI error", err])
        for lv in levels:
            pas = None
            if prog:
                runs = [self.run_pascal(prog, lv.read_text(), 60) for _ in range(repeat)]
                pas = dict(runs[0])
                pas["seconds"] = statistics.median(r["seconds"] for r in runs)
                ans = pas.get("length", pas.get("error"))
                rows.append([lv.name, "seed 002 Pascal (fpc -O2, unchanged)", fmt_s(pas["seconds"]), "", "", "",
                             ans])
            out[lv.name] = {"pascal": pas}
            for b in self.backends:
                procs = [timed(self.gr + ["solve", "bloxorz", str(lv), "--backend", b, "--format", "json",
                                          "--time-limit", str(self.time_limit)], timeout=self.time_limit + 120)
                         for _ in range(max(1, min(repeat, 3)))]
                wall = statistics.median(p.seconds for p in procs)
                rec = next((json.loads(x) for x in procs[0].stdout.splitlines() if x.startswith("{")), None)
                inproc = worker("solve", {"ruleset": "bloxorz", "levels": [str(lv)], "backend": b,
                                          "time_limit": self.time_limit, "repeat": repeat},
                                timeout=self.time_limit * repeat + 120)
                r = inproc["results"][0][0] if "error" not in inproc else {}
                cost = rec["cost"] if rec and rec["status"] == "solved" else (rec or {}).get("status", "error")
                agree = ""
                if pas and "length" in pas and isinstance(cost, int):
                    agree = "same length" if pas["length"] == cost else f"DIFFERS from Pascal ({pas['length']})"
                ps = pas["seconds"] if pas else None
                rows.append([lv.name, f"gridrules --backend {b}", fmt_s(wall), fmt_speed(ps / wall if ps else None),
                             fmt_s(r.get("seconds")) + ("" if r.get("status") in ("solved", None) else
                                                         f" ({r.get('status')})"),
                             fmt_speed(ps / r["seconds"] if ps and r.get("seconds") else None),
                             f"{cost} ({inproc.get('algorithm', '?')}) {agree}".strip()])
                out[lv.name][b] = {"wall_s": wall, "inprocess_s": r.get("seconds"), "cost": cost,
                                   "algorithm": inproc.get("algorithm"), "expanded": r.get("expanded")}
        table("bloxorz-samples: seed 002's two sample levels (its own input format)",
              ["level", "program", "whole process", "speed vs Pascal", "in-process solve", "speed vs Pascal",
               "answer (moves)"], rows,
              [f"median of {repeat} runs (gridrules whole process: of {max(1, min(repeat, 3))}); "
               "in-process = solvers.solve only, after load and system(); no target in the issue (informational)",
               "Pascal whole process vs gridrules in-process is the fairer speed comparison of the searches; "
               "the whole-process column includes Python's start-up"])
        return out

    # -- Bloxorz large maps
    def bloxorz_large(self) -> dict:
        size = self.counts["bloxorz-large"]
        switches = 6
        full_far = gen.bloxorz_map(size, 1, switches=switches)
        full_none = gen.bloxorz_map(size, 1, switches=switches, hole="unreachable")
        compat = gen.bloxorz_map(size, 1, switches=switches, seed_compatible=True)
        p_far = write_data(f"bloxorz-{size}-seed1.txt", full_far.own_text())
        p_none = write_data(f"bloxorz-{size}-seed1-unreachable.txt", full_none.own_text())
        p_compat = write_data(f"bloxorz-{size}-seed1-compat-seed002.txt", compat.seed002_text())
        limit = self.time_limit * (2 if not self.quick else 1)
        out = {"size": size, "files": [str(p_none), str(p_compat), str(p_far)]}

        # seed 002, unchanged and with its limits raised, on the seed-compatible map
        pas_rows, pas_len, pas_fast = [], None, None
        for label, kw in (("unchanged", {}), ("maxn 64, maxq kept at 20000", {"maxn": 64}),
                          ("maxn 64, maxq 8,000,000", {"maxn": 64, "maxq": 8_000_000})):
            try:
                prog = seeds.bloxorz_pascal(**kw)
            except seeds.SeedError as err:
                pas_rows.append([f"seed 002 Pascal ({label})", "skipped", "", str(err)])
                continue
            r = self.run_pascal(prog, compat.seed002_text(), 120 if not self.quick else 30)
            if "length" in r:
                pas_len = pas_len or r["length"]
                pas_fast = r if "8,000,000" in label else pas_fast
                text = f"{r['length']} moves"
            else:
                text = r["error"]
                if "range check" in text:
                    text += (f": the map is {size}x{size}, over maxn=15" if label == "unchanged" and size > 15
                             else ": more states than maxq=20000" if "kept" in label else "")
            pas_rows.append([f"seed 002 Pascal ({label})", fmt_s(r["seconds"]), "", text])
            out.setdefault("pascal", {})[label] = r

        ex_rows, solve_rows = [], []
        for b in self.backends:
            res = worker("solve", {"ruleset": "bloxorz", "levels": [str(p_none), str(p_compat), str(p_far)],
                                   "backend": b, "algorithm": "bfs", "time_limit": limit}, timeout=3 * limit + 300)
            if "error" in res:
                ex_rows.append([b, res["error"], "", "", "", "", "FAIL"])
                solve_rows.append([f"gridrules --backend {b}", "", "", res["error"]])
                out[b] = res
                continue
            (r,), (rc,), (rf,) = res["results"]
            rate = r["expanded"] / r["seconds"] if r["seconds"] else None
            done = r["status"] == "unsolvable"
            status = (f"all {r['expanded']:,} reachable states (proved unsolvable)" if done else
                      f"timed out at {r['seconds']:.1f} s after {r['expanded']:,} states")
            bps = r["bytes_per_stored_state"]
            ex_rows.append([b, status, fmt_s(r["seconds"]), f"{rate:,.0f}" if rate else "-",
                            f"{r['generated'] / r['seconds']:,.0f}" if r["seconds"] else "-",
                            f"{r['bytes_per_state_layout']} B packed; " + (f"{bps:,.0f} B measured" if bps else
                                                                            "measured: too few states"),
                            verdict(done and rate is not None and rate >= 5e6)])
            out[b] = {"exhaust": r, "states_per_s": rate, "solve_compat": rc, "solve_full": rf}
            for name, rr in (("seed-compatible", rc), ("full", rf)):
                speed = ""
                if rr["status"] == "solved":
                    text = f"{rr['cost']} moves (optimal), {rr['expanded']:,} states expanded"
                    if name == "seed-compatible" and pas_len is not None:
                        text += "; same as Pascal" if rr["cost"] == pas_len else f"; Pascal says {pas_len}"
                    if name == "seed-compatible" and pas_fast:
                        speed = fmt_speed(pas_fast["seconds"] / rr["seconds"]) + " (vs raised Pascal)"
                else:
                    text = f"timed out at {rr['seconds']:.1f} s after {rr['expanded']:,} states"
                solve_rows.append([f"gridrules --backend {b} ({name} map)", fmt_s(rr["seconds"]), speed, text])
        used = full_none.used()
        n_bridges = len([c for c in used if c in gen.BRIDGES])
        n_switches = len([c for c in used if c in gen.SWITCHES])
        n_tele = len([c for c in used if c in gen.SPLITS])
        table(f"bloxorz-large: full-space BFS on a generated {size}x{size} map ({n_bridges} bridge letters, "
              f"{n_switches} soft/heavy switches, {n_tele} teleports, fragile tiles; the hole unreachable, so BFS "
              f"must exhaust the reachable space)",
              ["backend", "states", "time", "states/s (expanded)", "generated/s", "bytes per stored state",
               "target >= 5M states/s"], ex_rows,
              [f"solvers.solve(system, 'bfs', Budget(time_limit={limit:g})); packed = inst.layout.bytes_per_state(); "
               "measured = resident memory growth of the child process during the search / states stored "
               "(sampled through Budget.progress; else peak-RSS growth / peak states)",
               f"file: {p_none.relative_to(ROOT)} (python -m bench.gen bloxorz --size {size} --seed 1 "
               f"--switches {switches} --hole unreachable)"])
        table(f"bloxorz-large: solving generated {size}x{size} maps (BFS to the hole)",
              ["program", "time", "speed", "result"], pas_rows + solve_rows,
              ["seed-compatible map: no fragile tiles, every switch toggles or closes all its bridges (what seed 002 "
               f"implements), written in seed 002's format: {p_compat.relative_to(ROOT)}",
               "Pascal times are whole processes; gridrules times are in-process solvers.solve (bfs)",
               "seed 002 differs from the spec in places (no fragile tiles, an idle cube never falls, split states "
               "ignore which cube is active), so its lengths may differ from the optimal ones on some maps"])
        return out


    # -- Drops, Splash Back and Lianliankan: their own modules (bench/drops.py, splashback.py, lianliankan.py;
    # each also runs alone), in this process
    def drops(self) -> dict:
        from . import drops

        count, out, rows = self.counts["drops"], {}, []
        for kind in ("threes", "dense"):
            try:
                res = out[kind] = drops.compare(kind, count, self.time_limit)
            except seeds.SeedError as err:
                print(f"\n== drops: skipped: {err}")
                return {"skipped": str(err)}
            for depth, r in res["by_depth"].items():
                theirs = r["seed000_median_s"]
                rows.append([kind, depth, r["boards"], fmt_s(theirs) + (f" ({r['seed000_timed_out']} timed out)"
                                                                        if r["seed000_timed_out"] else ""),
                             fmt_s(r["gridrules_median_s"]), fmt_speed(r["ratio"]),
                             f"{r['seed000_optimal']} of {r['boards']}"])
            if res["gridrules_not_solved"]:
                proved = sorted(b for b in res["not_solved_at_least"] if b)
                rows.append([kind, "?", res["gridrules_not_solved"], "", f"not solved in {fmt_s(self.time_limit)}"
                             + (f" (proved >= {', '.join(map(str, proved))})" if any(proved) else ""), "", ""])
        dense = out["dense"]
        table(f"drops: {count} seeded 6x6 boards of each kind, by the optimal depth gridrules proves",
              ["boards", "depth", "count", "seed 000 (median, process)", "gridrules (median, search)", "speed",
               "seed 000 optimal"], rows,
              ["seed 000: Pascal, unchanged, iterative deepening over clicks of 3s and 4s; gridrules: compiled A* "
               f"in-process; both under {fmt_s(self.time_limit)} per board",
               f"target: {dense['target']}: {verdict(dense['ok'])}"])
        return out

    def splashback(self) -> dict:
        from . import splashback

        levels = self.counts["splashback"]
        res = splashback.run(levels, SPLASHBACK_BUDGET, 10, 0, 1, False)
        greedy = res["greedy"]
        table(f"splashback: {levels} consecutive seeded levels, 10 drops at the start, the hand carried over",
              ["play", "levels cleared", "hand after the first 10", "per level"],
              [[f"anytime, {fmt_s(SPLASHBACK_BUDGET)} per level", res["cleared"], " ".join(map(str, res["hands"][:10])),
                f"clicks {res['clicks_median']}, first line {fmt_s(res['first_line_median_s'])}, line played "
                f"{fmt_s(res['best_line_median_s'])} (medians)"],
               ["greedy (seed004's evaluation)", greedy["cleared"], " ".join(map(str, greedy["hands"][:10])), ""]],
              ["every line played is replayed by the reference rules; no target in the issue (reported figures)",
               f"lines proven best: {res['proven_best']} of {res['cleared']}"])
        return res

    def lianliankan(self) -> dict:
        from . import lianliankan

        count = self.counts["lianliankan"]
        pairs = lianliankan.pairs(min(count, 20))
        hdu = lianliankan.hdu(200 if self.quick else 1000)
        deals = lianliankan.deals(count, DEAL_LIMIT)
        rows = [["all legal pairs of an 18x8 deal (native listing)", f"{pairs['deals']} deals",
                 f"median {pairs['median_us']} us ({pairs['median_legal_pairs']} legal)", "< 100 us",
                 verdict(pairs["ok"])],
                [f"HDU 1175, {hdu['size']}, {hdu['queries']} queries", f"reading {fmt_s(hdu['load_s'])}",
                 f"answering {fmt_s(hdu['answer_s'])}", "< 1 s", verdict(hdu["ok"])]]
        for gravity, d in deals.items():
            rows.append([f"deals, gravity {gravity}, A* {fmt_s(DEAL_LIMIT)} each", f"{d['deals']} deals",
                         f"{d['decided']} decided ({d['decided_pct']}%), {d['cleared']} cleared; greedy clears "
                         f"{d['greedy_cleared']}", ">= 99% decided", verdict(d["ok"])])
        table("lianliankan: compiled backend", ["benchmark", "size", "measured", "target", "result"], rows)
        return {"pairs": pairs, "hdu": hdu, "deals": deals}


# ---- main -------------------------------------------------------------------------------------------

def parse_count(text: str) -> tuple[str, int]:
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"--count takes NAME=N, not {text!r}")
    name, value = text.split("=", 1)
    if name not in BENCHMARKS:
        raise argparse.ArgumentTypeError(f"unknown benchmark {name!r} (known: {', '.join(BENCHMARKS)})")
    return name, int(value)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    ap.add_argument("--quick", action="store_true", help="a small subset of every benchmark (< 1 min)")
    ap.add_argument("--only", action="append", default=[], metavar="NAME[,NAME]",
                    help=f"run only these benchmarks ({', '.join(BENCHMARKS)})")
    ap.add_argument("--count", action="append", default=[], type=parse_count, metavar="NAME=N",
                    help="override a benchmark's size: boards (floodit*; drops: of each kind), map size (bloxorz-large), "
                         "sampled states (successors), timed runs (startup, bloxorz-samples), levels (splashback), "
                         "deals (lianliankan)")
    ap.add_argument("--time-limit", type=float, default=None,
                    help="seconds per gridrules search (default 10; 5 with --quick; bloxorz-large gets twice this)")
    ap.add_argument("--budget", type=float, default=None,
                    help="floodit14: seconds per backend after which no new board starts (default 120; 3 with --quick)")
    ap.add_argument("--backends", default=None, help="comma-separated backends (default: every one that exists)")
    ap.add_argument("--json", type=Path, default=None, help="also write every figure to this JSON file")
    opts = ap.parse_args(argv)
    only = [x for part in opts.only for x in part.split(",") if x]
    unknown = [x for x in only if x not in BENCHMARKS]
    if unknown:
        ap.error(f"unknown benchmark(s) {', '.join(unknown)} (known: {', '.join(BENCHMARKS)})")
    opts.count = dict(opts.count)
    found, notes = discover_backends()
    if opts.backends:
        wanted = [b for b in opts.backends.split(",") if b]
        missing = [b for b in wanted if b not in found]
        if missing:
            ap.error(f"backend(s) not available: {', '.join(missing)} (available: {', '.join(found)})")
        found = wanted
    opts.backends = found
    h = Harness(opts)
    started = time.perf_counter()
    print(f"gridrules benchmarks, {datetime.date.today()}, {platform.machine()} with {os.cpu_count()} cores, "
          f"Python {platform.python_version()}" + (" (--quick)" if opts.quick else ""))
    print(f"gridrules revision {git_revision()}")
    print(f"backends measured: {', '.join(found)}" + (f"  ({'; '.join(notes)})" if notes else ""))
    results = {"date": str(datetime.date.today()), "cores": os.cpu_count(), "backends": found,
               "revision": git_revision(),
               "quick": opts.quick, "counts": h.counts, "time_limit": h.time_limit}
    for name in BENCHMARKS:
        if only and name not in only:
            continue
        t0 = time.perf_counter()
        results[name] = getattr(h, name.replace("-", "_"))()
        results[name]["benchmark_wall_s"] = time.perf_counter() - t0
        print(f"  ({name}: {time.perf_counter() - t0:.0f} s)")
    print(f"\ntotal {time.perf_counter() - started:.0f} s")
    if opts.json:
        opts.json.write_text(json.dumps(results, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
