"""The bundled `lianliankan` ruleset: HDU 1175's judge, queries against a simple independent implementation,
turn limits, the outside ring, matching classes, every gravity mode on a hand-worked board, safe moves, and
solving (a clearing, or a proof that there is none) on both backends."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridrules import api
from helpers import ROOT, instance, native_agrees, plain, walk_and_compare
from solvers import solve

RULES = str(ROOT / "rulesets" / "lianliankan" / "lianliankan.grl")
SAMPLE = ROOT / "rulesets" / "lianliankan" / "levels" / "hdu1175-sample.txt"


def make(text: str, **params):
    """The instance of a board, with parameters written as on the command line."""
    pairs = [f"{k}={str(v).lower()}" for k, v in params.items()]
    return instance(RULES, text, api.parse_params(api.load_rules(RULES), pairs))


def board_text(board) -> str:
    return "\n".join(" ".join(map(str, row)) for row in board) + "\n"


def tiles(inst, state) -> list[list[int]]:
    flat = inst.values(state)["tile"]
    return [flat[r * inst.cols:(r + 1) * inst.cols] for r in range(inst.rows)]


# ---- HDU 1175 -------------------------------------------------------------------------------------------
def judge(board, a, b) -> bool:
    """HDU 1175 as its statement says, the plain way: the same non-zero tile, and at most three straight legs
    a-p, p-q, q-b through empty cells of the board (p, q any cells; a leg may have length 0)."""
    rows, cols = len(board), len(board[0])
    if a == b or board[a[0]][a[1]] == 0 or board[a[0]][a[1]] != board[b[0]][b[1]]:
        return False

    def clear(p, q):  # p and q aligned, the cells strictly between them empty
        if p[0] != q[0] and p[1] != q[1]:
            return False
        dr, dc = (q[0] > p[0]) - (q[0] < p[0]), (q[1] > p[1]) - (q[1] < p[1])
        cell = p
        while True:
            cell = (cell[0] + dr, cell[1] + dc) if cell != q else q
            if cell == q:
                return True
            if board[cell[0]][cell[1]] != 0:
                return False

    cells = [(r, c) for r in range(rows) for c in range(cols)]
    # (a leg from a to p is straight, so p is in a's row or column, and q in b's: only those are tried)
    ps = [p for p in cells + [a] if p[0] == a[0] or p[1] == a[1]]
    qs = [q for q in cells + [b] if q[0] == b[0] or q[1] == b[1]]
    return any((p == a or board[p[0]][p[1]] == 0) and (q == b or board[q[0]][q[1]] == 0)
               and clear(a, p) and clear(p, q) and clear(q, b)
               for p in ps for q in qs)


@st.composite
def judge_cases(draw):
    rows, cols = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    board = [[draw(st.sampled_from([0, 0, 0, 1, 2, 3])) for _ in range(cols)] for _ in range(rows)]
    cells = st.tuples(st.integers(0, rows - 1), st.integers(0, cols - 1))
    queries = draw(st.lists(st.tuples(cells, cells), min_size=1, max_size=6))
    return board, queries


def hdu_text(cases) -> str:
    out = []
    for board, queries in cases:
        out.append(f"{len(board)} {len(board[0])}")
        out += [" ".join(map(str, row)) for row in board]
        out.append(str(len(queries)))
        out += [f"{a[0] + 1} {a[1] + 1} {b[0] + 1} {b[1] + 1}" for a, b in queries]
    return "\n".join(out + ["0 0"]) + "\n"


@settings(max_examples=60, deadline=None)
@given(judge_cases())
def test_queries_agree_with_a_plain_judge(case):
    board, queries = case
    inst = make(hdu_text([case]))
    expect = [judge(board, a, b) for a, b in queries]
    for backend in ("reference", "compiled"):
        assert api.query(inst, [q for q, _ in inst.raw.queries], backend) == expect


def test_a_board_too_large_to_list_its_moves_is_still_judged(tmp_path):
    """HDU 1175's boards go up to 1000 x 1000, far past the moves a system lists (reference.system.MAX_MOVES; a
    40 x 40 board has 1,279,200 pairs of cells): a level loaded for queries is set up all the same, and only the
    moves asked about are built; loaded to be solved, it is refused before its cells are read."""
    from gridrules.errors import UsageError

    rng = random.Random(7)
    n = 40
    board = [[rng.choice([0] * 10 + [1, 2, 3]) for _ in range(n)] for _ in range(n)]
    tiles_at = [(r, c) for r in range(n) for c in range(n) if board[r][c]]
    queries = [tuple(rng.sample(tiles_at, 2)) for _ in range(30)] + [((0, 0), (n - 1, n - 1))]
    queries += [(a, b) for a in tiles_at[:40] for b in tiles_at[:40] if a < b and board[a[0]][a[1]] == board[b[0]][b[1]]
                and (a[0] == b[0] or a[1] == b[1])][:10]  # (some on one line: more of them YES)
    path = tmp_path / "big.txt"
    path.write_text(hdu_text([(board, queries)]))
    (inst,) = api.load(RULES, str(path), every_move=False)
    expect = [judge(board, a, b) for a, b in queries]
    assert any(expect) and not all(expect)
    for backend in ("reference", "compiled"):
        assert api.query(inst, [q for q, _ in inst.raw.queries], backend) == expect
    with pytest.raises(UsageError, match="parameter combinations on this level"):
        api.load(RULES, str(path))


# ---- the ruleset's options --------------------------------------------------------------------------------
EDGE = "1 2 2 1\n3 0 0 3\n"


def legal(inst, backend="reference") -> list[str]:
    sys_ = api.system(inst, backend)
    return sys_.legal_moves(sys_.initial())


@pytest.mark.parametrize("turns,outside,expect", [
    (0, True, ["1,2-1,3", "2,1-2,4"]),  # side by side; in one line through empty cells
    (1, True, ["1,2-1,3", "2,1-2,4"]),
    (2, True, ["1,1-1,4", "1,2-1,3", "2,1-2,4"]),  # the 1s: up into the ring, along it, down: two turns
    (2, False, ["1,2-1,3", "2,1-2,4"]),
    (3, False, ["1,2-1,3", "2,1-2,4"]),
])
def test_turn_limits_and_the_ring(turns, outside, expect):
    inst = make(EDGE, turns=turns, outside=outside)
    assert legal(inst) == expect == legal(inst, "compiled")


def test_matching_classes():
    # 5..8 are flowers when flowers=5: any two of them match (joined side by side or through the ring)
    inst = make("5 6 5 6\n", flowers=5)
    assert legal(inst) == ["1,1-1,2", "1,1-1,3", "1,1-1,4", "1,2-1,3", "1,2-1,4", "1,3-1,4"] == legal(inst, "compiled")
    assert legal(make("5 6 5 6\n")) == ["1,1-1,3", "1,2-1,4"]


BOARD = """\
1 2 3
2 0 4
3 4 1
"""

GRAVITY = {  # the board after `1,2-2,1` (the 2s: down into the gap, then left: one turn)
    "off": [[1, 0, 3], [0, 0, 4], [3, 4, 1]],
    "down": [[0, 0, 3], [1, 0, 4], [3, 4, 1]],  # the columns of the removed tiles settle
    "up": [[1, 4, 3], [3, 0, 4], [0, 0, 1]],
    "left": [[1, 3, 0], [4, 0, 0], [3, 4, 1]],  # the rows of the removed tiles settle
    "right": [[0, 1, 3], [0, 0, 4], [3, 4, 1]],
    "split": [[1, 0, 3], [0, 0, 4], [3, 4, 1]],  # row 0 rises (already up), rows 1..2 fall (already down)
    "converge": [[1, 0, 3], [3, 4, 4], [0, 0, 1]],  # rows 1..2 rise toward the middle
}


@pytest.mark.parametrize("mode", sorted(GRAVITY))
def test_each_gravity_mode(mode):
    for backend in ("reference", "compiled"):
        inst = make(BOARD, gravity=mode)
        sys_ = api.system(inst, backend)
        state, _ = sys_.step(sys_.initial(), "1,2-2,1")
        assert tiles(inst, state) == GRAVITY[mode], backend


@pytest.mark.parametrize("mode,after", [
    ("split", [[3, 2], [0, 4], [0, 0], [4, 0], [3, 2]]),  # rows 0..1 rise, rows 2..4 fall
    ("converge", [[0, 2], [3, 4], [4, 2], [3, 0], [0, 0]]),  # both halves move toward the middle
])
def test_split_and_converge_on_a_taller_board(mode, after):
    board = [[1, 2], [3, 4], [0, 2], [4, 0], [3, 1]]
    inst = make(board_text(board), gravity=mode, turns=3)
    for backend in ("reference", "compiled"):
        sys_ = api.system(inst, backend)
        state, _ = sys_.step(sys_.initial(), "1,1-5,2")  # the 1s, around through the ring: three turns
        assert tiles(inst, state) == after, backend


# ---- safe moves and solving -----------------------------------------------------------------------------
def deal(rows, cols, kinds, seed) -> str:
    rnd = random.Random(f"test-{seed}")
    cells = [t for t in range(1, kinds + 1) for _ in range(rows * cols // kinds)]
    rnd.shuffle(cells)
    return board_text([cells[r * cols:(r + 1) * cols] for r in range(rows)])


def test_a_search_takes_a_safe_move_alone():
    # four 1s whose other two are joined as well: removing 1,1-2,1 is safe, and a search takes it alone
    inst = make("1 2 2 1\n1 3 3 1\n", outside=False)
    for backend in ("reference", "compiled"):
        sys_ = api.system(inst, backend)
        assert sys_.legal_moves(inst.initial) == ["1,1-2,1", "1,2-1,3", "1,4-2,4", "2,2-2,3"]
        assert [m for m, _, _ in sys_.successors(inst.initial)] == ["1,1-2,1"]
    # with gravity down too: the 1s of the first column slide nowhere when removed, the other two stay joined
    inst = make("1 2 2 1\n1 3 3 1\n", outside=False, gravity="down")
    for backend in ("reference", "compiled"):
        assert [m for m, _, _ in api.system(inst, backend).successors(inst.initial)] == ["1,1-2,1"]
    # the last pair of 3s is safe without gravity, not with it (the 1s above them would fall)
    for gravity, expect in (("off", ["2,2-2,3"]), ("down", ["1,2-1,3", "2,2-2,3"])):
        inst = make("2 1 1 2\n1 3 3 1\n", outside=False, gravity=gravity)
        for backend in ("reference", "compiled"):
            assert [m for m, _, _ in api.system(inst, backend).successors(inst.initial)] == expect, gravity
    # four 1s, but neither pairing leaves the other two joined: both moves are searched
    inst = make("1 1 2\n1 2 1\n", outside=False)
    for backend in ("reference", "compiled"):
        sys_ = api.system(inst, backend)
        assert [m for m, _, _ in sys_.successors(inst.initial)] == sys_.legal_moves(inst.initial) \
            == ["1,1-1,2", "1,1-2,1"]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("gravity", ["off", "down"])
def test_solving_agrees_with_search_without_safe_moves(seed, gravity):
    """Safe moves change how much is searched, never whether a board can be cleared: compare with a plain
    depth-first search over every legal move (the reference backend's, without the safe-move shortcut)."""
    text = deal(3, 4, 3, seed)
    inst = make(text, gravity=gravity)
    ref = api.system(inst, "reference")

    def clearable(state, seen):
        if ref.is_goal(state):
            return True
        if state in seen:
            return False
        seen.add(state)
        return any(clearable(ref.step(state, m)[0], seen) for m in ref.legal_moves(state))

    expect = clearable(ref.initial(), set())
    for backend in ("reference", "compiled"):
        sol = solve(api.system(inst, backend), "astar")
        assert (sol.status == "solved") == expect, (text, backend)
        assert sol.status in ("solved", "unsolvable")
        if expect:
            assert len(sol.moves) == 6 and sol.optimal


def small_deal(seed):
    """A 3x4 board of two or four tiles of three types (some cells empty), its paths limited at random, so that
    some boards cannot be cleared; on some, types 2..5 are flowers (any two of them match)."""
    rnd = random.Random(seed)
    cells = [t for t in range(1, 4) for _ in range(rnd.choice((2, 4)))]
    cells += [0] * (12 - len(cells))
    rnd.shuffle(cells)
    params = {"outside": rnd.random() < 0.5, "turns": rnd.choice((0, 1, 2)), "flowers": rnd.choice((0, 0, 2))}
    return board_text([cells[r * 4:(r + 1) * 4] for r in range(3)]), params


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from(["off", "down", "up", "left", "right", "split", "converge"]))
def test_safe_moves_never_spoil_a_clearing(seed, gravity):
    """At every state reachable on a small board (some cells empty, so tiles may float until they slide), the
    moves a search tries (a safe move alone) can clear the board exactly when some legal move can."""
    text, _ = small_deal(seed)
    inst = make(text, gravity=gravity)
    ref = api.system(inst, "reference")
    memo = {}

    def clearable(state):
        if state not in memo:
            memo[state] = ref.is_goal(state) or any(clearable(ref.step(state, m)[0])
                                                    for m in ref.legal_moves(state))
        return memo[state]

    clearable(inst.initial)
    for state, can in list(memo.items()):
        if can and not ref.is_goal(state):
            assert any(clearable(after) for _, after, _ in ref.successors(state)), \
                (text, gravity, inst.values(state)["tile"])


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from(["off", "down", "left", "split"]))
def test_backends_agree_on_random_walks(seed, gravity):
    inst = make(deal(4, 4, 4, seed), gravity=gravity)
    ref, nat = walk_and_compare(inst, seed, steps=8)
    assert ref.legal_moves(inst.initial) == nat.legal_moves(inst.initial)
    native_agrees(inst, nat, ref, algorithms=("astar", "bfs"))


def test_pairs_listed_by_buckets_agree_with_trying_each(monkeypatch):
    """The compiled backend lists a pair action's moves by buckets of equal `kind` (codegen._pairs_code, with the
    level's pair tables) instead of trying each of the board's pairs: the same moves, in the same order, as trying
    each pair (tables withheld) and as the reference, along random walks, with matching classes too."""
    from gridrules.compiled import system as compiled

    for seed in range(6):
        inst = make(deal(4, 6, 6, seed), flowers=2, gravity="down" if seed % 2 else "off")
        bucketed = compiled.CompiledSystem(inst)
        with monkeypatch.context() as m:
            m.setattr(compiled, "PAIR_TABLE_LIMIT", 0)
            each = compiled.CompiledSystem(inst)
        assert len(bucketed.SG) == len(each.SG) + 1 + 24 * 24  # (no other action; one table of cells x cells)
        ref = api.system(inst, "reference")
        rnd, state = random.Random(seed), inst.initial
        for _ in range(12):
            moves = ref.successors(state, every=True)
            assert bucketed.successors(state, every=True) == each.successors(state, every=True) == moves
            assert bucketed.successors(state) == ref.successors(state)
            if not moves:
                break
            state = rnd.choice(moves)[1]


# ---- without gravity: persisting moves, bans and the relaxation -------------------------------------------
@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6))
def test_the_relaxation_calls_dead_only_boards_that_cannot_be_cleared(seed):
    """The `deadlock` promise with bans: at every reachable state, with no move banned and with a random set of
    legal moves banned, a state called dead has no clearing that avoids the banned moves; the backends agree (and
    on the moves a search that bans them follows, each persisting, a safe one too)."""
    text, params = small_deal(seed)
    inst = make(text, **params)
    ref, nat = api.system(inst, "reference"), api.system(inst, "compiled")
    rnd = random.Random(seed)
    number = {text: i for i, (text, *_) in enumerate(ref.moves)}

    def clearable(state, banned, memo):
        if state not in memo:
            memo[state] = ref.is_goal(state) or any(clearable(ref.step(state, m)[0], banned, memo)
                                                    for m in ref.legal_moves(state) if number[m] not in banned)
        return memo[state]

    seen, todo = set(), [inst.initial]
    while todo:
        state = todo.pop()
        if state not in seen:
            seen.add(state)
            todo += [ref.step(state, m)[0] for m in ref.legal_moves(state)]
    for state in seen:
        assert ref.ban_successors(state) == nat.ban_successors(state)
        assert all(persists for *_, persists in ref.ban_successors(state))
        legal = [number[m] for m in ref.legal_moves(state)]
        for banned in (set(), set(rnd.sample(legal, rnd.randint(0, len(legal))))):
            dead = ref.is_dead(state, banned)
            assert dead == nat.is_dead(state, banned), (text, params, inst.values(state)["tile"], banned)
            if dead:
                assert not clearable(state, banned, {}), (text, params, inst.values(state)["tile"], banned)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10**6))
def test_banning_search_decides_like_a_plain_one(seed):
    """IDA* bans a persisting move below its later siblings once its subtree failed: it decides every board as a
    search without bans does, and the native search is the Python one step for step."""
    text, params = small_deal(seed)
    inst = make(text, **params)
    ref, nat = api.system(inst, "reference"), api.system(inst, "compiled")
    assert nat.persisting and ref.persisting
    expect = solve(plain(ref), "idastar").status
    assert expect in ("solved", "unsolvable")
    native_agrees(inst, nat, ref, algorithms=("idastar", "astar"))
    assert nat.search("idastar").status == expect


@pytest.mark.parametrize("gravity", ["off", "down"])
def test_restarting_searches_decide_alike_step_for_step(monkeypatch, gravity):
    """IDA* set to restart every few expansions (in random orders; without gravity only until it bans a move, as
    a restart would lose the bans) decides each board as a search without restarts does, and the native search
    is the Python one step for step."""
    from solvers import _deepening

    monkeypatch.setattr(_deepening, "RESTART_UNIT", 2)
    restarted = 0
    for seed in range(6):
        text, params = small_deal(seed)
        inst = make(text, **dict(params, gravity=gravity))
        ref, nat = api.system(inst, "reference"), api.system(inst, "compiled")
        native_agrees(inst, nat, ref, algorithms=("idastar",))
        with monkeypatch.context() as once:
            once.setattr(_deepening, "RESTART_UNIT", 0)
            expect = solve(ref, "idastar")
        mine = nat.search("idastar")
        assert mine.status == expect.status and mine.cost == expect.cost
        restarted += mine.stats.expanded != expect.stats.expanded
    assert restarted > 0  # (the restarts changed some search)


def test_a_search_decides_the_kinds_with_fewest_pairs_first():
    """`chooses kind(tile[a])`: without gravity a search lists the moves of the kinds with the fewest legal pairs
    first, each kind's in instance order (listing the legal moves keeps instance order); both backends alike."""
    inst = make(deal(8, 18, 36, 4))
    ref, nat = api.system(inst, "reference"), api.system(inst, "compiled")
    rnd, state, checked = random.Random(4), inst.initial, 0
    while True:
        searched = nat.successors(state)
        if not searched:
            break
        if len(searched) > 1:
            assert [m for m, _, _ in searched] == [m for m, _, _ in ref.successors(state)]
            legal = nat.legal_moves(state)
            board = tiles(inst, state)
            kind = {m: board[int(m.split(",")[0]) - 1][int(m.split(",")[1].split("-")[0]) - 1] for m in legal}
            pairs = {k: sum(1 for m in legal if kind[m] == k) for k in kind.values()}
            key = [(pairs[kind[m]], legal.index(m)) for m, _, _ in searched]
            assert key == sorted(key) and sorted(m for m, _, _ in searched) == sorted(legal)
            checked += 1
        state = rnd.choice(searched)[1]
    assert checked > 5


def sliding(board, cell, mode) -> int:
    """How many tiles slide when the tile at `cell` leaves, the plain way: the tiles beyond it on its line, in
    its half for split and converge."""
    rows, cols = len(board), len(board[0])
    r, c = cell
    middle = rows // 2
    if mode in ("left", "right"):
        line = [(r, k) for k in (range(c + 1, cols) if mode == "left" else range(c))]
    else:
        rises = mode == "up" or (mode == "split" and r < middle) or (mode == "converge" and r >= middle)
        top, bottom = {"split": (0, middle - 1) if r < middle else (middle, rows - 1)}.get(mode, (0, rows - 1))
        line = [(k, c) for k in (range(r + 1, bottom + 1) if rises else range(top, r))]
    return sum(1 for p, q in line if board[p][q] != 0)


@pytest.mark.parametrize("mode", ["down", "up", "left", "right", "split", "converge"])
def test_with_gravity_a_search_tries_first_the_removals_that_slide_fewest_tiles(mode):
    """`ranks sliding(a) + sliding(b)`: with gravity a search lists the removals that make the fewest tiles slide
    first, ties in instance order; both backends alike."""
    inst = make(deal(6, 8, 12, 5), gravity=mode)
    ref, nat = api.system(inst, "reference"), api.system(inst, "compiled")
    rnd, state, checked, ordered = random.Random(5), inst.initial, 0, 0
    while True:
        searched = nat.successors(state)
        if not searched:
            break
        if len(searched) > 1:  # (else a safe move, taken alone)
            assert [m for m, _, _ in searched] == [m for m, _, _ in ref.successors(state)]
            legal, board = nat.legal_moves(state), tiles(inst, state)

            def slid(m):
                a, b = ((int(x) - 1 for x in end.split(",")) for end in m.split("-"))
                return sliding(board, tuple(a), mode) + sliding(board, tuple(b), mode)

            key = [(slid(m), legal.index(m)) for m, _, _ in searched]
            assert key == sorted(key) and sorted(m for m, _, _ in searched) == sorted(legal)
            checked += 1
            ordered += key[0][0] < key[-1][0]  # (removals of different ranks to order)
        state = rnd.choice(searched)[1]
    assert checked > 5 and ordered > 0


def test_the_relaxation_is_tested_only_without_gravity():
    """`deadlock: gravity == off and ...` can never hold under gravity: searches then skip the test (a part of the
    condition that reads only parameters is decided once per level)."""
    for gravity, live in (("off", True), ("down", False), ("split", False)):
        inst = make(deal(4, 4, 4, 0), gravity=gravity)
        for backend in ("reference", "compiled"):
            assert api.system(inst, backend).deadlocks == live, (gravity, backend)


def test_bans_cut_the_search():
    """On 6x6 boards of nine kinds, paths with one turn on the board, failed persisting moves banned below their
    later siblings (and the relaxation reading the bans) leave IDA* less to expand than it has without them."""
    banning = plainly = 0
    for seed in range(12):
        nat = api.system(make(deal(6, 6, 9, seed), outside=False, turns=1), "compiled")
        with_bans, without = nat.search("idastar"), solve(plain(nat), "idastar")
        assert with_bans.status == without.status
        banning += with_bans.stats.expanded
        plainly += without.stats.expanded
    assert banning < plainly, (banning, plainly)
