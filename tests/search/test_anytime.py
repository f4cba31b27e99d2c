"""The anytime search: best score, then least cost, against an independent search; bounded memory; the better
solutions it reports as it goes."""
from __future__ import annotations

import heapq
import importlib

from hypothesis import given, settings, strategies as st

from solvers import SOLVED, UNSOLVABLE, Budget, anytime
from solver_systems import INF, Graph, graph, replay

anytime_module = importlib.import_module("solvers.anytime")  # (the package's `anytime` is the function)


class ScoredGraph(Graph):
    """A graph whose goals are worth points."""

    scored = True

    def __init__(self, inner: Graph, points: dict):
        super().__init__(inner.adjacency, inner.start, inner.goals, inner.h)
        self.points = points

    def score(self, state):
        return self.points[state]


def best_by_score(system):
    """(score, cost) of the best solution, or None: Dijkstra that never goes on from a goal (a solution ends at
    its first goal), then the highest score among the goals reached and the least cost among those."""
    start = system.initial()
    dist = {start: 0}
    heap = [(0, 0, start)]
    tie = 1
    while heap:
        g, _, state = heapq.heappop(heap)
        if g > dist[state] or system.is_goal(state):
            continue
        for _move, child, cost in system.successors(state):
            if g + cost < dist.get(child, INF):
                dist[child] = g + cost
                heapq.heappush(heap, (g + cost, tie, child))
                tie += 1
    ends = [(system.score(s), -d) for s, d in dist.items() if system.is_goal(s)]
    if not ends:
        return None
    score, neg_cost = max(ends)
    return score, -neg_cost


@st.composite
def scored_graphs(draw):
    n = draw(st.integers(1, 9))
    node = st.integers(0, n - 1)
    edges = draw(st.lists(st.tuples(node, node, st.sampled_from([0, 1, 1, 2, 3])), max_size=3 * n))
    goals = draw(st.sets(node, max_size=3))
    inner = graph(n, edges, goals=goals)
    inner.h = dict(enumerate(draw(st.lists(st.integers(0, 9), min_size=n, max_size=n))))  # any guide at all
    points = dict(enumerate(draw(st.lists(st.integers(-3, 5), min_size=n, max_size=n))))
    return ScoredGraph(inner, points)


def check(system, solution):
    """The solution replays to a goal at the cost and score it states, and is the best one whenever it says
    so; what it cannot beat is the true best."""
    expected = best_by_score(system)
    if expected is None:
        assert solution.status == UNSOLVABLE and solution.optimal
        return
    assert solution.status == SOLVED
    final, cost = replay(system, solution.moves)
    assert system.is_goal(final) and cost == solution.cost and system.score(final) == solution.score
    if solution.optimal:
        assert (solution.score, solution.cost) == expected
    else:
        assert (solution.score, -solution.cost) <= (expected[0], -expected[1])


@settings(max_examples=300, deadline=None)
@given(scored_graphs())
def test_best_score_then_least_cost(system):
    solution = anytime(system)
    check(system, solution)
    assert solution.optimal  # nothing shed in graphs this small: every state was seen


@settings(max_examples=150, deadline=None)
@given(scored_graphs())
def test_best_score_without_the_end_search(system):
    """Best-first alone (no state is searched to the end) reaches the same answer."""
    kept = anytime_module.FINISH_MOVES
    anytime_module.FINISH_MOVES = 0
    try:
        solution = anytime(system)
    finally:
        anytime_module.FINISH_MOVES = kept
    check(system, solution)
    assert solution.optimal


@settings(max_examples=150, deadline=None)
@given(scored_graphs(), st.integers(2, 4))
def test_tiny_frontier_stays_correct(system, room):
    """Shedding states loses solutions, never correctness: what comes back is a true solution, and best only
    when it says so."""
    check(system, anytime(system, Budget(max_states=room)))


def test_improving_solutions_are_reported_in_order():
    # From 0: a goal worth 1 at once, a goal worth 3 two steps away, and one worth 3 reached more cheaply.
    system = ScoredGraph(graph(6, [(0, 1, 1), (0, 2, 1), (2, 3, 1), (0, 4, 5), (4, 5, 0), (2, 5, 0)],
                               goals=[1, 3, 5]), {0: 0, 1: 1, 2: 0, 3: 3, 4: 0, 5: 3})
    heard = []
    solution = anytime(system, Budget(improved=lambda s: heard.append((s.score, s.cost))))
    assert (solution.score, solution.cost, solution.optimal) == (3, 1, True)
    assert heard[-1] == (3, 1)
    assert all(a[0] < b[0] or a[0] == b[0] and a[1] > b[1] for a, b in zip(heard, heard[1:]))


def test_cost_mode_prunes_by_the_solution_held():
    """Without a score the anytime search is a cost search: the answer is the cheapest, proven."""
    system = graph(5, [(0, 1, 1), (1, 4, 1), (0, 2, 1), (2, 3, 1), (3, 4, 1), (0, 4, 7)], goals=[4])
    solution = anytime(system)
    assert (solution.cost, solution.optimal, solution.score) == (2, True, None)


def test_time_limit_answers_with_the_best_so_far():
    """A search that runs out of time with a solution in hand answers with it (status solved, not proven)."""
    n = 4000
    edges = [(0, n - 1, 100)] + [(i, i + 1, 1) for i in range(n - 1)]  # a costly shortcut, and a long road
    system = graph(n, edges, goals=[n - 1])
    system.h = {i: 0 for i in range(n)}
    import time

    class Slow(Graph):
        def successors(self, state):
            time.sleep(0.001)
            return super().successors(state)

    slow = Slow(system.adjacency, 0, system.goals, system.h)
    solution = anytime(slow, Budget(time_limit=0.2))
    assert solution.status == SOLVED and not solution.optimal and solution.cost == 100
