"""The `path` built-in: is there a path from one cell to another through free cells with at most k turns,
optionally through the ring outside the board. Three implementations are compared on random boards: the
reference backend's 0-1 BFS over (cell, heading), the native breadth-first-by-segments (runtime.path) and its search-free
two-turn form (runtime.path_eq, path_in), and a
brute-force search over simple paths written here. Then both backends run it inside rule files."""
from __future__ import annotations

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gridrules.compiled import runtime as rt
from gridrules.reference.evaluator import find_path
from gridrules.api import system as api_system
from helpers import instance_from_rules, native_agrees, walk_and_compare

STEPS = ((0, -1), (0, 1), (-1, 0), (1, 0))


def brute_force(free, a, b, turns, outside):
    """The fewest turns of any simple path from a to b (or None), by depth-first search over every simple path
    of the ringed board: slow, and obviously right."""
    rows, cols = len(free), len(free[0])

    def passable(r, c):
        if 0 <= r < rows and 0 <= c < cols:
            return free[r][c]
        return outside and -1 <= r <= rows and -1 <= c <= cols

    best = [None]
    seen = {a}

    def walk(cell, heading, used):
        if best[0] is not None and used >= best[0] or used > turns:
            return
        for d, (dr, dc) in enumerate(STEPS):
            t = used + (heading is not None and d != heading)
            if t > turns:
                continue
            nxt = (cell[0] + dr, cell[1] + dc)
            if nxt == b:
                if best[0] is None or t < best[0]:
                    best[0] = t
                continue
            if nxt in seen or not passable(*nxt):
                continue
            seen.add(nxt)
            walk(nxt, d, t)
            seen.discard(nxt)

    if a == b:
        return 0
    walk(a, None, 0)
    return best[0]


def native(free, a, b, turns, outside):
    rows, cols = len(free), len(free[0])
    k = max(1, -(-(rows * cols) // 64))
    cells = np.zeros(k, np.uint64)
    for r in range(rows):
        for c in range(cols):
            if free[r][c]:
                rt.add(cells, r * cols + c)
    row = np.array([int(free[r][c]) for r in range(rows) for c in range(cols)], np.int64)
    ia, ib = a[0] * cols + a[1], b[0] * cols + b[1]
    by_search = bool(rt.path(rt.ring_grid(rt._NO_ROW, 0, cells, rows, cols, outside), rows, cols, ia, ib, turns))
    # (path_eq and path_in answer up to two turns without searching)
    assert bool(rt.path_eq(row, 1, rows, cols, outside, ia, ib, turns)) == by_search
    assert bool(rt.path_in(cells, rows, cols, outside, ia, ib, turns)) == by_search
    return by_search


def turns_of(corners) -> int:
    return len(corners) - 2 if len(corners) > 1 else 0


def check_route(corners, free, a, b, turns, outside):
    """The corners the reference returns describe a real path: straight legs, free inner cells, few turns."""
    rows, cols = len(free), len(free[0])
    assert corners[0] == a and corners[-1] == b
    assert turns_of(corners) <= turns
    inner = []
    for p, q in zip(corners, corners[1:]):
        assert p[0] == q[0] or p[1] == q[1], "a leg is not straight"
        dr, dc = (q[0] > p[0]) - (q[0] < p[0]), (q[1] > p[1]) - (q[1] < p[1])
        cell = p
        while cell != q:
            cell = (cell[0] + dr, cell[1] + dc)
            inner.append(cell)
    for cell in inner[:-1]:
        r, c = cell
        if 0 <= r < rows and 0 <= c < cols:
            assert free[r][c], f"the path crosses the occupied cell {cell}"
        else:
            assert outside and -1 <= r <= rows and -1 <= c <= cols, f"the path leaves the ring at {cell}"


@st.composite
def boards(draw):
    rows, cols = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    free = [[draw(st.booleans()) for _ in range(cols)] for _ in range(rows)]
    a = (draw(st.integers(0, rows - 1)), draw(st.integers(0, cols - 1)))
    b = (draw(st.integers(0, rows - 1)), draw(st.integers(0, cols - 1)))
    return free, a, b, draw(st.integers(-1, 3)), draw(st.booleans())


@settings(max_examples=400, deadline=None)
@given(boards())
@example(([[False] * 5, [True, False, False, False, False], [True, True, True, False, False],
           [True, True, False, False, False], [False] * 5], (0, 0), (3, 2), 2, False))  # (once took 2 turns)
def test_path_agrees_with_brute_force(case):
    free, a, b, turns, outside = case
    rows, cols = len(free), len(free[0])
    fewest = brute_force(free, a, b, turns, outside) if turns >= 0 else None
    corners = find_path(a, b, lambda c: free[c[0]][c[1]], turns, rows, cols, outside)
    assert (corners is not None) == (fewest is not None)
    if corners is not None:
        check_route(corners, free, a, b, turns, outside)
        assert turns_of(corners) == fewest, "the reference's path has more turns than needed"
    assert native(free, a, b, turns, outside) == (fewest is not None)


def test_turn_limits_on_a_hand_worked_board():
    # a at the top left, b at the bottom right; the free cells form a staircase
    free = [[False, True, True, False],
            [False, False, True, False],
            [False, False, True, True],
            [False, False, False, False]]
    a, b = (0, 0), (3, 3)
    free[0][0] = free[3][3] = False  # the ends themselves are tiles
    # inside the board: right along row 0, down column 2, right along row 2, down to b: 3 turns
    for k, expect in ((0, False), (1, False), (2, False), (3, True)):
        assert (find_path(a, b, lambda c: free[c[0]][c[1]], k, 4, 4, False) is not None) == expect
        assert native(free, a, b, k, False) == expect
    # with the ring: up out of the board, right along the ring, down column 4 (ring), left into b: 3 turns...
    # ...or left into the ring column -1, down it, right along ring row 4, up into b: also 3 turns
    assert find_path(a, b, lambda c: free[c[0]][c[1]], 2, 4, 4, True) is None
    assert find_path(a, b, lambda c: free[c[0]][c[1]], 3, 4, 4, True) is not None
    # two tiles on one edge join through the ring with two turns
    assert find_path((0, 0), (0, 3), lambda c: False, 2, 4, 4, True) == [(0, 0), (-1, 0), (-1, 3), (0, 3)]
    assert find_path((0, 0), (0, 3), lambda c: False, 2, 4, 4, False) is None
    assert native([[False] * 4] * 4, (0, 0), (0, 3), 2, True)
    assert not native([[False] * 4] * 4, (0, 0), (0, 3), 2, False)


PAIRS = """\
game pairs "Pairs"
param turns: int = 2
param ring: bool = true
layer tile: 0..3
action remove(a: cell, b: cell) unordered "{a}-{b}":
    require tile[a] != 0 and tile[a] == tile[b]
    require path(a, b, tile == 0, turns, ring)
    tile[a] = 0
    tile[b] = 0
action remove_far(a: cell, b: cell) unordered "{a}~{b}" cost 2:
    require tile[a] == 3 and tile[b] == 3
    require path(a, b, tile == 0 or tile == 3 and here != a, turns - 1)  # a general condition, no ring
    tile[a] = 0
    tile[b] = 0
goal: empty(cells where tile != 0)
level numbers:
    * : tile = value
"""


@st.composite
def pair_boards(draw):
    rows, cols = draw(st.integers(1, 4)), draw(st.integers(2, 4))
    return "\n".join(" ".join(str(draw(st.integers(0, 3))) for _ in range(cols)) for _ in range(rows)) + "\n"


@settings(max_examples=30, deadline=None)
@given(pair_boards(), st.integers(0, 3), st.booleans(), st.integers(0, 10**6))
def test_backends_agree_on_path_moves(level, turns, ring, seed):
    """Random walks agree state by state between the backends (successors, goals, heuristics), with a
    layer-equality condition (the native fast path) and a general one; so do the optimal costs."""
    inst = instance_from_rules(PAIRS, level, {"turns": turns, "ring": ring})
    ref, nat = walk_and_compare(inst, seed, steps=8)
    native_agrees(inst, nat, ref, algorithms=("bfs", "astar"))


def test_unordered_actions_try_each_pair_once():
    inst = instance_from_rules(PAIRS, "1 1 0\n2 0 2\n")
    moves = api_system(inst).legal_moves(inst.initial)
    assert moves == ["1,1-1,2", "2,1-2,3"]  # never `1,2-1,1`, never a cell with itself
