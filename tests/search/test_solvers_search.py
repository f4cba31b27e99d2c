"""Every algorithm against an independent Dijkstra, on fixed and hypothesis-made systems."""
from __future__ import annotations

from contextlib import contextmanager

import pytest
from hypothesis import given, settings, strategies as st

from solvers import (
    ALGORITHMS, SOLVED, UNSOLVABLE, Algorithm, Budget, astar, bfs, idastar, solve,
)
from solvers import _deepening
from solvers._deepening import Shuffler, deepen, luby
from solvers._search import Search
from solver_systems import (
    INF, Counter, Graph, Knapsack, Maze, SlidingPuzzle, Swapper, dijkstra, distances_to_goal, graph, replay,
)

NAMES = sorted(ALGORITHMS)

MAZE = """
S..#......
.#.#.####.
.#...#....
.####.#.#.
......#.#G
"""


def check_solution(system, solution, expected_cost, optimal=True):
    """The solution is solved, replays to a goal at its stated cost, and that cost is expected."""
    assert solution.status == SOLVED
    assert isinstance(solution.moves, tuple)
    final, cost = replay(system, solution.moves)
    assert system.is_goal(final)
    assert cost == solution.cost
    if optimal:
        assert solution.cost == expected_cost
        assert solution.optimal
    else:
        assert solution.cost >= expected_cost


def test_registry():
    assert NAMES == ["anytime", "astar", "bfs", "idastar", "iddfs"]
    for name, algorithm in ALGORITHMS.items():
        assert isinstance(algorithm, Algorithm) and algorithm.name == name
        assert algorithm.description
    assert ALGORITHMS["astar"].uses_heuristic and not ALGORITHMS["bfs"].uses_heuristic
    with pytest.raises(ValueError, match="known"):
        solve(Counter(), "nope")


@pytest.mark.parametrize("name", NAMES)
def test_initial_goal(name):
    solution = solve(Counter(start=3, target=3), name)
    assert solution.status == SOLVED and solution.moves == () and solution.cost == 0
    assert solution.optimal and solution.algorithm == name


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("system", [
    Counter(start=0, target=7),
    Counter(start=0, target=-4, lo=-10, hi=10),
    Maze(MAZE),
    Swapper(),
    SlidingPuzzle(3, 3, (1, 2, 3, 4, 0, 6, 7, 5, 8)),
    SlidingPuzzle(3, 3, (4, 1, 3, 7, 2, 6, 0, 5, 8)),
], ids=["counter", "counter-down", "maze", "swapper", "puzzle-3", "puzzle-6"])
def test_fixed_systems(name, system):
    solution = solve(system, name)
    check_solution(system, solution, dijkstra(system))
    stats = solution.stats
    assert stats.expanded >= 1 and stats.generated >= stats.expanded - 1
    assert stats.peak_states >= 1 and stats.seconds > 0


@pytest.mark.parametrize("name", NAMES)
def test_unsolvable_disconnected(name):
    system = graph(5, [(0, 1, 1), (1, 0, 0), (1, 2, 2), (2, 2, 0), (3, 4, 1)], goals=[4])
    solution = solve(system, name)
    assert solution.status == UNSOLVABLE and solution.optimal and solution.moves is None


@pytest.mark.parametrize("name", NAMES)
def test_unsolvable_maze(name):
    maze = Maze("S.#G\n..#.\n")
    solution = solve(maze, name)
    assert solution.status == UNSOLVABLE and solution.optimal


@pytest.mark.parametrize("name", NAMES)
def test_max_cost(name):
    optimum = dijkstra(Maze(MAZE))
    assert optimum == 17
    below = solve(Maze(MAZE), name, Budget(max_cost=optimum - 1))
    assert below.status == UNSOLVABLE and below.optimal
    at = solve(Maze(MAZE), name, Budget(max_cost=optimum))
    check_solution(Maze(MAZE), at, optimum)


@pytest.mark.parametrize("name", NAMES)
def test_max_cost_bounds_an_infinite_space(name):
    # Only "+1" moves from 0: -1 is never reached, and without max_cost no search ends.
    solution = solve(Counter(start=0, target=-1, down=False), name, Budget(max_cost=6))
    assert solution.status == UNSOLVABLE and solution.optimal


def test_bfs_prefers_free_moves():
    # The goal is one paid move away, or two free ones: a goal found at generation
    # with cost 1 must not be returned while a 0-cost route is still possible.
    system = graph(4, [(0, 3, 1), (0, 1, 0), (1, 2, 0), (2, 3, 0)], goals=[3])
    for name in NAMES:
        check_solution(system, solve(system, name), 0)


def test_bfs_mixed_costs_switches_to_heap():
    system = graph(5, [(0, 1, 2), (0, 2, 1), (2, 3, 0), (3, 1, 0), (1, 4, 3), (3, 4, 5)],
                   goals=[4])
    check_solution(system, bfs(system), 4)


def test_inconsistent_admissible_heuristic_reopens():
    # h is admissible but inconsistent: A* first reaches node 2 the expensive way and
    # must re-open it once the cheap way is found.
    edges = [(0, 1, 1), (0, 2, 4), (1, 2, 1), (2, 3, 1), (3, 4, 4)]
    system = graph(5, edges, goals=[4], h={1: 5, 2: 0, 3: 0})
    for algorithm in (astar, idastar):
        check_solution(system, algorithm(system), 7)


@pytest.mark.parametrize("algorithm", [astar, idastar])
def test_inadmissible_heuristic_is_not_claimed_optimal(algorithm):
    system = graph(4, [(0, 1, 1), (1, 3, 1), (0, 2, 1), (2, 3, 5)], goals=[3], h={1: 50})
    solution = algorithm(system, Budget(admissible=False))
    check_solution(system, solution, 2, optimal=False)
    assert not solution.optimal and solution.cost == 6  # h misleads both into the long road


@st.composite
def weighted_graphs(draw):
    """Small digraphs with costs in {0, 1, 2}: self-loops, 0-cost cycles, dead ends."""
    n = draw(st.integers(1, 7))
    node = st.integers(0, n - 1)
    edges = draw(st.lists(st.tuples(node, node, st.sampled_from([0, 0, 1, 2])), max_size=3 * n))
    goals = draw(st.sets(node, max_size=2))
    system = graph(n, edges, goals=goals)
    # An admissible, generally inconsistent heuristic: a random fraction of the truth.
    truth = distances_to_goal(system)
    percents = draw(st.lists(st.integers(0, 100), min_size=n, max_size=n))
    system.h = {v: (99 if truth[v] == INF else truth[v] * p // 100)
                for v, p in zip(range(n), percents)}
    return system


@settings(max_examples=300, deadline=None)
@given(weighted_graphs())
def test_all_agree_with_dijkstra(system):
    expected = dijkstra(system)
    for name in NAMES:
        solution = solve(system, name)
        if expected is None:
            assert solution.status == UNSOLVABLE and solution.optimal, name
        else:
            check_solution(system, solution, expected)


@settings(max_examples=150, deadline=None)
@given(weighted_graphs(), st.integers(0, 6))
def test_max_cost_agrees_with_dijkstra(system, max_cost):
    expected = dijkstra(system, max_cost)
    for name in NAMES:
        solution = solve(system, name, Budget(max_cost=max_cost))
        if expected is None:
            assert solution.status == UNSOLVABLE and solution.optimal, name
        else:
            check_solution(system, solution, expected)


@settings(max_examples=150, deadline=None)
@given(weighted_graphs(), st.integers(1, 3))
def test_idastar_tiny_table_stays_optimal(system, size):
    # A table that fills up must only cost speed, never correctness.
    solution = Search("idastar", None).run(
        lambda s, search: deepen(s, search, s.heuristic, table_size=size), system)
    expected = dijkstra(system)
    if expected is None:
        assert solution.status == UNSOLVABLE
    else:
        check_solution(system, solution, expected)


@settings(max_examples=100, deadline=None)
@given(weighted_graphs(), st.lists(st.integers(0, 20), min_size=7, max_size=7))
def test_any_heuristic_gives_valid_solutions(system, hs):
    # Inadmissible h: A*/IDA* may be suboptimal but must replay and never beat Dijkstra.
    system.h = dict(enumerate(hs))
    expected = dijkstra(system)
    for algorithm in (astar, idastar):
        solution = algorithm(system, Budget(admissible=False))
        if expected is None:
            assert solution.status == UNSOLVABLE
        else:
            check_solution(system, solution, expected, optimal=False)
            assert solution.optimal == (solution.cost == 0)  # only a free solution is proved


# ---- persisting moves: the path searches ban a failed one below its later siblings ---------------------------
@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 9), min_size=1, max_size=9), st.integers(1, 30), st.booleans())
def test_bans_keep_the_answer_and_cut_the_search(weights, target, dead):
    """On a PersistingSystem, IDA* and IDDFS ban each failed move below its later siblings (and the deadlock test
    reads the bans): the same optimal answer as the same system searched without its promise, and never more
    expansions."""
    banning = Knapsack(tuple(weights), target, dead)
    plain = Knapsack(tuple(weights), target, dead, persisting=False)
    expect = dijkstra(plain)
    for name in ("idastar", "iddfs"):
        mine, theirs = solve(banning, name), solve(plain, name)
        assert (mine.status, mine.cost) == (theirs.status, theirs.cost)
        if expect is None:
            assert mine.status == UNSOLVABLE
        else:
            check_solution(banning, mine, expect)
        assert mine.stats.expanded <= theirs.stats.expanded


def test_bans_shorten_a_hopeless_search():
    """Twelve items of weight 2 never sum to 13: each item failed is banned below the later ones, and the
    deadlock, which reads the bans, stops a branch once the items still allowed fall short (1,254 expansions
    against 4,358 without the promise)."""
    banning, plain = Knapsack((2,) * 12, 13, True), Knapsack((2,) * 12, 13, True, persisting=False)
    mine, theirs = solve(banning, "idastar"), solve(plain, "idastar")
    assert mine.status == theirs.status == UNSOLVABLE
    assert mine.stats.expanded * 3 < theirs.stats.expanded, (mine.stats.expanded, theirs.stats.expanded)


# ---- restarts: IDA* starts an iteration over in a random order when a run passes its length -----------------
@contextmanager
def restarting(unit: int, seed: int = 0):
    """IDA* restarting every `unit` * luby(r) expansions, drawing its orders from `seed`."""
    saved = _deepening.RESTART_UNIT, _deepening.RESTART_SEED
    _deepening.RESTART_UNIT, _deepening.RESTART_SEED = unit, seed
    try:
        yield
    finally:
        _deepening.RESTART_UNIT, _deepening.RESTART_SEED = saved


def test_luby_sequence():
    assert [luby(i) for i in range(16)] == [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8, 1]


def test_shuffles_are_permutations_drawn_alike_from_a_seed():
    one, two = Shuffler(7), Shuffler(7)
    orders = [one.shuffle(list(range(9))) for _ in range(20)]
    assert orders == [two.shuffle(list(range(9))) for _ in range(20)]
    assert all(sorted(o) == list(range(9)) for o in orders) and len({tuple(o) for o in orders}) > 10


@settings(max_examples=200, deadline=None)
@given(weighted_graphs(), st.integers(1, 3), st.integers(0, 2**64 - 1))
def test_idastar_restarting_often_stays_optimal(system, unit, seed):
    """Restarts every few expansions, successors in random orders: IDA* still finds the optimum, or proves there
    is none (the table keeps only the states searched through, which no order can change)."""
    expected = dijkstra(system)
    with restarting(unit, seed):
        solution = solve(system, "idastar")
    if expected is None:
        assert solution.status == UNSOLVABLE and solution.optimal
    else:
        check_solution(system, solution, expected)


def trap(depth: int) -> Graph:
    """The root's first move leads into a binary tree of `depth` + 1 levels without a goal, its second down a path
    of `depth` + 2 moves to the goal; h = depth + 2 - g (g: the node's depth) keeps every node within the first
    bound, so IDA*'s one iteration searches the whole tree when it follows the listing order."""
    adjacency: dict = {"root": [("a", ("a", 0, 0), 1), ("b", ("b", 0), 1)]}
    h = {"root": depth + 2, "goal": 0}
    for level in range(depth + 1):
        for k in range(1 << level):
            if level < depth:
                adjacency[("a", level, k)] = [(f"{side}", ("a", level + 1, 2 * k + side), 1) for side in (0, 1)]
            h[("a", level, k)] = depth + 1 - level
        adjacency[("b", level)] = [("on", ("b", level + 1) if level < depth else "goal", 1)]
        h[("b", level)] = depth + 1 - level
    return Graph(adjacency, "root", frozenset(["goal"]), h)


def test_restarts_escape_a_failing_subtree():
    """The trap of depth 12 (8,191 states that fail): without restarts IDA* searches all of them before the
    root's second move; restarting (after 512 expansions, in random orders) it soon tries that move first (1,038
    expansions in all against 8,205)."""
    with restarting(0):
        plain = solve(trap(12), "idastar")
    with restarting(512):
        fresh = solve(trap(12), "idastar")
    assert plain.cost == fresh.cost == 14 and plain.optimal and fresh.optimal
    assert plain.stats.expanded > 8191 and fresh.stats.expanded * 4 < plain.stats.expanded, \
        (plain.stats.expanded, fresh.stats.expanded)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 9), min_size=1, max_size=9), st.integers(1, 30), st.integers(1, 3))
def test_restarts_before_the_first_ban_keep_the_answer(weights, target, unit):
    """IDA* restarting every few expansions on a PersistingSystem (until its first ban) gives the optimum too."""
    system = Knapsack(tuple(weights), target, True)
    expect = dijkstra(Knapsack(tuple(weights), target, True, persisting=False))
    with restarting(unit):
        mine = solve(system, "idastar")
    if expect is None:
        assert mine.status == UNSOLVABLE and mine.optimal
    else:
        check_solution(system, mine, expect)


@settings(max_examples=200, deadline=None)
@given(weighted_graphs(), st.integers(1, 6))
def test_a_search_stopped_early_proves_only_true_lower_bounds(system, states):
    # The bound a stopped search reports (admissible h, possibly inconsistent) never exceeds the optimum, and a
    # solution in hand is never cheaper than it.
    expected = dijkstra(system)
    for name in ("astar", "bfs", "idastar", "iddfs"):
        solution = solve(system, name, Budget(max_states=states))
        if solution.status == SOLVED or solution.bound is None:
            continue
        assert solution.bound >= 0, name
        assert expected is None or solution.bound <= expected, (name, solution.bound, expected)
        assert solution.cost is None or solution.bound <= solution.cost


def test_a_stopped_search_says_what_it_proved():
    # The 8-puzzle reversed, stopped early: each search has proved some costs impossible.
    puzzle = SlidingPuzzle(3, 3, (8, 7, 6, 5, 4, 3, 2, 1, 0))
    optimum = solve(puzzle, "astar").cost
    for name in ("astar", "bfs", "idastar", "iddfs"):
        solution = solve(puzzle, name, Budget(max_states=300))
        assert solution.status != SOLVED and solution.bound is not None and 0 < solution.bound <= optimum, name
    assert solve(puzzle, "astar", Budget(max_states=300, admissible=False)).bound is None
