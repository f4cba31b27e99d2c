"""Benchmarks that print ratios against the seeds' reference programs (not part of the test run).

`python -m bench.run [--quick] [--only NAME]`; see bench/README.md.
"""

import sys
import time


def run_named(only: str, runners: dict) -> int:
    """Run the benchmarks named in `only` (comma-separated; `runners`: name -> function of no arguments giving
    its figures), printing each one's figures and wall time as it ends; 2 for a name that is not there."""
    for name in only.split(","):
        if name not in runners:
            print(f"unknown benchmark {name}", file=sys.stderr)
            return 2
        t = time.perf_counter()
        res = runners[name]()
        print(f"{name} ({time.perf_counter() - t:.0f} s): {res}", flush=True)
    return 0
