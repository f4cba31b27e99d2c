"""Random small rule files, both backends: along a random walk on a random level, the same moves and states,
goals and heuristic values, and the same run-time errors at the same places (issue 3: the compiled backend lowers
any rule file, not only the bundled ones and those the other tests write by hand).

The rule files are made well-typed by construction from a part of the language that is most of what games use:
int and bool layers, a global, actions over a cell and a value, `require`, `let`, `if`/`else`, `for` over a set,
counted `while` loops, stores to a cell and to a set of cells, the set built-ins (`cells where`, `neighbours`,
`region`, `group`), `count`, `distinct`, `any`, `empty`, `on_board` and int arithmetic; and, drawn per file, a
def the moves call, particles whose hits may emit again (either timing), costs, `fail`, and the hints `safe`,
`commutes` and `redundant` (path searches' successors compared too). A store outside a domain and a step off the
board are left possible: the backends must then stop alike.
"""
from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from helpers import instance_from_rules, system
from gridrules.errors import RuleRuntimeError

pytest.importorskip("numba")

TOP = 3  # layer a: 0..TOP
GLOBAL_TOP = 5  # global g: 0..GLOBAL_TOP


class Writer:
    """Draws the parts of a rule file; `cells` and `ints` are the names in scope (parameters, loop cells, lets)."""

    def __init__(self, draw):
        self.draw = draw
        self.lets = 0
        self.extra: list[str] = []  # statements of the optional features this file has

    def pick(self, options):
        return self.draw(st.sampled_from(options))

    def chance(self, p: float) -> bool:
        return self.draw(st.integers(0, 99)) < p * 100

    # ---- expressions
    def cell(self, cells):
        return self.pick(cells + ["(0, 0)", "(1, 1)"])

    def cell_set(self, cells, depth=0):
        kind = self.pick(["where", "where", "neighbours", "region", "group", "op", "cells"] if depth < 2
                         else ["where", "cells"])
        if kind == "where":
            pred = self.pick([f"a == {self.pick(range(TOP + 1))}", f"a != {self.pick(range(TOP + 1))}", "b",
                              "not b", f"a > {self.pick(range(TOP))}", "here.row == 0", "here.col == 1"])
            return f"(cells where {pred})"
        if kind == "neighbours":
            return f"neighbours({self.pick([self.cell(cells), self.cell_set(cells, depth + 1)])})"
        if kind == "region":
            c = self.cell(cells)
            return f"region({c}, a == a[{c}])"
        if kind == "group":
            return f"group({self.cell(cells)}, a)"
        if kind == "op":
            return f"({self.cell_set(cells, depth + 1)} {self.pick(['|', '&', '-'])} {self.cell_set(cells, depth + 1)})"
        return "cells"

    def int_expr(self, cells, ints, depth=0):
        leaves = [str(self.pick(range(6))), "g", f"a[{self.cell(cells)}]"] + ints
        if depth >= 2 or self.chance(0.4):
            return self.pick(leaves)
        kind = self.pick(["+", "-", "*", "count", "distinct", "abs", "min", "/", "%"])
        if kind in ("+", "-", "*"):
            return f"({self.int_expr(cells, ints, depth + 1)} {kind} {self.int_expr(cells, ints, depth + 1)})"
        if kind in ("/", "%"):
            return f"({self.int_expr(cells, ints, depth + 1)} {kind} {self.pick([1, 2, 3])})"
        if kind == "count":
            return f"count({self.cell_set(cells, depth + 1)})"
        if kind == "distinct":
            return f"distinct({self.cell_set(cells, depth + 1)}, a)"
        if kind == "abs":
            return f"abs({self.int_expr(cells, ints, depth + 1)})"
        return f"min({self.int_expr(cells, ints, depth + 1)}, {self.int_expr(cells, ints, depth + 1)})"

    def condition(self, cells, ints, depth=0):
        kind = self.pick(["compare", "compare", "b", "any", "empty", "on_board", "in"] +
                         (["not", "and", "or"] if depth < 2 else []))
        if kind == "compare":
            op = self.pick(["<", "<=", "==", "!=", ">"])
            return f"{self.int_expr(cells, ints, 1)} {op} {self.int_expr(cells, ints, 1)}"
        if kind == "b":
            return f"b[{self.cell(cells)}]"
        if kind in ("any", "empty"):
            return f"{kind}({self.cell_set(cells, 1)})"
        if kind == "on_board":
            return f"on_board({self.cell(cells)} + {self.pick(['L', 'R', 'U', 'D'])})"
        if kind == "in":
            return f"{self.cell(cells)} in {self.cell_set(cells, 1)}"
        if kind == "not":
            return f"not ({self.condition(cells, ints, depth + 1)})"
        return f"({self.condition(cells, ints, depth + 1)}) {kind} ({self.condition(cells, ints, depth + 1)})"

    # ---- statements
    def block(self, cells, ints, indent, depth, n) -> list[str]:
        lines: list[str] = []
        ints = list(ints)
        for _ in range(n):
            lines += self.statement(cells, ints, indent, depth)
        return lines

    def statement(self, cells, ints, indent, depth, kind=None) -> list[str]:
        pad = "    " * indent
        kinds = ["require", "store", "store", "bool", "global", "set store", "let"] + self.extra
        if depth < 2:
            kinds += ["if", "for", "step", "while"]
        kind = kind or self.pick(kinds)
        if kind in ("safe", "commutes", "redundant"):  # (hints: what a search is told of the move)
            return [f"{pad}if {self.condition(cells, ints)}:", f"{pad}    {kind}"]
        if kind == "emit":
            d = self.pick(["", ", L", ", R", ", U", ", D"])
            return [f"{pad}if on_board({self.cell(cells)}):", f"{pad}    emit spark({self.cell(cells)}{d})"]
        if kind == "call":
            return [f"{pad}bump({self.cell(cells)}, {self.int_expr(cells, ints, 1)})"]
        if kind == "while":  # (a counted loop: it ends)
            self.lets += 1
            i = f"i{self.lets}"
            head = f"{pad}while {i} < {self.pick([1, 2, 3])} and {self.condition(cells, ints, 1)}:"
            return ([f"{pad}let {i} = 0", head]
                    + self.block(cells, ints + [i], indent + 1, depth + 1, 1) + [f"{pad}    {i} += 1"])
        if kind == "require":
            return [f"{pad}require {self.condition(cells, ints)}"]
        if kind == "store":  # (may leave the domain: an error in both backends)
            value = self.int_expr(cells, ints)
            raw = self.chance(0.3) and not value.isdigit()  # (the checker refuses a literal outside the domain)
            return [f"{pad}a[{self.cell(cells)}] = {value if raw else f'({value}) % {TOP + 1}'}"]
        if kind == "bool":
            return [f"{pad}b[{self.cell(cells)}] = {self.condition(cells, ints, 1)}"]
        if kind == "global":
            return [f"{pad}g = ({self.int_expr(cells, ints)}) % {GLOBAL_TOP + 1}"]
        if kind == "set store":
            if self.chance(0.5):
                return [f"{pad}a[{self.cell_set(cells)}] = {self.pick(range(TOP + 1))}"]
            return [f"{pad}b[{self.cell_set(cells)}] = {self.pick(['true', 'false'])}"]
        if kind == "let":
            self.lets += 1
            name = f"x{self.lets}"
            line = f"{pad}let {name} = {self.int_expr(cells, ints)}"
            ints.append(name)
            return [line]
        if kind == "if":
            lines = [f"{pad}if {self.condition(cells, ints)}:"] + self.block(cells, ints, indent + 1, depth + 1, 2)
            if self.chance(0.4):
                lines += [f"{pad}else:"] + self.block(cells, ints, indent + 1, depth + 1, 1)
            return lines
        if kind == "step":  # (a neighbour, off the board unless tested: both backends stop alike if not)
            c, d = self.cell(cells), self.pick(["L", "R", "U", "D"])
            guarded = self.chance(0.8)
            head = [f"{pad}if on_board({c} + {d}):"] if guarded else []
            body_pad = pad + ("    " if guarded else "")
            return head + [f"{body_pad}a[{c} + {d}] = (a[{c}] + 1) % {TOP + 1}"]
        self.lets += 1
        q = f"q{self.lets}"
        return [f"{pad}for {q} in {self.cell_set(cells, 1)}:"] + self.block(cells + [q], ints, indent + 1, depth + 1, 2)


@st.composite
def rule_files(draw):
    w = Writer(draw)
    lines = ['game fuzz "random rules"', f"layer a: 0..{TOP}", "layer b: bool", f"global g: 0..{GLOBAL_TOP}", ""]
    features = draw(st.sets(st.sampled_from(["hints", "particles", "def", "cost", "fail"])))
    if "def" in features:  # (a def that stores, reads and may reject, called from moves)
        lines += ["def bump(c: cell, k: int):", f"    require {w.condition(['c'], ['k'], 1)}"]
        lines += w.block(["c"], ["k"], 1, 1, 2) + [""]
        w.extra.append("call")  # (after its body: a def calls no def that calls it)
    if "hints" in features:  # (after the def: hints belong to moves)
        w.extra += ["safe", "commutes", "redundant"]
    if "particles" in features:  # (chain reactions: particles stop where a cell holds a, and a hit adds to it)
        w.extra.append("emit")
        timing = w.pick(["half", "unit"])
        lines += ["particle spark:", f"    timing: {timing}", f"    stop: {w.pick(['a != 0', 'b', 'a == 3'])}",
                  "    hit: land", "", "def land(c: cell, k: int):"]
        lines += [f"    if a[c] + k <= {TOP}:", "        a[c] += k", "    else:", "        a[c] = 0",
                  f"        if {w.condition(['c'], ['k'], 1)}:", "            emit spark(c)", ""]
    for k in range(draw(st.integers(1, 3))):
        shape = w.pick(["cell", "cell", "value", "both", "none"])
        params, notation, cells, ints, first = [], f"m{k}", [], [], []
        if shape in ("cell", "both"):
            params.append("c: cell")
            notation += " {c}"
            cells.append("c")
            first.append("    require a[c] >= 0")  # (every parameter is used)
        if shape in ("value", "both"):
            params.append(f"v: 0..{TOP}")
            notation += " {v}"
            ints.append("v")
            first.append("    require v >= 0")
        cost = f" cost {w.int_expr(cells, ints, 1)} % 3 + 1" if "cost" in features else ""
        lines.append(f'action m{k}({", ".join(params)}) "{notation}"{cost}:')
        lines += first + w.block(cells, ints, 1, 0, draw(st.integers(1, 4)))
        if k == 0:  # (the first move uses what the file declares, at least once)
            if "def" in features:
                lines += w.statement(cells, ints, 1, 2, "call")
            if "particles" in features:
                lines += w.statement(cells, ints, 1, 2, "emit")
        lines.append("")
    lines.append("goal: " + w.pick([f"g == {GLOBAL_TOP}", "empty(cells where a == 0)", "count(cells where b) == 2",
                                    "any(cells where a == 3) and not any(cells where b)"]))
    if "fail" in features:
        lines.append(f"fail: {w.condition([], [], 1)}")
    lines.append(f"heuristic h: {w.int_expr([], [], 1)}")
    lines += ["", "level grid:", f"    '0'..'{TOP}': a = value", "    'x': b = true", ""]
    return "\n".join(lines)


@st.composite
def levels(draw):
    rows, cols = draw(st.integers(2, 3)), draw(st.integers(2, 4))
    return "\n".join("".join(draw(st.sampled_from("0123x")) for _ in range(cols)) for _ in range(rows)) + "\n"


def _outcome(f, *args):
    """f(*args), or the place (line, column) of the run-time error it stopped with."""
    try:
        return "value", f(*args)
    except RuleRuntimeError as err:
        return "error", (err.span.line, err.span.col) if err.span else None


# (~15 s an example: each compiles a module)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(rule_files(), levels(), st.integers(0, 10**6))
def test_random_rule_files_walk_alike_in_both_backends(rules, level, seed):
    inst = instance_from_rules(rules, level)
    ref, nat = system(inst, "reference", "h"), system(inst, "compiled", "h")
    rng = random.Random(seed)
    state = inst.initial
    for _ in range(12):
        a = _outcome(lambda s: sorted(ref.successors(s)), state)
        b = _outcome(lambda s: sorted(nat.successors(s)), state)
        assert a == b, rules
        assert _outcome(ref.is_goal, state) == _outcome(nat.is_goal, state), rules
        assert _outcome(ref.heuristic, state) == _outcome(nat.heuristic, state), rules
        assert ref.commuting == nat.commuting, rules
        if ref.commuting and a[0] == "value":  # (what a path search gets after some commuting move, or none)
            after = rng.randrange(-1, len(ref.moves))
            assert (_outcome(lambda s: sorted(ref.path_successors(s, after)), state)
                    == _outcome(lambda s: sorted(nat.path_successors(s, after)), state)), rules
        if a[0] == "error" or not a[1]:
            break
        state = rng.choice(a[1])[1]
