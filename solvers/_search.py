"""Bookkeeping shared by every algorithm: budget, stats, progress, incumbent, results.

Each algorithm is a plain function `body(system, search) -> Solution`; `Search.run`
wraps it so that budget exhaustion and Ctrl-C end the search the same way everywhere:
with the best complete solution seen so far and `optimal=False`, never a traceback.
"""
from __future__ import annotations

import time
from typing import Callable, Hashable

from .protocol import (
    BUDGET_EXHAUSTED,
    INTERRUPTED,
    SOLVED,
    UNSOLVABLE,
    Budget,
    Move,
    Solution,
    State,
    Stats,
    TransitionSystem,
)

# The clock is read every `_every` expansions; `_every` adapts so that slow
# successors() still give timely progress reports while fast ones pay almost nothing.
_MAX_CLOCK_EVERY = 256
_CLOCK_SLOW = 0.02  # seconds between clock reads above which we read it more often
_CLOCK_FAST = 0.002  # ... and below which we read it less often


class BudgetExhausted(Exception):
    """Raised inside a search body when a limit is hit; turned into a Solution by `run`."""


def min_move_cost(system: TransitionSystem) -> int:
    """The optional hint `system.min_move_cost` (a lower bound on every move's cost), else 0.

    Knowing every move costs at least 1 lets breadth-first search stop at the first goal
    it generates; without the hint it must assume 0-cost moves may appear at any time.
    """
    value = getattr(system, "min_move_cost", 0)
    return value if isinstance(value, int) and value > 0 else 0


class _Alarm:
    """Ends a search at its time limit even inside one long expansion (a slow successor function or
    heuristic), where the clock checks between expansions never run: a real-time timer raises
    BudgetExhausted a little after the deadline. Only on the main thread of a Unix process; elsewhere the
    checks between expansions are all there is. Not inside a garbage collection (its callbacks and
    finalizers cannot pass an exception on: it would be lost): the timer then rings again just after."""

    GRACE = 0.05
    AGAIN = 0.001  # seconds: how soon it rings again when it came due inside a garbage collection

    def __init__(self, limit: float | None):
        self.limit = limit
        self.armed = False
        self.collecting = False

    def __enter__(self):
        import gc
        import signal
        import threading

        if (self.limit is None or self.limit <= 0 or not hasattr(signal, "setitimer")
                or threading.current_thread() is not threading.main_thread()):
            return self
        self.previous = signal.signal(signal.SIGALRM, self._ring)
        # (first among the collector's callbacks when it starts, last when it stops: around all of them)
        gc.callbacks.insert(0, self._gc_starts)
        gc.callbacks.append(self._gc_stops)
        signal.setitimer(signal.ITIMER_REAL, self.limit + self.GRACE)
        self.armed = True
        return self

    def _gc_starts(self, phase, info):
        if phase == "start":
            self.collecting = True

    def _gc_stops(self, phase, info):
        if phase == "stop":
            self.collecting = False

    def _ring(self, signum, frame):
        if self.collecting:
            import signal

            signal.setitimer(signal.ITIMER_REAL, self.AGAIN)
            return
        raise BudgetExhausted

    def __exit__(self, *exc):
        if self.armed:
            import gc
            import signal

            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.previous)
            gc.callbacks.remove(self._gc_starts)
            gc.callbacks.remove(self._gc_stops)
        return False


class Search:
    """One run of one algorithm: owns the Stats, checks the Budget, remembers the incumbent."""

    def __init__(self, name: str, budget: Budget | None, system=None, anytime: bool = False):
        """anytime: running out of budget with a solution in hand is an answer (status solved, not optimal),
        as an anytime search is meant to be stopped."""
        self.name = name
        self.anytime = anytime
        # a system may say whether its heuristic is admissible; optimality claims follow it
        self.budget = budget if budget is not None else Budget(admissible=getattr(system, "admissible", True))
        self.stats = Stats()
        self.best: tuple[tuple[Move, ...], int, int | None] | None = None  # moves, cost, score
        self.bound: int | None = None  # the best lower bound on the optimal cost proved so far (proved)
        self._start = time.perf_counter()
        limit = self.budget.time_limit
        self._deadline = None if limit is None else self._start + limit
        self._every = 1
        self._countdown = 1
        self._last_clock = self._start
        self._next_progress = self._start + self.budget.progress_every
        self._is_dead = system.is_dead if getattr(system, "deadlocks", False) else None

    # -- running -------------------------------------------------------------
    def run(self, body: Callable[[TransitionSystem, "Search"], Solution],
            system: TransitionSystem) -> Solution:
        """Run `body`, converting a hit limit or Ctrl-C into a Solution."""
        alarm = _Alarm(self.budget.time_limit)
        try:
            if self._deadline is not None and self.budget.time_limit <= 0:
                raise BudgetExhausted
            with alarm:
                return body(system, self)
        except BudgetExhausted:
            return self._stopped(BUDGET_EXHAUSTED)
        except KeyboardInterrupt:
            return self._stopped(INTERRUPTED)

    def expand(self) -> None:
        """Count one expansion; now and then read the clock (time limit, progress)."""
        self.stats.expanded += 1
        self._countdown -= 1
        if self._countdown <= 0:
            self._clock()

    def _clock(self) -> None:
        now = time.perf_counter()
        gap = now - self._last_clock
        self._last_clock = now
        if gap > _CLOCK_SLOW and self._every > 1:
            self._every //= 2
        elif gap < _CLOCK_FAST and self._every < _MAX_CLOCK_EVERY:
            self._every *= 2
        self._countdown = self._every
        if self._deadline is not None and now >= self._deadline:
            raise BudgetExhausted
        if self.budget.progress is not None and now >= self._next_progress:
            self.stats.seconds = now - self._start
            self._next_progress = now + self.budget.progress_every
            self.budget.progress(self.stats)

    def dead(self, state, banned=None) -> bool:
        """Whether the system says no goal can be reached from `state` (a DeadlockSystem) — without the moves
        `banned` (a PersistingSystem's instance numbers), when given: asked of each state about to be
        expanded, so that a search skips it; counted in stats.dead."""
        if self._is_dead is None or not (self._is_dead(state, banned) if banned else self._is_dead(state)):
            return False
        self.stats.dead += 1
        return True

    def stored(self, count: int, limited: bool = True) -> None:
        """Report how many states are held now; more than budget.max_states ends the search.

        Depth-first searches hold almost nothing, so they pass `limited=False` and are
        bounded by `visited` instead.
        """
        if count > self.stats.peak_states:
            self.stats.peak_states = count
        limit = self.budget.max_states
        if limited and limit is not None and count > limit:
            raise BudgetExhausted

    def visited(self) -> None:
        """For depth-first searches, budget.max_states bounds the total states visited: asked before each visit
        (an expansion), which would pass the bound once max_states states were visited."""
        limit = self.budget.max_states
        if limit is not None and self.stats.expanded >= limit:
            raise BudgetExhausted

    def proved(self, bound: int) -> None:
        """No solution costs less than `bound`: what the algorithm has shown (an A* popping f with an admissible
        heuristic, a BFS past a cost, a deepening iteration's bound). Reported when the search stops early. (Past
        budget.max_cost it says only that much: a solution dearer than the limit does not count.)"""
        limit = self.budget.max_cost
        if limit is not None:
            bound = min(bound, limit + 1)
        if self.bound is None or bound > self.bound:
            self.bound = bound

    def over_cost(self, cost: int) -> bool:
        """Whether a path of this cost (or lower bound) is beyond budget.max_cost."""
        limit = self.budget.max_cost
        return limit is not None and cost > limit

    def offer(self, moves: tuple[Move, ...], cost: int, score: int | None = None) -> bool:
        """Remember a complete solution, so an interrupted search still returns one; whether it is better than
        the one held (a higher score, or with no score or an equal one a lower cost)."""
        if self.over_cost(cost):
            return False
        if self.best is not None and not better(score, cost, self.best[2], self.best[1]):
            return False
        self.best = (tuple(moves), cost, score)
        if self.budget.improved is not None:
            self.stats.seconds = time.perf_counter() - self._start
            self.budget.improved(self._finish(SOLVED, self.best[0], cost, False, score))
        return True

    # -- results ---------------------------------------------------------------
    def _finish(self, status: str, moves, cost, optimal: bool, score: int | None = None,
                bound: int | None = None) -> Solution:
        self.stats.seconds = time.perf_counter() - self._start
        return Solution(status=status, moves=moves, cost=cost, optimal=optimal,
                        stats=self.stats, algorithm=self.name, score=score, bound=bound)

    def solved(self, moves: tuple[Move, ...], cost: int, optimal: bool, score: int | None = None) -> Solution:
        """A solution; one costing 0 is optimal whatever the heuristic was (when nothing is scored)."""
        return self._finish(SOLVED, tuple(moves), cost, optimal or (cost == 0 and score is None), score)

    def unsolvable(self) -> Solution:
        """The space (within max_cost) was exhausted: a proof, so optimal=True."""
        return self._finish(UNSOLVABLE, None, None, True)

    def _stopped(self, status: str) -> Solution:
        moves, cost, score = self.best if self.best is not None else (None, None, None)
        if moves is not None and score is None and self.bound is not None and self.bound >= cost:
            return self._finish(SOLVED, moves, cost, True)  # (what it proved makes the one in hand optimal)
        if self.anytime and status == BUDGET_EXHAUSTED and moves is not None:
            status = SOLVED
        return self._finish(status, moves, cost, False, score, None if score is not None else self.bound)


def better(score_a: int | None, cost_a: int, score_b: int | None, cost_b: int) -> bool:
    """Whether a solution (score_a, cost_a) beats (score_b, cost_b): a higher score, then a lower cost."""
    if score_a != score_b and score_a is not None and score_b is not None:
        return score_a > score_b
    return cost_a < cost_b


def path_to(parents: dict[Hashable, tuple[State, Move] | None], state: State) -> tuple[Move, ...]:
    """Rebuild the moves leading to `state` by following parent pointers back to the root."""
    moves: list[Move] = []
    link = parents[state]
    while link is not None:
        state, move = link
        moves.append(move)
        link = parents[state]
    moves.reverse()
    return tuple(moves)
