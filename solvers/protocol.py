"""The small interface every search algorithm works over, and the data they return.

`solvers` knows nothing of rule files: a game reaches it only as a TransitionSystem.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Hashable, Iterable, Protocol

State = Hashable
Move = str


class TransitionSystem(Protocol):
    """A state space: states are hashable and compare exactly (never a lossy hash).

    Optional hint: an int attribute `min_move_cost`, a lower bound on every move's cost
    (e.g. 1 when no move is free). bfs then stops at the first goal it generates instead
    of finishing the layer in case a 0-cost move appears. Absent means 0.
    """

    def initial(self) -> State: ...

    def successors(self, state: State) -> Iterable[tuple[Move, State, int]]:
        """(move, next state, cost >= 0) for every move worth searching, in a fixed order: every legal move,
        or just one that the rules promise loses nothing (a gridrules `safe` move) when there is one; past the
        initial state, less the moves the rules promise a cheapest solution does without (`redundant`)."""
        ...

    def is_goal(self, state: State) -> bool: ...

    def heuristic(self, state: State) -> int:
        """A lower bound on the remaining cost (0 when the system has none)."""
        ...


class ScoredSystem(TransitionSystem, Protocol):
    """A system whose solutions are ranked by what they are worth, not by what they cost: the best solution ends
    in the goal state of highest `score`; among those, the cheapest wins. A system says it is one with a true
    attribute `scored`; only the `anytime` search ranks by score (the others minimise cost)."""

    scored: bool

    def score(self, state: State) -> int: ...


class CommutingSystem(TransitionSystem, Protocol):
    """A system some of whose moves commute, saying so with a true attribute `commuting`. Moves are numbered
    (instance numbers, fixed for the system). The promise: when a commuting move m1 is followed by a commuting
    move m2 != m1, then m2 was legal and commuting before m1, m1 is legal and commuting after m2, and both
    orders reach the same state at the same cost. A path search (iddfs, idastar) then tries each run of
    commuting moves in one order, ascending by number: path_successors(state, after) leaves out the commuting
    moves numbered below `after`, the number of the commuting move just made (-1: none), and gives each move's
    number when it commutes (else -1) as a fourth item."""

    commuting: bool

    def path_successors(self, state: State, after: int) -> Iterable[tuple[Move, State, int, int]]: ...


class PersistingSystem(TransitionSystem, Protocol):
    """A system some of whose moves persist, saying so with a true attribute `persisting`. Moves are numbered
    (instance numbers, fixed for the system). The promise: when a move m persists in a state s and some path from
    s to a goal makes m later, a path from s to a goal of no greater cost makes m first. A path search (iddfs,
    idastar) then bans m below m's later siblings once m's own subtree found no goal within the bound (sleep
    sets): ban_successors(state) gives successors() with each move's number and whether it persists as a fourth
    and fifth item, and is_dead(state, banned) may use the set of banned numbers. On a system that is also a
    CommutingSystem the path searches order commuting moves instead and ban nothing."""

    persisting: bool

    def ban_successors(self, state: State) -> Iterable[tuple[Move, State, int, int, bool]]: ...


class DeadlockSystem(TransitionSystem, Protocol):
    """A system that can tell some states from which no goal can be reached, saying so with a true attribute
    `deadlocks`. The promise (the rules' author makes it, as for an admissible heuristic): when is_dead(state)
    holds, no sequence of moves leads from state to a goal. Every search skips such a state when it would
    expand it (so a costly test runs once per expanded state, not per generated one); proofs of optimality and
    of unsolvability rest on the promise."""

    deadlocks: bool

    def is_dead(self, state: State, banned: set[int] = ...) -> bool:
        """(banned: the moves a PersistingSystem's path search has banned here, when it has banned some.)"""
        ...


SOLVED = "solved"
UNSOLVABLE = "unsolvable"
BUDGET_EXHAUSTED = "budget_exhausted"
INTERRUPTED = "interrupted"


@dataclass
class Stats:
    expanded: int = 0
    generated: int = 0
    duplicates: int = 0
    peak_states: int = 0
    seconds: float = 0.0
    depth: int = 0  # current bound / layer, for progress reports
    dead: int = 0  # states not expanded because the system said no goal can be reached from them

    def as_dict(self) -> dict:
        return {
            "expanded": self.expanded,
            "generated": self.generated,
            "duplicates": self.duplicates,
            "peak_states": self.peak_states,
            "dead": self.dead,
            "seconds": round(self.seconds, 6),
        }


@dataclass(frozen=True)
class Solution:
    status: str  # SOLVED | UNSOLVABLE | BUDGET_EXHAUSTED | INTERRUPTED
    moves: tuple[Move, ...] | None
    cost: int | None
    optimal: bool  # proven optimal
    stats: Stats
    algorithm: str = ""
    score: int | None = None  # what the moves are worth, for a scored system (see ScoredSystem)
    # a search stopped early (budget, Ctrl-C): a proven lower bound on the optimal cost, where it proved one
    # (every solution costs at least this); None otherwise
    bound: int | None = None

    @property
    def solved(self) -> bool:
        return self.moves is not None


@dataclass
class Budget:
    """Limits on one search. `progress` is called about every `progress_every` seconds.

    time_limit counts from the start of each search (not from when the Budget was made).
    max_states bounds the states held (bfs, astar) or, for the depth-first searches
    (idastar, iddfs) that hold almost none, the states visited over all iterations.
    """

    time_limit: float | None = None
    max_states: int | None = None
    max_cost: int | None = None  # solutions costing more do not count (a game's move limit)
    progress: Callable[[Stats], None] | None = None
    progress_every: float = 0.25
    admissible: bool = True  # whether system.heuristic is admissible (optimality claims depend on it)
    improved: Callable[[Solution], None] | None = None  # hears each better solution an anytime search finds
    _start: float = field(default_factory=time.perf_counter, repr=False)
