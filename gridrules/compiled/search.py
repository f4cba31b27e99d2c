"""Driving the native search loops (loops.py) from Python: chunks, budgets, progress, the path.

Each native call expands a bounded number of states (tuned to about a tenth of a second), then Python checks the
time and state budgets, reports progress and lets Ctrl-C through; the search resumes from its arrays.
"""
from __future__ import annotations

import time

import numpy as np

from ..errors import UsageError
from .bounds import MOST
from .system import BAN_SLOTS, OutOfRoom
from solvers import _deepening as py_deepening  # (the Python IDA*'s table size and restarts: the same search)
from solvers import BUDGET_EXHAUSTED, INTERRUPTED, SOLVED, UNSOLVABLE, Budget, Solution, Stats

NATIVE = {"astar": True, "bfs": False, "idastar": True, "iddfs": False}  # algorithm -> uses the heuristic
TOO_COSTLY = ("a path's cost passed 9,223,372,036,854,775,807 (2^63 - 1), more than native code counts; "
              "`--backend reference` counts any cost")
START_CAPACITY = 1 << 10
SPARE_CAPACITY = 1 << 17  # a finished search's arrays with room for up to this many states (~20 MB) are kept
MAX_ROWS = (1 << 31) - 1  # the most states a best-first search stores (its rows are int32: _Arrays)
HEAP = 3  # the frontier's row of a heap's root (loops.py: here, as importing loops imports numba)
BREADTH_FIRST = True  # whether `bfs` runs loops.breadth_first where it can (tests compare it with best_first)

_spare: list = []  # the arrays a finished search left for the next one (_Arrays.done), at most one


class _Arrays:
    """A best-first search's states (K), their costs (G), parents and moves, its table (T) and its frontier (H):
    views of the first rows of buffers that may be larger. A search starts with room for START_CAPACITY states and
    doubles it when full; the buffers of a finished search serve the next (for_search), so that a file of levels
    solved one after another makes, copies and first touches no memory once its first levels have grown them
    (14x14 Flood-It boards: 1.04..1.06x), while each search's table stays as small as its states."""

    def __init__(self, words: int, capacity: int):
        self._K = np.zeros((capacity, words), np.uint64)
        self._G = np.zeros(capacity, np.int64)
        # (written for every state made: touched as they are; 32 bits, as a search holds under 2^31 states)
        self._PARENT = np.empty(capacity, np.int32)
        self._MOVE = np.empty(capacity, np.int32)
        self._T = np.empty(_pow2(2 * capacity), np.int64)
        self._H = _frontier(4 * capacity)  # rows (f, g, row, the state's tie key: loops._comes_first)
        self._view(capacity)
        self.T.fill(-1)

    def _view(self, capacity: int) -> None:
        self.K, self.G = self._K[:capacity], self._G[:capacity]
        self.PARENT, self.MOVE = self._PARENT[:capacity], self._MOVE[:capacity]
        self.PARENT[0] = self.MOVE[0] = -1
        self.T = self._T[: _pow2(2 * capacity)]
        self.H = self._H[: 4 * capacity + HEAP]

    @classmethod
    def for_search(cls, words: int) -> "_Arrays":
        """Room for a new search: the last search's buffers when they hold states of as many words, else new."""
        while _spare:
            arrays = _spare.pop()
            if arrays._K.shape[1] == words:
                arrays._view(START_CAPACITY)
                arrays.T.fill(-1)  # (the only array read before it is written)
                return arrays
        return cls(words, START_CAPACITY)

    def done(self) -> None:
        """The search is over: keep the buffers for the next one, unless they are large."""
        if self._K.shape[0] <= SPARE_CAPACITY:
            _spare[:] = [self]

    def grow(self, n_states: int, n_heap: int, head: int, ring: int, rehash) -> None:
        """Twice the room; the frontier's entries, from slot `head` on in a ring of length `ring` (loops._put),
        in rows 0.. n_heap-1, or a heap's (ring 0) in its rows as they are; rehash: loops.rehash."""
        capacity = 2 * self.K.shape[0]
        H = self.H
        if capacity > self._K.shape[0]:
            for name in ("_K", "_G", "_PARENT", "_MOVE"):
                setattr(self, name, _enlarged(getattr(self, name), capacity, n_states))
            self._T = np.empty(_pow2(2 * capacity), np.int64)
            self._H = _frontier(4 * capacity)
        self._view(capacity)
        rehash(self.K, n_states, self.T)  # (it empties every slot first)
        if ring:  # (the index makes a copy first: H and self.H may share a buffer)
            self.H[:n_heap] = H[(head + np.arange(n_heap)) % ring]
        else:
            self.H[HEAP: HEAP + n_heap] = H[HEAP: HEAP + n_heap]


def _frontier(entries: int) -> np.ndarray:
    """Room for a frontier of `entries` entries (loops._put), its rows 64-byte aligned: a heap's children of one
    entry then lie in two whole cache lines."""
    rows = entries + HEAP
    buffer = np.empty(4 * rows + 8, np.int64)
    skip = (-buffer.ctypes.data % 64) // 8
    return buffer[skip: skip + 4 * rows].reshape(rows, 4)


def _enlarged(a: np.ndarray, rows: int, used: int) -> np.ndarray:
    """`a` with room for `rows` rows, its first `used` kept. In place where it can be (realloc: a large block is
    remapped, its pages neither copied nor touched again; only the new rows are, zeroed by NumPy), else a copy
    (the rest untouched: pages the search reaches)."""
    if a.flags.owndata:
        try:
            a.resize((rows,) + a.shape[1:], refcheck=False)  # (no view of it outlives a native call)
            return a
        except (ValueError, MemoryError):
            pass
    b = np.empty((rows,) + a.shape[1:], a.dtype)
    b[:used] = a[:used]
    return b


class _Pace:
    """Between native chunks: chunk sizes tuned to about a tenth of a second, the time limit, progress reports."""

    def __init__(self, budget: Budget, clock: list):
        """clock: [when the search started], empty until it first does (a restarted search keeps its start)."""
        self.budget = budget
        self.now = self.last_report = time.perf_counter()
        clock[:] = clock or [self.now]
        self.start = clock[0]
        # (small at first: a state may cost 70 ms, as on a 300x300 Flood-It board, and the time limit and Ctrl-C
        # are heeded between chunks only; a quick search grows it eightfold a chunk, so it makes no more calls)
        self.chunk = 16

    def time_is_up(self, spent: float) -> bool:
        """After a chunk that took `spent` seconds: retune the chunk; whether the time limit is reached."""
        if spent < 0.005:
            self.chunk = min(self.chunk * 8, 1 << 24)
        elif spent < 0.05:
            self.chunk = min(self.chunk * 2, 1 << 24)
        elif spent > 0.2:  # (to about a tenth of a second by this chunk's pace, down to a state a chunk)
            self.chunk = max(1, min(self.chunk // 2, int(self.chunk * 0.1 / spent)))
        self.now = time.perf_counter()
        limit = self.budget.time_limit
        return limit is not None and self.now - self.start >= limit

    def report_due(self) -> bool:
        if self.budget.progress is None or self.now - self.last_report < self.budget.progress_every:
            return False
        self.last_report = self.now
        return True


def _pow2(n: int) -> int:
    return 1 << max(4, (n - 1).bit_length())


def native_search(system, algorithm: str, budget: Budget | None = None) -> Solution:
    """`algorithm` run in native code: best-first (`astar`, `bfs`) or iterative deepening (`idastar`, `iddfs`)."""
    budget = budget or Budget(admissible=system.admissible)
    if budget.max_cost is not None and budget.max_cost < 0:  # (the loops read a negative max_cost as no limit)
        return Solution(UNSOLVABLE, None, None, True, Stats(), algorithm)  # no path costs less than nothing
    search = _deepening if algorithm in ("idastar", "iddfs") else _best_first
    clock = []  # (set in the first search, once its loop is loaded; a restart runs on from it)
    while True:
        try:
            return search(system, algorithm, budget, clock)
        except OutOfRoom:
            # a chain reaction outgrew the room for particles in flight: the search starts again with more
            system.more_particle_room()


def breadth_first_runs(system) -> bool:
    """Whether `bfs` runs loops.breadth_first on this system: its states are one word and every move costs 0 or 1
    (its rows are then its queue)."""
    return BREADTH_FIRST and system.inst.layout.words == 1 and system.zero_one_costs


def _best_first(system, algorithm: str, budget: Budget, clock: list) -> Solution:
    use_h = NATIVE[algorithm]
    words = system.inst.layout.words
    breadth = not use_h and breadth_first_runs(system)
    # (the loop before the clock: a first run compiles it)
    loop, rehash = system.native_loop("breadth_first" if breadth else "best_first")
    pace = _Pace(budget, clock)
    start = pace.start
    arrays = _Arrays.for_search(words)
    arrays.K[0] = np.array(system.initial(), np.uint64)
    meta = np.zeros(18, np.int64)  # (loops.best_first's; loops.breadth_first's place also in meta[14:18])
    meta[6] = -1  # the native loop hashes the start and pushes it
    meta[9] = not use_h  # (the frontier a ring, while the costs allow: loops._put)
    meta[8] = 0 if meta[9] else HEAP  # (its first row)
    # (goals tested as they are made: loops.best_first; a least cost past 64 bits is the move code's to report)
    meta[10] = 0 if use_h or system.min_move_cost > MOST else system.min_move_cost
    meta[11] = -1
    meta[12] = 1024  # (the ring's length: a power of two up to H's entries)
    max_cost = -1 if budget.max_cost is None else budget.max_cost
    # (at most MAX_ROWS states: their rows and moves are stored in 32 bits, _Arrays; the memory that many would
    # take, ~100 B a state, is more than any machine here has, so this bound is only ever a guard)
    max_states = MAX_ROWS if budget.max_states is None else min(budget.max_states, MAX_ROWS)
    stats = Stats()
    proven = (not use_h) or budget.admissible

    bound = []  # the best lower bound on the optimal cost proved so far (least_open, after every chunk)

    def least_open() -> None:
        """The least f waiting (the frontier's first entry: a ring's head, a heap's top) is at most the optimal
        cost when the heuristic is admissible: some waiting state lies on a cheapest path with its exact g. A
        breadth-first ring's costs are g, and a goal cheaper than head + cheapest move would have been made:
        the cheapest goal made so far (meta[11]), if any, is such a goal. Past max_cost it says only that much.
        (Every stop leaves the frontier whole: one by max_states puts back the state it was expanding.)"""
        if meta[1] > 0 and proven:
            least = head_cost() + int(meta[10])
            if meta[11] >= 0:
                least = min(least, int(arrays.G[meta[11]]))
            if max_cost >= 0:
                least = min(least, max_cost + 1)
            bound[:] = [max(bound + [least])]

    def head_cost() -> int:
        """The cost of the frontier's first entry: its f, or in loops.breadth_first the layer's cost (the next
        layer's when only rows of that one are left)."""
        if breadth:
            return int(meta[14]) + int(meta[16] == meta[17] and meta[8] >= meta[15])
        return int(arrays.H[meta[8], 0])

    def result(status, moves=None, cost=None, optimal=False):
        stats.expanded, stats.generated, stats.duplicates = int(meta[2]), int(meta[3]), int(meta[4])
        stats.peak_states, stats.dead = int(meta[0]), int(meta[7])
        stats.seconds = time.perf_counter() - start
        stopped = status in (BUDGET_EXHAUSTED, INTERRUPTED)
        if stopped and meta[11] >= 0:  # (the cheapest goal made, not yet proved the cheapest: the best found)
            moves, cost = _path(system, arrays, int(meta[11]))
            if bound and bound[0] >= cost and proven and not system.scored:
                return result(SOLVED, moves, cost, True)  # (what it proved makes it optimal)
        return Solution(status, moves, cost, optimal, stats, algorithm,
                        bound=bound[0] if stopped and bound and not system.scored else None)

    try:
        while True:
            t0 = time.perf_counter()
            system._run(loop, system.SL, system.SG, system.MA, system.MARG, arrays.K, arrays.G, arrays.PARENT,
                        arrays.MOVE, arrays.T, arrays.H, meta,
                        *(() if breadth else (use_h, bool(budget.admissible))), system.deadlocks, max_cost,
                        max_states, pace.chunk, system.work)  # (breadth_first takes neither)
            spent = time.perf_counter() - t0
            status = meta[6]
            if status == 1:
                moves, cost = _path(system, arrays, int(meta[5]))
                return result(SOLVED, moves, cost, proven)
            if status == 2:
                return result(UNSOLVABLE, optimal=proven)
            least_open()
            if status == 5:
                return result(BUDGET_EXHAUSTED)
            if status == 6:
                raise UsageError(f"{system.inst.level}: {TOO_COSTLY}")
            if status == 3:
                if breadth:  # (H's rows HEAP .. HEAP + meta[17] - 1 hold what waits: loops.breadth_first)
                    arrays.grow(int(meta[0]), int(meta[17]), 0, 0, rehash)
                    meta[6] = 0
                else:
                    arrays.grow(int(meta[0]), int(meta[1]), int(meta[8]), int(meta[12]) if meta[9] else 0, rehash)
                    meta[6], meta[8] = 0, 0 if meta[9] else HEAP
            if pace.time_is_up(spent):
                return result(BUDGET_EXHAUSTED)
            if pace.report_due():
                stats.expanded, stats.generated, stats.peak_states = int(meta[2]), int(meta[3]), int(meta[0])
                stats.seconds = pace.now - start
                stats.depth = head_cost() if meta[1] > 0 else 0
                budget.progress(stats)
    except KeyboardInterrupt:
        return result(INTERRUPTED)
    finally:
        arrays.done()


def _path(system, arrays: _Arrays, row: int):
    moves = []
    cost = int(arrays.G[row])
    while arrays.PARENT[row] >= 0 and row != 0:
        moves.append(system.moves[int(arrays.MOVE[row])])
        row = int(arrays.PARENT[row])
    return tuple(reversed(moves)), cost


class _Path:
    """The deepening search's arrays: the path, each depth's waiting successors, the best solution so far."""

    def __init__(self, words: int, moves: int, depth: int):
        self.PATH = np.zeros((depth, words), np.uint64)
        self.PG = np.zeros(depth, np.int64)
        self.PM = np.full(depth, -1, np.int64)
        self.CH = np.zeros((depth, moves, words), np.uint64)
        self.CHM = np.zeros((depth, moves), np.int64)
        self.CHC = np.zeros((depth, moves), np.int64)
        self.CHN = np.zeros(depth, np.int64)
        self.CHI = np.zeros(depth, np.int64)
        self.INC = np.zeros(depth, np.int64)
        self.PP = np.zeros(depth, np.int64)  # (banning moves: whether the move into each depth persists)
        self.BT = np.zeros(depth, np.int64)  # (... and how many bans there were when it was entered)

    def grown(self) -> "_Path":
        depth, moves, words = self.CH.shape
        new = _Path(words, moves, 2 * depth)
        for name in ("PATH", "PG", "PM", "CHN", "CHI", "INC", "PP", "BT"):
            getattr(new, name)[:depth] = getattr(self, name)
        for d in range(depth):  # (only the successors listed: CH has room for every move at every depth)
            n = self.CHN[d]
            new.CH[d, :n], new.CHM[d, :n], new.CHC[d, :n] = self.CH[d, :n], self.CHM[d, :n], self.CHC[d, :n]
        return new


class _Table:
    def __init__(self, words: int, rows: int):
        self.K = np.zeros((rows, words), np.uint64)
        self.G = np.zeros(rows, np.int64)
        self.A = np.zeros(rows, np.int64)  # the `after` a state was entered with (loops.deepening)
        self.T = np.full(_pow2(2 * rows), -1, np.int64)

    def grown(self, used: int, cap: int, rehash) -> "_Table":
        new = _Table(self.K.shape[1], min(2 * self.K.shape[0], cap + 1))
        new.K[:used] = self.K[:used]
        new.G[:used] = self.G[:used]
        new.A[:used] = self.A[:used]
        rehash(new.K, used, new.T)
        return new


def _deepening(system, algorithm: str, budget: Budget, clock: list) -> Solution:
    use_h = NATIVE[algorithm]
    deepening, rehash = system.native_loop("deepening")  # (before the clock: a first run compiles it)
    words = system.inst.layout.words
    pace = _Pace(budget, clock)
    start = pace.start
    path = _Path(words, max(1, len(system.moves)), 64)
    path.PATH[0] = np.array(system.initial(), np.uint64)
    cap = 0 if not use_h else (budget.max_states or py_deepening.DEFAULT_TABLE_SIZE)
    table = _Table(words, min(cap + 1, START_CAPACITY) if cap else 1)
    meta = np.zeros(19, np.int64)
    meta[6] = -1  # fresh
    meta[9] = -1  # no solution seen yet
    meta[17] = np.array([py_deepening.RESTART_SEED], np.uint64).view(np.int64)[0]  # (the shuffles' state)
    max_cost = -1 if budget.max_cost is None else budget.max_cost
    max_states = -1 if budget.max_states is None else budget.max_states
    admissible = (not use_h) or budget.admissible
    optimal = budget.admissible if use_h else True
    stats = Stats()
    ab = system.work[5]

    def result(status, moves=None, cost=None, optimal=False):
        stats.expanded, stats.generated, stats.duplicates = int(meta[3]), int(meta[4]), int(meta[5])
        stats.depth, stats.dead = int(meta[1]), int(meta[13])
        stats.peak_states = max(stats.peak_states, int(meta[0]) + 1 + int(meta[7]))
        stats.seconds = time.perf_counter() - start
        bound = None
        if status in (BUDGET_EXHAUSTED, INTERRUPTED):
            if meta[9] >= 0:
                moves = tuple(system.moves[int(m)] for m in path.INC[: int(meta[10])])
                cost = int(meta[9])
            # the iterations before this one searched every path whose f was under its bound
            if admissible and not system.scored:
                bound = int(meta[1])
                if cost is not None and bound >= cost:  # (what it proved makes the one in hand optimal)
                    return result(SOLVED, moves, cost, True)
        return Solution(status, moves, cost, optimal or (status == SOLVED and cost == 0), stats, algorithm,
                        bound=bound)

    # order the runs of commuting moves, or else ban failed persisting moves (loops.deepening)
    banning = system.persisting and not system.commuting
    ab[6] = -1 if system.commuting else -2
    ab[8] = 1 if banning else 0
    ban_at = system.ban_at if banning else -1
    bans = np.zeros(BAN_SLOTS // 2 if banning else 1, np.int64)
    try:
        while True:
            t0 = time.perf_counter()
            system._run(deepening, system.SL, system.SG, system.MA, system.MARG, path.PATH, path.PG, path.PM,
                        path.CH, path.CHM, path.CHC, path.CHN, path.CHI, table.K, table.G, table.A, table.T,
                        path.INC, path.PP, path.BT, bans, meta, use_h, admissible, system.deadlocks, max_cost,
                        max_states, cap, pace.chunk, ban_at, py_deepening.RESTART_UNIT if use_h else 0, system.work)
            spent = time.perf_counter() - t0
            status = meta[6]
            if status == 1:
                n = int(meta[11])
                moves = tuple(system.moves[int(m)] for m in path.PM[1: n + 1])
                return result(SOLVED, moves, int(meta[8]), optimal)
            if status == 2:
                return result(UNSOLVABLE, optimal=True)
            if status == 5:
                return result(BUDGET_EXHAUSTED)
            if status == 6:
                raise UsageError(f"{system.inst.level}: {TOO_COSTLY}")
            if status == 3:
                path = path.grown()
                meta[6] = 0
            elif status == 4:
                table = table.grown(int(meta[7]), cap, rehash)
                meta[6] = 0
            stats.peak_states = max(stats.peak_states, int(meta[0]) + 1 + int(meta[7]))
            if pace.time_is_up(spent):
                return result(BUDGET_EXHAUSTED)
            if pace.report_due():
                stats.expanded, stats.generated, stats.depth = int(meta[3]), int(meta[4]), int(meta[1])
                stats.seconds = pace.now - start
                budget.progress(stats)
    except KeyboardInterrupt:
        return result(INTERRUPTED)
    finally:
        ab[6] = -2  # (expand lists moves plainly again)
        ab[8] = 0
