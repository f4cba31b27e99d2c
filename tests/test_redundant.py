"""`redundant`: a search leaves a marked move out, except in the state it starts from; listing and replaying
moves still see it; both backends agree; Flood-It's move order (Puchert's) keeps every optimum."""
from __future__ import annotations

import random

from hypothesis import given, settings, strategies as st

from helpers import ROOT, EveryMove, instance_from_rules, native_agrees, system
from solvers import solve
from solvers.perft import layer_counts

# Lamps that only go on: any order of presses does, so a search presses each row's lamps left to right.
LAMPS = """game lamps "Lamps"

layer lit: bool

action press(p: cell) "{p}":
    require not lit[p]
    lit[p] = true
    if p.col > 0 and not lit[(p.row, p.col - 1)]:
        redundant

goal: empty(cells where not lit)

level grid:
    '.': lit = false
    '*': lit = true
"""
PLAIN_LAMPS = LAMPS.replace("        redundant\n", "        pass\n")
FLOODIT = (ROOT / "rulesets" / "floodit" / "floodit.grl").read_text()
PLAIN_FLOODIT = FLOODIT.replace("            redundant  # (see below)\n", "            pass\n")


def texts(successors) -> list[str]:
    return [m for m, *_ in successors]


def test_a_search_leaves_redundant_moves_out_but_where_it_starts():
    inst = instance_from_rules(LAMPS, "...\n...\n")
    for backend in ("reference", "compiled"):
        s = system(inst, backend)
        start = inst.initial
        assert texts(s.successors(start)) == ["1,1", "1,2", "1,3", "2,1", "2,2", "2,3"]  # (where it starts)
        after = s.step(start, "1,2")[0]  # (the same as after 1,1 1,2, or 1,2 1,1)
        assert texts(s.successors(after)) == ["1,1", "1,3", "2,1"]
        assert s.legal_moves(after) == ["1,1", "1,3", "2,1", "2,2", "2,3"]  # a player may still make any
        assert s.step(after, "2,3") is not None  # and replaying takes it
        assert texts(s.successors(after, every=True)) == s.legal_moves(after)


def test_searches_on_both_backends_find_the_optimum_with_fewer_states():
    inst = instance_from_rules(LAMPS, "....\n.*..\n")
    ref, nat = system(inst, "reference"), system(inst, "compiled")
    native_agrees(inst, nat, ref)
    plain = system(instance_from_rules(PLAIN_LAMPS, "....\n.*..\n"), "reference")
    for algorithm in ("bfs", "astar", "iddfs", "idastar"):
        pruned, every = solve(ref, algorithm), solve(plain, algorithm)
        assert pruned.cost == every.cost == 7 and pruned.optimal
        assert pruned.stats.generated < every.stats.generated
    # seven lamps pressed in any order light 2^7 sets of lamps; a search meets those of the model below
    assert layer_counts(EveryMove(ref), 7) == [1, 7, 21, 35, 35, 21, 7, 1]
    assert layer_counts(ref, 7) == model_layers(["....", ".*.."], 7)


class LampModel:
    """The lamps with the rule written directly, as a TransitionSystem over sets of lit lamps: a press after the
    first one is made only when its lamp is in the first column or its left neighbour is lit."""

    def __init__(self, rows):
        self.start = frozenset((r, c) for r, row in enumerate(rows) for c, x in enumerate(row) if x == "*")
        self.cells = {(r, c) for r, row in enumerate(rows) for c in range(len(row))}

    def initial(self):
        return self.start

    def successors(self, on):
        return [(f"{r + 1},{c + 1}", on | {(r, c)}, 1) for r, c in sorted(self.cells - on)
                if on == self.start or c == 0 or (r, c - 1) in on]


def model_layers(rows, depth):
    return layer_counts(LampModel(rows), depth)


lamp_rows = st.integers(1, 3).flatmap(lambda w: st.lists(st.text(".*", min_size=w, max_size=w),
                                                          min_size=1, max_size=3))


@settings(max_examples=30, deadline=None)
@given(lamp_rows, st.integers(0, 10**6))
def test_both_backends_leave_out_the_same_moves(rows, seed):
    inst = instance_from_rules(LAMPS, "\n".join(rows) + "\n")
    ref, nat = system(inst, "reference"), system(inst, "compiled")
    rng, state = random.Random(seed), inst.initial
    while True:
        searched = ref.successors(state)
        assert sorted(searched) == sorted(nat.successors(state))
        assert ref.legal_moves(state) == nat.legal_moves(state)
        if not searched:
            break
        state = rng.choice(searched)[1]
    assert solve(ref, "bfs").cost == sum(row.count(".") for row in rows) == nat.search("astar").cost



# Presses commute too (each lights its own lamp): a path search then tries them in ascending order and leaves the
# redundant ones out, both at once; pressing in reading order never makes a redundant press, so the promise holds
# among the ascending solutions (docs/language.md, `redundant`).
COMMUTING_LAMPS = LAMPS.replace("    lit[p] = true\n", "    lit[p] = true\n    commutes\n")


@settings(max_examples=30, deadline=None)
@given(lamp_rows)
def test_redundant_and_commuting_moves_together_keep_the_optimum(rows):
    inst = instance_from_rules(COMMUTING_LAMPS, "\n".join(rows) + "\n")
    ref, nat = system(inst, "reference"), system(inst, "compiled")
    dark = sum(row.count(".") for row in rows)
    for algorithm in ("bfs", "astar", "iddfs", "idastar"):
        for sol in (solve(ref, algorithm), nat.search(algorithm)):
            assert (sol.cost, sol.optimal) == (dark, True), algorithm
            state = inst.initial
            for move in sol.moves:
                state = ref.step(state, move)[0]
            assert ref.is_goal(state)

floodit_boards = st.integers(2, 5).flatmap(lambda n: st.integers(3, 5).flatmap(lambda k: st.tuples(
    st.just(k), st.lists(st.lists(st.integers(0, k - 1), min_size=n, max_size=n), min_size=n, max_size=n))))


@settings(max_examples=60, deadline=None)
@given(floodit_boards, st.integers(0, 10**6))
def test_floodits_move_order_keeps_the_optimum(case, seed):
    """Puchert's rule (rulesets/floodit/floodit.grl) against the same rules without `redundant`: every search
    finds the same optimum, from the level's start and with the pivot anywhere."""
    k, board = case
    n = len(board)
    level = "\n".join("".join(map(str, row)) for row in board) + "\n"
    params = {"colours": k}
    if seed % 2:
        params["pivot"] = (seed % n, (seed // n) % n)
    inst = instance_from_rules(FLOODIT, level, params, "grid")
    plain = system(instance_from_rules(PLAIN_FLOODIT, level, params, "grid"), "reference")
    optimum = solve(plain, "bfs").cost
    ref = system(inst, "reference")
    for algorithm in ("bfs", "astar", "idastar"):
        assert solve(ref, algorithm).cost == optimum
    nat = system(inst, "compiled")
    assert nat.search("astar").cost == nat.search("bfs").cost == optimum
    assert sum(layer_counts(ref, 3)) <= sum(layer_counts(plain, 3))


# A move whose hints read a def that may reject it, and a let the move itself reads after the hint's test.
HINTED = """game hinted "Hinted"

layer lit: bool

def dark_left(p: cell):
    require p.col > 0
    return not lit[(p.row, p.col - 1)]

action press(p: cell) "{p}":
    require not lit[p]
    let row = cells where here.row == p.row
    let unlit = count(row where not lit)
    if unlit > 1:
        commutes
    if dark_left(p):
        redundant
    lit[p] = unlit > 0

goal: empty(cells where not lit)

level grid:
    '.': lit = false
"""


def test_listing_runs_a_move_without_what_only_its_hints_read():
    from gridrules import api, ir

    flood = api.load_rules("floodit").actions[0].proc
    plain = ir.without_hints(flood)
    assert not ir.contains(plain.body, lambda x: isinstance(x, ir.Redundant))
    assert ir.count(plain.body, lambda x: isinstance(x, ir.If)) == 0  # (its test and the lets it read are gone)
    assert ir.without_hints(plain) is plain
    game = instance_from_rules(HINTED, "..\n..\n").game
    press = ir.without_hints(game.actions[0].proc)
    kinds = [type(s).__name__ for s in press.body]
    # the `if` that calls a def stays (the def may reject the move); the let the move reads stays
    assert kinds == ["Require", "SetLocal", "SetLocal", "If", "SetLayer"]
    assert not ir.contains(press.body, lambda x: isinstance(x, (ir.Commutes, ir.Redundant)))
    inst = instance_from_rules(HINTED, "..\n..\n")
    for backend in ("reference", "compiled"):  # a press in the first column is rejected by dark_left's require
        assert system(inst, backend).legal_moves(inst.initial) == ["1,2", "2,2"]


def test_a_hint_that_calls_a_def_stays_when_moves_are_listed():
    from gridrules import ir

    rules = HINTED.replace("    if unlit > 1:\n        commutes\n", "    chooses row_of(p)\n").replace(
        "action press", "def row_of(p: cell):\n    require p.row > 0\n    return p.row\n\naction press")
    inst = instance_from_rules(rules, "..\n..\n")
    press = ir.without_hints(inst.game.actions[-1].proc)
    assert ir.contains(press.body, lambda x: isinstance(x, ir.Chooses))  # (row_of may reject the move)
    for backend in ("reference", "compiled"):  # row_of rejects the first row, dark_left the first column
        assert system(inst, backend).legal_moves(inst.initial) == ["2,2"]
