"""Driving the native search loop (search_template.py) from Python: chunks, budgets, progress, the path.

Each native call expands a bounded number of states (tuned to about a tenth of a second), then Python checks the
time and state budgets, reports progress and lets Ctrl-C through; the search resumes from its arrays.
"""
from __future__ import annotations

import time

import numpy as np

from solvers import BUDGET_EXHAUSTED, INTERRUPTED, SOLVED, UNSOLVABLE, Budget, Solution, Stats

NATIVE = {"astar": True, "bfs": False}  # algorithm -> uses the heuristic
START_CAPACITY = 1 << 14


class _Arrays:
    def __init__(self, words: int, capacity: int):
        self.K = np.zeros((capacity, words), np.uint64)
        self.G = np.zeros(capacity, np.int64)
        self.PARENT = np.full(capacity, -1, np.int64)
        self.MOVE = np.full(capacity, -1, np.int64)
        self.T = np.full(_pow2(2 * capacity), -1, np.int64)
        heap = 4 * capacity
        self.HF = np.zeros(heap, np.int64)
        self.HG = np.zeros(heap, np.int64)
        self.HI = np.zeros(heap, np.int64)

    def grown(self, n_states: int, n_heap: int, mod) -> "_Arrays":
        new = _Arrays(self.K.shape[1], 2 * self.K.shape[0])
        for name in ("K", "G", "PARENT", "MOVE"):
            getattr(new, name)[:n_states] = getattr(self, name)[:n_states]
        for name in ("HF", "HG", "HI"):
            getattr(new, name)[:n_heap] = getattr(self, name)[:n_heap]
        mod.rehash(new.K, n_states, new.T)
        return new


def _pow2(n: int) -> int:
    return 1 << max(4, (n - 1).bit_length())


def native_search(system, algorithm: str, budget: Budget | None = None) -> Solution:
    """Best-first search in native code: `astar` (with the system's heuristic) or `bfs` (uniform cost)."""
    budget = budget or Budget(admissible=system.admissible)
    use_h = NATIVE[algorithm]
    mod = system.mod
    words = system.inst.layout.words
    start = time.perf_counter()
    arrays = _Arrays(words, START_CAPACITY)
    arrays.K[0] = np.array(system.initial(), np.uint64)
    meta = np.zeros(7, np.int64)
    meta[6] = -1  # the native loop hashes the start and pushes it
    max_cost = -1 if budget.max_cost is None else budget.max_cost
    stats = Stats()
    chunk = 256
    last_report = start
    proven = (not use_h) or budget.admissible

    def result(status, moves=None, cost=None, optimal=False):
        stats.expanded, stats.generated, stats.duplicates = int(meta[2]), int(meta[3]), int(meta[4])
        stats.peak_states = int(meta[0])
        stats.seconds = time.perf_counter() - start
        return Solution(status, moves, cost, optimal, stats, algorithm)

    try:
        while True:
            t0 = time.perf_counter()
            system._run(mod.best_first, system.SL, system.SG, system.MA, system.MARG, arrays.K, arrays.G,
                        arrays.PARENT, arrays.MOVE, arrays.T, arrays.HF, arrays.HG, arrays.HI, meta, use_h,
                        max_cost, chunk)
            spent = time.perf_counter() - t0
            status = meta[6]
            if status == 1:
                moves, cost = _path(system, arrays, int(meta[5]))
                return result(SOLVED, moves, cost, proven)
            if status == 2:
                return result(UNSOLVABLE, optimal=proven)
            if status == 3:
                if budget.max_states is not None and meta[0] >= budget.max_states:
                    return result(BUDGET_EXHAUSTED)
                arrays = arrays.grown(int(meta[0]), int(meta[1]), mod)
                meta[6] = 0
            if budget.max_states is not None and meta[0] >= budget.max_states:
                return result(BUDGET_EXHAUSTED)
            now = time.perf_counter()
            if budget.time_limit is not None and now - start >= budget.time_limit:
                return result(BUDGET_EXHAUSTED)
            if spent < 0.05:
                chunk = min(chunk * 2, 1 << 24)
            elif spent > 0.2:
                chunk = max(chunk // 2, 16)
            if budget.progress is not None and now - last_report >= budget.progress_every:
                stats.expanded, stats.generated, stats.peak_states = int(meta[2]), int(meta[3]), int(meta[0])
                stats.seconds = now - start
                stats.depth = int(arrays.HF[0]) if meta[1] > 0 else 0
                budget.progress(stats)
                last_report = now
    except KeyboardInterrupt:
        return result(INTERRUPTED)


def _path(system, arrays: _Arrays, row: int):
    moves = []
    cost = int(arrays.G[row])
    while arrays.PARENT[row] >= 0 and row != 0:
        moves.append(system.moves[int(arrays.MOVE[row])])
        row = int(arrays.PARENT[row])
    return tuple(reversed(moves)), cost
