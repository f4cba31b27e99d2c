"""Generic search over TransitionSystems; knows nothing of rule files (never imports gridrules)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .anytime import anytime
from .astar import astar
from .bfs import bfs
from .iddfs import iddfs
from .idastar import idastar
from .perft import layer_counts, perft
from .protocol import (
    BUDGET_EXHAUSTED,
    INTERRUPTED,
    SOLVED,
    UNSOLVABLE,
    Budget,
    CommutingSystem,
    DeadlockSystem,
    Move,
    PersistingSystem,
    ScoredSystem,
    Solution,
    State,
    Stats,
    TransitionSystem,
)


@dataclass(frozen=True)
class Algorithm:
    name: str
    function: Callable[[TransitionSystem, Budget | None], Solution]
    uses_heuristic: bool
    description: str


ALGORITHMS: dict[str, Algorithm] = {
    "bfs": Algorithm("bfs", bfs, False,
                     "breadth-first by cost (BFS, 0-1 BFS or Dijkstra); always proven optimal"),
    "astar": Algorithm("astar", astar, True,
                       "A* with re-opening; optimal when the heuristic is admissible"),
    "idastar": Algorithm("idastar", idastar, True,
                         "iterative-deepening A* with a table, restarting in random orders when a run stalls; "
                         "little memory, optimal when h is admissible"),
    "iddfs": Algorithm("iddfs", iddfs, False,
                       "iterative deepening on cost; little memory, always proven optimal"),
    "anytime": Algorithm("anytime", anytime, True,
                         "best-first on the heuristic in bounded memory, finishing nearly solved states "
                         "exhaustively; reports each better solution, ranks by score in games with one, "
                         "proven best only when it saw every state"),
}


def solve(system: TransitionSystem, algorithm: str = "astar",
          budget: Budget | None = None) -> Solution:
    """Run the named algorithm from ALGORITHMS."""
    try:
        chosen = ALGORITHMS[algorithm]
    except KeyError:
        known = ", ".join(sorted(ALGORITHMS))
        raise ValueError(f"unknown algorithm {algorithm!r} (known: {known})") from None
    return chosen.function(system, budget)


__all__ = [
    "ALGORITHMS", "Algorithm", "BUDGET_EXHAUSTED", "Budget", "INTERRUPTED", "Move", "SOLVED", "CommutingSystem",
    "DeadlockSystem", "PersistingSystem", "ScoredSystem", "Solution", "State", "Stats", "TransitionSystem", "UNSOLVABLE", "anytime",
    "astar", "bfs", "iddfs", "idastar", "layer_counts", "perft", "solve",
]
