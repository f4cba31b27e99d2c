"""Flood-It: the bundled rule file against the spec, an independent model, and the solvers against each other."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, strategies as st

from helpers import ROOT, EveryMove, StartAt, instance, replay, system
from gridrules.api import load
from gridrules.errors import UsageError
from solvers import solve
from solvers.perft import layer_counts

SAMPLE = ROOT / "rulesets/floodit/levels/hdu4127-sample.txt"


def grid_text(board):
    return "\n".join("".join(str(x) for x in row) for row in board) + "\n"


def hdu_text(boards):
    out = []
    for b in boards:
        out.append(str(len(b)))
        out += [" ".join(map(str, row)) for row in b]
    return "\n".join(out + ["0"]) + "\n"


# ---- an independent model of the spec, for differential tests ------------------------------------
def flooded(board, pivot=(0, 0)):
    h, w = len(board), len(board[0])
    c = board[pivot[0]][pivot[1]]
    seen, todo = {pivot}, [pivot]
    while todo:
        r, k = todo.pop()
        for rr, kk in ((r + 1, k), (r - 1, k), (r, k + 1), (r, k - 1)):
            if 0 <= rr < h and 0 <= kk < w and (rr, kk) not in seen and board[rr][kk] == c:
                seen.add((rr, kk))
                todo.append((rr, kk))
    return seen


def model_moves(board, colours, pivot=(0, 0)):
    """colour -> board after flooding with it; only colours that touch the flooded region (useful moves)."""
    region = flooded(board, pivot)
    h, w = len(board), len(board[0])
    border = {board[rr][kk] for r, k in region for rr, kk in ((r + 1, k), (r - 1, k), (r, k + 1), (r, k - 1))
              if 0 <= rr < h and 0 <= kk < w and (rr, kk) not in region}
    out = {}
    for c in range(colours):
        if c in border:
            nb = [list(row) for row in board]
            for r, k in region:
                nb[r][k] = c
            out[str(c)] = tuple(map(tuple, nb))
    return out


def board_of(inst, state):
    """The colours a player sees: the rules keep the level's colours and, with a pivot, its flooded region and
    the region's colour."""
    v = inst.values(state)
    seen = [v["now"] if flooded else colour for colour, flooded in zip(v["colour"], v["flooded"])]
    return tuple(tuple(seen[r * inst.cols:(r + 1) * inst.cols]) for r in range(inst.rows))


boards = st.integers(2, 4).flatmap(
    lambda n: st.integers(2, 4).flatmap(
        lambda k: st.tuples(st.just(k), st.lists(st.lists(st.integers(0, k - 1), min_size=n, max_size=n),
                                                 min_size=n, max_size=n))))


def test_seed_sample_gives_0_and_3():
    insts = load("floodit", str(SAMPLE))
    assert [solve(system(i), "astar").cost for i in insts] == [0, 3]
    assert all(solve(system(i), "idastar").optimal for i in insts)


@given(boards, st.integers(0, 10**6))
def test_successors_match_an_independent_model(case, seed):
    k, board = case
    inst = instance("floodit", grid_text(board), {"colours": k}, "grid")
    s = system(inst)
    state, cur = s.initial(), tuple(map(tuple, board))
    rng = random.Random(seed)
    for _ in range(6):
        assert board_of(inst, state) == cur
        got = {m: board_of(inst, nxt) for m, nxt, cost in s.successors(state, every=True)}  # (the legal moves)
        assert got == model_moves(cur, k)
        assert s.is_goal(state) == (len({x for row in cur for x in row}) == 1)
        if not got:
            break
        m = rng.choice(sorted(got))
        state = dict((t, n) for t, n, _ in s.successors(state, every=True))[m]
        cur = got[m]


@given(boards)
def test_algorithms_agree_on_the_optimum_and_solutions_replay(case):
    k, board = case
    s = system(instance("floodit", grid_text(board), {"colours": k}, "grid"))
    results = {alg: solve(s, alg) for alg in ("bfs", "astar", "idastar", "iddfs")}
    costs = {r.cost for r in results.values()}
    assert len(costs) == 1, results
    for alg, r in results.items():
        assert r.optimal
        final, cost = replay(s, r.moves)
        assert s.is_goal(final) and cost == r.cost


@given(boards, st.integers(0, 10**6), st.sampled_from(["corner", "pivot", "free"]))
def test_declared_admissible_heuristics_never_exceed_the_exact_distance(case, seed, variant):
    k, board = case
    n = len(board)
    params = {"colours": k}
    if variant == "pivot":
        params["pivot"] = (seed % n, (seed // n) % n)
    elif variant == "free":
        params["free"] = True
    inst = instance("floodit", grid_text(board), params, "grid")
    s = system(inst)
    rng = random.Random(seed)
    state = s.initial()
    for _ in range(4):
        exact = solve(StartAt(s, state), "bfs").cost
        for name, h in s.heuristic_values(state).items():
            assert h <= exact, (name, h, exact)
        succ = list(s.successors(state))
        if not succ:
            break
        state = rng.choice(succ)[1]


@given(boards, st.integers(0, 10**6), st.sampled_from(["corner", "pivot", "free"]))
def test_frontier_keeps_its_promise_to_dominate_colours_left(case, seed, variant):
    """floodit.grl says `frontier dominates colours_left`, so the default A* reads frontier alone: along random
    walks, in both backends, frontier is never below colours_left."""
    k, board = case
    n = len(board)
    params = {"colours": k, "pivot": (seed % n, (seed // n) % n)} if variant == "pivot" else {"colours": k}
    if variant == "free":
        params["free"] = True
    inst = instance("floodit", grid_text(board), params, "grid")
    assert [h.name for h in inst.game.heuristics if h.in_default] == ["frontier"]
    ref = system(inst)
    named = {name: system(inst, "compiled", name) for name in ("frontier", "colours_left")}
    default = system(inst, "compiled")
    rng = random.Random(seed)
    state = ref.initial()
    for _ in range(8):
        values = ref.heuristic_values(state)
        assert values == {name: s.heuristic(state) for name, s in named.items()}
        assert values["frontier"] >= values["colours_left"]
        assert ref.heuristic(state) == default.heuristic(state) == values["frontier"]
        succ = list(ref.successors(state))
        if not succ:
            break
        state = rng.choice(succ)[1]


def test_frontier_bound_is_stronger_than_colours_left_somewhere():
    rng = random.Random(7)
    stronger = 0
    for _ in range(30):
        board = [[rng.randrange(4) for _ in range(5)] for _ in range(5)]
        s = system(instance("floodit", grid_text(board), {"colours": 4}, "grid"))
        h = s.heuristic_values(s.initial())
        assert h["frontier"] >= h["colours_left"]
        stronger += h["frontier"] > h["colours_left"]
    assert stronger > 0


def frontier_on_the_region_graph(board, pivot=(0, 0)):
    """The spec's bound (shared/spec/floodit.md, "Solving") as the best exact solvers work it out: on the graph
    of one-colour components, one colour at a time, the frontier re-read after each."""
    h, w = len(board), len(board[0])
    comp = {}
    for cell in ((r, k) for r in range(h) for k in range(w)):
        if cell not in comp:
            for member in flooded(board, cell):
                comp[member] = cell  # (a component is named by its first cell in reading order)
    colour = {v: board[v[0]][v[1]] for v in set(comp.values())}
    adjacent = {v: set() for v in colour}
    for (r, k), v in comp.items():
        for other in ((r + 1, k), (r, k + 1)):
            if other in comp and comp[other] != v:
                adjacent[v].add(comp[other])
                adjacent[comp[other]].add(v)
    region, moves = {comp[pivot]}, 0
    while len(region) < len(colour):
        frontier = set().union(*(adjacent[v] for v in region)) - region
        ready = [c for c in sorted(set(colour.values()))
                 if {v for v in colour if colour[v] == c} - region <= frontier
                 and {v for v in colour if colour[v] == c} - region]
        if ready:
            region |= {v for v in colour if colour[v] == ready[0]}
        else:
            region |= frontier
        moves += 1
    return moves


@given(st.integers(2, 6).flatmap(lambda n: st.integers(2, 6).flatmap(
    lambda k: st.tuples(st.just(k), st.lists(st.lists(st.integers(0, k - 1), min_size=n, max_size=n),
                                             min_size=n, max_size=n)))),
       st.integers(0, 10**6), st.booleans())
def test_frontier_is_the_specs_region_graph_bound(case, seed, centred):
    """The rule file's `frontier` (cells, one read of the frontier's components a pass over the colours) equals
    the spec's bound worked out on the region graph one colour at a time, in both backends, along random walks."""
    k, board = case
    n = len(board)
    pivot = (seed % n, (seed // n) % n) if centred else (0, 0)
    inst = instance("floodit", grid_text(board), {"colours": k, "pivot": pivot}, "grid")
    backends = [system(inst, name, "frontier") for name in ("reference", "compiled")]
    rng = random.Random(seed)
    state = backends[0].initial()
    for _ in range(6):
        expected = frontier_on_the_region_graph(board_of(inst, state), pivot)
        assert [s.heuristic(state) for s in backends] == [expected, expected]
        succ = list(backends[0].successors(state))
        if not succ:
            break
        state = rng.choice(succ)[1]


def test_layer_counts_match_the_independent_model():
    board = [[0, 1, 2, 0], [1, 1, 2, 3], [2, 3, 3, 1], [0, 2, 1, 1]]
    s = system(instance("floodit", grid_text(board), {"colours": 4}, "grid"))
    seen = {tuple(map(tuple, board))}
    layer = set(seen)
    expected = [1]
    for _ in range(5):
        nxt = set()
        for b in layer:
            for nb in model_moves(b, 4).values():
                if nb not in seen:
                    seen.add(nb)
                    nxt.add(nb)
        expected.append(len(nxt))
        layer = nxt
    assert layer_counts(EveryMove(s), 5) == expected
    # the searches leave out the move orders Puchert's rule finds dominated: they meet fewer states
    pruned = layer_counts(s, 5)
    assert pruned[:2] == expected[:2] and sum(pruned) < sum(expected)


def test_move_limit_is_a_failure_condition():
    board = [[0, 1, 2], [1, 1, 2], [2, 2, 1]]
    ok = solve(system(instance("floodit", hdu_text([board]), {"move_limit": 3})), "astar")
    assert ok.status == "solved" and ok.cost == 3
    inst = instance("floodit", hdu_text([board]), {"move_limit": 2})
    assert inst.limit == 2
    from solvers import Budget

    too_few = solve(system(inst), "astar", Budget(max_cost=inst.limit))
    assert too_few.status == "unsolvable" and too_few.optimal


def test_pivot_and_free_flood_it_variants():
    board = [[0, 1, 0], [1, 2, 1], [0, 1, 0]]
    corner = solve(system(instance("floodit", grid_text(board), {"colours": 3})), "bfs").cost
    centre = solve(system(instance("floodit", grid_text(board), {"colours": 3, "pivot": (1, 1)})), "bfs").cost
    free = solve(system(instance("floodit", grid_text(board), {"colours": 3, "free": True})), "bfs")
    assert (corner, centre) == (4, 2)  # worked by hand: 1 2 1 0 from the corner; 1 0 from the centre
    assert free.cost <= min(corner, centre)
    assert all(":" in m for m in free.moves)  # free moves name the cell: `row,col:colour`


def test_colour_out_of_range_is_a_level_error():
    from gridrules.errors import LevelError

    with pytest.raises(LevelError) as err:
        instance("floodit", hdu_text([[[0, 7], [1, 1]]]))
    assert err.value.span.line == 2 and err.value.span.col == 3
    assert "outside `colour`'s domain 0..5" in err.value.message


def test_letters_for_more_than_ten_colours():
    s = system(instance("floodit", "ab\nba\n", {"colours": 12}))
    assert solve(s, "bfs").cost == 2
    with pytest.raises(UsageError):
        from gridrules.api import parse_params, load_rules

        parse_params(load_rules("floodit"), ["colours=many"])
