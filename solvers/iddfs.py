"""Iterative deepening on cost: no heuristic, no table; the simplest proof-giving search."""
from __future__ import annotations

from ._deepening import deepen
from ._search import Search
from .protocol import Budget, Solution, TransitionSystem


def _iddfs(system: TransitionSystem, search: Search) -> Solution:
    return deepen(system, search, heuristic=None, table_size=0)


def iddfs(system: TransitionSystem, budget: Budget | None = None) -> Solution:
    """Depth-first iterations bounded by path cost, each bound the least cost cut off before.

    Always proven optimal when it finds a solution; an iteration that cuts nothing off
    proves the puzzle unsolvable. It re-searches shared sub-paths (no table), so it is
    slow on spaces with many transpositions but needs memory only for the current path.
    budget.max_states bounds the total number of states visited.
    """
    return Search("iddfs", budget, system).run(_iddfs, system)
