"""64-bit integers in native code: where the compiled backend's arithmetic could pass them, it stops with a located
error instead of going on with a wrapped value; everywhere else it computes what the reference backend (Python's
integers, of any size) computes. The bounds that decide where a test is needed (compiled/bounds.py) must hold."""
from __future__ import annotations

import functools

import pytest
from hypothesis import example, given, settings, strategies as st

from helpers import instance_from_rules, system
from gridrules.errors import RuleRuntimeError

pytest.importorskip("numba")

LEAST, MOST = -(1 << 63), (1 << 63) - 1
int64s = st.one_of(st.integers(LEAST, MOST), st.sampled_from([LEAST, LEAST + 1, -1, 0, 1, MOST - 1, MOST,
                                                              1 << 31, -(1 << 31), 3037000499, 3037000500]))


@functools.cache
def _tests():
    """The runtime's five tests of one pair, in one compiled function."""
    from numba import njit

    from gridrules.compiled import runtime as rt

    @njit
    def tests(a, b):
        return (rt.sum_overflows(a, b), rt.difference_overflows(a, b), rt.product_overflows(a, b),
                rt.quotient_overflows(a, b), rt.negation_overflows(a))

    return tests


@given(int64s, int64s)
@example(LEAST, -1)
@example(3037000500, 3037000500)  # (just past 2^63: 3037000500^2 = 9223372037000250000)
@example(-3037000500, 3037000500)
def test_the_runtime_tells_when_an_operation_passes_64_bits(a, b):
    outside = [not LEAST <= v <= MOST for v in (a + b, a - b, a * b, a // b if b else 0, -a)]
    assert list(_tests()(a, b)) == outside


RULES = """\
game sums "sums"
global n: 0..9
param big: int = {big}
{actions}
goal: n == 9
level grid:
    '.': pass
"""
ACTION = """action a{k}() "a{k}" cost abs({text}):
    require n < 9
    n += 1
"""

# Operands: the global, a parameter, literals small and large (literals go up to 2^62; more comes of arithmetic).
LEAVES = ["n", "big", "0", "1", "2", "7", "3037000500", "2305843009213693952", "4611686018427387903"]


@st.composite
def int_expressions(draw, depth=0):
    if depth >= 4 or draw(st.integers(0, 2)) == 0:
        return draw(st.sampled_from(LEAVES))
    kind = draw(st.sampled_from(["+", "-", "*", "/", "%", "neg", "abs", "min", "max"]))
    a = draw(int_expressions(depth + 1))
    if kind == "neg":
        return f"-({a})"
    if kind == "abs":
        return f"abs({a})"
    if kind in ("min", "max"):
        return f"{kind}({a}, {draw(int_expressions(depth + 1))})"
    if kind in ("/", "%"):  # (a divisor that is never 0: a division by zero is an error of its own)
        return f"({a}) {kind} {draw(st.sampled_from(['1', '-1', '3', '(0 - 7)', '(n + 1)']))}"
    return f"({a}) {kind} ({draw(int_expressions(depth + 1))})"


def _passes_64_bits(text: str, n: int, big: int) -> bool:
    """Whether evaluating `text` (Python's own syntax here, with its floor division) has a step outside 64 bits."""
    import ast

    def ev(node):
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return {"n": n, "big": big}[node.id]
        if isinstance(node, ast.UnaryOp):
            return check(-ev(node.operand))
        if isinstance(node, ast.Call):
            args = [ev(a) for a in node.args]
            return check({"abs": abs, "min": min, "max": max}[node.func.id](*args))
        a, b = ev(node.left), ev(node.right)
        op = {ast.Add: "__add__", ast.Sub: "__sub__", ast.Mult: "__mul__", ast.FloorDiv: "__floordiv__",
              ast.Mod: "__mod__"}[type(node.op)]
        return check(getattr(a, op)(b))

    def check(v):
        if not LEAST <= v <= MOST:
            raise OverflowError
        return v

    try:
        ev(ast.parse(text, mode="eval").body)
    except OverflowError:
        return True
    return False


@settings(max_examples=4, deadline=None)  # (each example compiles a module: ~10 s)
@given(st.lists(int_expressions(), min_size=8, max_size=8), st.sampled_from([0, 5, 1 - (1 << 62), (1 << 62) - 1]))
@example(["4611686018427387903 * 2 + 1 + n", "4611686018427387903 * 2 + n", "-(4611686018427387903 * 2) - n",
          "-(4611686018427387903 * 2) - n - 1", "(0 - 4611686018427387903 * 2) / (0 - 1) + n", "big * big",
          "n * n * n * 3037000500", "(big - 4611686018427387903 * 2) % 3 + n"], (1 << 62) - 1)
def test_native_arithmetic_is_the_references_or_stops_where_it_would_pass_64_bits(texts, big):
    """Costs of random arithmetic (one action each): where no step of any passes 64 bits the moves and their
    costs are the reference's, else the compiled backend stops with the error."""
    actions = "".join(ACTION.format(k=k, text=text) for k, text in enumerate(texts))
    inst = instance_from_rules(RULES.format(big=big, actions=actions), ".\n")
    ref, nat = system(inst, "reference"), system(inst, "compiled")
    state = inst.initial
    for n in range(9):
        moves = ref.successors(state)
        if any(_passes_64_bits(f"abs({text})".replace("/", "//"), n, big) for text in texts):
            with pytest.raises(RuleRuntimeError) as err:
                nat.successors(state)
            assert "64-bit integers" in err.value.render(), texts
        else:
            assert nat.successors(state) == moves, n
        state = moves[0][1]


def test_an_overflowing_cost_is_an_error_natively_and_counted_by_the_reference(tmp_path):
    """The case that once printed a wrapped cost: each move costs just under 2^63 + n."""
    rules = ("game g \"g\"\nglobal n: 0..20\naction up() \"+1\" cost 4611686018427387903 * 2 + n:\n"
             "    require n < 20\n    n += 1\ngoal: n == 3\nlevel grid:\n    '.': pass\n")
    inst = instance_from_rules(rules, ".\n")
    ref, nat = system(inst, "reference"), system(inst, "compiled")
    state = inst.initial
    for n in range(2):  # (costs 2^63 - 2 and 2^63 - 1 fit)
        assert nat.successors(state) == ref.successors(state)
        state = ref.successors(state)[0][1]
    assert ref.successors(state)[0][2] == 1 << 63
    with pytest.raises(RuleRuntimeError) as err:
        nat.successors(state)
    assert err.value.render() == (
        "<rules>:3:23: this value passes the 64-bit integers native code computes with (-2^63 .. 2^63 - 1)\n"
        "  action up() \"+1\" cost 4611686018427387903 * 2 + n:\n"
        "                        ^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
        "  hint: `--backend reference` computes with integers of any size")


def test_arithmetic_that_fits_is_not_tested():
    """Where the bounds prove an operation fits (stored values in their domains, counts of cells, small
    literals, a local's every value), the generated code has no test: the bundled games' hot code has none."""
    from gridrules.compiled.codegen import generate
    from gridrules.compiled.system import _per_rules

    rules = RULES.format(big=5, actions=ACTION.format(k=0, text="1") + """heuristic h0:
    let k = n * 2 + big
    let m = 0
    for i in 1..3:
        m = max(m, k * i)
    return m + count(cells) * rows - abs(n - 9)
heuristic h1:
    let s = 0
    while s < 100:
        s += n + 1
    return s""")
    inst = instance_from_rules(rules, ".\n")
    source = generate(inst, "h0", _per_rules(inst)[0])[0]
    h0 = source[source.index("def h_0"):source.index("def h_1")]
    h1 = source[source.index("def h_1"):source.index("@njit", source.index("def h_1"))]
    assert "_overflows" not in h0
    assert h1.count("rt.sum_overflows") == 1  # (`s` grows in a loop: it may grow to anything)


@pytest.mark.parametrize("big, passes", [((1 << 62) - 1, True), (1 << 40, False)])
def test_a_locals_bounds_follow_its_values(big, passes):
    """A local holds what its `let`s give it, through other locals and a loop: here 4 (b + 1) with b = big + 1,
    past 64 bits for the largest parameter only."""
    rules = RULES.format(big=big, actions=ACTION.format(k=0, text="1") + """heuristic h:
    let a = big
    let b = a + 1
    let c = 0
    for i in 1..4:
        c = (b + 1) * i
    return c - n""")
    inst = instance_from_rules(rules, ".\n")
    native = system(inst, "compiled", "h")
    if passes:
        with pytest.raises(RuleRuntimeError, match="64-bit integers"):
            native.heuristic(inst.initial)
    else:
        assert native.heuristic(inst.initial) == system(inst, "reference", "h").heuristic(inst.initial) == 4 * (big + 2)


def test_a_parameter_given_a_new_value_is_bounded_by_it_too():
    """An action's parameter lies in its domain when the move starts, not after the action gives it another
    value; and a def's parameter holds whatever any call passes."""
    rules = """game g "g"
global n: 0..9
def twice(k: int):
    k = k * k
    return k * 4
action up(x: 1..3) "{x}" cost twice(x + n * 0) + twice(1):
    require n < 9
    x = x * 1537228672809129302
    n = min(9, n + 1 + x * 0 + x * 2 * 0)
goal: n == 9
level grid:
    '.': pass
"""
    inst = instance_from_rules(rules, ".\n")
    with pytest.raises(RuleRuntimeError, match="64-bit integers"):  # (x * 2 passes 2^63 for x = 3)
        system(inst, "compiled").successors(inst.initial)
    assert system(inst, "reference").successors(inst.initial)[0][2] == 8
