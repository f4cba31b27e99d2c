"""Anytime best-first search in bounded memory (seed 004's idea, for any system).

It expands the state that looks best to the system's heuristic (lowest first; no g: the heuristic is an
evaluation, not a bound), keeps at most `budget.max_states` states waiting and sheds the worse half when it
holds more, and searches a state with few moves left to the end at once. Each better solution it meets is
offered (a scored system: a higher score, then a lower cost; otherwise a lower cost) and heard by
`budget.improved`, so a caller can print it as it comes. A time limit ends it with the best solution found.

The answer is proven best only when nothing was ever shed or forgotten and the frontier ran empty: then
every reachable state was seen.
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass
from itertools import count

from ._search import BudgetExhausted, Search, better
from .protocol import Budget, Solution, State, TransitionSystem

DEFAULT_FRONTIER = 100_000  # states waiting, when budget.max_states does not say
FINISH_MOVES = 8  # a state with at most this many moves is searched to the end at once...
FINISH_ROOM = 20_000  # ... unless that takes more expansions than this (then such states are expanded as usual)
FINISH_DEPTH = 400  # ... or a path longer than this (Python's recursion)


@dataclass(frozen=True)
class _End:
    """The best way found from a state to a goal: its moves, their cost and the goal's score."""
    moves: tuple[str, ...]
    cost: int
    score: int | None


class _TooFar(Exception):
    """Searching a state to the end would take more than FINISH_ROOM expansions."""


def _moves(link) -> tuple[str, ...]:
    """The moves of a path kept as nested links (earlier path, move): paths share their beginnings."""
    out = []
    while link is not None:
        link, move = link
        out.append(move)
    out.reverse()
    return tuple(out)


def _to_the_end(system: TransitionSystem, search: Search, root: State, memo: dict, scored: bool,
                way: tuple[tuple[str, ...], int]) -> _End | None:
    """The best way from `root` to a goal, by exhaustive depth-first search (None: no goal can be reached).
    `way` is how the search came to `root` (moves, cost): each way to a goal is offered to `search` as soon as it
    is found, so that a search stopped inside this one keeps it.

    `memo` maps states to their best end (or None) across calls; a state's result is kept only when no state
    of its subtree was skipped for lying on the current path (a cycle), since such a result depends on the
    path. Skipping those loses nothing for the root: a best path never visits a state twice.
    """
    visits = 0
    on_path: set = set()
    moves: list[str] = list(way[0])  # from the start to the state being searched
    costs: list[int] = [way[1]]

    def best_from(state) -> tuple[_End | None, bool]:
        nonlocal visits
        if state in memo:
            return memo[state], True
        visits += 1
        if visits > FINISH_ROOM or len(on_path) > FINISH_DEPTH:
            raise _TooFar
        if search.dead(state):
            memo[state] = None
            return None, True
        search.expand()
        on_path.add(state)
        best, clean = None, True
        for move, child, cost in system.successors(state):
            search.stats.generated += 1
            if child in on_path:
                clean = False
                continue
            if system.is_goal(child):
                end = _End((move,), cost, system.score(child) if scored else None)
            else:
                moves.append(move)
                costs.append(costs[-1] + cost)
                try:
                    rest, whole = best_from(child)
                finally:
                    moves.pop()
                    costs.pop()
                clean = clean and whole
                if rest is None:
                    continue
                end = _End((move, *rest.moves), cost + rest.cost, rest.score)
            if best is None or better(end.score, end.cost, best.score, best.cost):
                best = end
                search.offer((*moves, *end.moves), costs[-1] + end.cost, end.score)
        on_path.discard(state)
        if clean:
            memo[state] = best
        return best, clean

    return best_from(root)[0]


def _anytime(system: TransitionSystem, search: Search) -> Solution:
    stats = search.stats
    scored = bool(getattr(system, "scored", False))
    heuristic = system.heuristic
    room = max(2, search.budget.max_states or DEFAULT_FRONTIER)
    root = system.initial()
    if system.is_goal(root):
        return search.solved((), 0, True, system.score(root) if scored else None)
    seen = {root: 0}  # the least g each state was reached at, while it holds fewer than 4 * room states
    memo: dict = {}  # _to_the_end's results
    seq = count(1)
    heap = [(heuristic(root), 0, 0, root, None)]  # (h, g, order, state, path as nested links)
    search.stored(1, limited=False)
    whole = True  # nothing shed or forgotten: an empty frontier is then a proof
    finish = FINISH_MOVES if search.budget.max_cost is None else 0  # (the end search knows no cost limit)
    while heap:
        _, g, _, state, path = heapq.heappop(heap)
        if seen.get(state, g) < g:
            continue  # reached more cheaply since; that entry is waiting too
        if not scored and search.best is not None and g >= search.best[1]:
            continue  # costs are >= 0: nothing below is cheaper than the solution held
        if search.dead(state):
            continue
        stats.depth = g
        search.expand()
        children = list(system.successors(state))
        if 0 < len(children) <= finish:
            try:
                if len(memo) > 4 * room:
                    memo.clear()
                _to_the_end(system, search, state, memo, scored, (_moves(path), g))  # (it offers what it finds)
            except _TooFar:
                finish = len(children) - 1  # such states are too big to finish here: expand them
            else:
                continue
        for move, child, cost in children:
            stats.generated += 1
            child_g = g + cost
            if search.over_cost(child_g) or (
                    not scored and search.best is not None and child_g >= search.best[1]):
                continue
            old = seen.get(child)
            if old is not None and old <= child_g:
                stats.duplicates += 1
                continue
            seen[child] = child_g
            link = (path, move)
            if system.is_goal(child):  # a solution ends at its first goal state
                search.offer(_moves(link), child_g, system.score(child) if scored else None)
                continue
            heapq.heappush(heap, (heuristic(child), child_g, next(seq), child, link))
        if len(heap) > room:
            heap = heapq.nsmallest(room // 2, heap)  # (a sorted list is a heap)
            whole = False
        if len(seen) > 4 * room:
            seen = {entry[3]: entry[1] for entry in heap}
            whole = False
        search.stored(len(heap), limited=False)
    if search.best is None:
        if whole:
            return search.unsolvable()
        raise BudgetExhausted  # states were shed: no proof that none exists
    moves, cost, score = search.best
    return search.solved(moves, cost, whole, score)


def anytime(system: TransitionSystem, budget: Budget | None = None) -> Solution:
    """Memory-bounded anytime best-first search (see the module's docstring).

    Status `solved` whenever a solution was found, even when the time limit ended the search (then
    `optimal` is False); `budget_exhausted` when the time ran out or states were shed before any solution;
    `unsolvable` only when every reachable state was seen.
    """
    return Search("anytime", budget, system, anytime=True).run(_anytime, system)
