"""IDA*: A*'s optimality in memory proportional to the solution length."""
from __future__ import annotations

from ._deepening import DEFAULT_TABLE_SIZE, deepen
from ._search import Search
from .protocol import Budget, Solution, TransitionSystem


def _idastar(system: TransitionSystem, search: Search) -> Solution:
    size = search.budget.max_states or DEFAULT_TABLE_SIZE
    return deepen(system, search, system.heuristic, table_size=size, restarts=True)


def idastar(system: TransitionSystem, budget: Budget | None = None) -> Solution:
    """Iterative-deepening A* (explicit stack, path cycle check, small transposition table, restarts in
    random orders that the table makes cheap: see _deepening.deepen).

    `optimal` is `budget.admissible`. budget.max_states bounds both the table's size and
    the total number of states visited over all iterations.
    """
    return Search("idastar", budget, system).run(_idastar, system)
