"""Breadth-first search by cost: proven-optimal solutions and proofs of unsolvability."""
from __future__ import annotations

import heapq
from collections import deque
from itertools import count

from ._search import Search, min_move_cost, path_to
from .protocol import Budget, Solution, State, TransitionSystem


class _Frontier:
    """Cheapest-first queue that stays as cheap as the costs allow.

    While every move costs 0 or 1 it is a deque (0-cost children to the front, 1-cost to
    the back): with unit costs that is plain FIFO, layer-by-layer BFS, and with 0/1 costs
    it is 0-1 BFS. The first other cost turns it into a heap (Dijkstra) for good: costs
    are only discovered while searching.
    """

    def __init__(self) -> None:
        self._deque: deque[tuple[int, State]] | None = deque()
        self._heap: list[tuple[int, int, State]] = []
        self._seq = count()

    def push(self, g: int, base: int, state: State) -> None:
        """Add `state` at cost `g`, reached from a state popped at cost `base`."""
        if self._deque is not None:
            if g == base:
                self._deque.appendleft((g, state))
                return
            if g == base + 1:
                self._deque.append((g, state))
                return
            # A sorted list is already a heap.
            self._heap = [(c, next(self._seq), s) for c, s in self._deque]
            self._deque = None
        heapq.heappush(self._heap, (g, next(self._seq), state))

    def pop(self) -> tuple[int, State]:
        if self._deque is not None:
            return self._deque.popleft()
        g, _, state = heapq.heappop(self._heap)
        return g, state

    def __bool__(self) -> bool:
        return bool(self._deque) if self._deque is not None else bool(self._heap)


def _bfs(system: TransitionSystem, search: Search) -> Solution:
    stats = search.stats
    root = system.initial()
    if system.is_goal(root):
        return search.solved((), 0, True)
    # A generated goal is provably cheapest once no unexpanded state could still reach a
    # cheaper one: every later goal costs at least (current cost + cheapest move).
    step = min_move_cost(system)
    dist = {root: 0}
    parents: dict = {root: None}
    goals: set = set()  # states known to be goals (is_goal runs once per state)
    best = None  # (cost, state) of the cheapest goal generated so far
    frontier = _Frontier()
    frontier.push(0, 0, root)
    search.stored(1)
    while frontier:
        g, state = frontier.pop()
        if best is not None and best[0] <= g + step:
            break
        if g > dist[state]:
            continue  # stale entry: a cheaper path was found after it was queued
        if search.dead(state):
            continue
        stats.depth = g
        search.proved(g + step)  # (every state cheaper than g is expanded: a cheaper goal would have been seen)
        search.expand()
        for move, child, cost in system.successors(state):
            stats.generated += 1
            child_g = g + cost
            if search.over_cost(child_g):
                continue
            old = dist.get(child)
            if old is not None and old <= child_g:
                stats.duplicates += 1
                continue
            dist[child] = child_g
            parents[child] = (state, move)
            if old is None:
                search.stored(len(dist))
                if system.is_goal(child):
                    goals.add(child)
            if child in goals:
                if best is None or child_g < best[0]:
                    best = (child_g, child)
                    search.offer(path_to(parents, child), child_g)
                if child_g <= g + step:
                    return search.solved(path_to(parents, child), child_g, True)
            frontier.push(child_g, g, child)
    if best is None:
        return search.unsolvable()
    return search.solved(path_to(parents, best[1]), best[0], True)


def bfs(system: TransitionSystem, budget: Budget | None = None) -> Solution:
    """Uniform-cost search (BFS / 0-1 BFS / Dijkstra as the costs require).

    Always proven optimal; exhausting the space (within budget.max_cost) proves the
    puzzle unsolvable. Ignores the heuristic, so it is the reference the others are
    checked against.
    """
    return Search("bfs", budget, system).run(_bfs, system)
