"""`commutes`: the promise holds where the bundled rules make it, path searches try one order of each run of
commuting moves and still find the optimum, both backends list the same path successors, and a safe move
taken alone starts a new run."""
from __future__ import annotations

import random

import pytest
from hypothesis import assume, given, settings, strategies as st

from helpers import commutes_as_promised, instance, instance_from_rules, native_agrees, plain, system
from gridrules import api
from gridrules.errors import RuleRuntimeError
from solvers import solve

# Lamps that only go on: every press commutes with every other; pressing the corner is also safe.
LAMPS = """game lamps "Lamps"

param corner_safe: bool = false
layer lit: bool

action press(p: cell) "{p}":
    require not lit[p]
    lit[p] = true
    commutes
    if corner_safe and p == (0, 0):
        safe

goal: empty(cells where not lit)

level grid:
    '.': lit = false
    '*': lit = true
"""


def board_level(ruleset, board, **params):
    """A Drops or Splash Back instance of a board in seed 000's format, parameters as on the command line."""
    text = "\n".join(" ".join(map(str, row)) for row in board) + "\n"
    pairs = [f"{k}={str(v).lower()}" for k, v in params.items()]
    return instance(ruleset, text, api.parse_params(api.load_rules(ruleset), pairs), "numbers")


def drops(board, **params):
    return board_level("drops", board, **params)


def check_along_a_walk(inst, seed, steps=3):
    """The promise of `commutes` holds at each state of a random walk."""
    ref = system(inst, "reference")
    rng, state = random.Random(seed), inst.initial
    for _ in range(steps):
        commutes_as_promised(ref, state)
        nxt = ref.successors(state)
        if not nxt:
            break
        state = rng.choice(nxt)[1]


boards = st.integers(2, 4).flatmap(lambda h: st.integers(2, 4).flatmap(
    lambda w: st.lists(st.lists(st.integers(0, 4), min_size=w, max_size=w), min_size=h, max_size=h)))


def test_the_bundled_rules_say_which_moves_commute():
    assert api.load_rules("drops").commuting and api.load_rules("splashback").commuting
    assert not api.load_rules("floodit").commuting and not api.load_rules("lianliankan").commuting


@settings(max_examples=20, deadline=None)
@given(boards, st.sampled_from(["half", "unit"]), st.booleans(), st.integers(0, 10**6))
def test_drops_clicks_commute_as_promised(board, timing, any_cell, seed):
    check_along_a_walk(drops(board, timing=timing, any_cell=any_cell), seed)


@settings(max_examples=15, deadline=None)
@given(st.lists(st.lists(st.integers(0, 4), min_size=3, max_size=3), min_size=3, max_size=3),
       st.integers(1, 4), st.integers(0, 10**6))
def test_splashback_clicks_commute_as_promised(board, hand, seed):
    check_along_a_walk(board_level("splashback", board, supply=hand), seed)


def test_the_promise_checker_finds_a_broken_promise():
    # a press lights its lamp and the one to its right: pressing 1,2 then 1,1 is fine, but after 1,1 the lamp
    # 1,2 is lit, so the other order is not legal
    broken = LAMPS.replace("    lit[p] = true\n",
                           "    lit[p] = true\n    if p.col + 1 < cols:\n        lit[(p.row, p.col + 1)] = true\n")
    inst = instance_from_rules(broken, "..\n..\n")
    with pytest.raises(AssertionError, match="is not a commuting move after"):
        commutes_as_promised(system(inst, "reference"), inst.initial)


def test_path_successors_leave_out_commuting_moves_numbered_below_after():
    # moves, numbered in reading order: 1,1 (0, bursts: does not commute), 1,2 (1), 2,2 (3); 2,1 is empty
    inst = drops([[4, 1], [0, 2]])
    for backend in ("reference", "compiled"):
        sys_ = system(inst, backend)
        assert [(m, i) for m, _, _, i in sys_.path_successors(inst.initial, -1)] == \
            [("1,1", -1), ("1,2", 1), ("2,2", 3)]
        assert [(m, i) for m, _, _, i in sys_.path_successors(inst.initial, 2)] == [("1,1", -1), ("2,2", 3)]
        assert [(m, i) for m, _, _, i in sys_.path_successors(inst.initial, 3)] == [("1,1", -1), ("2,2", 3)]
        # listing and searching without an order still see every move
        assert [m for m, _, _ in sys_.successors(inst.initial)] == ["1,1", "1,2", "2,2"]
        assert sys_.legal_moves(inst.initial) == ["1,1", "1,2", "2,2"]


def test_a_safe_move_taken_alone_starts_a_new_run():
    inst = instance_from_rules(LAMPS, "...\n...\n", {"corner_safe": True})
    for backend in ("reference", "compiled"):
        sys_ = system(inst, backend)
        # the corner commutes and is numbered 0, below `after`, but it is safe: taken alone, after -1
        assert [(m, i) for m, _, _, i in sys_.path_successors(inst.initial, 4)] == [("1,1", -1)]


@pytest.mark.parametrize("algorithm", ["iddfs", "idastar"])
def test_one_order_of_each_run_is_tried(algorithm):
    inst = instance_from_rules(LAMPS, "....\n.*..\n")
    ref = system(inst, "reference")
    ordered, every = solve(ref, algorithm), solve(plain(ref), algorithm)
    assert (ordered.status, ordered.cost, every.cost) == ("solved", 7, 7)
    # seven presses in any order: without a table one order is tried of 7!; IDA*'s table already meets each set
    # of presses once, but no longer generates the other orders' moves
    assert ordered.stats.generated < every.stats.generated / (20 if algorithm == "iddfs" else 2)
    assert ordered.stats.expanded <= every.stats.expanded
    assert list(ordered.moves) == sorted(ordered.moves, key=lambda m: tuple(map(int, m.split(","))))


# (mostly big drops: boards that take few clicks, where the Python iddfs stays quick)
small_boards = st.integers(2, 3).flatmap(lambda h: st.integers(2, 3).flatmap(lambda w: st.lists(
    st.lists(st.sampled_from((0, 0, 2, 3, 4, 4)), min_size=w, max_size=w), min_size=h, max_size=h)))


@settings(max_examples=25, deadline=None)
@given(small_boards, st.sampled_from(["half", "unit"]), st.booleans())
def test_path_searches_find_the_same_optimum(board, timing, any_cell):
    inst = drops(board, timing=timing, any_cell=any_cell)
    ref, nat = system(inst, "reference"), system(inst, "compiled")
    best = nat.search("astar").cost  # (A* ignores the order)
    assume(best <= 4)  # (the Python iddfs is slow beyond)
    # the native deepening searches order the same runs as the Python ones, step for step, at the optimum
    native_agrees(inst, nat, ref, ("iddfs", "idastar"))
    assert nat.search("iddfs").cost == nat.search("idastar").cost == best


# Switches (docs/language.md §5.9) with a safe corner: wired flips do not commute, plain ones do, and a safe move
# cuts a run short.
SWITCHES = """game switches "Switches"

layer on: bool
layer wired: bool static

action flip(p: cell) "{p}":
    require not on[p]
    on[p] = true
    if wired[p] and on_board(p + D):
        on[p + D] = true
    else:
        commutes
    if p == (0, 0) and not wired[p]:
        safe

goal: empty(cells where not on)

level grid:
    '.': pass
    'w': wired = true
    '#': on = true
"""


@settings(max_examples=25, deadline=None)
@given(st.lists(st.text(".w#", min_size=3, max_size=3), min_size=2, max_size=2))
def test_safe_and_commuting_moves_together_keep_the_optimum(rows):
    inst = instance_from_rules(SWITCHES, "\n".join(rows) + "\n")
    ref, nat = system(inst, "reference"), system(inst, "compiled")
    state = inst.initial
    commutes_as_promised(ref, state)
    for algorithm in ("iddfs", "idastar"):
        assert solve(ref, algorithm).cost == solve(plain(ref), algorithm).cost == solve(ref, "bfs").cost
    native_agrees(inst, nat, ref, ("iddfs", "idastar"))


# Presses and taps written alike, never legal on one cell together: both commute. A path search's successors
# numbered -1 - m (commuting) must still be told apart by their numbers (an earlier fault read another move's).
TAPS = """game taps
param both: bool = false
layer lit: bool
layer tappable: bool static

action press(p: cell) "{p}":
    require not lit[p] and (both or not tappable[p])
    lit[p] = true
    commutes

action tap(p: cell) "{p}":
    require not lit[p] and tappable[p]
    lit[p] = true
    commutes

goal: empty(cells where not lit)

level grid:
    '.': pass
    't': tappable = true
"""


@pytest.mark.parametrize("algorithm", ["iddfs", "idastar", "astar", "bfs"])
def test_commuting_moves_written_alike_are_told_apart_by_number(algorithm):
    inst = instance_from_rules(TAPS, "..\n.t\n")
    ref, nat = system(inst, "reference"), system(inst, "compiled")
    assert solve(ref, algorithm).cost == nat.search(algorithm).cost == 4
    clash = instance_from_rules(TAPS, "..\n.t\n", {"both": True})  # (press and tap both legal at 2,2)
    for search in (lambda: solve(system(clash, "reference"), algorithm), lambda: system(clash, "compiled").search(
            algorithm)):
        with pytest.raises(RuleRuntimeError, match="two legal moves are both written `2,2`"):
            search()
