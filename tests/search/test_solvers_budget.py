"""Budgets, progress reports and Ctrl-C: every algorithm stops cleanly with the best so far."""
from __future__ import annotations

import pytest

from solvers import (
    ALGORITHMS, BUDGET_EXHAUSTED, INTERRUPTED, SOLVED, Budget, bfs, solve,
)
from solver_systems import Counter, Interrupting, Maze, SlidingPuzzle, Slow, graph, replay

NAMES = sorted(ALGORITHMS)
OPEN = "\n".join(["S" + "." * 29] + ["." * 30] * 28 + ["." * 29 + "G"])
# The same grid with the goal walled off: every algorithm must search it all.
WALLED = "\n".join(OPEN.splitlines()[:-2] + ["." * 28 + "##", "." * 28 + "#G"])
HARD_PUZZLE = (8, 6, 7, 2, 5, 4, 3, 0, 1)  # 31 moves from the goal


@pytest.mark.parametrize("name", [n for n in NAMES if n != "anytime"])
def test_max_states(name):
    solution = solve(Maze(OPEN), name, Budget(max_states=50))
    assert solution.status == BUDGET_EXHAUSTED and not solution.optimal
    assert solution.moves is None and solution.cost is None
    assert solution.stats.expanded <= 50  # (the deepening searches visited 51 before a robustness sweep saw it)
    if name in ("idastar", "iddfs"):  # a state visited is a state expanded: exactly the budget's
        assert solution.stats.expanded == 50


def test_anytime_max_states_bounds_the_frontier():
    """For the anytime search max_states is the frontier's size: it sheds states and goes on, and what it
    answers is then not proven."""
    maze = Maze(OPEN)
    solution = solve(maze, "anytime", Budget(max_states=50))
    assert solution.status == SOLVED and not solution.optimal
    assert solution.stats.peak_states <= 50
    final, cost = replay(maze, solution.moves)
    assert maze.is_goal(final) and cost == solution.cost >= 58
    unbounded = solve(maze, "anytime")
    assert unbounded.status == SOLVED and unbounded.optimal and unbounded.cost == 58


@pytest.mark.parametrize("name", NAMES)
def test_time_limit(name):
    # (each expansion sleeps 1 ms, so 0.05 s allows ~50 of them whatever the machine's speed: too few for the 31
    # moves, which a fast machine's A* otherwise found within the limit)
    solution = solve(Slow(SlidingPuzzle(3, 3, HARD_PUZZLE), delay=0.001), name, Budget(time_limit=0.05))
    # (running out of time is how an anytime search ends: with a solution, that is its answer)
    assert solution.status == (SOLVED if name == "anytime" and solution.moves else BUDGET_EXHAUSTED)
    assert not solution.optimal
    assert solution.stats.seconds < 1.0


@pytest.mark.parametrize("name", NAMES)
def test_progress_on_slow_search(name):
    reports = []
    budget = Budget(time_limit=0.25, progress=lambda stats: reports.append(stats.depth),
                    progress_every=0.02)
    solution = solve(Slow(Maze(WALLED), delay=0.002), name, budget)
    assert solution.status == BUDGET_EXHAUSTED
    assert len(reports) >= 3
    assert reports == sorted(reports) or name == "astar"


@pytest.mark.parametrize("name", NAMES)
def test_interrupt(name):
    system = Interrupting(Maze(OPEN), after=40)
    solution = solve(system, name)
    assert solution.status == INTERRUPTED and not solution.optimal
    assert solution.moves is None


@pytest.mark.parametrize("name", NAMES)
def test_interrupt_inside_progress(name):
    def stop(_stats):
        raise KeyboardInterrupt

    budget = Budget(progress=stop, progress_every=0.01)
    solution = solve(Slow(Maze(WALLED), delay=0.002), name, budget)
    assert solution.status == INTERRUPTED


@pytest.mark.parametrize("name", NAMES)
def test_interrupt_keeps_best_so_far(name):
    # A direct but expensive move to the goal is seen first; a long cheap road is
    # still being searched when Ctrl-C comes.
    n = 30
    edges = [(0, n, 50)] + [(i, i + 1, 1) for i in range(n)]
    system = graph(n + 1, edges, goals=[n])
    solution = solve(Interrupting(system, after=10), name)
    assert solution.status == INTERRUPTED and not solution.optimal
    assert solution.moves == ("0>30#0",) and solution.cost == 50
    final, cost = replay(system, solution.moves)
    assert system.is_goal(final) and cost == 50


def test_budget_none_and_unit_cost_hint():
    # With the min_move_cost hint bfs stops at the first goal generated.
    maze = Maze(OPEN)
    hinted = bfs(maze)
    del Maze.min_move_cost
    try:
        plain = bfs(maze)
    finally:
        Maze.min_move_cost = 1
    assert hinted.status == plain.status == SOLVED and hinted.cost == plain.cost == 58
    assert hinted.stats.expanded <= plain.stats.expanded


def test_counter_stats_are_honest():
    solution = bfs(Counter(start=0, target=3, lo=-10, hi=10))
    # Expands 0, then 1 and -1, then 2, whose first move generates the goal 3 and ends
    # the search (the Counter promises min_move_cost 1). 1->0 and -1->0 are duplicates.
    assert solution.cost == 3
    assert solution.stats.expanded == 4
    assert solution.stats.generated == 7
    assert solution.stats.duplicates == 2
    assert solution.stats.peak_states == 6


def test_time_limit_ends_a_search_inside_one_slow_expansion():
    """A successor function slower than the whole limit: the search still stops near the limit."""
    import time

    from solvers import BUDGET_EXHAUSTED, Budget, bfs

    class Slow:
        def initial(self):
            return 0

        def successors(self, s):
            time.sleep(5)
            return [("+", s + 1, 1)]

        def is_goal(self, s):
            return False

        def heuristic(self, s):
            return 0

    start = time.perf_counter()
    sol = bfs(Slow(), Budget(time_limit=0.3))
    assert sol.status == BUDGET_EXHAUSTED
    assert time.perf_counter() - start < 2


def test_the_time_limit_never_rings_inside_a_garbage_collection():
    """The timer comes due while the collector runs a slow callback: an exception raised there would be lost
    (Python reports it as unraisable and the search runs on); it rings just after the collection instead."""
    import gc
    import sys
    import time

    from solvers import BUDGET_EXHAUSTED, Budget, bfs

    lost, slept = [], []

    def slow_collection(phase, info):
        if phase == "start" and not slept:  # (the first collection only)
            slept.append(True)
            time.sleep(0.3)  # (the limit, 0.1 s, and its grace pass in here)

    class Collecting:
        def initial(self):
            return 0

        def successors(self, s):
            gc.collect()
            return [("+", s + 1, 1)]

        def is_goal(self, s):
            return False

    saved_hook = sys.unraisablehook
    sys.unraisablehook = lost.append
    gc.callbacks.append(slow_collection)
    try:
        solution = bfs(Collecting(), Budget(time_limit=0.1))
    finally:
        gc.callbacks.remove(slow_collection)
        sys.unraisablehook = saved_hook
    assert solution.status == BUDGET_EXHAUSTED
    assert slept and lost == [], lost  # (the alarm came due in the collection, and nothing was lost)
