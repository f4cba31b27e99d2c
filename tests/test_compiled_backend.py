"""The compiled backend against the reference backend (the oracle): same states, successors, goals and
heuristic values along random walks, and the same optimal costs."""
from __future__ import annotations

import random
import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from helpers import ROOT, bloxorz_maps, instance, instance_from_rules, native_agrees, system, walk_and_compare
from gridrules.api import load, solve as api_solve
from gridrules.errors import RuleRuntimeError
from gridrules.instance import PerRules
from solvers import SOLVED, Budget, solve

pytest.importorskip("numba")


def digit_grids(top: int, rows: int, cols: int):
    """Plain grid levels of `rows` x `cols` digits 0..top, one character a cell."""
    grid = st.lists(st.lists(st.integers(0, top), min_size=cols, max_size=cols), min_size=rows, max_size=rows)
    return grid.map(lambda r: "\n".join("".join(str(x) for x in row) for row in r) + "\n")


@settings(max_examples=25)
@given(digit_grids(3, 5, 5), st.integers(0, 10**6))
def test_floodit_walks_agree(board, seed):
    inst = instance("floodit", board, {"colours": 4}, "grid")
    ref, nat = walk_and_compare(inst, seed)
    assert solve(nat, "astar").cost == solve(ref, "astar").cost
    native_agrees(inst, nat, ref)


@settings(max_examples=10)
@given(digit_grids(2, 4, 4), st.integers(0, 10**6))
def test_free_floodit_walks_agree(board, seed):
    inst = instance("floodit", board, {"colours": 3, "free": True}, "grid")
    walk_and_compare(inst, seed, steps=8)


@settings(max_examples=25)
@given(bloxorz_maps(st.just(4), st.just(6)), st.integers(0, 10**6))  # one size: one compiled module
def test_bloxorz_walks_agree(text, seed):
    inst = instance("bloxorz", text, fmt="bloxorz")
    ref, nat = walk_and_compare(inst, seed, steps=40)
    breadth = solve(ref, "bfs")
    assert solve(nat, "bfs").cost == breadth.cost
    # (IDDFS without a table: too slow here. IDA* in Python re-expands the space at every bound, up to the
    # largest bound of the space when nothing can be reached, which took over ten minutes on a rare unsolvable
    # map: compared step for step where that stays small)
    small = breadth.stats.expanded <= (400 if breadth.status == "solved" else 60)
    native_agrees(inst, nat, ref, ("bfs", "astar", "idastar") if small else ("bfs", "astar"))


@pytest.mark.parametrize("level,cost", [("level16.txt", 28), ("level33.txt", 65)])
def test_bloxorz_seed_samples(level, cost):
    (inst,) = load("bloxorz", str(ROOT / "rulesets/bloxorz/levels" / level))
    nat = system(inst, "compiled")
    sol = solve(nat, "astar")
    assert sol.cost == cost and sol.optimal
    deep = nat.search("idastar")
    assert (deep.status, deep.cost, deep.optimal) == ("solved", cost, True)
    # (the Python IDA* takes minutes on level 33: compared step for step on level 16 and random maps only)
    native_agrees(inst, nat, system(inst, "reference"),
                  ("bfs", "astar", "idastar") if level == "level16.txt" else ("bfs", "astar"))


def _doc_examples():
    from test_docs import EXAMPLES

    return [ex for ex in EXAMPLES if ex.level is not None]


@pytest.mark.parametrize("ex", _doc_examples(), ids=lambda ex: ex.id)
def test_every_documented_game_agrees(ex, tmp_path):
    """Every complete game in docs/language.md: both backends walk the same states (or fail alike)."""
    from gridrules.errors import LevelError, RuleRuntimeError

    rules = tmp_path / f"rules{ex.suffix}"
    rules.write_text(ex.rules)
    level = tmp_path / "level.txt"
    level.write_text(ex.level)
    params = [v for k, v in ex.runs[0].clauses if k == "param"] if ex.runs else []
    try:
        insts = load(str(rules), str(level), params)
    except LevelError:
        return  # an example of a rejected level
    for inst in insts:
        try:
            walk_and_compare(inst, 1, steps=15)
        except RuleRuntimeError:
            # the reference stopped with a rule error: the compiled backend must stop too, on the same walk
            with pytest.raises(RuleRuntimeError):
                nat = system(inst, "compiled")
                state = inst.initial
                rng = random.Random(1)
                for _ in range(15):
                    succ = sorted(nat.successors(state))
                    if not succ:
                        break
                    state = rng.choice(succ)[1]


@pytest.mark.parametrize("algorithm", ["astar", "bfs", "idastar", "iddfs"])
def test_native_budgets(algorithm):
    """State budgets stop every native search (not optimal, no traceback); a cost cap below the optimum is a
    proof of no solution within it, as in the Python solvers."""
    from solvers import BUDGET_EXHAUSTED, UNSOLVABLE, Budget

    (inst,) = load("bloxorz", str(ROOT / "rulesets/bloxorz/levels/level16.txt"))
    nat, ref = system(inst, "compiled"), system(inst, "reference")
    small = nat.search(algorithm, Budget(max_states=50))
    assert small.status == BUDGET_EXHAUSTED and not small.optimal
    # what it proved before it stopped: a lower bound on the optimum (28), as the Python search's is
    python = solve(ref, algorithm, Budget(max_states=50))
    if algorithm == "bfs":  # (Bloxorz's swap is free: loops.breadth_first takes a layer in another order)
        assert small.stats.expanded <= 50 and python.stats.expanded <= 50
    else:
        assert small.stats.expanded == python.stats.expanded <= 50  # (the deepening searches: exactly 50 visited)
    assert small.bound is not None and python.bound is not None and 0 < small.bound <= 28 and python.bound <= 28
    bigger = nat.search(algorithm, Budget(max_states=400))
    assert bigger.status == SOLVED or small.bound <= bigger.bound <= 28
    capped, oracle = nat.search(algorithm, Budget(max_cost=12)), solve(ref, algorithm, Budget(max_cost=12))
    assert (capped.status, capped.optimal) == (oracle.status, oracle.optimal) == (UNSOLVABLE, True)


def test_native_bfs_stops_where_the_python_bfs_stops():
    """The native breadth-first ring puts a state's children in one expansion late (their table slots asked for
    meanwhile: loops.best_first's pipeline); every stop must still be the one without it. A BFS of ~2,500 states
    (its chunks, the arrays grown at 1024 and 2048 states) stopped at many budgets: status, counts, bound and
    moves equal the Python BFS's."""
    from solvers import Budget

    rng = random.Random(5)
    board = "\n".join("".join(rng.choice("01234") for _ in range(7)) for _ in range(7)) + "\n"
    inst = instance_from_rules((ROOT / "rulesets/floodit/floodit.grl").read_text(), board)
    nat, ref = system(inst, "compiled"), system(inst, "reference")
    for states in [1, 2, 3, 17, 1023, 1024, 1025, 2048, 2049, 2462, 2463, None]:
        mine, oracle = nat.search("bfs", Budget(max_states=states)), solve(ref, "bfs", Budget(max_states=states))
        assert (mine.status, mine.cost, mine.moves, mine.bound) == (oracle.status, oracle.cost, oracle.moves,
                                                                    oracle.bound), states
        assert (mine.stats.expanded, mine.stats.generated, mine.stats.duplicates) == (
            oracle.stats.expanded, oracle.stats.generated, oracle.stats.duplicates), states
    assert mine.status == "solved" and mine.cost == 11 and mine.stats.expanded == 2463


# A walker with a lamp, in one word of state: steps cost 1, the lamp's switch `flip_cost`; traps are deadlocks.
LAMP = """game lamp
param flip_cost: int = 1
layer wall: bool static
layer trap: bool static
global start: cell static
global exit: cell static
global me: cell
global lamp: bool
action step(d: dir) "{d}":
    let to = me + d
    require on_board(to) and not wall[to]
    me = to
action flip() "f" cost flip_cost:
    lamp = not lamp
goal: me == exit and lamp
deadlock: trap[me]
init:
    me = start
level grid:
    '.': pass
    '#': wall = true
    'x': trap = true
    'S': start = here
    'E': exit = here
"""


def _lamp_board(seed: int, size: int = 40, exit_walled: bool = False) -> str:
    rng = random.Random(seed)
    rows = [[rng.choice("......#x") for _ in range(size)] for _ in range(size)]
    rows[0][0], rows[-1][-1] = "S", "E"
    if exit_walled:
        rows[-2][-1] = rows[-1][-2] = "#"
    return "\n".join("".join(r) for r in rows) + "\n"


def _outcome(sol):
    return (sol.status, sol.cost, sol.moves, sol.bound, sol.stats.expanded, sol.stats.generated,
            sol.stats.duplicates, sol.stats.dead)


def _by_both_loops(nat, budget):
    """The native breadth-first search of states of one word (loops.breadth_first), then best_first's."""
    from gridrules.compiled import search

    try:
        search.BREADTH_FIRST = True
        mine = nat.search("bfs", budget)
        search.BREADTH_FIRST = False
        theirs = nat.search("bfs", budget)
    finally:
        search.BREADTH_FIRST = True
    return mine, theirs


def test_breadth_first_over_one_word_stops_where_the_python_bfs_stops():
    """loops.breadth_first (rows as the queue, children probed up to 64 later) with unit costs: at every budget,
    around the arrays' growth at 1024 and 2048 states, with deadlocks and at cost limits, the same status, moves,
    bound and counts as the Python BFS and as best_first."""
    inst = instance_from_rules(LAMP, _lamp_board(3))
    assert inst.layout.words == 1
    nat, ref = system(inst, "compiled"), system(inst, "reference")
    assert nat.zero_one_costs and nat.min_move_cost == 1
    budgets = [Budget(max_states=k) for k in (1, 2, 3, 17, 100, 1023, 1024, 1025, 2048, 2049, 2500)]
    budgets += [Budget(max_cost=k) for k in (0, 1, 5, 30)] + [Budget()]
    for budget in budgets:
        mine, theirs = _by_both_loops(nat, budget)
        assert _outcome(mine) == _outcome(theirs), budget
        assert mine.stats.peak_states == theirs.stats.peak_states
        oracle = _outcome(solve(ref, "bfs", budget))  # (which counts the children past max_cost as generated)
        assert _outcome(mine)[:5] == oracle[:5] and (budget.max_cost is not None or _outcome(mine) == oracle)
    assert mine.status == SOLVED and mine.stats.expanded > 2048 and mine.stats.dead > 0
    walled = system(instance_from_rules(LAMP, _lamp_board(3, exit_walled=True)), "compiled")
    mine, theirs = _by_both_loops(walled, Budget())
    assert mine.status == theirs.status == "unsolvable" and _outcome(mine) == _outcome(theirs)


@pytest.mark.parametrize("seed", [3, 4, 8])
def test_breadth_first_with_free_moves_takes_each_layer_whole(seed):
    """With moves that cost 0 (the lamp's switch), loops.breadth_first takes a layer's states reached at no cost
    after its rows: another order within the layer than best_first's, the same optimum (replayed), the same
    counts wherever the search is exhaustive (a cost limit, or no way out), and bounds that hold."""
    board = _lamp_board(seed)
    inst = instance_from_rules(LAMP, board, {"flip_cost": 0})
    nat, ref = system(inst, "compiled"), system(inst, "reference")
    assert nat.zero_one_costs and nat.min_move_cost == 0
    best = solve(ref, "bfs").cost
    mine, theirs = _by_both_loops(nat, Budget())
    assert mine.status == theirs.status == SOLVED and mine.cost == theirs.cost == best and mine.optimal
    state = nat.initial()
    for move in mine.moves:
        state = nat.apply(state, move)
    assert nat.is_goal(state) and len(mine.moves) - mine.moves.count("f") == best
    for budget in [Budget(max_cost=k) for k in (0, 1, 7, best - 1)]:
        mine, theirs = _by_both_loops(nat, budget)
        assert mine.status == theirs.status == "unsolvable"
        assert (mine.stats.expanded, mine.stats.generated, mine.stats.duplicates, mine.stats.dead,
                mine.stats.peak_states) == (theirs.stats.expanded, theirs.stats.generated, theirs.stats.duplicates,
                                            theirs.stats.dead, theirs.stats.peak_states), budget
    for k in (1, 2, 50, 1023, 1024, 1025, 2049):
        mine, _ = _by_both_loops(nat, Budget(max_states=k))
        assert mine.stats.peak_states <= k and (mine.bound is None or mine.bound <= best)
        assert mine.status == "budget_exhausted" or mine.cost == best
    walled = system(instance_from_rules(LAMP, _lamp_board(seed, exit_walled=True), {"flip_cost": 0}), "compiled")
    mine, theirs = _by_both_loops(walled, Budget())
    assert mine.status == theirs.status == "unsolvable"
    assert _outcome(mine)[4:] == _outcome(theirs)[4:] and mine.stats.peak_states == theirs.stats.peak_states


# Free jumps off pads (found by a review: a goal taken among the states reached at no cost, then a state budget
# met while the children waiting were put in, left a bound of the optimum + 1: the goal was not put back).
TELE = """game tele
layer wall: bool static
layer pad: bool static
global start: cell static
global exit: cell static
global me: cell
action step(d: dir) "{d}":
    let to = me + d
    require on_board(to) and not wall[to]
    me = to
action jump(d: dir) "j{d}" cost 0:
    require pad[me] and on_board(me + d) and on_board(me + d + d)
    let to = me + d + d
    require not wall[to] and not pad[to]
    me = to
goal: me == exit
init:
    me = start
level grid:
    '.': pass
    '#': wall = true
    'p': pad = true
    'S': start = here
    'E': exit = here
"""


def test_every_budget_stop_of_the_native_breadth_first_searches_proves_only_what_holds():
    """Every state budget on a board with free jumps (loops.breadth_first's layers taken in another order) and on
    one with deadlocks (unit costs): each stop's bound is at most the optimum, and with unit costs both loops
    stop where the Python BFS stops, deadlocks counted alike (best_first counted those found while children
    waited, and taken back by the stop, until a review found it)."""
    board = "Sp......\n....#p..\npE......\n...#.pp.\n...#p...\n.#....p.\n#.#.....\n...p....\n"
    nat = system(instance_from_rules(TELE, board), "compiled")
    best = nat.search("bfs", Budget()).cost
    assert best == 1
    for k in range(1, 40):
        for sol in _by_both_loops(nat, Budget(max_states=k)):
            assert sol.bound is None or sol.bound <= best, k
            assert sol.status == "budget_exhausted" or sol.cost == best, k
    inst = instance_from_rules(LAMP, _lamp_board(196, size=10))
    nat, ref = system(inst, "compiled"), system(inst, "reference")
    for k in list(range(1, 120, 3)) + [None]:
        budget = Budget(max_states=k)
        mine, theirs = _by_both_loops(nat, budget)
        assert _outcome(mine) == _outcome(theirs) == _outcome(solve(ref, "bfs", budget)), k
    assert mine.status == SOLVED and mine.stats.dead > 0


@settings(max_examples=25, deadline=None)
@given(bloxorz_maps(st.integers(2, 6), st.integers(2, 8)), st.sampled_from([0, 1]))
def test_breadth_first_finds_best_firsts_optimum_on_random_bloxorz_maps(level, swap_cost):
    """Bloxorz's states are one word, its swap free by default: loops.breadth_first and best_first agree on
    every random map (its tiles, switches, bridges and teleports), the counts too where nothing was found."""
    inst = instance_from_rules((ROOT / "rulesets/bloxorz/bloxorz.grl").read_text(), level, {"swap_cost": swap_cost})
    nat = system(inst, "compiled")
    mine, theirs = _by_both_loops(nat, Budget())
    assert (mine.status, mine.cost) == (theirs.status, theirs.cost)
    if mine.status != SOLVED or swap_cost == 1:
        assert _outcome(mine)[4:] == _outcome(theirs)[4:]
    if mine.status == SOLVED:
        state = nat.initial()
        for move in mine.moves:
            state = nat.apply(state, move)
        assert nat.is_goal(state)


def test_native_chunks_start_small_and_follow_the_pace_of_the_states():
    """The time limit and Ctrl-C are heeded between native chunks: the first is small (a state of a 300x300
    Flood-It board costs ~70 ms; a first chunk of 256 states overran a 2 s limit by 15 s, found by a robustness
    sweep), a chunk over 0.2 s is cut to about a tenth of a second at its pace, and quick ones grow quickly."""
    from gridrules.compiled.search import _Pace
    from solvers import Budget

    pace = _Pace(Budget(time_limit=2.0), [])
    assert pace.chunk <= 16
    first = pace.chunk
    assert not pace.time_is_up(first * 0.07)  # (70 ms a state)
    assert pace.chunk == 1  # a state a chunk: the limit is looked at every 70 ms
    pace.time_is_up(0.5)
    assert pace.chunk == 1
    quick = _Pace(Budget(), [])
    calls, done = 0, 0
    while done < 3000:  # a 14x14 Flood-It board's search: as few returns to Python as a chunk of 256 first made
        done += quick.chunk
        calls += 1
        quick.time_is_up(quick.chunk * 1e-6)
    assert calls <= 4
    before = quick.chunk
    quick.time_is_up(0.3)  # slow now: to about 0.1 s of states
    assert quick.chunk == before // 3


# One-cost ticks as many as the first native chunk expands less one, then a 3-cost step to the goal or beside it:
# a breadth-first search stopped after that chunk has made the goal (cost ticks + 3) while states of cost `ticks`
# still wait, so the stop must not claim more than the goal's cost (found by a review: the frontier's least cost
# plus the cheapest move was reported before the goal made counted).
JUMP = """game jump
global n: 0..1000
action tick() "t":
    require n < TICKS
    n += 1
action win() "w" cost 3:
    require n == TICKS
    n = 1000
action side() "s" cost 3:
    require n == TICKS
    n = 500
goal: n == 1000
level grid:
    '.': pass
"""


def test_a_breadth_first_search_stopped_after_making_a_goal_proves_no_more_than_its_cost():
    from gridrules.compiled.search import _Pace

    first = _Pace(Budget(), []).chunk
    ticks, goal = first - 1, first + 2
    inst = instance_from_rules(JUMP.replace("TICKS", str(ticks)), ".\n")
    nat, ref = system(inst, "compiled"), system(inst, "reference")
    assert solve(ref, "bfs").cost == goal
    stopped = nat.search("bfs", Budget(time_limit=1e-9))  # (after the first chunk: `first` expansions)
    assert stopped.status == SOLVED and stopped.cost == goal and stopped.optimal  # (its bound, the goal's, proves it)
    for budget in (Budget(max_states=k) for k in (first // 2, ticks, first, first + 1, goal)):
        for sol in (nat.search("bfs", budget), solve(ref, "bfs", budget)):
            assert sol.bound is None or sol.bound <= goal
            assert sol.moves is None or sol.cost == goal


def test_api_solve_runs_the_backends_own_search():
    """api.solve: the compiled backend's native search for the algorithms it has (the same expansions as calling
    it directly), the Python search for the others and for the reference backend; the same optimum each way."""
    from gridrules import api

    (inst,) = load("bloxorz", str(ROOT / "rulesets/bloxorz/levels/level16.txt"))
    nat, ref = system(inst, "compiled"), system(inst, "reference")
    for algorithm in ("astar", "bfs"):
        mine, direct, oracle = api.solve(nat, algorithm), nat.search(algorithm), solve(ref, algorithm)
        assert (mine.status, mine.cost, mine.optimal) == (oracle.status, oracle.cost, True) == (SOLVED, 28, True)
        assert mine.moves == direct.moves and mine.stats.expanded == direct.stats.expanded
        assert api.solve(ref, algorithm).stats.expanded == oracle.stats.expanded
    assert nat.search("anytime") is None  # (no native anytime: the Python one runs over the native moves)
    assert api.solve(nat, "anytime", Budget(time_limit=5)).cost == 28
    with pytest.raises(ValueError, match="unknown algorithm"):
        api.solve(nat, "dijkstra")


# A walker on a grid with walls: steps cost 1, jumps over one cell cost `jump`, turning the lamp costs 0. The
# native uniform-cost search keeps its frontier a ring while the costs are 0 and 1 and turns it into a heap at
# the first other cost (loops._put); with no free move it tests states for the goal as it makes them.
WALKER = """game walker
param jump: int = 3
param lamp_cost: int = 0
layer wall: bool static
global me: cell
global lamp: bool
global exit: cell static

action step(d: dir) "{d}":
    require on_board(me + d) and not wall[me + d]
    me = me + d

action hop(d: dir) "J{d}" cost jump:
    require on_board(me + d + d) and not wall[me + d + d]
    me = me + d + d

action light() "lamp" cost lamp_cost:
    lamp = not lamp

goal: me == exit and lamp

level grid:
    '.': pass
    '#': wall = true
    'S': me = here
    'E': exit = here
"""


@st.composite
def walker_levels(draw):
    rows, cols = draw(st.integers(2, 6)), draw(st.integers(2, 7))
    cells = [[draw(st.sampled_from("..#")) for _ in range(cols)] for _ in range(rows)]
    s, e = draw(st.lists(st.tuples(st.integers(0, rows - 1), st.integers(0, cols - 1)), min_size=2, max_size=2,
                         unique=True))
    cells[s[0]][s[1]], cells[e[0]][e[1]] = "S", "E"
    return "\n".join("".join(row) for row in cells) + "\n"


def test_table_slots_spread_states_that_differ_only_in_their_top_bits():
    """A state's first slot depends on every bit of its words (loops._slot): one-word states that differ only in
    their top 12 bits (Bloxorz's other cube) start in as many slots as random ones would, where the hash's low bits
    alone put them all in one (a probe then walks past every one before it)."""
    import numpy as np
    from gridrules.compiled import loops

    K = np.array([[0x5A5A_1234_5678 | c << 52] for c in range(4096)], np.uint64)
    mask = np.uint64((1 << 16) - 1)
    hashes = [np.uint64(loops._hash(K, i, 1)) for i in range(len(K))]  # (as the native loops have them)
    slots = {int(loops._slot(h, mask)) for h in hashes}
    assert len(slots) > 3800  # (4096 states in 65536 slots at random: ~3970 slots; these take 4096)
    assert len({int(h & mask) for h in hashes}) < 64  # (the low bits alone: all in one slot)


@settings(max_examples=30, deadline=None)
@given(walker_levels(), st.sampled_from([(3, 0), (1, 0), (2, 1), (5, 2), (1, 1)]))
def test_native_uniform_cost_frontiers_agree(level, costs):
    """Native bfs = the Python bfs (ring, 0-1 BFS, a heap after the first cost above 1, goals tested as made)."""
    jump, lamp = costs
    inst = instance_from_rules(WALKER, level, {"jump": jump, "lamp_cost": lamp})
    native_agrees(inst, system(inst, "compiled"), system(inst, "reference"), ("bfs",))


def test_table_tags_sort_out_rows_but_never_merge_them():
    """The native table's slots tag each row with bits of its hash (loops._entry): rows of one hash and tag are
    still told apart by their words, a row is found again under its own hash only, and row numbers keep all
    their 40 bits."""
    import numpy as np
    from gridrules.compiled import loops

    K = np.array([[1, 2], [3, 4], [1, 2], [3, 4], [5, 6]], np.uint64)
    T = np.full(8, -1, np.int64)
    h = np.uint64(5)  # (every row given one hash: one first slot, one tag)
    for i in (0, 1):
        slot = loops._probe(K, T, i, 2, h)
        assert loops._row(T, slot) == -1
        T[slot] = loops._entry(i, h)
    assert [loops._row(T, loops._probe(K, T, i, 2, h)) for i in (2, 3, 4)] == [0, 1, -1]
    other = np.uint64(5 | 1 << 50)  # the same first slot, another tag: the rows stored are passed over
    assert loops._row(T, loops._probe(K, T, 2, 2, other)) == -1
    top = (1 << 40) - 1
    T[7] = loops._entry(top, np.uint64(2**64 - 1))
    assert T[7] >= 0 and loops._row(T, 7) == top



@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 3), st.integers(-2**42, 2**42 - 1)), max_size=60),
       st.lists(st.one_of(st.tuples(st.integers(0, 6), st.integers(0, 3), st.integers(-2**42, 2**42 - 1)),
                          st.none()), max_size=300), st.booleans(), st.integers(0, 3))
def test_the_native_frontier_takes_entries_in_the_python_searches_order(first, ops, ring, grow_at):
    """loops' frontier, pushed and popped at random: while a ring (no heuristic, costs 0 and 1), first made first
    by g, a 0-cost child first of all (solvers/bfs.py); once a heap (a 4-ary heap of rows, search._frontier),
    the least f, then the greatest g, then the least key as an unsigned number (solvers/astar.py); the arrays
    grown in between (search._Arrays.grow) keep the order."""
    from collections import deque

    from gridrules.compiled import loops, search

    arrays = search._Arrays(1, 16)
    meta = np.zeros(13, np.int64)
    meta[9], meta[12] = ring, 16
    meta[8] = 0 if ring else search.HEAP
    line, heap = deque(), []  # (the model: a ring's entries in order, then a heap's)
    base, row = 0, 0
    for k, op in enumerate(first + ops):  # (some pushes first: a heap deep enough for every child's place)
        if k == grow_at * 60:
            arrays.grow(1, int(meta[1]), int(meta[8]), int(meta[12]) if meta[9] else 0, lambda K, n, T: None)
            meta[8] = 0 if meta[9] else search.HEAP
        if op is None or meta[1] + 2 + search.HEAP >= arrays.H.shape[0]:
            if meta[1]:
                g, i = loops._take(arrays.H, meta)
                want = line.popleft() if line else heap.pop(heap.index(min(heap)))
                assert (g, i) == (-want[1], want[3])
                base = g
            continue
        f, cost, key = op
        key = key << 20 | row  # (states' keys differ: two entries never tie)
        g = base + cost
        f = g if meta[9] else max(f, g)  # (a ring has no heuristic)
        entry = (f, -g, key & (2**64 - 1), row)
        loops._put(arrays.H, meta, f, g, row, key, base)
        if meta[9]:
            line.append(entry) if cost == 1 else line.appendleft(entry)
        else:
            heap.extend(line)  # (a cost the ring cannot take made it a heap of everything waiting)
            line.clear()
            heap.append(entry)
        row += 1
    assert meta[1] == len(line) + len(heap)
    while meta[1]:  # (and then every entry left, in order)
        g, i = loops._take(arrays.H, meta)
        want = line.popleft() if line else heap.pop(heap.index(min(heap)))
        assert (g, i) == (-want[1], want[3])
    assert not line and not heap


def test_a_search_on_the_buffers_a_larger_one_left_behind_does_what_a_fresh_one_does():
    """A finished search leaves its buffers to the next (search._Arrays.for_search), full of its states, table
    entries and frontier rows: the next search, and a search that grows within them, expand, make and answer
    exactly what they do on new arrays, and a search with more words a state gets arrays of its own."""
    from gridrules.compiled import search

    big = "S" + "." * 59 + "\n" + ("." * 60 + "\n") * 58 + "." * 59 + "E\n"  # (past START_CAPACITY states)
    small = "S..\n.#.\n..E\n"
    levels = [instance_from_rules(WALKER, text, {"jump": 5}) for text in (big, small, big)]

    def run(inst, algorithm):
        sol = system(inst, "compiled").search(algorithm)
        return sol.status, sol.moves, sol.cost, sol.stats.expanded, sol.stats.generated, sol.stats.peak_states

    for algorithm in ("bfs", "astar"):
        fresh = []
        for inst in levels:
            search._spare.clear()
            fresh.append(run(inst, algorithm))
        search._spare.clear()
        assert [run(inst, algorithm) for inst in levels] == fresh  # (reusing: big leaves its buffers to the rest)
        assert search._spare and search._spare[0]._K.shape[0] > search.START_CAPACITY
        assert fresh[0][5] > search.START_CAPACITY and fresh[0][0] == SOLVED
    kept = search._spare[0]
    words = kept._K.shape[1]
    arrays = search._Arrays.for_search(words + 1)
    assert arrays is not kept and arrays.K.shape[1] == words + 1 and not search._spare


def test_native_breadth_first_ring_grows():
    """A breadth-first search past the first arrays' room (loops.START_CAPACITY states) whose ring has wrapped
    (a free move at the start puts a state before slot 0): the exact optimum, and the moves replay."""
    from gridrules.compiled.search import START_CAPACITY

    side = 100
    assert 2 * side * side > START_CAPACITY
    level = "S" + "." * (side - 1) + "\n" + ("." * side + "\n") * (side - 2) + "." * (side - 1) + "E\n"
    inst = instance_from_rules(WALKER, level, {"jump": 5})
    nat, ref = system(inst, "compiled"), system(inst, "reference")
    sol = nat.search("bfs")
    assert (sol.status, sol.cost, sol.optimal) == (SOLVED, 2 * (side - 1), True)
    assert sol.stats.peak_states > START_CAPACITY
    state = ref.initial()
    for move in sol.moves:
        state, _ = ref.step(state, move)
    assert ref.is_goal(state)


def test_native_breadth_first_tests_goals_as_made():
    """With unit costs the first goal made ends the search: the state it came from is the last expanded."""
    level = "S..\n...\n..E\n"
    inst = instance_from_rules(WALKER, level, {"jump": 1, "lamp_cost": 1})
    nat = system(inst, "compiled")
    sol, oracle = nat.search("bfs"), solve(system(inst, "reference"), "bfs")
    assert (sol.cost, sol.stats.expanded) == (oracle.cost, oracle.stats.expanded) == (3, oracle.stats.expanded)


@pytest.mark.parametrize("ruleset,level", [
    ("drops", "0 2 0 2 4 1\n4 2 2 0 1 4\n1 0 0 3 4 4\n4 0 1 2 2 3\n2 4 4 1 4 0\n4 4 0 0 0 3\n"),
    ("drops", "4 4 0 2 3 2\n1 1 4 1 4 1\n3 3 0 0 4 0\n0 0 1 3 2 4\n0 3 4 0 4 0\n0 0 0 2 2 0\n"),
    ("floodit", "33054432\n14513124\n53125332\n13530502\n50303422\n53503253\n22134303\n40154011\n"),
])
def test_native_astar_is_the_python_astar(ruleset, level):
    """The native A* breaks ties as solvers/astar.py does, by a hash of the state (tie_key): the same expansions
    and states made, step for step, and the same solution."""
    nat = system(instance(ruleset, level), "compiled")
    mine, theirs = nat.search("astar"), solve(nat, "astar")
    assert (mine.cost, mine.moves, mine.stats.expanded, mine.stats.generated) == (
        theirs.cost, theirs.moves, theirs.stats.expanded, theirs.stats.generated)
    assert mine.stats.expanded > 50


OVERESTIMATE = """game counter
global n: 0..5

action up() "+":
    require n < 5
    n += 1

goal: n == 3

heuristic far: 10      # (not admissible: it overestimates every distance)
heuristic none_left admissible: 3 - n

limit 4

level grid:
    '.': pass
"""


@pytest.mark.parametrize("heuristic", ["far", "none_left"])
@pytest.mark.parametrize("backend", ["compiled", "reference"])
def test_astar_under_a_limit_prunes_by_f_only_when_the_heuristic_is_admissible(backend, heuristic):
    """Under a `limit`, A* drops a state whose f = g + h passes it only when h is admissible: an overestimate
    proves nothing. The native A* dropped them whatever h was, and called a level solvable in 3 moves
    "unsolvable (proven)" (found by a review)."""
    inst = instance_from_rules(OVERESTIMATE, ".")
    s = system(inst, backend, heuristic)
    sol = api_solve(s, "astar", Budget(max_cost=inst.limit, admissible=s.admissible))  # (the native A*)
    assert (sol.status, sol.cost, sol.moves) == (SOLVED, 3, ("+", "+", "+"))
    assert sol.optimal == (heuristic == "none_left")


# Loops over sets whose cell local only indexes layers use the cell's index from the set (codegen._indexes_only);
# the others work out its row and column. Both kinds, in heuristics and in an action that writes the layer.
SWEEPS = """game sweeps
layer v: 0..3

action bump(c: cell) "{c}":
    v[c] = (v[c] + 1) % 4
    for d in cells where v == 3:
        v[d] = 0

action shift() "shift":
    for d in cells where v == 1:
        if on_board(d + R):
            v[d] = v[d + R]

goal: empty(cells where v != 0)

heuristic indexing:
    let t = 0
    for c in cells where v != 0:
        t += v[c]
    return t

heuristic rows:
    let t = 0
    for c in cells where v == 2:
        t += c.row + v[c]
    return t

heuristic rebound:
    let t = 0
    for c in cells where v != 0:
        t += v[c]
        c = (0, 0)
        t += v[c]
    return t

level grid:
    '0'..'3': v = value
"""


@settings(max_examples=15, deadline=None)
@given(digit_grids(3, 3, 4), st.integers(0, 10**6))
def test_cell_locals_that_only_index_layers(board, seed):
    for name in ("indexing", "rows", "rebound"):
        inst = instance_from_rules(SWEEPS, board)
        ref, nat = system(inst, "reference", name), system(inst, "compiled", name)
        rng, state = random.Random(seed), inst.initial
        for _ in range(12):
            assert ref.heuristic(state) == nat.heuristic(state)
            moves = sorted(ref.successors(state))
            assert moves == sorted(nat.successors(state))
            state = rng.choice(moves)[1]
    source = nat.source
    indexing, rows = source[source.index("def h_0"):source.index("def h_1")], source[source.index("def h_1"):]
    assert "// COLS" not in indexing and "// COLS" in rows


def test_native_deepening_time_limit_keeps_the_best_found():
    """IDA* stopped by the clock returns (unproven) the cheapest solution it has seen above its bound, if any."""
    import time

    from solvers import BUDGET_EXHAUSTED, Budget

    (inst,) = load("bloxorz", str(ROOT / "rulesets/bloxorz/levels/level33.txt"))
    nat = system(inst, "compiled")
    nat.search("iddfs", Budget(max_states=1))  # (compiles the native loop, so the clock below times the search)
    t = time.perf_counter()
    sol = nat.search("iddfs", Budget(time_limit=0.3))
    assert time.perf_counter() - t < 3
    assert sol.status == BUDGET_EXHAUSTED and not sol.optimal
    assert sol.moves is None or len(sol.moves) >= 65


def test_native_restarts_draw_what_the_python_ones_draw():
    """The native IDA*'s Luby run lengths and shuffles (loops.luby, loops._shuffle) are solvers/_deepening.py's."""
    import numpy as np

    from gridrules.compiled import loops
    from solvers._deepening import Shuffler, luby

    assert [loops.luby(i) for i in range(40)] == [luby(i) for i in range(40)]
    CH = np.zeros((2, 9, 2), np.uint64)
    CH[1, :, 1] = np.arange(9)
    CHM, CHC, meta = np.tile(np.arange(9), (2, 1)), np.zeros((2, 9), np.int64), np.zeros(19, np.int64)
    meta[17] = -5  # (a seed with the top bit set: the native state is an int64)
    python, order = Shuffler((1 << 64) - 5), list(range(9))
    for _ in range(30):  # (each shuffles the order the last left)
        loops._shuffle(CH, CHM, CHC, 1, 9, meta)
        python.shuffle(order)
        assert CHM[1].tolist() == CH[1, :, 1].tolist() == order
    assert np.uint64(meta[17]) == python.state


@pytest.mark.parametrize("unit,seed", [(1, 0), (5, 3), (40, 8)])
def test_native_restarts_are_the_python_ones(monkeypatch, unit, seed):
    """Restarting every few expansions, the native IDA* is the Python one step for step (the same runs, the
    same random orders, the same table) and still finds the optimum."""
    from solvers import _deepening

    monkeypatch.setattr(_deepening, "RESTART_UNIT", unit)
    monkeypatch.setattr(_deepening, "RESTART_SEED", seed)
    (inst,) = load("bloxorz", str(ROOT / "rulesets/bloxorz/levels/level16.txt"))
    nat, ref = system(inst, "compiled"), system(inst, "reference")
    mine, oracle = nat.search("idastar"), solve(ref, "idastar")
    assert (mine.status, mine.cost, mine.optimal, mine.moves) == (oracle.status, 28, True, oracle.moves)
    assert (mine.stats.expanded, mine.stats.generated, mine.stats.duplicates) == \
        (oracle.stats.expanded, oracle.stats.generated, oracle.stats.duplicates)


POINTERS = """# Pointers: every cell points at a neighbour or at nothing; a turn repoints one cell. (A cell-valued layer.)
game pointers "Pointers"

layer target: cell
layer seen: bool
global last: cell

action turn(p: cell, d: dir) "{p}:{d}" cost 1:
    require on_board(p + d)
    require target[p] != p + d
    target[p] = p + d
    last = target[p]
    if any(cells where target == p):
        seen[p] = true

action clear(p: cell) "x{p}" cost 2:
    require target[p] != none
    if last != none:
        target[last] = target[p]
    target[p] = none

goal: count(cells where target == none) <= 3 and target[(0, 0)] == (0, 1)

heuristic pointing admissible:
    return count(cells where target == none) / 4

level grid:
    '.': pass
    'r': target = here + R
    'd': target = here + D
"""


@st.composite
def pointer_boards(draw):
    """2x3 boards of cells pointing right, down or nowhere (never off the board)."""
    rows = []
    for r in range(2):
        row = ""
        for c in range(3):
            row += draw(st.sampled_from("." + ("r" if c < 2 else "") + ("d" if r < 1 else "")))
        rows.append(row)
    return "\n".join(rows) + "\n"


@settings(max_examples=20)
@given(pointer_boards(), st.integers(0, 10**6))
def test_cell_layers_agree(level, seed):
    """A cell-valued layer (stored as cell codes natively): walks, searches and stores off the board agree."""
    inst = instance_from_rules(POINTERS, level)
    ref, nat = walk_and_compare(inst, seed, steps=20)
    native_agrees(inst, nat, ref, ("bfs",))
    deep = nat.search("idastar")
    assert (deep.status, deep.cost) == (nat.search("bfs").status, nat.search("bfs").cost)


def test_compiling_skips_numbas_blas_probe():
    """numba's first compile imports scipy.linalg only to look for BLAS (a third of a second); before it compiles
    anything gridrules loads numba's array support without it, and leaves scipy importable afterwards. A run
    that only loads cached code loads none of it."""
    import subprocess
    import sys

    code = ("import sys; import gridrules.compiled as c; print('numba.np.arraymath' in sys.modules); "
            "c.prepare_to_compile(); import numba.np.arraymath as a; "
            "print('scipy' in sys.modules, a._HAVE_BLAS); import importlib.util as u; "
            "print(u.find_spec('scipy') is None or __import__('scipy') is not None)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "False", "False", "True"]


@pytest.mark.parametrize("ruleset,levels", [("floodit", ["hdu4127-sample.txt"]),
                                            ("bloxorz", ["level16.txt", "level33.txt"])])
def test_one_compiled_module_serves_every_board_size(ruleset, levels):
    """The generated source names no board dimension (they are read at run time), so levels of other sizes
    load the module compiled once for the rule file instead of compiling again."""
    from gridrules.compiled.system import CompiledSystem

    insts = [inst for name in levels for inst in load(ruleset, str(ROOT / "rulesets" / ruleset / "levels" / name))]
    assert len({(inst.rows, inst.cols) for inst in insts}) == 2
    systems = [CompiledSystem(inst) for inst in insts]
    assert len({s.source for s in systems}) == 1 and len({id(s.mod) for s in systems}) == 1


@pytest.mark.parametrize("ruleset,level,unrefcounted", [
    ("floodit", "hdu4127-sample.txt", True), ("bloxorz", "level16.txt", True), ("drops", "seed000.txt", True),
    ("splashback", "seed000.txt", True), ("lianliankan", "hdu1175-sample.txt", False)])
def test_a_module_made_for_one_board_shape_is_the_module_for_every_shape(ruleset, level, unrefcounted):
    """Extension modules are built from the generated source with the board's dimensions and the places of the
    state's fields as constants (codegen.for_board), and without numba's reference counting where numba compiles
    that: along a breadth-first sweep, its successors, goals and heuristics are those of the module that reads
    them at run time. Lianliankan's move ordering allocates arrays: numba refuses it without reference counting,
    and its extension keeps it (Drops' and Splash Back's chain reactions make none: they go without)."""
    from collections import deque

    from numba.core.errors import NumbaError

    from gridrules.compiled.codegen import BOARD_NAMES, for_board
    from gridrules.compiled.system import load_module

    inst = load(ruleset, str(ROOT / "rulesets" / ruleset / "levels" / level))[-1]
    generic = system(inst, "compiled")
    layout = generic.board[2]
    variants = [for_board(generic.source, inst.rows, inst.cols), for_board(generic.source, *generic.board)]
    assert not any(f"= {BOARD_NAMES[name]}\n" in variants[0] for name in ("ROWS", "COLS", "N", "K"))
    assert "SG[4]" in variants[0] and not any(f"SG[{k}]" in variants[1] for k in range(len(layout)))
    uncounted = for_board(generic.source, *generic.board, refcounts=False)
    if unrefcounted:
        variants.append(uncounted)
    else:
        with pytest.raises(NumbaError):
            load_module(uncounted)
    for source in variants:
        shaped = system(inst, "compiled")
        shaped._mod, shaped.jit_source = load_module(source), source
        seen, todo = {generic.initial()}, deque([generic.initial()])
        while todo and len(seen) < 400:
            state = todo.popleft()
            moves = generic.successors(state)
            assert shaped.successors(state) == moves
            assert ((shaped.is_goal(state), shaped.heuristic(state))
                    == (generic.is_goal(state), generic.heuristic(state)))
            for _, child, _ in moves:
                if child not in seen:
                    seen.add(child)
                    todo.append(child)


def test_code_without_reference_counting_never_gets_a_helper_compiled_with_it():
    """numba caches a function by its source file, name and signature, not by the flags it was compiled with:
    Lianliankan's move order calls helpers that allocate (argsort_ints), compiled with reference counting and
    cached by the JIT module, and code built without reference counting must not find that version (it would
    compile, and leak what the helper allocates) but its own, which numba refuses. A module numba refused is
    refused again at the next load, not found half made."""
    from numba.core.errors import NumbaError

    from gridrules.compiled.codegen import for_board
    from gridrules.compiled.system import load_module

    inst = load("lianliankan", str(ROOT / "rulesets/lianliankan/levels/hdu1175-sample.txt"))[-1]
    source = system(inst, "compiled").source
    load_module(for_board(source, inst.rows, inst.cols))  # (its helpers compiled, and cached, with counting)
    for _ in range(2):
        with pytest.raises(NumbaError):
            load_module(for_board(source, inst.rows, inst.cols, refcounts=False))


def test_the_jit_runs_modules_without_reference_counting_unless_numba_refuses(tmp_path, monkeypatch):
    """numba's JIT runs a generated module without reference counting (codegen.without_refcounts: Flood-It,
    Bloxorz, Drops); Lianliankan's move order allocates, which numba refuses so: seen in the source
    (codegen.allocates), the module runs as generated, untried. Should numba refuse a module that source does not
    show, the refusal is noted beside the modules, the module runs as generated (its moves as the reference's),
    and later systems go straight to it."""
    import gridrules.compiled.system as compiled
    from gridrules.compiled import codegen
    from gridrules.compiled.codegen import without_refcounts

    floodit = load("floodit", str(ROOT / "rulesets/floodit/levels/hdu4127-sample.txt"))[-1]
    lean = system(floodit, "compiled")
    lean.successors(floodit.initial)
    assert lean.jit_source == without_refcounts(lean.source) and "_nrt=False" in lean.jit_source
    assert not codegen.allocates(lean.source)

    inst = load("lianliankan", str(ROOT / "rulesets/lianliankan/levels/hdu1175-sample.txt"))[-1]
    source = system(inst, "compiled").source
    assert codegen.allocates(source)
    monkeypatch.setattr(compiled, "_LEAN", {})
    assert compiled.jit_source(source) == source  # (counted from the start: no failed compile first)
    monkeypatch.setattr(codegen, "allocates", lambda source: False)  # (as if the source did not show it)
    note = compiled.refusal_note(compiled.module_file(source))  # (beside the generated module, as builds read it)
    if note.exists():  # (refused before, in this cache: moved aside, so that numba is asked again; made anew)
        note.replace(tmp_path / note.name)
    monkeypatch.setattr(compiled, "_LEAN", {})
    counted = system(inst, "compiled")
    assert counted.successors(inst.initial) == system(inst, "reference").successors(inst.initial)
    assert counted.jit_source == source and note.exists() and "reference counting" in note.read_text()
    monkeypatch.setattr(compiled, "_LEAN", {})
    assert compiled.jit_source(source) == source  # (the note is read: no second try)


def test_levels_that_differ_only_in_contents_generate_their_module_once(monkeypatch):
    """A file of many boards generates the module's source once per board size, parameters and heuristic
    (system._generated), and every board still solves as the reference backend solves it; the faults of each
    system name its own board."""
    import gridrules.compiled.system as compiled

    made = []

    def counting(inst, *args):
        made.append((inst.rows, inst.cols))
        return generate(inst, *args)

    generate = compiled.generate
    monkeypatch.setattr(compiled, "generate", counting)
    monkeypatch.setattr(compiled, "_GENERATED", PerRules())
    text = "3\n0 1 2\n1 1 2\n2 2 1\n3\n2 0 0\n1 2 0\n1 1 1\n4\n0 1 2 3\n1 1 2 3\n4 2 1 0\n5 5 5 1\n0\n"
    insts = [instance("floodit", text, index=k) for k in range(3)]
    systems = [compiled.CompiledSystem(inst) for inst in insts]
    assert made == [(3, 3), (4, 4)]
    assert systems[0].faults is systems[1].faults is not systems[2].faults
    assert [m for m, _, _ in systems[2].faults if "board" in m] and all(
        "4x4" in m for m, _, _ in systems[2].faults if "board" in m)
    compiled.CompiledSystem(insts[0], "colours_left")
    compiled.CompiledSystem(instance("floodit", text, {"colours": 7}, index=1))
    assert made == [(3, 3), (4, 4), (3, 3), (3, 3)]
    for inst, nat in zip(insts, systems):
        ref = system(inst, "reference")
        assert solve(nat, "astar").cost == solve(ref, "astar").cost == nat.search("astar").cost


MATCHES = """# Matches: remove two tiles of one colour, or step a tile down onto its neighbour's value. (Checks of one cell
# at an action's head, which the compiled backend reads once per cell: codegen.prefilter.)
game matches "Matches"

layer tile: 0..9

def colour(t: 0..9):
    require t != 7                  # a seven has no colour: no pair holds one
    return t % 3

action join(a: cell, b: cell) unordered "{a}-{b}" cost 12 / tile[a]:
    require tile[a] != 0 and colour(tile[a]) == colour(tile[b]) and tile[b] != 0
    require tile[a] + tile[b] != 9
    tile[a] = 0
    tile[b] = 0

action step(a: cell, b: cell) "{a}>{b}" cost 5:
    require tile[a] == tile[b] + 1 and adjacent(a, b)
    tile[a] = tile[b]

goal: empty(cells where tile != 0)

level numbers:
    * : tile = value
"""


@settings(max_examples=25)
@given(st.lists(st.lists(st.integers(0, 9), min_size=3, max_size=3), min_size=2, max_size=3),
       st.integers(0, 10**6))
def test_prefiltered_actions_agree(rows, seed):
    """Actions whose head checks one cell (`tile[a] != 0`) or equates one cell's value with another's are read
    per cell natively; the moves, costs (read only for legal moves: `12 / tile[a]` would divide by zero on an
    empty cell), rejections in a def (`colour(7)`) and searches agree with the reference."""
    level = "\n".join(" ".join(map(str, r)) for r in rows) + "\n"
    inst = instance_from_rules(MATCHES, level)
    ref, nat = walk_and_compare(inst, seed, steps=12)
    native_agrees(inst, nat, ref, ("bfs", "astar"))


def test_prefiltered_checks_keep_their_laziness_and_faults():
    """Head checks read per cell still run in the rule's order and only where the rule would run them: a check
    behind `tile[a] != 0` is not evaluated for an empty a (no fault), and where the rule faults both backends do."""
    from gridrules.errors import RuleRuntimeError

    rules = MATCHES.replace("require tile[a] != 0 and", "require tile[a] != 0 and 12 / tile[b] > 0 and")
    calm = instance_from_rules(rules, "0 0 0\n0 4 4\n")  # (every empty b comes after an empty a)
    assert system(calm, "compiled").legal_moves(calm.initial) == system(calm).legal_moves(calm.initial) == ["2,2-2,3"]
    faulty = instance_from_rules(rules, "4 0 4\n0 4 4\n")
    messages = []
    for backend in ("reference", "compiled"):
        with pytest.raises(RuleRuntimeError) as err:
            system(faulty, backend).successors(faulty.initial)
        messages.append(str(err.value))
    assert messages[0] == messages[1] and "division by zero" in messages[0]


LAZY = """game lazy "Lazy reads"
param far: int = 5
layer colour: 0..3
action paint(c: 0..3) "{c}" cost 1:
    let some = cells where colour == SOUGHT
    require empty(some where colour == colour[(far, far)])
    require empty(region(some, colour == colour[(far, far)]) - cells)
    require c != colour[(0, 0)]
    colour[(0, 0)] = c
goal: colour[(0, 0)] == 3
level grid:
    '0'..'3' : colour = value
"""


@pytest.mark.parametrize("sought, faults", [(9, False), (1, True)])
def test_a_test_per_cell_reads_what_it_compares_with_only_when_a_cell_is_tested(sought, faults):
    """`S where layer == x` and `region(p, layer == x)`, with an x that does not read `here`, read x once (the
    reference's _cell_test) and only when a cell is tested, as both backends always did: x off the board is no
    fault while no cell is tested (S empty, a region grown from no seed)."""
    from gridrules.errors import RuleRuntimeError

    inst = instance_from_rules(LAZY.replace("SOUGHT", str(sought)), "01\n23\n")
    spans = []
    for backend in ("reference", "compiled"):
        try:
            spans.append([text for text, _, _ in system(inst, backend).successors(inst.initial)])
        except RuleRuntimeError as err:
            spans.append((err.span.line, err.span.col))
    assert spans[0] == spans[1] == ((6, 40) if faults else ["1", "2", "3"])


HOISTED = """game hoisted "A let worked out once a state"
param far: int = 0
layer colour: 0..3
action paint(c: 0..3, p: cell) "{c}@{p}" cost 1:
    require HEAD
    let mine = region((0, 0), colour == colour[(far, far)])
    let rim = neighbours(mine)
    require any(rim)
    require p in rim
    colour[mine] = c
    colour[p] = c
goal: distinct(cells, colour) == 1
level grid:
    '0'..'3' : colour = value
"""


@pytest.mark.parametrize("far, head, expect", [
    (0, "colour[p] != c", "agrees"),
    (5, "colour[p] != c", "faults"),  # (the let reads off the board once a move gets that far)
    (5, "colour[p] == 9", "nothing"),  # (no move gets that far: the let is never worked out)
])
def test_leading_lets_that_read_no_parameter_are_worked_out_once_a_state_and_only_when_a_move_needs_them(
        far, head, expect):
    """codegen.once_prefix: `mine` and `rim` read no parameter, so expand works them out at most once a state
    (once_0), at the first move past its head; the moves, faults and searches are the reference's."""
    from gridrules.compiled.system import CompiledSystem
    from gridrules.errors import RuleRuntimeError

    rules = HOISTED.replace("HEAD", head)
    inst = instance_from_rules(rules, "0120\n1102\n3321\n", {"far": far})
    assert "def once_0(" in CompiledSystem(inst).source
    if expect == "agrees":
        ref, nat = walk_and_compare(inst, 1, steps=12)
        native_agrees(inst, nat, ref, ("bfs", "astar"))
        return
    found = []
    for backend in ("reference", "compiled"):
        try:
            found.append(system(inst, backend).legal_moves(inst.initial))
        except RuleRuntimeError as err:
            found.append((err.span.line, err.span.col))
    assert found[0] == found[1] == ((6, 41) if expect == "faults" else [])


def test_a_heuristic_below_zero_is_the_same_in_both_backends():
    """A guide that goes negative (a heuristic need not be a bound) is not clamped to 0 by the compiled backend:
    both give its value, so both rank states alike."""
    rules = """game slope
global n: 0..9
action up() "+":
    require n < 9
    n += 1
goal: n == 9
heuristic lean: 2 - n
heuristic floor admissible: 0
level grid:
    '.': pass
"""
    inst = instance_from_rules(rules, ".\n")
    ref, nat = system(inst, "reference", "lean"), system(inst, "compiled", "lean")
    state, seen = inst.initial, []
    while True:
        assert ref.heuristic(state) == nat.heuristic(state)
        seen.append(nat.heuristic(state))
        nxt = ref.successors(state)
        if not nxt:
            break
        state = nxt[0][1]
    assert seen == [2 - n for n in range(10)]
    assert system(inst, "compiled").heuristic(inst.initial) == 0  # the admissible ones: only `floor`


# Natively a set lives in a scratch row of the place in the code that made it (codegen.Lowering.row), written
# again each time that place runs: every way a value could outlive its row must keep its own value.
SET_VALUES = """\
game set_values "set values that must not share storage"
layer colour: 0..2
global seen: 0..255

def ring(p: cell):
    return neighbours(p) | p

action paint(p: cell) "{p}":
    let c = (colour[p] + 1) % 3
    let both = ring(p) | ring(p + R)                 # one def, two calls, one expression
    let grown = region(p, colour == colour[p])
    let kept = cells where false
    for k in 0..2:
        let ring_k = neighbours(grown) where colour == k # the same place every turn
        if k == colour[p]:
            kept = ring_k                                # must keep this turn's value
        grown = grown | ring_k
    let n = 0
    for turn in 0..1:
        for q in grown:                                  # reads grown as it was when the loop began...
            n += 1
            grown = grown | neighbours(q)                # ...though this (the second turn) rewrites its row
    let zone = region(p, colour != c)                    # a condition that is not `layer == value`
    seen = (n + 7 * count(kept) + 31 * count(grown) + 3 * count(zone & both)) % 256
    colour[(both & zone) | kept] = c

goal: distinct(cells, colour) == 1

level grid:
    '0'..'2' : colour = value
"""


@settings(max_examples=8, deadline=None)
@given(digit_grids(2, 9, 9), st.integers(0, 10**6))
def test_set_values_keep_their_own_storage(board, seed):
    """Two calls of a def in one expression, a variable set in a loop and kept past it, a loop over a set its
    body sets, and a region with a general condition: the same walks on a 9x9 board (two words a set)."""
    walk_and_compare(instance_from_rules(SET_VALUES, board), seed, steps=6)


# Natively `for p in cells(b)`, `cells(b) where COND` and any/empty of such a set walk the body's covered cells
# (codegen._open_set_loop) in reading order, as the set would; this L-shaped piece lists its cells out of order.
BODY_ORDER = """\
game body_order "a body whose cells are listed out of reading order"
layer mark: 0..3
global trace: 0..80
body piece:
    pose ell: (1, 1) (0, 0) (1, 0)
    pose bar: (0, 1) (0, 0)
    roll ell: L -> bar (0, -1), R -> bar (0, 1), U -> bar (-1, 0), D -> bar (1, 0)
    roll bar: L -> ell (0, -1), R -> ell (0, 1), U -> ell (-1, 0), D -> ell (1, 0)

action roll(d: dir) "{d}":
    piece = roll(piece, d)
    require on_board(piece.at)
    let t = 0
    let shape = piece
    for p in cells(shape):                               # order matters: 3t + mark, cell by cell
        t = (3 * t + mark[p] + 1) % 81
        mark[p] = (mark[p] + 1) % 4
        shape = roll(shape, R)                           # the loop walks the cells it began with
    trace = t
    require not any(cells(piece) where mark == 0 and here.col == 0)
    require count(cells(piece) where mark != 3) >= 1

goal: trace == 40

init:
    piece = ell at (0, 0)

level grid:
    '0'..'3' : mark = value
"""


@settings(max_examples=15, deadline=None)
@given(digit_grids(3, 4, 4), st.integers(0, 10**6))
def test_body_cells_walked_in_reading_order(board, seed):
    walk_and_compare(instance_from_rules(BODY_ORDER, board), seed, steps=15)


# Value masks (`layer == v` as sets) read from the packed state in heuristics, and `distinct` and `group` read
# from the masks once they are known, against the reference.
MASKS = """\
game masks "value masks"
enum hue = red, green, blue
layer level: 2..6
layer hue: hue
layer lit: bool
layer mark: cell

action bump(p: cell) "{p}":
    let same = cells where level == level[p]        # the value masks, known before the group's edges
    let g = group(p, level)
    require distinct(same | g, hue) >= 1
    level[g] = (level[p] - 1) % 5 + 2
    lit[p] = not lit[p]

action paint(p: cell) "paint {p}":
    mark[p] = (0, 0)
    if hue[p] == red:
        hue[p] = green
    elif hue[p] == green:
        hue[p] = blue
    else:
        hue[p] = red

goal: empty(cells where level != 2) and not (lit[(0, 0)] and hue[(0, 0)] == blue)

heuristic levels:
    return distinct(cells, level) + 2 * count(cells where level == 4) + level[(0, 0)]

heuristic hues:                                      # (cells of each kind of layer read alone)
    let g = group((0, 0), hue)
    let extra = 0
    if hue[(rows - 1, cols - 1)] == blue:
        extra = 7
    if lit[(0, cols - 1)]:
        extra += 11
    if mark[(rows - 1, 0)] == (0, 0):
        extra += 13
    return 3 * count(g) + distinct(g, level) + count(cells where hue == blue) + extra

heuristic lights:
    let first = cells where lit
    return count(group(first, lit)) + distinct(cells - first, hue) + 5 * count(first)

heuristic edges_first:
    let g = group((rows - 1, 0), level)              # the edges before any value mask
    return count(g) + count(cells where level == 6) + distinct(g, hue)

level grid:
    '2'..'6' : level = value + 2
"""


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 5), st.integers(1, 14), st.data(), st.integers(0, 10**6))
def test_value_masks_read_from_rows_and_from_packed_states_agree(rows, cols, data, seed):
    """Heuristics and goals read a layer's value masks, and single cells, from the packed state's bit planes
    (int, enum, bool and cell layers; boards of one and two words), and `distinct` and `group` read them from
    the masks when they are known, in heuristics and in actions: every heuristic alone gives the reference's
    value along a walk, and so does the goal."""
    grid = data.draw(st.lists(st.text("23456", min_size=cols, max_size=cols), min_size=rows, max_size=rows))
    inst = instance_from_rules(MASKS, "\n".join(grid) + "\n")
    walk_and_compare(inst, seed, steps=6)
    each_heuristic_agrees(inst, seed, steps=6)


def walk_random_grid(rules, alphabet, data, rows, cols, seed, steps):
    """Both backends alike along a walk, and every heuristic alone, on a random grid of these characters."""
    grid = data.draw(st.lists(st.text(alphabet, min_size=cols, max_size=cols), min_size=rows, max_size=rows))
    inst = instance_from_rules(rules, "\n".join(grid) + "\n")
    walk_and_compare(inst, seed, steps=steps)
    each_heuristic_agrees(inst, seed, steps=steps)


def each_heuristic_agrees(inst, seed, steps):
    """Along a random walk, every heuristic alone (and the goal) gives the reference's value natively."""
    ref = system(inst, "reference")
    systems = [(system(inst, "reference", h.name), system(inst, "compiled", h.name)) for h in inst.game.heuristics]
    rng, state = random.Random(seed), inst.initial
    for _ in range(steps):
        assert [r.heuristic(state) for r, _ in systems] == [n.heuristic(state) for _, n in systems]
        assert {r.is_goal(state) for r, _ in systems} == {n.is_goal(state) for _, n in systems}
        moves = ref.successors(state)
        if not moves:
            break
        state = rng.choice(moves)[1]


# `group` over a layer (natively: the layer's equal edges, memoized until the layer is written) and over any other
# value (read at every cell), and conditions `here in S`, against the reference.
GROUPS = """\
game groups "groups of equal neighbours"
layer colour: 0..3

action pop(p: cell) "{p}":
    let g = group(p, colour)
    require count(g) >= 2
    let parity = group(p | (0, 0), colour % 2 == 0)      # a value that is no layer: read at every cell
    colour[g] = (colour[p] + 1) % 4
    let again = group(p, colour)                         # after the store: the edges are worked out again
    if count(again) > count(parity):
        colour[again & parity] = 0
    colour[p & (p + R)] = 3                              # two cells: the empty set
    if path(p, (rows - 1, cols - 1), here in g, 2) or count(cells where here in parity) > 40:
        colour[(rows - 1, cols - 1)] = 2                 # (`here in S`: natively S itself)
    require not any(neighbours(g) where here in again)

goal: count(group((0, 0), colour)) == rows * cols

level grid:
    '0'..'3' : colour = value
"""


@settings(max_examples=15, deadline=None)
@given(digit_grids(3, 8, 9), st.integers(0, 10**6))
def test_groups_agree(board, seed):
    walk_and_compare(instance_from_rules(GROUPS, board), seed, steps=10)


# A variable set to a flood (`group`, or `region` of `layer == value`) is made in the variable's own row natively
# (codegen._grows_into) unless the flood reads the variable: floods set in loops, from each other, after a copy,
# and from themselves, against the reference.
FLOOD_LOCALS = """\
game flood_locals "variables set to floods"
layer colour: 0..2
layer seen: bool

action look(p: cell) "{p}":
    require not seen[p]
    let g = group(p, colour)
    let kept = g                                           # a copy: later floods must not change it
    let r = region(p, colour == colour[p])
    let i = 0
    while i < 3:
        let u = group(neighbours(r), colour)               # one row, made again each round
        g = group(neighbours(u) - r, colour)               # from another flood variable
        r = region(r | neighbours(u), colour == colour[p]) # from itself: a scratch row and a copy
        kept = kept | (g & u)
        i += 1
    seen[kept] = true
    seen[r - g] = true
    require count(cells where seen) > count(g) or any(neighbours(r) where not seen)

heuristic spread:
    let taken = cells where seen
    let layers = 0
    while any(cells - taken) and layers < 9:
        let reached = group(neighbours(taken), colour)     # as Flood-It's bound does
        let twice = group(reached, colour)                 # from another flood variable
        taken = taken | twice
        layers += 1
    return layers * 100 + count(taken)

goal: empty(cells where not seen)

level grid:
    '0'..'2' : colour = value
"""


@settings(max_examples=15, deadline=None)
@given(st.data(), st.integers(0, 10**6))
def test_floods_made_in_their_variables_rows(data, seed):
    walk_random_grid(FLOOD_LOCALS, "012", data, 6, 7, seed, steps=8)


# A static layer's value masks and equal edges are worked out once a level (system._static_rows), a bool layer
# read alone, `S where lit` or `S where not lit`, is its value mask, and `and`, `or` and `not` of such conditions
# are word operations (codegen._mask_condition): sets of these kinds in actions, heuristics and the goal,
# against the reference.
STATIC_MASKS = """\
game static_masks "static layers and bool layers as masks"
enum ground = sand, rock, water
layer height: 1..4 static
layer soil: ground static
layer wet: bool static
layer lit: bool

action light(p: cell) "{p}":
    require not lit[p]
    let dry = cells where not wet
    let patch = region(p, height == height[p]) & dry   # a static layer's value mask, and a static bool's
    require any(patch)
    lit[patch] = true
    lit[group(p, soil) & (cells where soil == rock or wet)] = true
    if count(cells where lit) > count(cells where wet):
        lit[region(p, lit) - patch] = false           # a dynamic bool layer's flood

action dim(c: 1..4) "dim {c}":
    let on = cells where lit
    require any(on where height == c)
    lit[on where height == c] = false
    lit[neighbours(on) where wet and not lit] = true

goal: empty(cells where not lit) or distinct(cells where lit, soil) == 3

heuristic dark: count(cells where not lit)

heuristic kinds:
    let off = cells where lit == false
    let odd = count(cells where not (lit or wet) and not (soil == sand))
    odd += count(cells where here in off and height == 2)
    return distinct(off, height) + distinct(off, soil) + count(group(off, height)) + count(off where wet) + 7 * odd

level grid:
    '0'..'3' : height = value + 1
    'a'..'d' : height = value + 1; soil = rock
    'w' : wet = true; soil = water
"""


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 5), st.integers(1, 14), st.data(), st.integers(0, 10**6))
def test_static_layer_masks_and_bool_layer_masks_agree(rows, cols, data, seed):
    walk_random_grid(STATIC_MASKS, "0123abcdw", data, rows, cols, seed, steps=8)


# Conditions that differ from a value (`layer != v`: the complement of `==`'s mask), values worked out once from
# sums and differences (`5 - k`), `here in` set operations, and a layer of many values read from a packed state
# one value at a time (codegen._ONE_MASK): word operations, against the reference, in actions, heuristics and the
# goal; values outside the layer's domain included.
UNEQUAL = """\
game unequal "conditions by the word"
layer size: 0..4
layer tile: 0..39
layer lit: bool

action drip(p: cell) "{p}":
    require size[p] != 0
    size[p] = (size[p] + 1) % 5
    tile[cells where tile != tile[p] and size == 0] = (tile[p] + 7) % 40
    lit[(cells where size != 5 - size[p]) - p] = not lit[p]

action swap(k: 1..4) "swap {k}":
    let big = cells where size == 5 - k
    require any(big)
    lit[big | (cells where here in (big | (cells where lit)) - (cells where size != 2 * k - 3))] = true
    size[big] = k - 1

# (q may be off the board: the reference reads tile[q] only at cells it tests, none of an empty set, so native
# code must not read it once beforehand)
action probe(p: cell) "probe {p}":
    let q = p + R
    require empty((cells where size == 5) where tile != tile[q])
    require empty((cells where lit and not lit) where tile == tile[q])
    require tile[p] != 39
    tile[p] = 39

goal: empty(cells where size != 0) or count(cells where tile != 0 and tile != 39) == 0

heuristic first:
    for k in 1..4:
        if any(cells where size == 5 - k):
            return k
    return 0

heuristic tiles: count(cells where tile != 0) + count(cells where tile == 3 * 3 + 1) + count(cells where tile != -1)

heuristic mixed: count(cells where not (size != 0) or lit != false) + count(cells where tile == 40 + 0)

level grid:
    '0'..'4' : size = value; tile = value * 9
"""


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 5), st.integers(1, 14), st.data(), st.integers(0, 10**6))
def test_unequal_conditions_sums_and_many_valued_layers_agree(rows, cols, data, seed):
    walk_random_grid(UNEQUAL, "01234", data, rows, cols, seed, steps=8)


def test_unequal_conditions_and_sums_are_read_by_the_word():
    """The heuristics and the goal of UNEQUAL read no cell one by one: `!=` and `5 - k` are masks, and the tile
    layer's 40 codes give one value's mask at a time (its planes ANDed), not all 40."""
    sys_ = system(instance_from_rules(UNEQUAL, "0123\n4012\n"), "compiled")
    source = sys_.source
    for name in ("h_0", "h_1", "h_2", "_goal"):
        body = source.split(f"def {name}(")[1].split("\n@njit")[0]
        assert "plane_code" not in body and "bit_index" not in body, name
    assert source.count("rt.plane_mask(") >= 3 and "rt.plane_masks(" in source



# `here.row == v` and `here.col == v` (either way round, `!=`, below and/or/not) are the board's rows and columns
# as masks, whatever v is: a parameter, a local, a loop cell's or a move's cell's row, a row off the board.
LINES = """\
game lines "rows and columns"
param band: int = 1
layer v: 0..3

action bump(c: cell) "{c}":
    v[c] = (v[c] + 1) % 4
    if v[c] == 0:
        v[cells where here.row == c.row and v != 0 and here.col != c.col + 1] = 1

action sweep(r: 0..5) "row {r}":
    require any(cells where here.row == r and v == 3)
    v[cells where r == here.row or here.col == r - 1] = 2

goal: empty(cells where v != 0)

heuristic crossing:
    let left = cells where v != 0
    let t = 0
    for x in left:
        t += count(left where here.row == x.row or here.col == x.col)
        t += count(cells where here.col != x.col and not (here.row == band))
    return t

heuristic edges: count(cells where here.row == rows - 1 or here.col == -1 or cols == here.col or here.row == 7)

level grid:
    '0'..'3' : v = value
"""


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 5), st.integers(1, 14), st.data(), st.integers(0, 10**6))
def test_rows_and_columns_agree(rows, cols, data, seed):
    walk_random_grid(LINES, "0123", data, rows, cols, seed, steps=8)


def test_rows_and_columns_are_read_by_the_word():
    """A condition on `here.row` or `here.col` reads a row of BM (system._work ends BM with the board's rows and
    columns), not the cells one by one."""
    sys_ = system(instance_from_rules(LINES, "0123\n3012\n"), "compiled")
    for name in ("h_0", "h_1", "act_0", "act_1"):
        body = sys_.source.split(f"def {name}(")[1].split("\n@njit")[0]
        assert "BM.shape[0] - ROWS - COLS" in body and "rt.add(" not in body, name
    bm = sys_.work[4]
    assert [int(w) for w in bm[-6:, 0]] == [0b1111, 0b11110000, 0b10001, 0b100010, 0b1000100, 0b10001000]

# `none` and bodies at none, and `fail` after the state is packed: both backends alike (a differential fuzzing
# helper found each apart: the compiled backend kept a column beside a none row, so `none + d == none` was false;
# it refused `.at` of a body at none; it tested `fail` before packing, so an off-board cell passed silently; the
# reference crashed on `cells`, `on_board` and `roll` of a body at none).
NONES = """\
game nones "none and unplaced bodies"
body block:
    pose up: (0, 0)
    pose flat: (0, 0) (0, 1)
    roll up: L -> flat (0, -2), R -> flat (0, 1), U -> up (-1, 0), D -> up (1, 0)
    roll flat: L -> up (0, -1), R -> up (0, 2), U -> flat (-1, 0), D -> flat (1, 0)
global me: cell
global n: 0..15
layer wall: bool static
action probe() "probe":
    require n == 0
    let c = 0
    if me + R == me + L and me - (1, 1) == none and me + (me - me) == none:
        c += 1
    if block.at == none and empty(cells(block)) and not on_board(block):
        c += 2
    if roll(block, U) == block and roll(block, L).at == none:
        c += 4
    n = c + 8
action place(p: cell) "{p}":
    require n >= 8 and block.at == none
    block = up at p
    me = p
action walk(d: dir) "{d}":
    require block.at != none and on_board(me + d) and on_board(roll(block, d))
    me = me + d
    block = roll(block, d)
fail: me != none and (wall[me] or not on_board(block))
goal: n >= 8 and block.at != none and block.pose == flat
level grid:
    '.' : pass
    '#' : wall = true
"""


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 3), st.integers(1, 5), st.data(), st.integers(0, 10**6))
def test_none_cells_unplaced_bodies_and_fail_after_packing_agree(rows, cols, data, seed):
    grid = data.draw(st.lists(st.text(".#", min_size=cols, max_size=cols), min_size=rows, max_size=rows))
    inst = instance_from_rules(NONES, "\n".join(grid) + "\n")
    walk_and_compare(inst, seed, steps=8)
    ref = system(inst, "reference")
    (move, state, _), = ref.successors(inst.initial)
    assert move == "probe" and ref.inst.values(state)["n"] == 15  # (every test of none held)


def test_fail_is_tested_after_the_state_is_packed():
    """A cell stored off the board is a run-time error of the move, before `fail` reads the state: the compiled
    backend tested `fail` first, and `fail: not on_board(me)` dropped the move silently."""
    rules = """\
game offb
global me: cell
action step(d: dir) "{d}":
    me = me + d
goal: me == (0, 1)
fail: not on_board(me)
init:
    me = (0, 0)
level grid:
    '.': pass
"""
    inst = instance_from_rules(rules, "..\n")
    messages = []
    for backend in ("reference", "compiled"):
        with pytest.raises(RuleRuntimeError) as err:
            system(inst, backend).successors(inst.initial)
        messages.append(err.value.render())
    assert messages[0] == messages[1] and "`me` would be stored holding a cell outside the 1x2 board" in messages[0]


# What no move of a level stores is the level's (instance._written): kept out of the state, read by both backends
# as a static thing. A def's stores count whether or not an action of the level calls it.
FROZEN = """\
game frozen "what no move stores"
param paint: bool = false
layer colour: 0..3
layer mark: bool
global ticks: 0..9
global target: 0..3 = 2

def unmark(p: cell):
    mark[p] = false

action tick(p: cell) "{p}" when not paint:
    require not mark[p] and colour[p] != target
    mark[p] = true
    ticks = min(ticks + 1, 9)

action repaint(p: cell, c: 0..3) "{p}={c}" when paint:
    require colour[p] != c
    colour[p] = c
    unmark(p)

goal: (not paint and ticks == 3) or (paint and empty(cells where colour != target))

heuristic left: count(cells where colour != target and not mark) + ticks

level grid:
    '0'..'3' : colour = value
"""


@pytest.mark.parametrize("paint, dynamic, words", [(False, ("mark", "ticks"), 2), (True, ("colour", "mark"), 3)])
def test_what_no_move_of_a_level_stores_is_not_part_of_its_state(paint, dynamic, words):
    inst = instance_from_rules(FROZEN, "0123\n3210\n", {"paint": paint})
    assert inst.dynamic == dynamic
    assert set(inst.statics) == {"colour", "mark", "ticks", "target"} - set(dynamic)
    assert inst.layout.words == words  # (4 with everything in the state: colour's two planes, mark's, a word of fields)
    for seed in range(3):
        walk_and_compare(inst, seed, steps=6)
    costs = {backend: solve(system(inst, backend), "bfs").cost for backend in ("reference", "compiled")}
    assert costs == {"reference": 3 if not paint else 6, "compiled": 3 if not paint else 6}


COSTLY = """
game costly
param price: int = 1
global n: 0..5
action step() "s" cost price:
    n = n + 1
goal: n == 3
heuristic left admissible:
    return 3 - n
level grid:
    '.' : pass
"""


@pytest.mark.parametrize("algorithm", ["bfs", "astar", "idastar", "iddfs"])
def test_a_cost_past_64_bits_is_refused_by_native_searches_and_counted_by_the_reference(algorithm):
    """Three moves of 2^62 - 1 each cost more than 2^63 - 1: the native searches say so (their sums would wrap
    and a wrapped sum, once a parent's cost, made the path a loop) and the reference counts the cost exactly."""
    from gridrules import api
    from gridrules.errors import UsageError

    inst = instance_from_rules(COSTLY, ".", {"price": 2**62 - 1})
    with pytest.raises(UsageError, match=r"a path's cost passed 9,223,372,036,854,775,807 \(2\^63 - 1\), more "
                                         r"than native code counts; `--backend reference` counts any cost"):
        api.solve(system(inst, "compiled"), algorithm)
    sol = api.solve(system(inst, "reference"), algorithm)
    assert sol.status == SOLVED and sol.cost == 3 * (2**62 - 1) and sol.moves == ("s", "s", "s")
    cheaper = instance_from_rules(COSTLY, ".", {"price": 2**61})
    assert api.solve(system(cheaper, "compiled"), algorithm).cost == 3 * 2**61


def test_a_goal_that_fits_in_64_bits_is_found_when_its_cost_plus_a_move_would_not():
    """BFS tests goals as they are made and asks, at each state it takes, whether a cheaper goal could still come
    (the goal's cost against the state's plus the cheapest move's: that sum wrapped past 2^63 - 1)."""
    from gridrules import api

    rules = COSTLY.replace('action step() "s" cost price:\n    n = n + 1',
                           'action step() "s" cost price:\n    n = n + 2\n'
                           'action jump() "j" cost price + price / 2:\n    n = n + 1').replace("n == 3", "n == 1")
    inst = instance_from_rules(rules, ".", {"price": 2**62})
    for backend in ("compiled", "reference"):
        sol = api.solve(system(inst, backend), "bfs")
        assert (sol.status, sol.cost, sol.moves) == (SOLVED, 2**62 + 2**61, ("j",))


def test_a_generated_module_that_makes_arrays_is_seen_to_in_its_source():
    """codegen.allocates: a compiled function of the module that makes an array (NumPy, a copy, or a runtime helper
    that makes one, itself or through another) — not an `_at` entry, which keeps its counting, nor a constant
    made at import."""
    from gridrules.compiled import codegen

    helpers = codegen._allocating_helpers()
    assert {"argsort_ints", "sort_ints", "search_order", "empty_set"} <= helpers
    assert not {"copy_state", "group_into", "border_into", "borrow", "bit_index", "take_emitted",
                "sort_in_place"} & helpers
    head = "import numpy as np\nGAP = np.array([2, 1], np.int64)\n"
    for body, expected in (("x = np.empty(3, np.int64)", True), ("y = s.copy()", True),
                           ("rt.argsort_ints(K, n, O)", True), ("rt.copy_state(a, b, c, d)", False),
                           ("return s[0] + GAP[1]", False)):
        assert codegen.allocates(f"{head}\n@njit(cache=True)\ndef expand(s):\n    {body}\n") is expected, body
        assert not codegen.allocates(f"{head}\n@njit(cache=True)\ndef expand_at(s):\n    {body}\n"), body
        # only what the entry points reach is compiled: a heuristic left unchosen does not count
        reached = f"{head}\ndef h_0(s):\n    {body}\n\ndef heuristic(s):\n    return h_0(s)\n"
        assert codegen.allocates(reached) is expected, body
        assert not codegen.allocates(reached.replace("return h_0(s)", "return 0")), body


def test_a_stopped_deepening_search_never_reports_a_bound_its_solution_in_hand_reaches():
    """IDA* (here without a heuristic: cost-bounded deepening) on JUMP with ticks past 255 that lead nowhere: it
    meets the goal (cost 258) while its bound is 255 and keeps it through the bounds 256 and 257; stopped once
    the bound is 258, that bound proves the goal in hand optimal. Both backends answer alike at every stop."""
    rules = JUMP.replace("TICKS", "255").replace(
        "goal:", 'action tock() "k":\n    require n >= 255 and n < 400\n    n += 1\ngoal:')
    inst = instance_from_rules(rules, ".\n")
    nat, ref = system(inst, "compiled"), system(inst, "reference")
    seen = set()
    for states in range(32800, 33700, 20):
        mine, oracle = nat.search("idastar", Budget(max_states=states)), solve(ref, "idastar", Budget(max_states=states))
        assert (mine.status, mine.cost, mine.optimal, mine.bound) == (oracle.status, oracle.cost, oracle.optimal,
                                                                      oracle.bound), states
        assert mine.moves is None or mine.cost == 258
        assert mine.status == SOLVED or mine.moves is None or mine.bound < mine.cost
        seen.add((mine.status, mine.moves is not None))
    assert {("budget_exhausted", True), (SOLVED, True)} <= seen  # (stops with the goal in hand, and proofs)


# After a move copies its parent, a layer's value masks come from the parent's bit planes until a store to the
# layer (codegen `masks`, P_layer): reads before any store, in a loop that stores, after a store, and after a
# def that stores.
AFTER_COPY = """game after_copy
layer v: 0..3

def settle(c: cell):
    v[c] = 0

action poke(c: cell) "{c}":
    require v[c] != 0
    if count(cells where v == 3) > 1:
        v[c] = v[c] - 1
    for d in neighbours(c):
        if count(cells where v == 0) > 2:
            v[d] = (v[d] + 1) % 4
    if count(cells where v == 2) == 1:
        settle(c)
        if any(cells where v == 1):
            v[c] = 1

goal: empty(cells where v != 0)

level grid:
    '0'..'3': v = value
"""


@settings(max_examples=25, deadline=None)
@given(digit_grids(3, 3, 4), st.integers(0, 10**6))
def test_masks_read_after_the_copy_see_every_store(board, seed):
    inst = instance_from_rules(AFTER_COPY, board)
    _, nat = walk_and_compare(inst, seed)
    assert "if P_v else" in nat.source  # (the masks before a store are the parent's planes)


# A layer that moves store only as sets is kept in bit planes through a move (codegen.plane_layers): several
# planes (0..5), stored as a set, then read cell by cell and as masks in the same move, and read before the move's
# copy; a second copy of the rules also reads it cell by cell in a def that a move calls, which keeps it as rows.
PAINTER = """game painter
layer paint: 0..5
layer wall: bool static
global last: 0..5

action brush(p: cell, c: 0..5) "{p}:{c}":
    require not wall[p] and paint[p] != c
    let blob = region(p, paint == paint[p] and not wall)
    paint[blob] = c
    require paint[p] == c
    if any((cells where paint == c and not wall) - (cells where paint == last)):
        last = c
    else:
        paint[cells where paint == 0 and not wall] = 5

goal: distinct(cells where not wall, paint) == 1

level grid:
    '#': wall = true
    '0'..'5': paint = value
"""
PAINTER_DEF = PAINTER.replace("""    if any((cells""", """    if odd(p) and any((cells""").replace(
    "goal:", "def odd(q: cell):\n    return paint[q] % 2 == 1\n\ngoal:")


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 5), st.integers(2, 9), st.integers(0, 10**6))
def test_a_layer_moves_store_as_sets_is_kept_in_planes_and_agrees_with_the_reference(rows, cols, seed):
    from gridrules.compiled.codegen import generate
    from gridrules.reference.system import interpreter

    rng = random.Random(seed)
    board = "".join("".join(rng.choice("0123451#") for _ in range(cols)) + "\n" for _ in range(rows))
    for rules, kept in ((PAINTER, {"paint"}), (PAINTER_DEF, set())):
        inst = instance_from_rules(rules, board)
        low = generate(inst, None, interpreter(inst))[1]
        assert set(low.in_planes) == kept
        walk_and_compare(inst, seed, steps=10)


def test_flood_it_keeps_its_flooded_region_in_planes():
    """Flood-It's moves store `flooded` only as a set: expand never decodes it, and a move neither copies nor
    encodes it a cell at a time (14x14 boards: ~1.2x, bench/README.md)."""
    from gridrules.compiled.codegen import generate
    from gridrules.reference.system import interpreter

    inst = load("floodit", ROOT / "rulesets/floodit/levels/hdu4127-sample.txt")[1]
    source, low, _ = generate(inst, None, interpreter(inst))
    assert set(low.in_planes) == {"flooded"} and not low.stale
    assert "_decode_moving(s, " in source and "rt.plane_store(" in source and "copy_state" not in source


@pytest.mark.parametrize("board", ["012\n120\n", "0#1\n210\n", "0101\n1010\n"])
def test_the_native_searches_over_a_layer_kept_in_planes_agree_with_the_python_ones(board):
    inst = instance_from_rules(PAINTER, board)
    native_agrees(inst, system(inst, "compiled"), system(inst, "reference"))


def test_a_game_whose_moves_store_nothing_has_moves_natively_too():
    """Found by tests/test_random_rules.py: where no move stores anything, a state is no words at all, and the
    compiled backend listed no successors (zip of no words ended the listing) while the reference lists each
    legal move."""
    rules = """game idle "moves that change nothing"
layer a: 0..3
action wait(v: 0..2) "wait {v}":
    require v != 1 or a[(0, 0)] == 2
goal: a[(0, 0)] == 3
level grid:
    '0'..'3': a = value
"""
    for level, found in (("2\n", ["wait 0", "wait 1", "wait 2"]), ("1\n", ["wait 0", "wait 2"])):
        inst = instance_from_rules(rules, level)
        ref, nat = system(inst, "reference"), system(inst, "compiled")
        assert inst.initial == ()
        assert sorted(nat.successors(inst.initial)) == sorted(ref.successors(inst.initial))
        assert [m for m, _, _ in nat.successors(inst.initial)] == found
        assert nat.legal_moves(inst.initial) == ref.legal_moves(inst.initial)
        native_agrees(inst, nat, ref)


def test_entry_points_decode_only_the_globals_they_read():
    """goal and heuristic decode just the fields of the globals their code (and what it calls) reads, when every
    read is a constant slot of g: Bloxorz's read the block and `cube`, not its 26 bridges. Anything the source
    cannot tell (an element of an array global, g handed on under another name or to the runtime, a layer's
    row) keeps the whole _decode."""
    import ast

    from gridrules.compiled.codegen import _slots_read, generate
    from gridrules.reference.system import interpreter

    def slots(source: str, names=("_goal",)):
        tree = ast.parse(source)
        return _slots_read({f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}, list(names))

    assert slots("def _goal(g, SG):\n    return g[26] == 0 and helper(1, g)\n"
                 "def helper(k, g):\n    return g[26 + 2] > k\n") == {26, 28}
    assert slots("def _goal(g):\n    j = 3\n    return g[j]\n") is None  # (an array global's element)
    assert slots("def _goal(g):\n    return rt.anything(g)\n") is None
    assert slots("def _goal(g):\n    return helper(g)\ndef helper(h):\n    return h[0]\n") is None
    assert slots("def _goal(g, D):\n    return g[0] + D[0, 1]\n") is None
    assert slots("def h_0(g):\n    return g[4]\ndef h_1(g):\n    return g[7]\n", ("h_0", "h_1")) == {4, 7}

    inst = load("bloxorz", ROOT / "rulesets/bloxorz/levels/level33.txt")[0]
    source, low, _ = generate(inst, None, interpreter(inst))
    assert low.decoders == {"goal": "_decode_goal", "heuristic": "_decode_heuristic"}
    goal_decoder = source[source.index("def _decode_goal"):source.index("@njit", source.index("def _decode_goal"))]
    block, cube, bridges = (low.gslots[name][1] for name in ("block", "cube", "present"))
    decoded = {int(k) for k in re.findall(r"g\[(\d+)\] =", goal_decoder)}
    assert decoded == {block, block + 1, block + 2, cube, cube + 1} and bridges not in decoded


def test_extension_code_inlines_what_expand_calls_for_each_move():
    """codegen.inlined: a move's parts and the state's decoding and encoding are inlined where called, and the
    `def`s that call no generated function while their copies stay small; a `def` that calls another, calls
    itself, or would be copied past _COPIES lines stays a call, as do the entry points."""
    from gridrules.compiled import codegen

    def module(*functions):
        return "".join(f"@njit(cache=True)\ndef {name}(g):\n{body}\n\n" for name, body in functions)

    def inline(source):
        return set(re.findall(r'inline="always"\)\ndef (\w+)', codegen.inlined(source)))

    leaf, calls = "    return g[0]", "    return def_leaf(g)"
    assert inline(module(("act_0", calls), ("head_0", leaf), ("_encode", leaf), ("def_leaf", leaf),
                         ("def_caller", calls), ("def_self", "    return def_self(g)"), ("expand", "    return act_0(g)"),
                         ("h_0", leaf))) == {"act_0", "head_0", "_encode", "def_leaf"}
    big = "\n".join(["    x = g[0]"] * 150) + "\n    return x"
    many = [(f"act_{k}", "    return def_big(g)") for k in range(4)]
    assert inline(module(("def_big", big), *many)) == {f"act_{k}" for k in range(4)}  # (3 copies of 150 lines)
    assert "def_big" in inline(module(("def_big", big), *many[:3]))
    assert codegen.inlined(module(("act_0", leaf))).count('inline="always"') == 1


ENDLESS = """game loop "Endless chain"
global k: 0..2
particle ball:
    timing: unit
    stop: true
    hit: bounce
def bounce(c: cell, n: int):
    emit ball(c)
action go() "go":
    emit ball((0, 0))
goal: k == 2
level grid:
    '.' : pass
"""


def test_a_chain_reaction_past_its_limit_is_the_same_error_wherever_the_moves_are_listed():
    """The compiled backend's moves listed from Python (the anytime search, `query`, the Python searches) ran
    the move again after a fault, on the scratch the stopped chain had left: the chain then ended at once, the
    move came out legal, and `solve -a anytime` said `unsolvable (proven)`. Every listing now raises the
    fault, as the native searches and the reference do."""
    inst = instance_from_rules(ENDLESS, "..\n..\n")
    message = "this chain reaction moved particles 1,000,000 times; does it ever end?"
    for backend in ("reference", "compiled"):
        s = system(inst, backend)
        for attempt in range(2):  # (and again: nothing of the first is left to end it early)
            with pytest.raises(RuleRuntimeError) as err:
                s.successors(s.initial())
            assert (err.value.message, err.value.span.line) == (message, 10), (backend, attempt)
        with pytest.raises(RuleRuntimeError):
            s.legal_moves(s.initial())
        with pytest.raises(RuleRuntimeError):
            solve(s, "anytime", Budget(time_limit=5))


# Levels and rule files that compiled into code numba or Python could not take (found by a robustness review):
# each now gets what the reference backend says.
NO_MOVES = """game no_moves
layer a: 0..3
param far: int = 0

action mark(x: 1..rows - 1) "{x}":
    a[(x, 0)] = 1

action never() "never" when far > 2:
    a[(0, 0)] = 1

goal: a[(0, 0)] == 1

level grid:
    '.': pass
"""


def test_a_level_where_no_action_has_a_move_is_a_dead_board_in_both_backends():
    """One row: `mark` has no move and `never` none either; the move code was an `else:` with no `if` before it
    (a SyntaxError, exit 4)."""
    inst = instance_from_rules(NO_MOVES, "..")
    for backend in ("reference", "compiled"):
        s = system(inst, backend)
        assert list(s.successors(s.initial())) == []
        for algorithm in ("bfs", "astar", "idastar", "iddfs"):
            assert api_solve(s, algorithm).status == "unsolvable", (backend, algorithm)


@pytest.mark.parametrize("algorithm", ["bfs", "astar", "idastar", "iddfs"])
def test_a_negative_limit_leaves_no_solution(algorithm):
    """The native searches read a negative max_cost as none and found a solution of cost 1 under `limit -1`,
    which the replay then refused (exit 4); no path costs less than 0."""
    inst = instance_from_rules(OVERESTIMATE.replace("limit 4", "param k: int = 4\nlimit k"), ".", {"k": -1})
    for backend in ("reference", "compiled"):
        s = system(inst, backend)
        sol = api_solve(s, algorithm, Budget(max_cost=inst.limit, admissible=s.admissible))
        assert (sol.status, sol.optimal) == ("unsolvable", True), backend


@pytest.mark.parametrize("where,text", [
    ("goal", "goal: none.row == 1"),
    ("goal", "goal: gg[2] == 1"),
    ("deadlock", "goal: n == 3\ndeadlock: gg[5] == 1"),
    ("heuristic", "goal: n == 3\nheuristic h admissible: none.row"),
    ("score", "goal: n == 3\nscore: none.col"),
])
def test_a_fault_on_every_path_of_a_test_is_the_rules_error_in_both_backends(where, text):
    """A goal, deadlock test, heuristic or score whose every path fails (a fault under a test of constants) was
    typed by numba as returning nothing: an internal TypingError (exit 4) instead of the rules' error."""
    rules = OVERESTIMATE.replace("goal: n == 3", "global gg[2]: 0..3\n" + text).replace("heuristic far: 10", "")
    rules = rules.replace("heuristic none_left admissible: 3 - n\n", "")
    inst = instance_from_rules(rules, ".")
    errors = []
    for backend in ("reference", "compiled"):
        s = system(inst, backend)
        with pytest.raises(RuleRuntimeError) as err:
            test = {"goal": s.is_goal, "deadlock": s.is_dead, "heuristic": s.heuristic, "score": s.score}[where]
            test(s.initial())
        errors.append((err.value.message, err.value.span))
    (ref, ref_span), (nat, nat_span) = errors
    # (the same place and fault; native code names no index: "index 5 is outside ..", "an index is outside ..")
    assert ref_span == nat_span and ref.split(" is ")[-1] == nat.split(" is ")[-1]


@pytest.mark.parametrize("algorithm", ["bfs", "astar"])
def test_a_least_move_cost_past_64_bits_is_the_rules_error(algorithm):
    """A constant move cost past 2^63 - 1: the native BFS took it as its step (an OverflowError, exit 4); the
    move code reports it, located, as for any value past 64 bits."""
    rules = OVERESTIMATE.replace('action up() "+":', 'param c: int = 1\naction up() "+" cost c * 4:')
    inst = instance_from_rules(rules.replace("limit 4\n", ""), ".", {"c": 1 << 62})
    with pytest.raises(RuleRuntimeError) as err:
        api_solve(system(inst, "compiled"), algorithm)
    assert "passes the 64-bit integers" in err.value.message
