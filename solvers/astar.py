"""A*: best-first on f = g + h, optimal whenever the heuristic is admissible."""
from __future__ import annotations

import heapq
from itertools import count

from ._search import Search, path_to
from .protocol import Budget, Solution, TransitionSystem


# Ties of f and g go by a hash of the state (a fixed pseudo-random order over the states, whatever order they
# are found in): on a plateau of equal f and g, such as Drops' last click, a first-in or last-in order keeps
# searching one corner of it. Drops' dense boards at depths 7 and 8 (4, 6, 10, 11, 31, 39) take 82k / 56k /
# 286k / 259k / 127k / 552k expansions this way, 152k / 85k / 346k / 292k / 258k / 880k last in first out,
# 179k / 86k / 594k / 416k / 354k / over 1.29M first in first out. Keyed by the state, not by when it was
# found, the order of two states stays when the search around them changes (a `deadlock` that prunes others).
# The hash is the native table's (gridrules.compiled.loops._hash) over a state's words, so both A*s order
# alike; a state that is no tuple of words is keyed by its sequence number, spread over 64 bits.
_MASK = (1 << 64) - 1


def tie_key(state, seq: int) -> int:
    if isinstance(state, tuple) and all(isinstance(w, int) and 0 <= w <= _MASK for w in state):
        h = 1469598103934665603
        for w in state:
            x = ((w ^ (h >> 29)) * 0xBF58476D1CE4E5B9) & _MASK
            x ^= x >> 32
            h = ((h ^ x) * 0x94D049BB133111EB) & _MASK
        return h
    return (seq * 0x9E3779B97F4A7C15) & _MASK


def _astar(system: TransitionSystem, search: Search) -> Solution:
    stats = search.stats
    admissible = search.budget.admissible
    heuristic = system.heuristic
    root = system.initial()
    if system.is_goal(root):
        return search.solved((), 0, True)
    root_h = heuristic(root)
    if admissible and search.over_cost(root_h):
        return search.unsolvable()
    best_g = {root: 0}
    parents: dict = {root: None}
    goals: set = set()  # states known to be goals (is_goal runs once per state)
    seq = count()
    # Ties on f go to the deeper node (larger g: closer to a goal), then by tie_key (then the older one).
    heap = [(root_h, 0, tie_key(root, 0), next(seq), root)]
    search.stored(1)
    while heap:
        f, neg_g, _, _, state = heapq.heappop(heap)
        g = -neg_g
        if g > best_g[state]:
            continue  # stale entry: the state was re-opened with a cheaper g
        if state in goals:
            return search.solved(path_to(parents, state), g, admissible)
        if search.dead(state):
            continue
        stats.depth = f
        if admissible:  # (f is at most C*: an open state on a cheapest path has f <= C*, and this f is least)
            search.proved(f)
        search.expand()
        for move, child, cost in system.successors(state):
            stats.generated += 1
            child_g = g + cost
            old = best_g.get(child)
            if old is not None and old <= child_g:
                stats.duplicates += 1
                continue
            child_h = heuristic(child)
            # With an admissible h, f is a lower bound, so f > max_cost can never count.
            if search.over_cost(child_g + child_h if admissible else child_g):
                continue
            # A cheaper g re-opens the state even if it was expanded: an admissible but
            # inconsistent heuristic can expand a state before its best path is known.
            best_g[child] = child_g
            parents[child] = (state, move)
            if old is None:
                search.stored(len(best_g))
                if system.is_goal(child):
                    goals.add(child)
            if child in goals:
                search.offer(path_to(parents, child), child_g)
            n = next(seq)
            heapq.heappush(heap, (child_g + child_h, -child_g, tie_key(child, n), n, child))
    return search.unsolvable()


def astar(system: TransitionSystem, budget: Budget | None = None) -> Solution:
    """A* with exact duplicate detection and re-opening.

    `optimal` is `budget.admissible`: the proof rests on the heuristic being a true lower
    bound. Exhausting the open list is a proof of unsolvability either way (states are only
    dropped by max_cost, and by f only when h is declared admissible).
    """
    return Search("astar", budget, system).run(_astar, system)
