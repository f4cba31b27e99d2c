"""Semantics of the language's constructs, each on a tiny game, run by the reference backend."""
from __future__ import annotations

import pytest

from helpers import instance_from_rules, replay, system
from gridrules.api import compile_rules
from gridrules.errors import ErrorList, LevelError, RuleRuntimeError
from solvers import solve

WALKER = """
game walker
global target: cell static
global pos: cell
layer wall: bool static
action step(d: dir) "{d}":
    pos = pos + d
    require on_board(pos) and not wall[pos]
goal: pos == target
init:
    require target != none else "no goal `G`"
level grid:
    '.' : wall = false
    '#' : wall = true
    'S' : pos = here
    'G' : target = here
"""


def test_a_walker_finds_the_shortest_path_around_walls():
    s = system(instance_from_rules(WALKER, "S.#.\n..#G\n....\n"))
    sol = solve(s, "bfs")
    assert sol.cost == 6 and sol.moves[0] in ("D", "R")


def test_init_require_message_is_a_level_error():
    with pytest.raises(LevelError) as err:
        instance_from_rules(WALKER, "S..\n")
    assert err.value.message == "no goal `G`"


def test_region_includes_its_seeds_and_grows_through_matching_cells():
    rules = """
game r
layer v: 0..3
global size: 0..100
action go() "go":
    require size == 0
    size = count(region((0, 0), v == 1))
goal: size > 0
level grid:
    '0'..'3' : v = value
"""
    s = system(instance_from_rules(rules, "2110\n0100\n1111\n"))
    (move, nxt, cost), = s.successors(s.initial())
    # the seed (0,0) holds 2, yet it is in the region; then the seven 1s connected to it
    assert s.inst.unpack(nxt)["size"] == 1 + 7


def test_integer_division_rounds_down_and_zero_costs_count():
    rules = """
game d
global n: -10..10 = 5
action half() "half" cost 0:
    require n >= 0
    n = n / 2 - 1
goal: n < 0 and -3 / 2 == -2 and -3 % 2 == 1
level grid:
    '.' : pass
"""
    s = system(instance_from_rules(rules, "."))
    sol = solve(s, "bfs")
    # 5 -> 1 -> -1: two free moves; division rounds down, also for negative numbers
    assert sol.moves == ("half",) * 2 and sol.cost == 0
    final = replay(s, sol.moves)[0]
    assert s.inst.unpack(final)["n"] == -1


def test_domain_violation_at_run_time_names_the_statement():
    rules = """
game dv
global n: 0..3
action up() "up":
    n += 1
goal: n == 9
level grid:
    '.' : pass
"""
    with pytest.raises(ErrorList):  # the constant goal 9 is fine; but a literal out of range is caught early
        compile_rules(rules.replace("n += 1", "n = 4"), "<x>")
    s = system(instance_from_rules(rules, "."))
    state = s.initial()
    for _ in range(3):
        (_, state, _), = s.successors(state)
    with pytest.raises(RuleRuntimeError) as err:
        list(s.successors(state))
    assert "value 4 is outside `n`'s domain 0..3" in err.value.message
    assert err.value.span.line == 5


def test_reading_off_the_board_is_a_located_rule_error():
    rules = """
game off
global pos: cell
layer wall: bool static
action step(d: dir) "{d}":
    pos = pos + d
    require not wall[pos]
goal: false
level grid:
    'S' : pos = here
    '.' : pass
"""
    s = system(instance_from_rules(rules, "S."))
    with pytest.raises(RuleRuntimeError) as err:
        list(s.successors(s.initial()))
    assert "outside the 1x2 board" in err.value.message and err.value.hint.startswith("guard it")


def test_for_over_an_enum_while_loops_and_def_return_values():
    rules = """
game loops
enum colour = red, green, blue
global total: 0..100
def weight(c: colour):
    if c == red:
        return 1
    elif c == green:
        return 10
    return 100
action sum() "sum":
    require total == 0
    for c in colour:
        total = min(100, total + weight(c) % 100)
    let k = 0
    while k < 3:
        k += 1
    total = total + k
goal: total > 0
level grid:
    '.' : pass
"""
    s = system(instance_from_rules(rules, "."))
    (_, nxt, _), = s.successors(s.initial())
    assert s.inst.unpack(nxt)["total"] == 1 + 10 + 0 + 3


@pytest.mark.parametrize("backend", ["reference", "compiled"])
def test_a_while_true_left_only_by_return_returns_on_every_path(backend):
    """The language has no `break`: a def or heuristic ending in `while true` whose way out is a `return` inside
    returns on every path (the checker once said it did not), and both backends run it alike."""
    rules = """
game lights
layer lit: bool
def first_lit():
    let i = 0
    while true:
        if i >= 3 or lit[(0, i)]:
            return i
        i += 1
action press(p: cell) "{p}":
    require first_lit() <= p.col
    for q in neighbours(p) | p:
        lit[q] = not lit[q]
goal: empty(cells where lit)
heuristic none_left admissible:
    while true:
        return 0
level grid:
    '.' : lit = false
    '#' : lit = true
"""
    inst = instance_from_rules(rules, "#.#\n...\n")
    sol = solve(system(inst, backend), "astar")
    assert sol.cost == 3 and sol.optimal
    reference = system(inst)
    assert reference.is_goal(replay(reference, sol.moves)[0])


def test_fail_conditions_prune_states_and_limit_bounds_cost():
    rules = """
game f
global n: 0..9
action inc() "+":
    n += 1
action dec() "-":
    require n > 0
    n -= 1
fail: n == 3
goal: n == 5
level grid:
    '.' : pass
"""
    s = system(instance_from_rules(rules, "."))
    sol = solve(s, "bfs")
    assert sol.status == "unsolvable" and sol.optimal  # 3 is a dead end on the only way to 5


def test_bodies_roll_by_their_table():
    rules = """
game rollers
body block:
    pose up: (0, 0)
    pose flat: (0, 0) (0, 1)
    roll up: L -> flat (0, -2), R -> flat (0, 1), U -> up (-1, 0), D -> up (1, 0)
    roll flat: L -> up (0, -1), R -> up (0, 2), U -> flat (-1, 0), D -> flat (1, 0)
global start: cell static
global target: cell static
action roll(d: dir) "{d}":
    block = roll(block, d)
    require on_board(block)
goal: block.pose == up and block.at == target
init:
    block = up at start
level grid:
    'S' : start = here
    'T' : target = here
    '.' : pass
"""
    s = system(instance_from_rules(rules, "S..T\n"))
    sol = solve(s, "bfs")
    assert sol.moves == ("R", "R") and sol.cost == 2  # up -> flat on cols 1,2 -> up on col 3


def test_limits_on_loops_and_moves_are_clear_errors():
    from gridrules.errors import UsageError

    loop = """
game big
global n: 0..3
action go() "go":
    for i in 0..100000000:
        n = 1
goal: n == 1
level grid:
    '.' : pass
"""
    s = system(instance_from_rules(loop, "."))
    with pytest.raises(RuleRuntimeError) as err:
        list(s.successors(s.initial()))
    assert "this loop would run 100,000,001 times" in err.value.message
    many = """
game many
param k: int = 5000
global n: 0..3
action go(a: 0..k, b: 0..k) "go":
    n = 1
goal: n == 1
level grid:
    '.' : pass
"""
    with pytest.raises(UsageError) as err:
        instance_from_rules(many, ".")  # (said when the level is read, before its legend and `init` run)
    assert "25,010,001 parameter combinations" in str(err.value)
    with pytest.raises(UsageError) as err:
        instance_from_rules(many.replace("level grid:", 'init:\n    require false else "init ran"\nlevel grid:'), ".")
    assert "25,010,001 parameter combinations" in str(err.value)
    # a domain of 2^62 values is counted and refused, not listed first (that ran out of memory)
    with pytest.raises(UsageError) as err:
        instance_from_rules(many.replace("5000", str(2**62 - 1)), ".")
    assert str(err.value) == (f"action `go` has {(2**62) ** 2:,} parameter combinations on this level (its "
                              f"parameters `a` in `0..k`, `b` in `0..k` take {2**62:,} values each), more than the "
                              "1,000,000 moves a level may list; `gridrules query` asks about single moves without "
                              "listing them all")
    # an action switched off for the level (a `when` of its parameters alone that is false) has no moves to count,
    # in either backend: Flood-It's `flood_at`, `when free`, refused boards over ~408x408 in plain Flood-It
    switched = many.replace("param k: int = 5000", "param k: int = 5000\nparam on: bool = false").replace(
        'action go(a: 0..k, b: 0..k) "go":', 'action go(a: 0..k, b: 0..k) "go" when on:\n    n = 2\n'
        'action step() "step":')
    inst = instance_from_rules(switched, ".")
    for backend in ("reference", "compiled"):
        assert [text for text, _, _ in system(inst, backend).successors(inst.initial)] == ["step"]
    with pytest.raises(UsageError) as err:
        instance_from_rules(switched, ".", {"on": True})
    assert "action `go` has 25,010,001 parameter combinations" in str(err.value)


def test_rules_nested_too_deeply_are_reported_not_crashed():
    deep = "game deep\nglobal n: 0..3\naction go():\n    n = " + " + ".join(["0"] * 3000) + "\ngoal: n == 0\n" \
           "level grid:\n    '.' : pass\n"
    with pytest.raises(Exception) as err:
        compile_rules(deep, "deep.grl")
    from gridrules.errors import GridrulesError

    assert isinstance(err.value, GridrulesError)


DOMINATED = """
game corridor
global pos: 0..5
action step() "step":
    require pos < 5
    pos += 1
goal: pos == 5
heuristic exact admissible{dominates}: 5 - pos
heuristic claimed admissible: 6 - pos   # (not admissible in truth: it shows which heuristics the default reads)
level grid:
    '.' : pass
"""


@pytest.mark.parametrize("backend", ["reference", "compiled"])
def test_the_default_heuristic_leaves_out_those_another_dominates(backend):
    plain = system(instance_from_rules(DOMINATED.format(dominates=""), "..\n"), backend)
    ruled = system(instance_from_rules(DOMINATED.format(dominates=" dominates claimed"), "..\n"), backend)
    start = plain.initial()
    assert plain.heuristic(start) == 6  # the maximum of both
    assert ruled.heuristic(start) == 5  # `claimed` is left out of the default ...
    assert system(ruled.inst, backend, "claimed").heuristic(start) == 6  # ... and still there by name
    assert [h.in_default for h in ruled.inst.game.heuristics] == [True, False]
    assert ruled.inst.game.heuristics[0].dominates == ("claimed",)


def test_dominates_reads_the_same_in_yaml_as_in_the_dsl():
    from gridrules.syntax import parse_dsl, parse_yaml
    dsl = parse_dsl("heuristic a admissible dominates b, c: 0\nheuristic b admissible: 0\nheuristic c admissible: 0\n")
    yaml_text = ("game: g\nheuristics:\n  a: {admissible: true, dominates: [b, c], expr: '0'}\n"
                 "  b: {admissible: true, expr: '0'}\n  c: {admissible: true, expr: '0'}\n")
    assert [tuple(n.id for n in d.dominates) for d in parse_yaml(yaml_text).decls[1:]] == [("b", "c"), (), ()]
    assert [tuple(n.id for n in d.dominates) for d in dsl.decls] == [("b", "c"), (), ()]
    for one, names in (("dominates: b", ("b",)), ("dominates: []", ())):  # (one name alone; a list of none)
        text = yaml_text.replace("dominates: [b, c]", one)
        assert tuple(n.id for n in parse_yaml(text).decls[1].dominates) == names


def test_ir_nodes_are_values():
    """A checked game is immutable and compared by value (the compiled backend finds the code of equal games by
    it): a node's fields cannot be set again, and spans take no part in equality or hashing."""
    import dataclasses

    from gridrules import ir

    text = "game g\nlayer wall: bool\naction clear(c: cell):\n    wall[c] = false\ngoal: empty(cells where wall)\n"
    game, again = compile_rules(text, "g.grl")[0], compile_rules("\n\n" + text, "g.grl")[0]
    assert game == again and hash(game) == hash(again) and game.goals[0].span != again.goals[0].span
    for node, name in ((game, "name"), (game.goals[0], "span"), (ir.Const(ir.Ty("int"), 1), "value")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(node, name, None)
        with pytest.raises(dataclasses.FrozenInstanceError):
            delattr(node, name)
    assert dataclasses.replace(ir.Const(ir.Ty("int"), 1), value=2) == ir.Const(ir.Ty("int"), 2)
    # (their methods are written at first use: a node made by pickle, or of a class not used yet, is the same)
    import pickle

    thawed = pickle.loads(pickle.dumps(game))
    assert thawed == game and hash(thawed) == hash(game)
    one, other = ir.Const(ir.Ty("int"), 1), ir.Const(ty=ir.Ty("int"), value=1, span=game.goals[0].span)
    assert one == other and hash(one) == hash(other) and one.span is None
    assert ir.Const(ir.Ty("int"), 1) != ir.Const(ir.Ty("bool"), 1) and ir.Const(ir.Ty("int"), 1) != 1
    assert ir.ParamRef(ir.Ty("int"), "n") != ir.GlobalRef(ir.Ty("int"), "n")  # (same fields, other nodes)
    assert repr(ir.Const(ir.Ty("int"), 1)) == "Const(ty=Ty(kind='int', name=None), value=1)"
    with pytest.raises(TypeError):
        ir.Const(ir.Ty("int"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        ir.Const(ir.Ty("int"), 1).extra = 2  # (a node holds its fields and nothing else)


@pytest.mark.parametrize("domain, start, step, goal", [("5..9", 9, "t -= 1", 5), ("-5..-1", -5, "t += 1", -1)])
def test_an_increment_outside_the_domain_is_no_stored_value(domain, start, step, goal):
    """`t -= 1` on 5..9 stores t - 1, not 1: the checker holds the value stored to the domain, not the step
    (it once refused these rules); a constant stored outside it is still refused."""
    rules = f"""
game countdown
global t: {domain}
action tick() "tick":
    require t != {goal}
    {step}
goal: t == {goal}
init:
    t = {start}
level grid:
    '.' : pass
"""
    sol = solve(system(instance_from_rules(rules, ".\n"), "reference"), "bfs")
    assert sol.cost == 4 and sol.moves == ("tick",) * 4
    with pytest.raises(ErrorList) as err:
        compile_rules(rules.replace(step, "t = 1" if start == 9 else "t = 0"), "c.grl")
    assert "outside global `t`'s domain" in err.value.errors[0].message


def test_carriage_returns_before_a_line_end_stay_as_they_were():
    """A lone CR with text after it ends an old-Mac line (a located error, see golden lone_carriage_return);
    CRs just before a line end, as some editors leave after a comment, are no error."""
    text = 'game x "X"  # a note\r\r\nlayer a: bool\r\naction go() "go":\n    a[(0, 0)] = true\ngoal: a[(0, 0)]\n' \
           "level grid:\n    '.' : pass\n"
    game, _ = compile_rules(text, "x.grl")
    assert [a.name for a in game.actions] == ["go"]


def test_a_line_holding_only_a_form_feed_is_a_blank_line():
    """(a page break, as Python's files may have: it was `unexpected end of line` between declarations and
    blocks alike)"""
    rules = ("game x\n\f\nlayer a: bool\naction f(p: cell):\n\f\n    a[p] = not a[p]\n \f \n"
             "goal: empty(cells where a)\nlevel grid:\n    '.' : pass\n    '#' : a = true\n")
    game, warnings = compile_rules(rules, "ff.grl")
    assert [a.name for a in game.actions] == ["f"] and not warnings
    assert solve(system(instance_from_rules(rules, "#.\n"), "reference"), "bfs").cost == 1


def test_numbers_in_rules_reach_as_far_as_an_int_parameters_values():
    """An int parameter takes -2^62..2^62 (`-p`); a number written in the rules reached only 2^62 - 1, and the
    message said the limit was 2^62."""
    rules = ("game x\nparam k: int = 4611686018427387904\nglobal n: 0..1\naction a() \"a\":\n    n = 1\n"
             "goal: n == 1 and k > -4611686018427387904\nlevel grid:\n    '.' : pass\n")
    assert solve(system(instance_from_rules(rules, ".\n"), "reference"), "bfs").cost == 1
    with pytest.raises(ErrorList) as err:
        compile_rules(rules.replace("4611686018427387904", "4611686018427387905"), "big.grl")
    assert [d.message for d in err.value.errors] == ["this number is too large (the limit is 2^62)"] * 2
