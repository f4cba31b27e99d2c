"""Drops (rulesets/drops) and the particle built-in under it: chain reactions against an independent
simulator written from the spec, the two backends against each other, known optima, seed 000's program."""
from __future__ import annotations

import random
import subprocess
from collections import deque

import pytest
from hypothesis import given, settings, strategies as st

from helpers import ROOT, instance, instance_from_rules, system, walk_and_compare
from gridrules import api
from gridrules.api import load
from gridrules.errors import RuleRuntimeError
from solvers import solve

STEPS = ((0, -1), (0, 1), (-1, 0), (1, 0))


# ---- an independent simulator (shared/spec/drops.md, written the way seed 000 runs it) -------------------
def click(board: list[list[int]], r: int, c: int, timing: str) -> list[list[int]]:
    """The board after clicking (r, c). Droplets advance one after another within a tick, as in seed 000; a
    drop absorbs the droplets that reach it in a tick one by one, and a cell that burst in this tick swallows
    the droplets that reach it afterwards. Under `half` positions are in half cells (a cell's centre is odd,
    its edges even) and a droplet reaches a cell when it crosses the cell's edge."""
    b = [row[:] for row in board]
    rows, cols = len(b), len(b[0])
    scale = 2 if timing == "half" else 1
    b[r][c] += 1
    if b[r][c] < 5:
        return b
    b[r][c] = 0
    flying = [[scale * r + scale - 1, scale * c + scale - 1, d] for d in range(4)]
    while flying:
        burst_now = set()
        born = []
        for p in flying:
            dr, dc = STEPS[p[2]]
            p[0] += dr
            p[1] += dc
            if scale == 2:
                if not (0 < p[0] < 2 * rows and 0 < p[1] < 2 * cols):
                    p[2] = None
                    continue
                if p[0] % 2 == 1 and p[1] % 2 == 1:  # a cell's centre: nothing happens there
                    continue
                tr, tc = (p[0] + dr - 1) // 2, (p[1] + dc - 1) // 2  # the cell whose edge it crosses
            else:
                if not (0 <= p[0] < rows and 0 <= p[1] < cols):
                    p[2] = None
                    continue
                tr, tc = p[0], p[1]
            if b[tr][tc] > 0:
                p[2] = None
                burst_now.add((tr, tc))
                b[tr][tc] += 1
                if b[tr][tc] == 5:
                    b[tr][tc] = 0
                    born += [[scale * tr + scale - 1, scale * tc + scale - 1, d] for d in range(4)]
            elif (tr, tc) in burst_now:
                p[2] = None
        flying = [p for p in flying if p[2] is not None] + born
    return b


def clicks_needed(board: list[list[int]], timing: str, limit: int = 8) -> int | None:
    """The fewest clicks that clear the board (breadth-first over the simulator), or None beyond `limit`."""
    start = tuple(map(tuple, board))
    seen, todo = {start: 0}, deque([start])
    while todo:
        b = todo.popleft()
        depth = seen[b]
        if not any(any(row) for row in b):
            return depth
        if depth == limit:
            continue
        for r, row in enumerate(b):
            for c, v in enumerate(row):
                if v:
                    nxt = tuple(map(tuple, click([list(x) for x in b], r, c, timing)))
                    if nxt not in seen:
                        seen[nxt] = depth + 1
                        todo.append(nxt)
    return None


def make(level: str, **params):
    """The Drops instance of a board in seed 000's format, with parameters written as on the command line."""
    pairs = [f"{k}={str(v).lower()}" for k, v in params.items()]
    return instance("drops", level, api.parse_params(api.load_rules("drops"), pairs), "numbers")


def text(board) -> str:
    return "\n".join(" ".join(map(str, row)) for row in board) + "\n"


def drops_of(inst, state) -> list[list[int]]:
    flat = inst.unpack(state)["drop"]
    return [list(flat[r * inst.cols:(r + 1) * inst.cols]) for r in range(inst.rows)]


boards = st.integers(2, 5).flatmap(lambda h: st.integers(2, 5).flatmap(
    lambda w: st.lists(st.lists(st.integers(0, 4), min_size=w, max_size=w), min_size=h, max_size=h)))


@settings(max_examples=150)
@given(boards, st.sampled_from(["half", "unit"]), st.integers(0, 10**6))
def test_chain_reactions_follow_the_spec(board, timing, seed):
    """Every click on a random board leaves the board the independent simulator computes."""
    inst = make(text(board), timing=timing)
    ref = system(inst, "reference")
    rng = random.Random(seed)
    state, b = inst.initial, board
    for _ in range(6):
        full = [(r, c) for r in range(inst.rows) for c in range(inst.cols) if b[r][c]]
        if not full:
            break
        r, c = rng.choice(full)
        step = ref.step(state, f"{r + 1},{c + 1}")
        assert step is not None
        state, b = step[0], click(b, r, c, timing)
        assert drops_of(inst, state) == b


def test_the_two_timings_differ():
    """A smallest board where the models part (found by trying every 3x3 board of 0s, 3s and 4s): one click
    clears it under `half`, but leaves the top right drop at 4 under `unit`. The engine agrees with the
    simulator under both."""
    board = [[0, 0, 3], [4, 3, 4], [4, 4, 3]]
    after = {"half": [[0, 0, 0], [0, 0, 0], [0, 0, 0]], "unit": [[0, 0, 4], [0, 0, 0], [0, 0, 0]]}
    for timing, want in after.items():
        assert click(board, 2, 1, timing) == want
        inst = make(text(board), timing=timing)
        assert drops_of(inst, system(inst, "reference").step(inst.initial, "3,2")[0]) == want


@pytest.mark.parametrize("board,timing,clicks,moves", [
    ("seed000", "half", 5, None),
    ("3 2 4 0 0 0\n" + "0 0 0 0 0 0\n" * 5, "half", 3, ["1,2", "1,2", "1,2"]),  # seed 000 answers 4
    ("0 0 0\n0 1 0\n0 0 0\n", "half", 4, ["2,2"] * 4),  # seed 000 finds none
    ("0 0 0\n0 1 0\n0 0 0\n", "unit", 4, ["2,2"] * 4),
])
def test_known_optima(board, timing, clicks, moves):
    level = ROOT / "rulesets/drops/levels/seed000.txt"
    level_text = level.read_text() if board == "seed000" else board
    inst = make(level_text, timing=timing)
    sol = system(inst, "compiled").search("astar")
    assert (sol.status, sol.cost, sol.optimal) == ("solved", clicks, True)
    if moves is not None:
        assert list(sol.moves) == moves
        assert solve(system(inst, "reference"), "bfs").cost == clicks


def test_seed000_sample_solution_replays():
    """Seed 000's printed answer to its sample, `2,4 2,4 3,5 4,5 5,3`, clears the board here too."""
    (inst,) = load("drops", str(ROOT / "rulesets/drops/levels/seed000.txt"))
    ref = system(inst, "reference")
    state = inst.initial
    for m in "2,4 2,4 3,5 4,5 5,3".split():
        state = ref.step(state, m)[0]
    assert ref.is_goal(state)


@st.composite
def sparse_boards(draw):
    """4x4 boards with three to five drops."""
    cells = draw(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=3, max_size=5, unique=True))
    board = [[0] * 4 for _ in range(4)]
    for r, c in cells:
        board[r][c] = draw(st.integers(1, 4))
    return board


@settings(max_examples=25)
@given(sparse_boards(), st.sampled_from(["half", "unit"]))
def test_sparse_optima_match_an_exhaustive_search(board, timing):
    """The optimum the compiled A* proves equals the independent simulator's breadth-first answer."""
    want = clicks_needed(board, timing, limit=10)
    inst = make(text(board), timing=timing)
    sol = system(inst, "compiled").search("astar")
    if want is None:
        assert sol.status in ("unsolvable", "solved") and (sol.cost is None or sol.cost > 10)
    else:
        assert (sol.status, sol.cost, sol.optimal) == ("solved", want, True)


small_boards = st.integers(1, 3).flatmap(lambda h: st.integers(1, 4).flatmap(
    lambda w: st.lists(st.lists(st.integers(0, 4), min_size=w, max_size=w), min_size=h, max_size=h)))


@settings(max_examples=60, deadline=None)
@given(st.one_of(small_boards, sparse_boards()), st.sampled_from(["half", "unit"]), st.integers(0, 10**6))
def test_the_lines_bound_never_overestimates(board, timing, seed):
    """`lines` (the default heuristic) is at most the independent simulator's optimum at every state of a random
    walk, and never below `first_burst`, which it says it dominates; where empty cells may be clicked it is
    `first_burst`."""
    rng = random.Random(seed)
    inst = make(text(board), timing=timing)
    lines, first = system(inst, "compiled"), system(inst, "reference", "first_burst")
    clicking = system(make(text(board), timing=timing, any_cell=True), "compiled")
    state = inst.initial
    for _ in range(4):
        b = drops_of(inst, state)
        h = lines.heuristic(state)
        want = clicks_needed(b, timing, limit=6)
        assert h <= (want if want is not None else 99) and h >= first.heuristic(state), b
        assert clicking.heuristic(state) == first.heuristic(state)
        moves = lines.successors(state)
        if not moves:
            break
        state = rng.choice(moves)[1]


def test_the_lines_bound_counts_each_drops_own_clicks():
    """A lone 1 needs 4 clicks and the bound sees all of them (two lone 1s: 8). `3 2 4` in a row: the 4 may
    burst first after one click, the 2 can get at most two droplets (one click of its own), the 3 none of its
    own: 2 in all, the optimum being 3."""
    for level, h in (("0 0 0\n0 1 0\n", 4), ("3 2 4\n", 2), ("1 0\n0 1\n", 8), ("0\n", 0)):
        inst = make(level)
        assert system(inst, "compiled").heuristic(inst.initial) == h == system(inst, "reference").heuristic(
            inst.initial), level


@settings(max_examples=20)
@given(boards, st.sampled_from(["half", "unit"]), st.booleans(), st.integers(0, 10**6))
def test_backends_agree_on_drops(board, timing, any_cell, seed):
    inst = make(text(board), timing=timing, any_cell=any_cell)
    walk_and_compare(inst, seed, steps=10)


# ---- the built-in beyond Drops: two kinds, both timings, one-way emission, `leave`, handlers that write
# elsewhere and emit other kinds ------------------------------------------------------------------------------
SPARKS = """game sparks "Sparks"

layer charge: 0..3
layer wall: bool static
global lost: 0..7

particle spark:
    timing: unit
    stop: charge != 0 or wall
    hit: zap
    leave: out

particle ray:
    timing: half
    stop: wall
    hit: glow

# sparks arriving together overload a cell (it empties and sparks again), or charge it; a wall turns them into a ray
def zap(c: cell, k: int):
    if wall[c]:
        emit ray(c, U)
    elif charge[c] + k > 3:
        charge[c] = 0
        emit spark(c)
    else:
        charge[c] += k

def glow(c: cell, k: int):
    lost = (lost + k) % 8

def out(c: cell, d: dir):
    lost = (lost + 1) % 8
    if charge[c] == 1:
        charge[c] = 2

action fire(c: cell, d: dir) "{c}{d}":
    require charge[c] != 0 and not wall[c]
    charge[c] -= 1
    emit spark(c, d)
    if charge[c] == 0:
        emit ray(c)

goal: empty(cells where charge != 0)

level grid:
    '.': pass
    '#': wall = true
    '1'..'3': charge = value + 1
"""


@st.composite
def spark_boards(draw):
    h, w = draw(st.integers(2, 4)), draw(st.integers(2, 5))
    return "\n".join("".join(draw(st.sampled_from("..#123")) for _ in range(w)) for _ in range(h)) + "\n"


def _outcome(sys_, state):
    try:
        return sorted(sys_.successors(state))
    except RuleRuntimeError as err:
        return err.message


@settings(max_examples=30)
@given(spark_boards(), st.integers(0, 10**6))
def test_backends_agree_on_any_particles(level, seed):
    inst = instance_from_rules(SPARKS, level)
    ref, nat = system(inst, "reference"), system(inst, "compiled")
    rng = random.Random(seed)
    state = inst.initial
    for _ in range(12):
        a, b = _outcome(ref, state), _outcome(nat, state)
        assert a == b
        if isinstance(a, str) or not a:
            break
        state = rng.choice(a)[1]


def test_sparks_by_hand():
    """Charges 2 . 3; fire the first cell right (it keeps 1): the spark flies over the empty cell and stops at
    the 3, which overloads (3 + 1 > 3), empties and sparks each way. Three sparks leave the board at once
    (lost = 3; the cell they leave is empty, so `out` charges nothing); the one flying left crosses the
    empty cell and charges the first cell to 2. The first cell is not empty when the chain ends: no ray."""
    inst = instance_from_rules(SPARKS, "2.3\n")
    for backend in ("reference", "compiled"):
        state = system(inst, backend).step(inst.initial, "1,1R")[0]
        values = inst.unpack(state)
        assert (list(values["charge"]), values["lost"]) == ([2, 0, 0], 3)


# ---- more particles in flight than the compiled backend first makes room for ---------------------------------
CROWD = """game crowd "Crowd"

layer bumper: bool static
layer pad: bool static          # where a ray may be fired
global bounces: 0..2
global gone: 0..255
global stopped: 0..255

particle ray:
    timing: half
    stop: bumper
    hit: bounce
    leave: out

# The first bumper reached sends down as many rays as one def may send at once (four a cell and sixty), while
# other rays fly; later ones only count what stops there.
def bounce(c: cell, k: int):
    stopped = (stopped + k) % 256
    if bounces == 0:
        let many = 4 * count(cells) + 60
        for j in 1..many:
            emit ray(c, D)
    bounces = min(bounces + 1, 2)

def out(c: cell, d: dir):
    gone = (gone + 1) % 256

action fire(c: cell) "{c}":
    require pad[c] and bounces == 0
    emit ray(c)

goal: gone == 122 and stopped == 2

level grid:
    '.': pass
    '#': bumper = true
    '*': pad = true
"""


def test_a_chain_with_more_particles_in_flight_than_room_grows_it():
    """Fired from the middle of the top row of `#.*.#` (two rows below it), a ray reaches each bumper at once
    while the one fired down still flies; the first bumper (in reading order) sends down as many rays as fit
    the room the compiled backend makes at first, one too many with the ray in flight. It makes more and runs
    the move (or the search) again, the other bumper's hit, pending when the room ran out, not forgotten: the
    same successors as the reference backend (122 rays leave the board, 2 stop at a bumper), and every search
    solves the level alike on both backends, whether the room grows while a Python search lists moves or
    inside a native search."""
    from gridrules.compiled.codegen import QUEUE
    from gridrules.reference.evaluator import queue_room

    inst = instance_from_rules(CROWD, "#.*.#\n.....\n.....\n")
    reference, compiled = system(inst, "reference"), system(inst, "compiled")
    assert compiled.work[5][QUEUE + 3] == queue_room(15) == 120
    moves = compiled.successors(inst.initial)
    assert sorted(moves) == sorted(reference.successors(inst.initial))
    assert compiled.work[5][QUEUE + 3] > 120
    after = inst.unpack(compiled.step(inst.initial, "1,3")[0])
    assert (after["gone"], after["stopped"], after["bounces"]) == (122, 2, 2)
    for algorithm in ("bfs", "astar", "iddfs", "idastar"):
        fresh = system(inst, "compiled")  # (its room as first made: it grows inside the native search)
        ours, theirs = api.solve(fresh, algorithm), solve(reference, algorithm)
        assert (ours.status, ours.moves, ours.optimal) == (theirs.status, theirs.moves, True), algorithm
        assert ours.cost == 1 and fresh.work[5][QUEUE + 3] > 120


# ---- seed 000's program -------------------------------------------------------------------------------------
def _seed000():
    from bench.seeds import SeedError, drops_pascal

    try:
        return drops_pascal()
    except SeedError as err:
        pytest.skip(str(err))


def test_seed000_agrees_on_boards_of_threes_and_fours(tmp_path):
    """On boards of only 3s and 4s seed 000's pruning (it clicks only 3s and 4s) loses nothing, so its
    iterative deepening is an exact reference: the same fewest clicks, on seeded random 6x6 boards."""
    prog = _seed000()
    rng = random.Random(2026)
    for _ in range(6):
        board = [[rng.choice((3, 4)) if rng.random() < 0.45 else 0 for _ in range(6)] for _ in range(6)]
        (tmp_path / "drop.in").write_text(text(board))
        subprocess.run([str(prog.exe)], cwd=tmp_path, check=True, timeout=120)
        out = (tmp_path / "drop.out").read_text().split("\n")
        theirs = sum(1 for line in out if len(line.split()) == 2)
        inst = make(text(board))
        sol = system(inst, "compiled").search("astar")
        assert (sol.status, sol.cost, sol.optimal) == ("solved", theirs, True), board
