"""The native search loops, compiled once for every game: they call a game's generated entry points
(expand / heuristic / goal / deadlock) as first-class functions of fixed signatures, so a new rule file or board
size compiles only its own rules, never the searches again.

Best-first search over packed states: A* when `use_h`, uniform-cost (breadth-first by cost, correct with
zero-cost moves) otherwise; breadth-first search made for states of one word and moves that cost 0 or 1
(breadth_first: its rows are its queue, its table probes are pipelined). Iterative deepening (IDA* or IDDFS), the
same algorithm as solvers/_deepening.py. Every array a search needs is passed in, so a call can stop after `chunk`
expansions and a later call resumes where it stopped: Python shows progress and checks budgets in between. States
live in K (one row per state), found through an open-addressing table T of row numbers; duplicate detection
compares every word (exact, never a lossy hash). W is the scratch rows of the game's entry points (D0, g0, D1, g1,
BM, ab).
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from . import about_to_compile, cache_dir, import_numba, numba_index

import_numba()
from numba import njit, types  # noqa: E402
from .runtime import ban, borrow, clear_bans, is_banned, prefetch, unban
from .search import HEAP
from solvers import _deepening as py_deepening

_U1, _U2, _U3 = (types.Array(types.uint64, d, "C") for d in (1, 2, 3))
_I1, _I2 = (types.Array(types.int64, d, "C") for d in (1, 2))
_R1 = types.Array(types.int32, 1, "C")  # (rows and move numbers of best_first's states: search._Arrays)
_B = types.boolean
_I = types.int64
WORK = (_I2, _I1, _I2, _I1, _U2, _I1)  # D0, g0, D, g, BM, ab

# The signatures of a game's entry points (codegen.py emits them with exactly these).
EXPAND = _I(_U1, _I2, _I1, _I1, _I2, _U2, _I1, _I1, *WORK)  # s, SL, SG, MA, MARG, OUT, MOVE, COST, work
HEURISTIC = _I(_U1, _I2, _I1, *WORK[2:])  # s, SL, SG, D, g, BM, ab
GOAL = _B(_U1, _I2, _I1, *WORK[2:])
# The same entry points called from Python, their arrays in one descriptor (runtime.u1 and its kin):
EXPAND_AT, HEURISTIC_AT, GOAL_AT = _I(_I1), _I(_I1), _B(_I1)
_EXPAND_T, _HEURISTIC_T, _GOAL_T = (types.FunctionType(sig) for sig in (EXPAND, HEURISTIC, GOAL))
_W = types.Tuple(WORK)


class _Native:
    """A loop that Python calls, compiled for its one signature at its first call (or loaded from numba's cache)
    rather than when this module is imported: a search runs one of them, and loading each cached function costs
    ~10 ms of every start. Like njit with a signature it then takes only that signature, to which a game's entry
    points convert. (The helpers below have none: they are typed, and cached, as the loops call them.)"""

    def __init__(self, signature, py_func):
        self.signature, self.py_func, self._compiled = signature, py_func, None
        self.__name__, self.__doc__ = py_func.__name__, py_func.__doc__
        self._warming = None  # the process compiling it into numba's cache (warm_up)

    def warm_up(self, notice=None) -> None:
        """When it is not cached, start compiling it into numba's cache in a process of its own: a first run
        compiles it on another core while this process compiles a game's own code, and `load` then waits for
        that process and reads the cache (or compiles itself, should the process have failed)."""
        if self._compiled is not None or self._warming is not None or not sys.executable or self.cached():
            return
        code = f"import {self.py_func.__module__} as m; m.{self.__name__}.load()"
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))  # (this process's imports)
        try:
            self._warming = subprocess.Popen([sys.executable, "-c", code], env=env, stdin=subprocess.DEVNULL,
                                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except OSError:
            return
        about_to_compile(notice, _compiling())

    def load(self, notice=None):
        """Compile it now, or load it from numba's cache; notice(text) hears first when it must compile."""
        if self._compiled is None:
            if self._warming is not None:  # (compiling elsewhere: said when it started)
                self._warming.wait()
                self._warming = None
            elif not self.cached():
                about_to_compile(notice, _compiling())
            self._compiled = njit(self.signature, cache=True)(self.py_func)
        return self._compiled

    def cached(self) -> bool:
        """Whether numba's cache holds it (its index file is there)."""
        code = self.py_func.__code__
        return self._compiled is not None or numba_index(Path(code.co_filename), code.co_name,
                                                         code.co_firstlineno).exists()

    def __call__(self, *args):
        return (self._compiled or self.load())(*args)


def _compiling() -> str:
    return f"compiling the native search loops (once: later runs load them from {cache_dir()})"


def _native(signature):
    return lambda py_func: _Native(signature, py_func)


NO_G = 1 << 62  # a table entry's g that prunes nothing (loops._restart)
_MOST = (1 << 63) - 1  # the greatest cost a search counts (int64)


@njit(cache=True, inline="always")
def _hash(K, i, words):
    h = np.uint64(1469598103934665603)
    for w in range(words):
        x = K[i, w] ^ (h >> np.uint64(29))
        x = (x * np.uint64(0xbf58476d1ce4e5b9))
        x ^= x >> np.uint64(32)
        h = (h ^ x) * np.uint64(0x94d049bb133111eb)
    return h


# A table slot holds -1 (empty) or a row number with a tag, 23 high bits of the row's hash, above it: a probe
# compares a row's words only when the tags agree, so passing other rows costs no visit to K (a cache miss each
# in a large table).
_ROW_BITS = 40
_ROW_MASK = (1 << _ROW_BITS) - 1


@njit(cache=True)
def _slot(h, mask):
    """The first slot of a row whose hash is h, in a table of mask + 1 slots. The hash's low b bits depend on none
    of its last word's bits above 31 + b (its multiplications carry upwards only): in a table of 2^20 slots, states
    of one word that differ only in their top 12 bits (Bloxorz's other cube) would all start in one slot, and each
    probe walk past the others (tests/test_compiled_backend.py). The high half folded in makes every bit count."""
    return (h ^ (h >> np.uint64(32))) & mask


@njit(cache=True)
def _tag(h):
    """The tag of a row whose hash is h: its 23 high bits."""
    return np.int64(h >> np.uint64(64 - (63 - _ROW_BITS)))


@njit(cache=True)
def _entry(row, h):
    """What a slot holds for `row`, whose hash is h."""
    return row | (_tag(h) << _ROW_BITS)


@njit(cache=True)
def _row(T, slot):
    """The row a slot holds, or -1."""
    e = T[slot]
    return e & _ROW_MASK if e >= 0 else e


@njit(cache=True)
def _find(K, T, i, words):
    """The table slot holding a row equal to row i, or the empty slot where it belongs."""
    return _probe(K, T, i, words, _hash(K, i, words))


@njit(cache=True)
def _probe(K, T, i, words, h):
    """_find for a row whose hash h is known (A* also breaks ties by it)."""
    mask = np.uint64(T.shape[0] - 1)
    slot = _slot(h, mask)
    tag = _tag(h)
    while True:
        e = T[slot]
        if e < 0:
            return slot
        if e >> _ROW_BITS == tag:
            j = e & _ROW_MASK
            same = True
            for w in range(words):
                if K[j, w] != K[i, w]:
                    same = False
                    break
            if same:
                return slot
        slot = (slot + np.uint64(1)) & mask


# The frontier is one int64 array H of rows (f, g, row, tie key): an entry's fields share a cache line, where four
# arrays made a heap's every comparison up to four cache misses (Drops' A*, ~4 M states waiting: 15 % of its time
# in pop). A heap is 4-ary, half as deep as a binary one, and its position p is row p + HEAP (the root row 3:
# search.HEAP): the four children of p, rows 4p + 4 .. 4p + 7, then fill two whole cache lines (H is 64-byte
# aligned: search._frontier).


@njit(cache=True, inline="always")
def _comes_first(f, g, key, f2, g2, key2):
    """Whether an entry (f, g, key) comes out before (f2, g2, key2): the lower f, then the deeper (greater g),
    then the lower key, a hash of the state (solvers.astar.tie_key: the Python A* orders alike)."""
    if f != f2:
        return f < f2
    if g != g2:
        return g > g2
    return np.uint64(key) < np.uint64(key2)


@njit(cache=True, inline="always")
def _less(f, g, key, H, r):
    """Whether an entry (f, g, key) comes out before row r of H."""
    return _comes_first(f, g, key, H[r, 0], H[r, 1], H[r, 3])


@njit(cache=True, inline="always")
def _set(H, r, f, g, i, key):
    H[r, 0], H[r, 1], H[r, 2], H[r, 3] = f, g, i, key


@njit(cache=True, inline="always")
def _move(H, to, r):
    H[to, 0], H[to, 1], H[to, 2], H[to, 3] = H[r, 0], H[r, 1], H[r, 2], H[r, 3]


@njit(cache=True)
def _push(H, meta, f, g, i, key):
    p = meta[1]
    meta[1] = p + 1
    while p > 0:  # (the parents that come out after it move down a place; it goes in the hole left)
        q = (p - 1) >> 2
        if not _less(f, g, key, H, q + HEAP):
            break
        _move(H, p + HEAP, q + HEAP)
        p = q
    _set(H, p + HEAP, f, g, i, key)


@njit(cache=True)
def _sift_down(H, p, n, f, g, i, key):
    """Put the entry (f, g, i, key) at heap position p, or below it, of a heap of n entries."""
    while True:
        c = 4 * p + 1
        if c >= n:
            break
        best = c + HEAP
        for r in range(c + 1 + HEAP, min(c + 4, n) + HEAP):
            if _less(H[r, 0], H[r, 1], H[r, 3], H, best):
                best = r
        if not _comes_first(H[best, 0], H[best, 1], H[best, 3], f, g, key):
            break
        _move(H, p + HEAP, best)
        p = best - HEAP
    _set(H, p + HEAP, f, g, i, key)


@njit(cache=True)
def _pop(H, meta):
    n = meta[1] - 1
    top_g, top_i = H[HEAP, 1], H[HEAP, 2]
    meta[1] = n
    if n > 0:
        last = n + HEAP
        _sift_down(H, 0, n, H[last, 0], H[last, 1], H[last, 2], H[last, 3])
    return top_g, top_i


# Without a heuristic, while every move costs 0 or 1, the frontier is a ring used as a double-ended queue rather
# than a heap (as solvers/bfs.py's _Frontier): a 1-cost child at the back, a 0-cost one at the front, so that
# unit costs give plain breadth-first search in O(1) a state (by g, then first made first) and 0/1 costs 0-1
# BFS. The first other cost turns it into a heap for good. meta[1] counts the entries either way;
# meta[8] is the frontier's first row (the ring's first slot; HEAP once a heap), meta[9] 1 while the frontier
# is a ring, meta[12] the ring's length (a power of two, doubled in place when full: the ring touches memory
# for the frontier, not for every state queued).
@njit(cache=True, inline="always")
def _ring_put(H, meta, f, g, i, key, front):
    cap = meta[12]
    if meta[1] == cap:  # (the caller keeps meta[1] below H's length, so there is room for twice as much)
        wrapped = meta[8] + meta[1] - cap  # the entries at slots 0.. wrapped-1 follow those up to the end
        for k in range(max(0, wrapped)):
            _move(H, cap + k, k)
        cap = meta[12] = 2 * cap
    if front:
        k = (meta[8] + cap - 1) & (cap - 1)
        meta[8] = k
    else:
        k = (meta[8] + meta[1]) & (cap - 1)
    _set(H, k, f, g, i, key)
    meta[1] += 1


@njit(cache=True, inline="always")
def _ring_take(H, meta):
    k = meta[8]
    meta[8] = (k + 1) & (meta[12] - 1)
    meta[1] -= 1
    return H[k, 1], H[k, 2]


@njit(cache=True)
def _ring_to_heap(H, meta):
    """The ring's entries, moved to heap positions in order, made a heap (the ring is sorted by g, not by key)."""
    n, cap, head = meta[1], meta[12], meta[8]
    E = np.empty((n, 4), np.int64)
    for k in range(n):
        j = (head + k) & (cap - 1)
        for c in range(4):  # (element by element: a slice assignment compiles numba's shape-mismatch message, ~2 s)
            E[k, c] = H[j, c]
    for k in range(n):
        for c in range(4):
            H[k + HEAP, c] = E[k, c]
    meta[8], meta[9] = HEAP, 0
    for p in range((n - 2) // 4, -1, -1):
        r = p + HEAP
        _sift_down(H, p, n, H[r, 0], H[r, 1], H[r, 2], H[r, 3])


@njit(cache=True, inline="always")
def _put(H, meta, f, g, i, key, base):
    """Queue row i at cost g (f with the heuristic; `key` breaks ties), reached from a state taken at cost
    `base`."""
    if meta[9] != 0:
        if g == base + 1:
            _ring_put(H, meta, f, g, i, key, False)
            return
        if g == base:
            _ring_put(H, meta, f, g, i, key, True)
            return
        _ring_to_heap(H, meta)
    _push(H, meta, f, g, i, key)


@njit(cache=True, inline="always")
def _take(H, meta):
    """(g, row) of the next entry."""
    if meta[9] != 0:
        return _ring_take(H, meta)
    return _pop(H, meta)


@njit(cache=True)
def _untake(H, meta, f, g, i, key):
    """Put back the entry just taken, to come out next again."""
    if meta[9] != 0:
        _ring_put(H, meta, f, g, i, key, True)
    else:
        _push(H, meta, f, g, i, key)


@_native(types.void(_EXPAND_T, _HEURISTIC_T, _GOAL_T, _GOAL_T, _I2, _I1, _I1, _I2, _U2, _I1, _R1, _R1, _I1, _I2,
                     _I1, _B, _B, _B, _I, _I, _I, _W))
def best_first(expand, heuristic, goal, dead, SL, SG, MA, MARG, K, G, PARENT, MOVE_OF, T, H, meta, use_h,
               admissible, use_dead, max_cost, max_states, chunk, W):
    """meta: [states, frontier size, expanded, generated, duplicates, found row, status, dead, the frontier's first
    row (a ring's first slot, or HEAP), ring (see _put), step, cheapest goal made, ring length]. status: -1
    fresh (row 0 holds the start), 0 running, 1 found (meta[5]), 2 exhausted, 3 out of room (grow the arrays and
    call again), 5 a new state would pass max_states (when >= 0; the state being expanded is put back in the
    frontier), 6 a path's cost passed 2^63 - 1 (not pruned by max_cost). With use_dead, a state that `dead` says is
    a deadlock is not expanded (meta[7] counts them). A child past max_cost is dropped: by its g, and with an
    admissible heuristic by its f. With a step (meta[10] > 0: every move costs at least that much; only without
    the heuristic), states are tested for the goal when they are made, as solvers/bfs.py does: a goal made from a
    state taken at cost g costs no more than any other once it costs at most g + step (with unit costs: the first
    goal made), and meta[11] keeps the cheapest one made until then (-1: none)."""
    # (every array borrowed, see runtime.borrow: the calls below then count no references)
    SL, SG, MA, MARG, K, G, PARENT, MOVE_OF, T = (borrow(SL), borrow(SG), borrow(MA), borrow(MARG), borrow(K),
                                                  borrow(G), borrow(PARENT), borrow(MOVE_OF), borrow(T))
    H, meta = borrow(H), borrow(meta)
    words = K.shape[1]
    OUT = np.zeros((MA.shape[0], words), np.uint64)
    MOVE = np.zeros(MA.shape[0], np.int64)
    COST = np.zeros(MA.shape[0], np.int64)
    HASH = np.zeros(MA.shape[0], np.uint64)
    OUTP, MOVEP, COSTP, HASHP = np.zeros_like(OUT), np.zeros_like(MOVE), np.zeros_like(COST), np.zeros_like(HASH)
    D0, g0, D1, g1, BM, ab = borrow(W[0]), borrow(W[1]), borrow(W[2]), borrow(W[3]), borrow(W[4]), borrow(W[5])
    # (the scratch rows; g is the path cost below)
    if meta[6] == -1:
        meta[6] = 0
        h0 = _hash(K, 0, words)
        T[_probe(K, T, 0, words, h0)] = _entry(0, h0)
        meta[0] = 1
        G[0] = 0
        _put(H, meta, heuristic(K[0], SL, SG, D1, g1, BM, ab) if use_h else 0, 0, 0, np.int64(h0), -1)
    step = meta[10]
    mask = np.uint64(T.shape[0] - 1)
    # In a large table each probe is a cache miss, a slot's and then its row's. A state's children have their
    # slots asked for as soon as they are made; in the breadth-first ring they are then put in one expansion
    # later (`pending`: pn children of row pi, taken at cost pg from entry (pf0, pk0)), after the next state's
    # expansion, which the misses overlap. The order is the same: that state was queued before them. Only
    # children that all cost 1 wait (a 0-cost one goes to the ring's front, before the next state; a dearer one
    # turns the ring into a heap); and whatever would end the search first puts the next state back and puts
    # the waiting children in, so that every stop and every statistic is the one without the pipeline.
    pn, pi, pg, pf0, pk0 = 0, -1, 0, 0, 0
    pdead = 0  # (deadlocks found while children wait: uncounted again if putting those children in stops the search)
    first = False  # (put the waiting children in before anything else)
    done = 0
    while meta[1] > 0 or pn > 0:
        if pn > 0 and (meta[1] == 0 or done >= chunk or first):
            first = False
            if _put_children(K, T, G, PARENT, MOVE_OF, H, meta, OUTP, MOVEP, COSTP, HASHP, pn, pg, pi, words,
                             mask, use_h, admissible, heuristic, goal, SL, SG, D1, g1, BM, ab, max_cost, max_states,
                             step):
                meta[7] -= pdead
                if meta[6] == 5:
                    _untake(H, meta, pf0, pg, pi, pk0)
                return
            pn, pdead = 0, 0
            if 4 * meta[0] > 3 * T.shape[0]:
                meta[6] = 3
                return
            continue
        if done >= chunk:
            return
        f0, k0 = H[meta[8], 0], H[meta[8], 3]
        g, i = _take(H, meta)
        cheapest = meta[11] >= 0 and G[meta[11]] - step <= g  # (no state left could reach a cheaper goal)
        if not cheapest and g != G[i]:
            continue  # a stale entry: the state was reached more cheaply since (not by 1-cost children waiting)
        reached = not cheapest and (step == 0 or i == 0) and goal(K[i], SL, SG, D1, g1, BM, ab)
        if (cheapest or reached) and pn > 0:  # (the children waiting come first: it is taken again after them)
            _untake(H, meta, f0, g, i, k0)
            first = True
            continue
        if cheapest:
            _found(meta, meta[11])
            return
        if reached:
            _found(meta, i)
            # put it back, so that a resumed search (for another solution) sees a consistent frontier
            _untake(H, meta, f0, g, i, k0)
            return
        done += 1
        if use_dead and dead(K[i], SL, SG, D1, g1, BM, ab):
            meta[7] += 1
            if pn > 0:
                pdead += 1
            continue
        meta[2] += 1
        n = expand(K[i], SL, SG, MA, MARG, OUT, MOVE, COST, D0, g0, D1, g1, BM, ab)
        if meta[0] + pn + n > K.shape[0] or meta[1] + pn + n + HEAP >= H.shape[0]:
            # undo this expansion: it will be redone after the arrays grow (and its deadlock test again)
            _untake(H, meta, f0, g, i, k0)
            meta[2] -= 1
            if pn > 0:  # (they have room: it was asked for them beside the children before them)
                first = True
                continue
            meta[6] = 3
            return
        for m in range(n):
            HASH[m] = _hash(OUT, m, words)
            prefetch(T, _slot(HASH[m], mask))
        if pn > 0 and _put_children(K, T, G, PARENT, MOVE_OF, H, meta, OUTP, MOVEP, COSTP, HASHP, pn, pg, pi, words,
                                    mask, use_h, admissible, heuristic, goal, SL, SG, D1, g1, BM, ab, max_cost,
                                    max_states, step):
            if meta[6] != 6:  # (this state was taken too soon: back it goes, the one before it ahead of it)
                _untake(H, meta, f0, g, i, k0)
                meta[2] -= 1
                meta[7] -= pdead  # (so were the deadlocks found since the children waited)
                if meta[6] == 5:
                    _untake(H, meta, pf0, pg, pi, pk0)
            return
        pn, pdead = 0, 0
        wait = meta[9] != 0 and 4 * (meta[0] + n) <= 3 * T.shape[0]
        for m in range(n):
            wait = wait and COST[m] == 1
        if wait:  # (a few words copied: cheaper than swapping the arrays, which counts references)
            for m in range(n):
                for w in range(words):
                    OUTP[m, w] = OUT[m, w]
                MOVEP[m], COSTP[m], HASHP[m] = MOVE[m], COST[m], HASH[m]
            pn, pi, pg, pf0, pk0 = n, i, g, f0, k0
            continue
        if _put_children(K, T, G, PARENT, MOVE_OF, H, meta, OUT, MOVE, COST, HASH, n, g, i, words, mask, use_h,
                         admissible, heuristic, goal, SL, SG, D1, g1, BM, ab, max_cost, max_states, step):
            if meta[6] == 5:
                _untake(H, meta, f0, g, i, k0)
            return
        if 4 * meta[0] > 3 * T.shape[0]:
            meta[6] = 3
            return
    if meta[11] >= 0:
        _found(meta, meta[11])
        return
    meta[6] = 2


@njit(cache=True, inline="always")
def _put_children(K, T, G, PARENT, MOVE_OF, H, meta, OUT, MOVE, COST, HASH, n, g, i, words, mask, use_h, admissible,
                  heuristic, goal, SL, SG, D1, g1, BM, ab, max_cost, max_states, step):
    """Put the n children of row i (taken at cost g) in the table and the frontier; their slots were asked for
    when they were made (HASH). True when the search stops: meta[6] is then 1 (found), 5 (a new state would
    pass max_states: the caller puts row i back, so that the frontier stays whole and its least entry is still
    a lower bound on the optimum, search.least_open; the children made are in it) or 6."""
    for m in range(n):  # (the row in each slot whose tag agrees, asked for before any is compared)
        e = T[_slot(HASH[m], mask)]
        if e >= 0 and e >> _ROW_BITS == _tag(HASH[m]):
            prefetch(K, (e & _ROW_MASK) * words)
            if meta[9] == 0:  # (a heap: a duplicate's G is read, see below)
                prefetch(G, e & _ROW_MASK)
    for m in range(n):
        if COST[m] > _MOST - g:  # (costs are never negative; numba's adds do not wrap: LLVM may drop a
            if max_cost >= 0:    # test of a wrapped sum, so the test comes first)
                continue  # (it costs more than max_cost)
            meta[6] = 6
            return True
        ng = g + COST[m]
        if max_cost >= 0 and ng > max_cost:
            continue
        new = meta[0]
        meta[3] += 1
        for w in range(words):
            K[new, w] = OUT[m, w]
        key = HASH[m]  # (the table's hash, and A*'s tie key: _comes_first)
        slot = _probe(K, T, new, words, key)
        j = _row(T, slot)
        if j >= 0:
            meta[4] += 1
            # (in the ring every state made costs at most g + 1: a 1-cost child improves none, and its
            # duplicate's G, a cache miss in a large table, need not be read)
            if (meta[9] != 0 and ng == g + 1) or ng >= G[j]:
                continue
            target = j  # reached more cheaply: reopen
        else:
            if max_states >= 0 and new >= max_states:
                meta[6] = 5
                return True
            T[slot] = _entry(new, key)
            meta[0] = new + 1
            target = new
        G[target] = ng
        PARENT[target] = np.int32(i)
        MOVE_OF[target] = np.int32(MOVE[m])
        h = heuristic(K[target], SL, SG, D1, g1, BM, ab) if use_h else 0
        f = ng + h if h <= _MOST - ng else _MOST  # (an estimate past 2^63 - 1 as 2^63 - 1: still a bound)
        if max_cost >= 0 and use_h and admissible and f > max_cost:  # (an inadmissible f proves nothing)
            continue
        _put(H, meta, f, ng, target, np.int64(key), g)
        if step > 0 and (meta[11] < 0 or ng < G[meta[11]]) and goal(K[target], SL, SG, D1, g1, BM, ab):
            meta[11] = target  # the cheapest goal made so far
            if ng <= g + step:
                _found(meta, target)  # (the rest of this expansion is dropped: a found search ends)
                return True
    return False


@njit(cache=True)
def _found(meta, i):
    meta[5] = i
    meta[6] = 1


# A breadth-first search over states of one word whose moves cost 0 or 1 (search._best_first runs it for `bfs`)
# needs no frontier of entries: the rows, in the order their states are made, are its queue (meta[8] the next row
# to take), a layer of cost L being the rows made while the layer before was taken; its table is best_first's. A
# child that costs 1 waits between its slot's prefetch and its probe, in a ring of _RING, until the miss is over
# (bench/ceiling_bloxorz.py's variant C: 2.2x its plain loop; the row a slot names is asked for _PEEK children
# before the probe). The children are put in in the order they were made, and whatever ends the search or a layer
# puts them all in first: with unit costs this is best_first's search row for row, its statistics and its stops
# too. A child reached at no cost costs L as well: it waits in a queue (H's rows: its word, hash, parent row and
# move), its slot asked for meanwhile, until the layer's rows are taken; it is then put in and, when it is new or
# reached more cheaply than before, taken (a row reached more cheaply is stale when met in order: its G is below
# its layer's). So every state of cost L is still taken before any of L + 1, and an exhaustive search makes,
# takes and counts what best_first does, but in another order within a layer: another cheapest path may be
# found, and a budget stops elsewhere.
_RING = 64  # children waiting for their probe (a power of two; at least twice a state's moves: breadth_first)
_LOOKAHEAD = 64  # the most rows taken past the oldest waiting child's parent (a stop takes them back: _take_back)
_PEEK = 16  # how many children before its probe a waiting child's row is asked for (_ask_row)


@_native(types.void(_EXPAND_T, _HEURISTIC_T, _GOAL_T, _GOAL_T, _I2, _I1, _I1, _I2, _U2, _I1, _R1, _R1, _I1, _I2,
                     _I1, _B, _I, _I, _I, _W))
def breadth_first(expand, heuristic, goal, dead, SL, SG, MA, MARG, K, G, PARENT, MOVE_OF, T, H, meta, use_dead,
                  max_cost, max_states, chunk, W):
    """best_first without a heuristic, for states of one word and moves that cost 0 or 1 (see above). meta as
    best_first's (meta[1] the rows not yet taken and the children at no cost waiting, meta[8] the next row to
    take), and besides: meta[14] the layer's cost, meta[15] the row that starts the next layer, meta[16] ..
    meta[17] - 1 the rows of H (past HEAP) that hold the children at no cost waiting."""
    SL, SG, MA, MARG, K, G, PARENT, MOVE_OF, T = (borrow(SL), borrow(SG), borrow(MA), borrow(MARG), borrow(K),
                                                  borrow(G), borrow(PARENT), borrow(MOVE_OF), borrow(T))
    H, meta = borrow(H), borrow(meta)
    D0, g0, D1, g1, BM, ab = borrow(W[0]), borrow(W[1]), borrow(W[2]), borrow(W[3]), borrow(W[4]), borrow(W[5])
    moves = MA.shape[0]
    OUT = np.zeros((moves, 1), np.uint64)
    MOVE = np.zeros(moves, np.int64)
    COST = np.zeros(moves, np.int64)
    ring = _RING
    while ring < 2 * moves:
        ring *= 2
    RK, RS = np.empty(ring, np.uint64), np.empty(ring, np.uint64)  # a waiting child's word and its hash,
    RE, RM = np.empty(ring, np.int64), np.empty(ring, np.int64)  # its parent's taking (LOG) and its move
    LOG = np.zeros(2 * _LOOKAHEAD, np.int64)  # the rows taken lately, in order (_logged)
    mask = np.uint64(T.shape[0] - 1)
    if meta[6] == -1:
        meta[6], meta[0], meta[8], meta[14], meta[15], meta[16], meta[17] = 0, 1, 0, 0, 1, 0, 0
        G[0] = 0
        h0 = _hash(K, 0, 1)
        T[_slot(h0, mask)] = _entry(0, h0)
    step = meta[10]  # (1: every move costs 1, goals are tested as they are made; 0: as they are taken)
    head, layer, layer_end, zh, zt = meta[8], meta[14], meta[15], meta[16], meta[17]
    rh, rt = 0, 0  # the waiting children: rh .. rt - 1, counted on (their place in the ring: & (ring - 1))
    taken = 0  # the rows taken in this call, stale ones too (their place in LOG: & (2 * _LOOKAHEAD - 1))
    done = 0
    while True:
        if rt > rh and (rt - rh + moves > ring or taken - RE[rh & (ring - 1)] > _LOOKAHEAD):
            if rh + _PEEK < rt:
                _ask_row(K, T, RS[(rh + _PEEK) & (ring - 1)], mask)
            o = rh & (ring - 1)
            rh += 1
            if _retire(goal, SL, SG, D1, g1, BM, ab, K, G, PARENT, MOVE_OF, T, meta, mask, RK[o], RS[o], RE[o],
                       RM[o], LOG, taken, head, layer, layer_end, zh, zt, max_states, step):
                return
            continue
        room = meta[0] + (rt - rh) + moves + 1  # (+ 1: the row a child reached at no cost takes when taken)
        short = room > K.shape[0] or 4 * room > 3 * T.shape[0] or HEAP + zt + moves > H.shape[0]
        if (head >= layer_end and zh == zt) or done >= chunk or short:
            # (everything waiting is put in before the layer ends, or the call, or the room)
            if _retire_all(goal, SL, SG, D1, g1, BM, ab, K, G, PARENT, MOVE_OF, T, meta, mask, RK, RS, RE, RM, ring,
                           rh, rt, LOG, taken, head, layer, layer_end, zh, zt, max_states, step):
                return
            rh = rt
            if head >= layer_end and zh == zt:
                if head >= meta[0]:
                    _keep(meta, head, layer, layer_end, zh, zt)
                    meta[6] = 2
                    return
                layer, layer_end = layer + 1, meta[0]
            if done >= chunk:
                _keep(meta, head, layer, layer_end, zh, zt)
                return
            room = meta[0] + moves + 1
            if room > K.shape[0] or 4 * room > 3 * T.shape[0] or HEAP + zt + moves > H.shape[0]:
                _keep(meta, head, layer, layer_end, zh, zt)
                meta[6] = 3
                return
        zero = head >= layer_end  # (the layer's rows are taken: a child reached at no cost waits)
        if zero:
            r = HEAP + zh
            zh += 1
            i = _add(K, G, PARENT, MOVE_OF, T, mask, meta, np.uint64(H[r, 0]), np.uint64(H[r, 1]), H[r, 2], H[r, 3],
                     layer, True, max_states)
            if i == -2:  # (past max_states: it waits on, so that the layer's bound stands)
                _keep(meta, head, layer, layer_end, zh - 1, zt)
                return
            if i < 0:
                if zh == zt:
                    zh, zt = 0, 0
                continue
        else:
            i = head
            head += 1
            if G[i] != layer:  # (reached more cheaply since, and taken then)
                LOG[taken & (2 * _LOOKAHEAD - 1)] = _logged(i, 0, False)
                taken += 1
                continue
        if (step == 0 or i == 0) and goal(K[i], SL, SG, D1, g1, BM, ab):
            if zero:  # (put back, as best_first does: the layer's bound stands should putting in what waits stop)
                zh -= 1
            else:
                head -= 1
            # (the children waiting come first)
            if _retire_all(goal, SL, SG, D1, g1, BM, ab, K, G, PARENT, MOVE_OF, T, meta, mask, RK, RS, RE, RM, ring,
                           rh, rt, LOG, taken, head, layer, layer_end, zh, zt, max_states, step):
                return
            _keep(meta, head, layer, layer_end, zh, zt)
            _found(meta, i)
            return
        if zero and zh == zt:
            zh, zt = 0, 0
        done += 1
        this = taken
        is_dead = use_dead and dead(K[i], SL, SG, D1, g1, BM, ab)
        LOG[this & (2 * _LOOKAHEAD - 1)] = _logged(i, 2 if is_dead else 1, zero)
        taken += 1
        if is_dead:
            meta[7] += 1
            continue
        meta[2] += 1
        n = expand(K[i], SL, SG, MA, MARG, OUT, MOVE, COST, D0, g0, D1, g1, BM, ab)
        for m in range(n):
            if max_cost >= 0 and layer + COST[m] > max_cost:
                continue
            key, h = OUT[m, 0], _hash(OUT, m, 1)
            prefetch(T, _slot(h, mask))
            if COST[m] != 0:
                w = rt & (ring - 1)
                rt += 1
                RK[w], RS[w], RE[w], RM[w] = key, h, this, MOVE[m]
            else:
                r = HEAP + zt
                zt += 1
                H[r, 0], H[r, 1], H[r, 2], H[r, 3] = np.int64(key), np.int64(h), i, MOVE[m]


@njit(cache=True, inline="always")
def _retire_all(goal, SL, SG, D1, g1, BM, ab, K, G, PARENT, MOVE_OF, T, meta, mask, RK, RS, RE, RM, ring, rh, rt,
                LOG, taken, head, layer, layer_end, zh, zt, max_states, step):
    """Put in the children waiting in ring places rh .. rt - 1 (counted on), in order (_retire): whether that
    stopped the search."""
    for k in range(rh, rt):
        o = k & (ring - 1)
        if _retire(goal, SL, SG, D1, g1, BM, ab, K, G, PARENT, MOVE_OF, T, meta, mask, RK[o], RS[o], RE[o], RM[o],
                   LOG, taken, head, layer, layer_end, zh, zt, max_states, step):
            return True
    return False


@njit(cache=True, inline="always")
def _ask_row(K, T, h, mask):
    """Ask for the row named by the first slot of a state whose hash is h, when its tag agrees."""
    e = T[_slot(h, mask)]
    if e >= 0 and e >> _ROW_BITS == _tag(h):
        prefetch(K, e & _ROW_MASK)


@njit(cache=True, inline="always")
def _logged(row, kind, zero):
    """LOG's entry of a row taken: kind 0 stale, 1 expanded, 2 a deadlock; zero: reached at no cost."""
    return row * 8 + kind * 2 + (1 if zero else 0)


@njit(cache=True)
def _take_back(LOG, meta, first, taken, head):
    """Take back the rows in order taken from the `first`-th on (LOG), and their counts: the next row to take.
    (Those reached at no cost stay taken: the children at no cost they made wait on. Only a budget stops the
    search then, for good, and the layer's bound holds: every state of a lower cost was taken.)"""
    for t in range(taken - 1, first - 1, -1):
        e = LOG[t & (2 * _LOOKAHEAD - 1)]
        if e & 1:
            continue
        kind = (e >> 1) & 3
        if kind == 1:
            meta[2] -= 1
        elif kind == 2:
            meta[7] -= 1
        head = e >> 3
    return head


@njit(cache=True, inline="always")
def _keep(meta, head, layer, layer_end, zh, zt):
    """breadth_first's place, kept in meta for its next call and for Python."""
    meta[8], meta[14], meta[15], meta[16], meta[17] = head, layer, layer_end, zh, zt
    meta[1] = meta[0] - head + zt - zh


@njit(cache=True, inline="always")
def _add(K, G, PARENT, MOVE_OF, T, mask, meta, key, h, p, move, ng, free, max_states):
    """Put a child of row p whose word is `key` and hash h, reached at cost ng (free: at no cost), in
    breadth_first's table and rows: its row when it is new or now reached more cheaply, -1 when it is no cheaper
    than before, -2 when a new state would pass max_states (meta[6] is then 5)."""
    meta[3] += 1
    slot, tag = _slot(h, mask), _tag(h)
    while True:
        e = T[slot]
        if e < 0 or (e >> _ROW_BITS == tag and K[e & _ROW_MASK, 0] == key):
            break
        slot = (slot + np.uint64(1)) & mask
    if e >= 0:
        meta[4] += 1
        j = e & _ROW_MASK
        # (a child that costs 1 is never cheaper: every state made so far costs at most the layer's cost + 1)
        if not free or ng >= G[j]:
            return -1
    else:
        j = meta[0]
        if max_states >= 0 and j >= max_states:
            meta[6] = 5
            return -2
        T[slot] = _entry(j, h)
        K[j, 0] = key
        meta[0] = j + 1
    G[j] = ng
    PARENT[j] = np.int32(p)
    MOVE_OF[j] = np.int32(move)
    return j


@njit(cache=True, inline="always")
def _retire(goal, SL, SG, D1, g1, BM, ab, K, G, PARENT, MOVE_OF, T, meta, mask, key, h, parent, move, LOG, taken,
            head, layer, layer_end, zh, zt, max_states, step):
    """Put in a waiting child, made by the `parent`-th row taken (LOG) of this layer at a cost of 1: whether that
    stops the search (meta then kept), which then stands as if the rows taken after that one had not been
    (_take_back)."""
    e = LOG[parent & (2 * _LOOKAHEAD - 1)]
    p = e >> 3
    j = _add(K, G, PARENT, MOVE_OF, T, mask, meta, key, h, p, move, layer + 1, False, max_states)
    if j == -2:  # (the parent is put back too, as best_first does, unless reached at no cost: _take_back)
        head = _take_back(LOG, meta, parent + 1, taken, head)
        _keep(meta, head if e & 1 else p, layer, layer_end, zh, zt)
        return True
    if j >= 0 and step > 0 and goal(K[j], SL, SG, D1, g1, BM, ab):  # (the first goal made costs least)
        _keep(meta, _take_back(LOG, meta, parent + 1, taken, head), layer, layer_end, zh, zt)
        meta[11] = j
        _found(meta, j)
        return True
    return False


_AHEAD = 16  # how many rows ahead rehash hashes


@_native(types.void(_U2, _I, _I1))
def rehash(K, n, T):
    words = K.shape[1]
    for s in range(T.shape[0]):
        T[s] = -1
    mask = np.uint64(T.shape[0] - 1)
    H = np.empty(_AHEAD, np.uint64)  # (the next rows' hashes, their slots asked for ahead: see best_first)
    for i in range(min(n, _AHEAD)):
        H[i] = _hash(K, i, words)
        prefetch(T, _slot(H[i], mask))
    for i in range(n):
        h = H[i % _AHEAD]
        if i + _AHEAD < n:
            H[i % _AHEAD] = _hash(K, i + _AHEAD, words)
            prefetch(T, _slot(H[i % _AHEAD], mask))
        T[_probe(K, T, i, words, h)] = _entry(i, h)


@njit(cache=True)
def _on_path(PATH, depth, CH, d, j, words):
    for p in range(depth + 1):
        same = True
        for w in range(words):
            if PATH[p, w] != CH[d, j, w]:
                same = False
                break
        if same:
            return True
    return False


@njit(cache=True)
def _ban(ab, ban_at, MA, MARG, BS, meta, m):
    """Ban move m below the current depth's later children (when the table has room: else it stays allowed)."""
    if meta[14] < BS.shape[0] and ban(ab, ban_at, MA[m], MARG[m, 1:]):
        BS[meta[14]] = m
        meta[14] += 1
        meta[18] = 1  # (no more restarts: one would lose the bans)


luby = njit(cache=True)(py_deepening.luby)  # (the run lengths of IDA*'s restarts: the Python one's, compiled)


@njit(cache=True)
def _shuffle(CH, CHM, CHC, d, n, meta):
    """Shuffle depth d's n successors (Fisher-Yates, drawing from splitmix64 in meta[17]); the Shuffler of
    solvers/_deepening.py draws the same."""
    for i in range(n - 1, 0, -1):
        x = np.uint64(meta[17]) + np.uint64(0x9E3779B97F4A7C15)
        meta[17] = np.int64(x)
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        x ^= x >> np.uint64(31)
        j = np.int64(x % np.uint64(i + 1))
        for w in range(CH.shape[2]):
            CH[d, i, w], CH[d, j, w] = CH[d, j, w], CH[d, i, w]
        CHM[d, i], CHM[d, j] = CHM[d, j], CHM[d, i]
        CHC[d, i], CHC[d, j] = CHC[d, j], CHC[d, i]


@njit(cache=True)
def _at_root(CHI, meta, ab, BT, ban_at):
    """The root alone on the path, its successors from the first, no move banned, no commuting move made."""
    if ban_at >= 0:
        clear_bans(ab, ban_at)
        meta[14] = 0
        BT[0] = 0
    if ab[6] > -2:  # (ordering commuting moves)
        ab[6] = -1
    CHI[0] = 0
    meta[0] = 0


@njit(cache=True)
def _restart(PATH, CH, CHM, CHC, CHN, CHI, TK, TG, TT, meta, table_cap, ab, BT, ban_at, restart_unit):
    """Start the iteration over from the root, its successors shuffled. The table keeps the states searched
    through (they fail within the bound whatever the order); the path's states were entered but not searched
    through, so the table forgets them (an entry of no g, in place: the table keeps its count)."""
    words = PATH.shape[1]
    if table_cap > 0:
        n = meta[7]
        for p in range(1, meta[0] + 1):
            for w in range(words):
                TK[n, w] = PATH[p, w]
            k = _row(TT, _find(TK, TT, n, words))
            if k >= 0:
                TG[k] = NO_G
    _at_root(CHI, meta, ab, BT, ban_at)
    meta[15] += 1
    meta[16] = meta[3] + restart_unit * luby(meta[15])
    _shuffle(CH, CHM, CHC, 0, CHN[0], meta)


@njit(cache=True)
def _visits_spent(meta, max_states):
    """Whether another visit (an expansion) would pass max_states (when >= 0): then status 5. Asked before each
    visit, as solvers/_deepening.py asks Search.visited."""
    if max_states >= 0 and meta[3] >= max_states:
        meta[6] = 5
        return True
    return False


@njit(cache=True)
def _begin_iteration(expand, SL, SG, MA, MARG, PATH, PG, PM, CH, CHM, CHC, CHN, CHI, TT, meta, table_cap, W, BT,
                     ban_at, restart_unit):
    """Begin an iteration at the current bound: the root alone on the path, the table (and the bans) emptied."""
    D0, g0, D1, g1, BM, ab = W
    PG[0] = 0
    PM[0] = -1
    _at_root(CHI, meta, ab, BT, ban_at)
    if table_cap > 0:
        for s in range(TT.shape[0]):
            TT[s] = -1
    meta[7] = 0
    CHN[0] = expand(PATH[0], SL, SG, MA, MARG, CH[0], CHM[0], CHC[0], D0, g0, D1, g1, BM, ab)
    meta[3] += 1
    meta[12] += 1
    meta[15] = 0  # (the first run of the iteration: successors in the game's order)
    meta[16] = meta[3] + restart_unit * luby(0)


@_native(types.void(_EXPAND_T, _HEURISTIC_T, _GOAL_T, _GOAL_T, _I2, _I1, _I1, _I2, _U2, _I1, _I1, _U3, _I2, _I2,
                     _I1, _I1, _U2, _I1, _I1, _I1, _I1, _I1, _I1, _I1, _I1, _B, _B, _B, _I, _I, _I, _I, _I, _I,
                     _W))
def deepening(expand, heuristic, goal, dead, SL, SG, MA, MARG, PATH, PG, PM, CH, CHM, CHC, CHN, CHI, TK, TG, TA, TT,
              INC, PP, BT, BS, meta, use_h, admissible, use_dead, max_cost, max_states, table_cap, chunk, ban_at,
              restart_unit, W):
    """Cost-bounded iterative deepening (IDA* when use_h, else IDDFS), resumable like best_first; the same
    algorithm as solvers/_deepening.py, step for step. The path is PATH[0..depth], each depth's successors
    wait in CH[depth] (CHI: the next to try). The table (TK rows, TG least g, TA the `after` then, TT slots)
    keeps at most table_cap states per iteration, growing on demand. Commuting moves are ordered when the
    caller set ab[6] to -1 (expand then numbers a commuting successor m as -1 - m, see codegen). With
    ban_at >= 0 (the ban table's place in ab; the caller set ab[8] to 1, so expand numbers a persisting successor
    m as -1 - m instead), a persisting move whose subtree failed within the bound is banned below its later
    siblings: BS is the stack of banned moves, BT[d] its height when depth d was entered, PP[d] whether the move
    into depth d persists; the deadlock test reads the bans (ab[9]). With restart_unit > 0 and a table, until a
    move is banned (meta[18]), an iteration starts over from the root after restart_unit * luby(r) expansions in
    its run r, every run after the first trying the successors in a random order (_restart).
    meta: [depth, bound, cut (-1 none), expanded, generated, duplicates, status, table count, found cost,
    incumbent cost (-1 none), incumbent length, found length, iterations, dead, bans, run, the expansions at
    which the run ends, random state, whether a move was ever banned]. status: -1 fresh, 0 running,
    1 found, 2 exhausted (unsolvable), 3 path arrays full, 4 table arrays full (grow, call again), 5 another
    expansion would pass max_states (when >= 0), 6 a path's cost passed 2^63 - 1. With use_dead, a state that
    `dead` says is a deadlock is not entered (meta[13] counts them)."""
    # (every array borrowed, see runtime.borrow: the calls below then count no references)
    SL, SG, MA, MARG, PATH, PG, PM, CH, CHM, CHC = (borrow(SL), borrow(SG), borrow(MA), borrow(MARG), borrow(PATH),
                                                    borrow(PG), borrow(PM), borrow(CH), borrow(CHM), borrow(CHC))
    CHN, CHI, TK, TG, TA, TT, INC, meta = (borrow(CHN), borrow(CHI), borrow(TK), borrow(TG), borrow(TA), borrow(TT),
                                           borrow(INC), borrow(meta))
    PP, BT, BS = borrow(PP), borrow(BT), borrow(BS)
    W = borrow(W[0]), borrow(W[1]), borrow(W[2]), borrow(W[3]), borrow(W[4]), borrow(W[5])
    words = PATH.shape[1]
    D0, g0, D1, g1, BM, ab = W
    ordered = ab[6] > -2
    if meta[6] == -1:
        meta[6] = 0
        if goal(PATH[0], SL, SG, D1, g1, BM, ab):
            meta[8], meta[11], meta[6] = 0, 0, 1
            return
        meta[1] = heuristic(PATH[0], SL, SG, D1, g1, BM, ab) if use_h else 0
        if admissible and max_cost >= 0 and meta[1] > max_cost:
            meta[6] = 2
            return
        if use_dead and dead(PATH[0], SL, SG, D1, g1, BM, ab):
            meta[13] += 1
            meta[6] = 2
            return
        meta[2] = -1
        if _visits_spent(meta, max_states):
            return
        _begin_iteration(expand, SL, SG, MA, MARG, PATH, PG, PM, CH, CHM, CHC, CHN, CHI, TT, meta, table_cap, W,
                         BT, ban_at, restart_unit)
    done = 0
    bound = meta[1]
    while True:
        d = meta[0]
        if d < 0:  # the iteration is over
            if meta[2] < 0:
                meta[6] = 2
                return
            bound = meta[1] = meta[2]
            meta[2] = -1
            if _visits_spent(meta, max_states):
                return
            _begin_iteration(expand, SL, SG, MA, MARG, PATH, PG, PM, CH, CHM, CHC, CHN, CHI, TT, meta, table_cap,
                             W, BT, ban_at, restart_unit)
            done += 1
            continue
        if done >= chunk:
            return
        if restart_unit > 0 and table_cap > 0 and meta[18] == 0 and meta[3] >= meta[16]:
            _restart(PATH, CH, CHM, CHC, CHN, CHI, TK, TG, TT, meta, table_cap, ab, BT, ban_at, restart_unit)
            continue
        j = CHI[d]
        if j >= CHN[d]:  # every successor done: backtrack
            if ban_at >= 0:
                while meta[14] > BT[d]:  # (the bans below this depth's children end with it)
                    meta[14] -= 1
                    unban(ab, ban_at, MA[BS[meta[14]]], MARG[BS[meta[14]], 1:])
                if d >= 1 and PP[d] != 0:  # its subtree failed: banned below its later siblings
                    _ban(ab, ban_at, MA, MARG, BS, meta, PM[d])
            meta[0] = d - 1
            continue
        CHI[d] = j + 1
        meta[4] += 1
        if CHC[d, j] <= _MOST - PG[d]:  # (as in best_first: past 2^63 - 1 is an error unless max_cost prunes it)
            cg = PG[d] + CHC[d, j]
        elif 0 <= max_cost < _MOST:
            cg = _MOST  # (pruned below)
        else:
            meta[6] = 6
            return
        m = CHM[d, j]
        after = -1
        persists = False
        if m < 0:
            if ban_at >= 0:  # a persisting move: banned below its later siblings once its subtree failed
                m = -1 - m
                persists = True
            else:  # a commuting move: its successors come after it in the order
                m = after = -1 - m
        if ban_at >= 0 and is_banned(ab, ban_at, MA[m], MARG[m, 1:]):
            continue
        if _on_path(PATH, d, CH, d, j, words):
            meta[5] += 1
            continue
        if max_cost >= 0 and cg > max_cost:
            if persists:
                _ban(ab, ban_at, MA, MARG, BS, meta, m)
            continue
        n = meta[7]
        slot, h = np.uint64(0), np.uint64(0)
        if table_cap > 0:  # (a state searched through at no greater g: before the goal test and h, which cost)
            for w in range(words):
                TK[n, w] = CH[d, j, w]
            h = _hash(TK, n, words)
            slot = _probe(TK, TT, n, words, h)
            k = _row(TT, slot)
            if k >= 0 and TG[k] <= cg and TA[k] <= after:
                meta[5] += 1
                if persists:
                    _ban(ab, ban_at, MA, MARG, BS, meta, m)
                continue
        if goal(CH[d, j], SL, SG, D1, g1, BM, ab):
            if cg <= bound:
                PM[d + 1] = m
                meta[8], meta[11], meta[6] = cg, d + 1, 1
                return
            if meta[9] < 0 or cg < meta[9]:  # a solution above the bound: the best so far
                for p in range(1, d + 1):
                    INC[p - 1] = PM[p]
                INC[d] = m
                meta[9], meta[10] = cg, d + 1
            if meta[2] < 0 or cg < meta[2]:
                meta[2] = cg
            if persists:
                _ban(ab, ban_at, MA, MARG, BS, meta, m)
            continue
        est = heuristic(CH[d, j], SL, SG, D1, g1, BM, ab) if use_h else 0
        f = cg + est if est <= _MOST - cg else _MOST  # (as in best_first)
        if f > bound:
            if not (admissible and max_cost >= 0 and f > max_cost) and (meta[2] < 0 or f < meta[2]):
                meta[2] = f
            if persists:
                _ban(ab, ban_at, MA, MARG, BS, meta, m)
            continue
        if d + 1 >= PATH.shape[0]:
            CHI[d] = j
            meta[4] -= 1
            meta[6] = 3
            return
        if table_cap > 0:  # (TK[n] still holds the state, and `slot` is its place)
            k = _row(TT, slot)
            if k >= 0:
                TG[k] = cg
                TA[k] = after
            elif n < table_cap:
                if n + 1 >= TK.shape[0]:  # room for the scratch row: grow first
                    CHI[d] = j
                    meta[4] -= 1
                    meta[6] = 4
                    return
                TT[slot] = _entry(n, h)
                TG[n] = cg
                TA[n] = after
                meta[7] = n + 1
        if use_dead:
            ab[9] = ban_at  # (the deadlock test may read the bans)
            is_dead = dead(CH[d, j], SL, SG, D1, g1, BM, ab)
            ab[9] = -1
            if is_dead:
                meta[13] += 1
                done += 1
                if persists:
                    _ban(ab, ban_at, MA, MARG, BS, meta, m)
                continue
        if _visits_spent(meta, max_states):
            return
        for w in range(words):
            PATH[d + 1, w] = CH[d, j, w]
        PG[d + 1] = cg
        PM[d + 1] = m
        PP[d + 1] = persists
        BT[d + 1] = meta[14]
        if ordered:
            ab[6] = after
        CHN[d + 1] = expand(PATH[d + 1], SL, SG, MA, MARG, CH[d + 1], CHM[d + 1], CHC[d + 1], D0, g0, D1, g1,
                            BM, ab)
        if meta[15] > 0:
            _shuffle(CH, CHM, CHC, d + 1, CHN[d + 1], meta)
        CHI[d + 1] = 0
        meta[0] = d + 1
        meta[3] += 1
        done += 1
