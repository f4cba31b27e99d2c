"""The checker: AST -> IR. Resolves every name, types every expression, and collects located errors.

Small passes over one RuleFile: `_declare` (names and duplicates), `_domains` (types of stored things),
then each procedure body; finally whole-game checks (a goal exists, defs are used, no recursion).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from . import ast as A
from . import ir
from .errors import ErrorList, RuleError, Span, did_you_mean
from .ir import BOOL, CELL, DIR, DIRS, INT, RANGE, SET, VOID, Ty

ERR = Ty("error")  # the type of an expression that already produced an error: matches anything
BUILTIN_CONSTS = ("cells", "rows", "cols", "here", "value")
BUILTINS = ("region", "group", "neighbours", "count", "any", "empty", "distinct", "on_board", "cells", "adjacent",
            "abs", "min", "max", "first", "roll", "path", "banned")


# The statements that mark a move: their word, IR node, and the hint when one is written outside an action.
MARKS = {
    A.Safe: ("safe", ir.Safe,
             "let a def decide and the action mark: `if lone(a):` in the action, `safe` indented under it"),
    A.Redundant: ("redundant", ir.Redundant,
                  "put it in the action, in the branch of an `if` where the move is known to be redundant"),
    A.Commutes: ("commutes", ir.Commutes,
                 "put it in the action, in the branch of an `if` where the move is known to commute"),
    A.Persists: ("persists", ir.Persists,
                 "put it in the action, in the branch of an `if` where the move is known to persist"),
    A.Chooses: ("chooses", ir.Chooses, "put it in the action, before the move changes what the value reads"),
    A.Ranks: ("ranks", ir.Ranks, "put it in the action, before the move changes what the rank reads"),
}


def _same(a: Ty, b: Ty) -> bool:
    return a == ERR or b == ERR or a == b


def _int_const(x) -> bool:
    """A known int (not an error placeholder, whose value is None)."""
    return isinstance(x, ir.Const) and x.ty == INT and isinstance(x.value, int)


def folded(x, params: dict | None = None) -> int | None:
    """The value of an int expression of constants alone (`2 - 2`, `-(3 * 4) / 5`), as the rules compute it (`/`
    rounds down, `%` takes the divisor's sign), or also of the parameters' values in `params`; None for anything
    that reads another parameter or the board, or that divides by zero (an error the level's set-up reports where
    it happens)."""
    if _int_const(x):
        return x.value
    if isinstance(x, ir.ParamRef) and params is not None:
        v = params.get(x.name)
        return v if isinstance(v, int) and not isinstance(v, bool) else None
    if isinstance(x, ir.Unary) and x.op == "neg":
        v = folded(x.operand, params)
        return None if v is None else -v
    if isinstance(x, ir.BinOp) and x.op in ("+", "-", "*", "/", "%") and x.ty == INT:
        a, b = folded(x.left, params), folded(x.right, params)
        if a is None or b is None or (x.op in ("/", "%") and b == 0):
            return None
        if x.op in ("/", "%"):
            return a // b if x.op == "/" else a % b
        return a + b if x.op == "+" else a - b if x.op == "-" else a * b
    return None


@dataclass
class Scope:
    kind: str  # action | def | init | heuristic | legend | pred | when | const
    names: list[dict] = field(default_factory=lambda: [{}])
    nslots: int = 0
    cell: int = 0  # depth of cell-predicate nesting (here bound)
    returns: list = field(default_factory=list)
    writes: bool = False
    rejects: bool = False  # a `require` was seen (directly or in a called def)
    calls: set = field(default_factory=set)
    title: str = ""  # how messages name a heuristic-kind scope: "a heuristic" or "the score"

    @property
    def what(self) -> str:
        return self.title or {"heuristic": "a heuristic", "pred": "a condition", "legend": "a legend"}.get(
            self.kind, "a condition")

    def lookup(self, name):
        for d in reversed(self.names):
            if name in d:
                return d[name]
        return None

    def declare(self, name, ty):
        slot = self.nslots
        self.nslots += 1
        self.names[-1][name] = (slot, ty)
        return slot


class Checker:
    def __init__(self, rf: A.RuleFile, path: str):
        self.rf = rf
        self.path = path
        self.errors: list[RuleError] = []
        self.warnings: list[RuleError] = []
        self.params: dict[str, A.Param] = {}
        self.enums: dict[str, tuple[str, ...]] = {}
        self.enum_value: dict[str, tuple[str, int]] = {}  # value name -> (enum, index)
        self.layers: dict[str, A.LayerDecl] = {}
        self.globals: dict[str, A.GlobalDecl | A.BodyDecl] = {}
        self.bodies: dict[str, A.BodyDecl] = {}
        self.defs: dict[str, A.DefDecl] = {}
        self.particles: dict[str, A.ParticleDecl] = {}  # in declaration order: Emit refers to them by index
        self.emitted: set[str] = set()
        self.def_ir: dict[str, ir.Procedure] = {}
        self.def_state: dict[str, str] = {}  # name -> "checking" | "done"
        self.used: set[str] = set()
        self.domains: dict[str, ir.Domain] = {}  # params, layers, globals
        self.param_now: tuple[str, list[str]] | None = None  # while checking a parameter: it and those before it

    # ---- reporting
    def error(self, msg, node_or_span, hint=None):
        span = node_or_span if isinstance(node_or_span, Span) or node_or_span is None else node_or_span.span
        self.errors.append(RuleError(msg, span, hint))
        return ir.Const(ERR, None, span)  # an expression that matches anything, to avoid follow-on errors

    def warn(self, msg, node, hint=None):
        self.warnings.append(RuleError(msg, node if isinstance(node, Span) else node.span, hint, warning=True))

    def _dominance(self, heuristics: list) -> list:
        """The heuristics with their `dominates` lists checked, and marked where another dominates them. A
        heuristic that is never below another makes that one's part of the default maximum idle work; only
        admissible heuristics may say so of each other (the default is theirs), and not in a circle."""
        decls = {d.name: d for d in self.rf.decls if isinstance(d, A.HeuristicDecl)}
        by_name = {h.name: h for h in heuristics}
        names = ", ".join(f"`{n}`" for n in by_name)
        edges: dict[str, tuple[str, ...]] = {}
        for h in heuristics:
            d, kept = decls[h.name], []
            if d.dominates and not h.admissible:
                self.error(f"heuristic `{h.name}` is not admissible, so it cannot dominate another",
                           self.at_word(d, "dominates"), "the default maximum takes only admissible heuristics: "
                           "mark it `admissible` (if it is) or drop `dominates`")
                continue
            for other in d.dominates:
                if other.id == h.name:
                    self.error(f"heuristic `{h.name}` names itself after `dominates`", other)
                elif other.id not in by_name:
                    self.error(f"no heuristic `{other.id}` to dominate", other,
                               did_you_mean(other.id, by_name) or f"the heuristics: {names}")
                elif not by_name[other.id].admissible:
                    self.error(f"heuristic `{other.id}` is not admissible: the default maximum leaves it out "
                               "already", other, "drop it from `dominates`")
                elif other.id in kept:
                    self.warn(f"heuristic `{other.id}` is named twice after `dominates`", other, "drop the second")
                else:
                    kept.append(other.id)
            edges[h.name] = tuple(kept)
        in_circle: set[str] = set()
        for start in edges:  # (a circle would leave none of its heuristics in the default)
            came_from, todo = {}, [start]
            while todo and start not in in_circle:
                n = todo.pop(0)
                for m in edges.get(n, ()):
                    if m == start:
                        circle = [n]
                        while circle[-1] != start:
                            circle.append(came_from[circle[-1]])
                        circle.reverse()
                        in_circle.update(circle)
                        self.error("heuristics dominate each other in a circle: "
                                   + " dominates ".join(f"`{x}`" for x in circle + [start]),
                                   self.at_word(decls[start], "dominates"), "heuristics that are equal: keep one")
                        break
                    if m not in came_from:
                        came_from[m] = n
                        todo.append(m)
        dominated = {n for kept in edges.values() for n in kept}
        return [replace(h, dominates=edges.get(h.name, ()), dominated=h.name in dominated)
                for h in heuristics]

    @staticmethod
    def at_word(node, word, nth=1, from_col=None):
        """The span of the `nth` `word` on the first line of `node` (e.g. the name in a declaration), searched
        from the node's column (or `from_col`); the node's own span when it is not found."""
        span = node if isinstance(node, Span) or node is None else node.span
        if span is None:
            return None
        text = span.source.line_text(span.line)
        edge = r"(?<![A-Za-z0-9_])" if word[:1].isalnum() or word[:1] == "_" else ""
        pat = re.compile(edge + re.escape(word) + (r"(?![A-Za-z0-9_])" if edge else ""))
        for m in pat.finditer(text, (from_col or span.col) - 1):
            nth -= 1
            if nth == 0:
                return Span(span.source, span.line, m.start() + 1, span.line, m.end() + 1)
        return span

    @staticmethod
    def head(node, length):
        """The first `length` characters of a node (a call's function name)."""
        sp = node.span
        return sp and Span(sp.source, sp.line, sp.col, sp.line, sp.col + length)

    # ---- pass 1: names
    def declare(self):
        # three namespaces: values (params, layers, globals, bodies, enum values, poses, defs), types (enums)
        # and rules (actions, heuristics); a name may be used once in each
        seen: dict[tuple[str, str], A.Node] = {}
        kinds = {}

        def claim(name, node, kind, space="value", nth=1):
            where = self.at_word(node, name, nth)
            if space != "rule" and (name in BUILTIN_CONSTS or name in DIRS or space == "value" and name in BUILTINS):
                self.error(f"`{name}` is a built-in name and cannot be redefined", where)
                return False
            key = (space, name)
            if key in seen:
                prev = seen[key]
                article = "an" if kinds[key][0] in "aeiou" else "a"
                self.error(f"duplicate definition of `{name}` (first defined as {article} {kinds[key]} at line "
                           f"{prev.span.line if prev.span else '?'})", where)
                return False
            seen[key] = node
            kinds[key] = kind
            return True

        games = [d for d in self.rf.decls if isinstance(d, A.Game)]
        if not games:
            self.error("missing `game NAME` declaration", self._file_start(),
                       "start the file with a line like `game mygame \"My game\"`")
        for g in games[1:]:
            self.error(f"duplicate `game` declaration (the first is on line {games[0].span.line if games[0].span else '?'})",
                       self.at_word(g, "game"))
        for d in self.rf.decls:
            if isinstance(d, A.Param) and claim(d.name, d, "param"):
                self.params[d.name] = d
            elif isinstance(d, A.EnumDecl) and claim(d.name, d, "enum", "type"):
                self.enums[d.name] = d.values
                for i, v in enumerate(d.values):
                    if v in d.values[:i]:
                        self.error(f"enum value `{v}` is listed twice", self.at_word(d, v, 2))
                    elif v in self.enum_value:
                        other = self.enum_value[v][0]
                        self.error(f"enum value `{v}` is already a value of enum `{other}`", self.at_word(d, v),
                                   "an enum value names one thing in the whole file; rename one of them")
                    elif claim(v, d, "enum value"):
                        self.enum_value[v] = (d.name, i)
            elif isinstance(d, A.LayerDecl) and claim(d.name, d, "layer"):
                self.layers[d.name] = d
            elif isinstance(d, A.GlobalDecl) and claim(d.name, d, "global"):
                self.globals[d.name] = d
            elif isinstance(d, A.BodyDecl) and claim(d.name, d, "body"):
                self.bodies[d.name] = d
                self.globals[d.name] = d
                ename = f"{d.name}.pose"
                names = tuple(p.name for p in d.poses)
                self.enums[ename] = names
                for i, p in enumerate(d.poses):
                    if p.name in names[:i]:
                        self.error(f"pose `{p.name}` is defined twice", self.at_word(p, p.name))
                    elif claim(p.name, p, "pose"):
                        self.enum_value[p.name] = (ename, i)
            elif isinstance(d, A.ParticleDecl) and claim(d.name, d, "particle", "particle"):
                self.particles[d.name] = d
            elif isinstance(d, A.DefDecl) and claim(d.name, d, "def"):
                self.defs[d.name] = d
            elif isinstance(d, A.ActionDecl):
                claim(d.name, d, "action", "rule")
            elif isinstance(d, A.HeuristicDecl):
                claim(d.name, d, "heuristic", "rule")

    def _game_span(self):
        """Where whole-game errors (no goal, no action) point: the game's name, else the file's start."""
        game = next((d for d in self.rf.decls if isinstance(d, A.Game)), None)
        return self.at_word(game, game.name) if game is not None and game.span else self._file_start()

    def _file_start(self):
        from .errors import Source

        return Span(Source(self.path, self._text()), 1, 1, 1, 2)

    def _text(self):
        for d in self.rf.decls:
            if d.span is not None:
                return d.span.source.text
        return self.rf.span.source.text if self.rf.span else ""

    # ---- pass 2: domains of stored things
    def domain(self, t: A.Node, what: str, storable: bool, allow_set: bool = False) -> ir.Domain:
        if isinstance(t, A.TBool):
            return ir.Domain(BOOL)
        if isinstance(t, A.TCell):
            return ir.Domain(CELL)
        if isinstance(t, A.TDir):
            return ir.Domain(DIR)
        if isinstance(t, A.TInt):
            if storable:
                self.error(f"{what} needs a range such as `0..9` to be stored in the state", t,
                           "write the smallest and largest value, e.g. `0..colours-1`")
            return ir.Domain(INT)
        if isinstance(t, A.TNamed):
            if t.name in self.enums and "." not in t.name:
                return ir.Domain(ir.enum_ty(t.name))
            if t.name == "set" and allow_set:
                return ir.Domain(SET)
            cands = [n for n in self.enums if "." not in n] + ["bool", "int", "cell", "dir"]
            self.error(f"unknown type `{t.name}`", t, did_you_mean(t.name, cands))
            return ir.Domain(ERR)
        if isinstance(t, A.TRange):
            lo = self.const_expr(t.lo, "a range bound")
            hi = self.const_expr(t.hi, "a range bound")
            a, b = folded(lo), folded(hi)
            if a is not None and b is not None and a > b:
                self.error(f"empty range {a}..{b}", t)
            return ir.Domain(INT, lo, hi)
        raise AssertionError(t)

    def const_expr(self, e: A.Node, what: str) -> ir.Expr:
        """An expression over parameters and the board size only (domains, defaults, limits)."""
        sc = Scope("const")
        x = self.expr(e, sc)
        if x.ty not in (INT, ERR):
            self.error(f"{what} must be an int, not {x.ty}", e)
        return x

    # ---- expressions
    def expr(self, e: A.Node, sc: Scope) -> ir.Expr:
        m = getattr(self, "e_" + type(e).__name__)
        return m(e, sc)

    def e_IntLit(self, e, sc):
        if e.value > 1 << 62:  # (as an int parameter's values: -2^62..2^62)
            return self.error("this number is too large (the limit is 2^62)", e)
        return ir.Const(INT, e.value, e.span)

    def e_BoolLit(self, e, sc):
        return ir.Const(BOOL, e.value, e.span)

    def e_NoneLit(self, e, sc):
        return ir.Const(CELL, None, e.span)

    def e_CellLit(self, e, sc):
        r, c = self.expr(e.row, sc), self.expr(e.col, sc)
        for part, node in ((r, e.row), (c, e.col)):
            if not _same(part.ty, INT):
                self.error(f"a cell's row and column must be ints, not {part.ty}", node)
        return ir.MakeCell(CELL, r, c, e.span)

    def e_Name(self, e, sc):
        n = e.id
        loc = sc.lookup(n)
        if loc is not None:
            return ir.Local(loc[1], loc[0], n, e.span)
        if n == "here":
            if not sc.cell and sc.kind != "legend":
                return self.error("`here` is only defined inside a cell condition (after `where`, in "
                                  "`region(...)`, `distinct(...)`) or a level legend", e)
            return ir.Here(CELL, e.span)
        if n == "value":
            if sc.kind != "legend":
                return self.error("`value` is only defined in a level legend", e)
            return ir.TokenValue(INT, e.span)
        if n in ("rows", "cols"):
            return ir.BoardSize(INT, n, e.span)
        if n == "cells":
            return ir.AllCells(SET, e.span)
        if n in self.layers:
            self.used.add(n)
            if sc.kind == "const" or sc.kind == "when":
                return self.error(f"layer `{n}` cannot be used here: only parameters are known", e)
            if sc.cell or sc.kind == "legend":
                return ir.LayerAt(self.domains[n].ty, n, ir.Here(CELL, e.span), e.span)
            return self.error(f"layer `{n}` needs a cell: write `{n}[cell]`", e,
                              "a bare layer name means `the value here` only inside a cell condition "
                              "(after `where`, in `region`/`distinct`) or a legend")
        if n in self.globals:
            self.used.add(n)
            if sc.kind in ("const", "when"):
                return self.error(f"global `{n}` cannot be used here: only parameters are known", e)
            g = self.globals[n]
            if isinstance(g, A.GlobalDecl) and g.dims:
                return self.error(f"`{n}` is an array: index it, e.g. `{n}[0]`", e)
            return ir.GlobalRef(self.domains[n].ty, n, e.span)
        if n in self.params:
            self.used.add(n)
            if self.param_now is not None and n not in self.param_now[1]:
                cur = self.param_now[0]
                if n == cur:
                    return self.error(f"parameter `{n}` cannot be used in its own type or default", e)
                return self.error(f"parameter `{n}` is declared after `{cur}`; a parameter's type and default "
                                  "can only use the parameters declared before it", e)
            return ir.ParamRef(self.domains[n].ty, n, e.span)
        if n in self.enum_value:
            en, i = self.enum_value[n]
            return ir.Const(ir.enum_ty(en), i, e.span)
        if n in DIRS:
            return ir.Const(DIR, DIRS.index(n), e.span)
        if n in self.enums:
            return self.error(f"`{n}` is a type; use one of its values: {', '.join(self.enums[n])}", e)
        if n in self.defs:
            self.used.add(n)  # no follow-on "never used"
            return self.error(f"`{n}` is a def: call it as `{n}(...)`", e)
        return self.error(f"unknown name `{n}`", e, did_you_mean(n, self._visible(sc)))

    def _visible(self, sc):
        names = set(BUILTIN_CONSTS) | set(self.layers) | set(self.globals) | set(self.params) | set(
            self.enum_value) | set(DIRS)
        for d in sc.names:
            names |= set(d)
        return names

    def e_Binary(self, e, sc):
        op = e.op
        lhs, rhs = self.expr(e.left, sc), self.expr(e.right, sc)
        a, b = lhs.ty, rhs.ty
        if ERR in (a, b):
            return ir.BinOp(ERR, op, lhs, rhs, e.span)
        if op in ("and", "or"):
            for t, node in ((a, e.left), (b, e.right)):
                if t != BOOL:
                    self.error(f"`{op}` needs bool operands, not {t}", node)
            return ir.BinOp(BOOL, op, lhs, rhs, e.span)
        if op in ("==", "!="):
            if a != b:
                return self.error(f"cannot compare {a} with {b}", e)
            return ir.BinOp(BOOL, op, lhs, rhs, e.span)
        if op in ("<", "<=", ">", ">="):
            if a != INT or b != INT:
                return self.error(f"`{op}` compares ints, not {a} and {b}", e)
            return ir.BinOp(BOOL, op, lhs, rhs, e.span)
        if op == "in":
            if a == CELL and b == SET or a == INT and b == RANGE:
                return ir.BinOp(BOOL, op, lhs, rhs, e.span)
            return self.error(f"`in` tests a cell in a set or an int in a range, not {a} in {b}", e)
        if op in ("*", "/", "%"):
            if a != INT or b != INT:
                return self.error(f"`{op}` needs ints, not {a} and {b}", e)
            if op in ("/", "%") and folded(rhs) == 0:  # (`x / 0`, and `x % (2 - 2)` alike)
                return self.error("division by zero", e.right)
            return ir.BinOp(INT, op, lhs, rhs, e.span)
        if op == "+":
            if a == INT and b == INT:
                return ir.BinOp(INT, "+", lhs, rhs, e.span)
            if a == CELL and b in (DIR, CELL):
                return ir.BinOp(CELL, "+", lhs, rhs, e.span)
            return self.error(f"cannot add {b} to {a}", e, "ints add; a cell plus a dir or a (row, col) "
                                                          "offset is a cell; sets join with `|`")
        if op == "-":
            if a == INT and b == INT:
                return ir.BinOp(INT, "-", lhs, rhs, e.span)
            if a == SET and b in (SET, CELL):
                return ir.BinOp(SET, "-", lhs, rhs, e.span)
            if a == CELL and b == CELL:
                return ir.BinOp(CELL, "-", lhs, rhs, e.span)
            return self.error(f"cannot subtract {b} from {a}", e)
        if op in ("|", "&"):
            if a in (SET, CELL) and b in (SET, CELL):
                return ir.BinOp(SET, op, lhs, rhs, e.span)
            return self.error(f"`{op}` combines sets of cells, not {a} and {b}", e)
        raise AssertionError(op)

    def e_Not(self, e, sc):
        x = self.expr(e.operand, sc)
        if not _same(x.ty, BOOL):
            self.error(f"`not` needs a bool, not {x.ty}", e.operand)
        return ir.Unary(BOOL, "not", x, e.span)

    def e_Neg(self, e, sc):
        x = self.expr(e.operand, sc)
        if not _same(x.ty, INT):
            self.error(f"cannot negate {x.ty}", e.operand)
        if isinstance(x, ir.Const) and x.ty == INT:
            return ir.Const(INT, -x.value, e.span)
        return ir.Unary(INT, "neg", x, e.span)

    def _pred(self, e, sc, want=BOOL, what="condition"):
        sc.cell += 1
        try:
            p = self.expr(e, sc)
        finally:
            sc.cell -= 1
        if want is not None and not _same(p.ty, want):
            self.error(f"the {what} must be {want}, not {p.ty}", e)
        return p

    def e_Where(self, e, sc):
        s = self.expr(e.cells, sc)
        if not _same(s.ty, SET):
            self.error(f"`where` filters a set of cells, not {s.ty}", e.cells)
        p = self._pred(e.pred, sc, BOOL, "condition after `where`")
        return ir.Where(SET, s, p, e.span)

    def e_At(self, e, sc):
        if e.pose not in self.enum_value or not self.enum_value[e.pose][0].endswith(".pose"):
            poses = [v for v, (en, _) in self.enum_value.items() if en.endswith(".pose")]
            self.error(f"unknown pose `{e.pose}`", e, did_you_mean(e.pose, poses))
            self.expr(e.cell, sc)
            return ir.Const(ERR, None, e.span)
        en, i = self.enum_value[e.pose]
        c = self.expr(e.cell, sc)
        if not _same(c.ty, CELL):
            self.error(f"`{e.pose} at ...` needs a cell, not {c.ty}", e.cell)
        body = en[: -len(".pose")]
        return ir.MakeBody(ir.body_ty(body), body, i, c, e.span)

    def e_Range(self, e, sc):
        lo, hi = self.expr(e.lo, sc), self.expr(e.hi, sc)
        for x, node in ((lo, e.lo), (hi, e.hi)):
            if not _same(x.ty, INT):
                self.error(f"a range bound must be an int, not {x.ty}", node)
        return ir.RangeOf(RANGE, lo, hi, e.span)

    def e_Index(self, e, sc, target=False):
        if not isinstance(e.base, A.Name):
            return self.error("only layers and global arrays can be indexed", e.base)
        n = e.base.id
        if n in self.layers:
            self.used.add(n)
            if sc.kind in ("const", "when"):
                return self.error(f"layer `{n}` cannot be used here: only parameters are known", e)
            if len(e.args) != 1:
                return self.error(f"layer `{n}` takes one cell index, not {len(e.args)}", e)
            c = self.expr(e.args[0], sc)
            if target and c.ty == SET:
                return c
            if not _same(c.ty, CELL):
                return self.error(f"a layer is indexed by a cell, not {c.ty}", e.args[0])
            return ir.LayerAt(self.domains[n].ty, n, c, e.span)
        g = self.globals.get(n)
        if isinstance(g, A.GlobalDecl) and g.dims:
            self.used.add(n)
            if sc.kind in ("const", "when"):
                return self.error(f"global `{n}` cannot be used here: only parameters are known", e)
            if len(e.args) != len(g.dims):
                return self.error(f"`{n}` has {len(g.dims)} dimension(s) but {len(e.args)} index(es) were given", e)
            idx = []
            for a in e.args:
                x = self.expr(a, sc)
                if not (_same(x.ty, INT) or x.ty.kind in ("enum",) or x.ty == DIR):
                    self.error(f"an array index must be an int or an enum value, not {x.ty}", a)
                idx.append(x)
            return ir.ArrayAt(self.domains[n].ty, n, tuple(idx), e.span)
        if n in self.globals or n in self.params:
            return self.error(f"`{n}` is not an array and cannot be indexed", e)
        return self.error(f"unknown name `{n}`", e.base, did_you_mean(n, self._visible(sc)))

    def e_Field(self, e, sc):
        b = self.expr(e.base, sc)
        if b.ty == ERR:
            return b
        if b.ty == CELL and e.name in ("row", "col"):
            return ir.FieldOf(INT, b, e.name, e.span)
        if b.ty.kind == "body" and e.name in ("pose", "at"):
            ty = ir.enum_ty(f"{b.ty.name}.pose") if e.name == "pose" else CELL
            return ir.FieldOf(ty, b, e.name, e.span)
        fields = {"cell": "row, col", "body": "pose, at"}.get(b.ty.kind)
        hint = f"{b.ty} has: {fields}" if fields else None
        return self.error(f"{b.ty} has no field `{e.name}`", e, hint)

    def e_Call(self, e, sc):
        f = e.func
        if f in self.defs:
            return self._call_def(e, sc)
        if f not in BUILTINS:
            return self.error(f"unknown function `{f}`", self.head(e, len(f)),
                              did_you_mean(f, list(BUILTINS) + list(self.defs)) or self._action_hint(f))
        if sc.kind in ("const", "when") and f not in ("abs", "min", "max"):
            return self.error(f"`{f}` cannot be used here: only parameters are known", e)
        arity = {"region": 2, "group": 2, "neighbours": 1, "count": 1, "any": 1, "empty": 1, "distinct": 2,
                 "on_board": 1, "cells": 1, "adjacent": 2, "abs": 1, "first": 1, "roll": 2}
        n = len(e.args)
        if f in ("min", "max"):
            if n < 2:
                return self.error(f"`{f}` needs at least 2 arguments, got {n}", e)
        elif f == "path":
            if n not in (4, 5):
                return self.error(f"`path` takes 4 or 5 arguments (from, to, condition, turns[, outside]), got {n}", e)
            ends = [self.expr(x, sc) for x in e.args[:2]]
            for x, node in zip(ends, e.args):
                self._want(x, (CELL,), "`path`'s ends", node)
            pred = self._pred(e.args[2], sc, BOOL, "path's condition")
            turns = self.expr(e.args[3], sc)
            self._want(turns, (INT,), "`path`'s turn limit", e.args[3])
            args = (*ends, pred, turns)
            if n == 5:
                outside = self.expr(e.args[4], sc)
                self._want(outside, (BOOL,), "`path`'s outside flag", e.args[4])
                args += (outside,)
            return ir.Builtin(BOOL, f, args, e.span)
        elif f == "banned":
            return self._banned(e, sc)
        elif n != arity[f]:
            return self.error(f"`{f}` takes {arity[f]} argument(s), got {n}", e)
        if f == "region":
            seeds = self.expr(e.args[0], sc)
            self._want(seeds, (SET, CELL), "region's seeds", e.args[0])
            pred = self._pred(e.args[1], sc, BOOL, "region's condition")
            return ir.Builtin(SET, f, (seeds, pred), e.span)
        if f == "group":
            seeds = self.expr(e.args[0], sc)
            self._want(seeds, (SET, CELL), "group's seeds", e.args[0])
            v = self._pred(e.args[1], sc, None)
            if not (v.ty in (INT, BOOL, DIR, ERR) or v.ty.kind == "enum"):
                self.error(f"group compares int, bool or enum values, not {v.ty}", e.args[1])
            return ir.Builtin(SET, f, (seeds, v), e.span)
        if f == "distinct":
            s = self.expr(e.args[0], sc)
            self._want(s, (SET,), "distinct's cells", e.args[0])
            v = self._pred(e.args[1], sc, None)
            if not (v.ty in (INT, BOOL, DIR, ERR) or v.ty.kind == "enum"):
                self.error(f"distinct counts int, bool or enum values, not {v.ty}", e.args[1])
            return ir.Builtin(INT, f, (s, v), e.span)
        args = tuple(self.expr(a, sc) for a in e.args)
        sig = {
            "neighbours": ((SET, CELL),), "count": ((SET,),), "any": ((SET,),), "empty": ((SET,),),
            "on_board": ((CELL, "body"),), "cells": (("body",),), "adjacent": ((CELL,), (CELL,)),
            "abs": ((INT,),), "first": ((SET,),), "roll": (("body",), (DIR,)),
        }
        want = sig.get(f, tuple((INT,) for _ in args))
        for x, w, node in zip(args, want, e.args):
            self._want(x, w, f"`{f}`'s argument", node)
        ret = {"neighbours": SET, "count": INT, "any": BOOL, "empty": BOOL, "on_board": BOOL, "cells": SET,
               "adjacent": BOOL, "abs": INT, "min": INT, "max": INT, "first": CELL}.get(f)
        if f == "roll":
            ret = args[0].ty
        return ir.Builtin(ret, f, args, e.span)

    def _banned(self, e, sc):
        """`banned(act(x, y))`: whether a search has banned that move (a Builtin whose first argument is the
        action's index, the others its arguments)."""
        hint = "name a move as an action applied to its arguments: `banned(remove(a, b))`"
        if len(e.args) != 1 or not isinstance(e.args[0], A.Call):
            return self.error("`banned` takes one move, written as an action call", e, hint)
        move = e.args[0]
        decls = [d for d in self.rf.decls if isinstance(d, A.ActionDecl)]
        index = next((k for k, d in enumerate(decls) if d.name == move.func), None)
        if index is None:
            return self.error(f"`{move.func}` is not an action", self.head(move, len(move.func)),
                              did_you_mean(move.func, [d.name for d in decls]) or hint)
        decl = decls[index]
        if len(move.args) != len(decl.params):
            return self.error(f"`{decl.name}` takes {len(decl.params)} argument(s), got {len(move.args)}", move)
        args = [ir.Const(INT, index)]
        for a, p in zip(move.args, decl.params):
            x = self.expr(a, sc)
            ty = self._param_type(p)
            if ty is not None and not _same(x.ty, ty):
                self.error(f"argument `{p.name}` of `{decl.name}` must be {ty}, not {x.ty}", a)
            args.append(x)
        return ir.Builtin(BOOL, "banned", tuple(args), e.span)

    def _param_type(self, p):
        """The type of an action's parameter, read from its declaration (its errors are reported where the
        action is checked); None when it is in error."""
        before = len(self.errors)
        dom = self.domain(p.type, f"parameter `{p.name}`", storable=False, allow_set=False)
        if len(self.errors) > before:
            del self.errors[before:]
            return None
        return dom.ty

    def _action_hint(self, f):
        if any(isinstance(d, A.ActionDecl) and d.name == f for d in self.rf.decls):
            return f"`{f}` is an action; the rules cannot call actions, only defs"
        return None

    def _want(self, x, kinds, what, node):
        if x.ty == ERR:
            return
        for k in kinds:
            if k == "body" and x.ty.kind == "body" or x.ty == k:
                return
        names = " or ".join("a body" if k == "body" else str(k) for k in kinds)
        self.error(f"{what} must be {names}, not {x.ty}", node)

    def _call_def(self, e, sc):
        d = self.defs[e.func]
        self.used.add(e.func)
        if sc.kind in ("const", "when"):
            return self.error(f"`{d.name}` cannot be used here: only parameters are known", e)
        proc = self._check_def(d, e)
        if len(e.args) != len(d.params):
            return self.error(f"`{d.name}` takes {len(d.params)} argument(s), got {len(e.args)}", e)
        args = []
        for a, (pname, dom) in zip(e.args, proc.params if proc else ()):
            x = self.expr(a, sc)
            if not _same(x.ty, dom.ty):
                self.error(f"argument `{pname}` of `{d.name}` must be {dom.ty}, not {x.ty}", a)
            args.append(x)
        if proc is None:
            return ir.CallDef(ERR, d.name, tuple(args), e.span)
        if proc.writes_state:
            sc.writes = True
            if sc.kind in ("heuristic", "pred", "const", "when"):
                self.error(f"`{d.name}` changes the state and cannot be called here", e)
        if proc.can_reject:
            sc.rejects = True
            if sc.kind in ("heuristic", "pred"):
                self.error(f"`{d.name}` can reject a move (it has a `require`), so it cannot be used in {sc.what}", e)
        sc.calls.add(d.name)
        return ir.CallDef(proc.returns, d.name, tuple(args), e.span)

    # ---- statements
    def block(self, stmts, sc: Scope, new_scope=True) -> tuple[ir.Stmt, ...]:
        if new_scope:
            sc.names.append({})
        out = []
        ended = None
        for s in stmts:
            if ended is not None:
                self.error(f"unreachable statement: it follows {ended}", s)
                break
            out.extend(self.stmt(s, sc))
            if isinstance(s, A.Return):
                ended = f"`return` on line {s.span.line if s.span else '?'}"
            elif isinstance(s, A.Require) and isinstance(s.cond, A.BoolLit) and not s.cond.value:
                ended = f"`require false` on line {s.span.line if s.span else '?'}"
        if new_scope:
            sc.names.pop()
        return tuple(out)

    def stmt(self, s, sc: Scope) -> list[ir.Stmt]:
        if isinstance(s, A.Pass):
            return []
        mark = MARKS.get(type(s))
        if mark is not None:  # safe, redundant, commutes, ...: what a move promises or tells the searches
            word, node, hint = mark
            if sc.kind != "action":
                self.error(f"`{word}` marks a move, so it belongs in an action", s, hint)
            if node not in (ir.Chooses, ir.Ranks):
                return [node(s.span)]
            v = self.expr(s.value, sc)
            if node is ir.Ranks and v.ty not in (INT, ERR):
                self.error(f"`ranks` takes an int, not {v.ty}", s.value, "lower ranks are tried first")
            elif not (v.ty in (INT, BOOL, DIR, ERR) or v.ty.kind == "enum"):
                self.error(f"`chooses` takes an int, bool or enum value, not {v.ty}", s.value)
            return [node(v, s.span)]
        if isinstance(s, A.Emit):
            return self._emit(s, sc)
        if isinstance(s, A.Let):
            v = self.expr(s.value, sc)
            if v.ty == VOID:
                func = s.value.func if isinstance(s.value, A.Call) else "this call"
                self.error(f"`{func}` returns no value", s.value, "a def gives a value only with `return`")
            if s.name in sc.names[-1]:
                self.error(f"`{s.name}` is already defined in this block", self.at_word(s, s.name),
                           f"to change it, write `{s.name} = ...` without `let`")
            elif self._is_global_name(s.name):
                self.error(f"`let {s.name}` would hide the {self._kind_of(s.name)} `{s.name}`", self.at_word(s, s.name),
                           "pick another name for the local")
            slot = sc.declare(s.name, v.ty)
            return [ir.SetLocal(slot, v, s.span)]
        if isinstance(s, (A.Assign, A.AugAssign)):
            done = self._assign(s, sc)
            return [done] if isinstance(done, ir.Stmt) else []
        if isinstance(s, A.Require):
            if sc.kind in ("heuristic",):
                self.error(f"`require` is not allowed in {sc.what}", s)
            c = self.expr(s.cond, sc)
            sc.rejects = True
            if not _same(c.ty, BOOL):
                self.error(f"`require` needs a bool condition, not {c.ty}", s.cond)
            return [ir.Require(c, s.message, s.span)]
        if isinstance(s, A.Return):
            if sc.kind not in ("def", "heuristic"):
                self.error("`return` is only allowed in a def, a heuristic or the score", s)
            v = self.expr(s.value, sc)
            sc.returns.append((v.ty, s))
            return [ir.Return(v, s.span)]
        if isinstance(s, A.CallStmt):
            if s.call.func not in self.defs:
                if s.call.func in BUILTINS:
                    self.error(f"the value of `{s.call.func}(...)` is not used", s)
                else:
                    self.error(f"unknown function `{s.call.func}`", self.head(s.call, len(s.call.func)),
                               did_you_mean(s.call.func, list(self.defs)) or self._action_hint(s.call.func))
                return []
            return [ir.Eval(self._call_def(s.call, sc), s.span)]
        if isinstance(s, A.If):
            branches = []
            for cond, body in s.branches:
                c = self.expr(cond, sc)
                if not _same(c.ty, BOOL):
                    self.error(f"`if` needs a bool condition, not {c.ty}", cond)
                branches.append((c, self.block(body, sc)))
            return [ir.If(tuple(branches), self.block(s.orelse, sc), s.span)]
        if isinstance(s, A.While):
            c = self.expr(s.cond, sc)
            if not _same(c.ty, BOOL):
                self.error(f"`while` needs a bool condition, not {c.ty}", s.cond)
            return [ir.While(c, self.block(s.body, sc), s.span)]
        if isinstance(s, A.For):
            it = self._iterable(s.iter, sc)
            sc.names.append({})
            var_ty = {SET: CELL, RANGE: INT}.get(it.ty, it.ty)
            if self._is_global_name(s.var):
                self.error(f"loop variable `{s.var}` would hide the {self._kind_of(s.var)} `{s.var}`",
                           self.at_word(s, s.var))
            slot = sc.declare(s.var, var_ty)
            body = self.block(s.body, sc, new_scope=False)
            sc.names.pop()
            return [ir.For(slot, it, body, s.span)]
        raise AssertionError(s)

    def _emit(self, s: A.Emit, sc: Scope) -> list[ir.Stmt]:
        if s.particle not in self.particles:
            self.error(f"unknown particle `{s.particle}`", self.at_word(s, s.particle),
                       did_you_mean(s.particle, self.particles) or "declare it with `particle NAME:`")
            return []
        if sc.kind in ("heuristic", "pred", "legend"):
            self.error(f"`emit` changes the state, so it cannot be used in {sc.what}", s)
        sc.writes = True
        if len(s.args) not in (1, 2):
            self.error(f"`emit {s.particle}(...)` takes a cell and optionally a direction, got {len(s.args)} "
                       "arguments", s)
            return []
        cell = self.expr(s.args[0], sc)
        self._want(cell, (CELL,), "the cell particles leave from", s.args[0])
        d = None
        if len(s.args) == 2:
            d = self.expr(s.args[1], sc)
            self._want(d, (DIR,), "a particle's direction", s.args[1])
        self.emitted.add(s.particle)
        return [ir.Emit(list(self.particles).index(s.particle), cell, d, s.span)]

    def _particle(self, p: A.ParticleDecl) -> ir.ParticleInfo:
        props: dict[str, A.ParticleProp] = {}
        keys = ("timing", "stop", "hit", "leave")
        for prop in p.props:
            if prop.key not in keys:
                self.error(f"unknown property `{prop.key}` of particle `{p.name}`", self.at_word(prop, prop.key),
                           did_you_mean(prop.key, keys) or "a particle has timing, stop, hit and leave")
            elif prop.key in props:
                self.error(f"`{prop.key}` is given twice for particle `{p.name}`", self.at_word(prop, prop.key))
            else:
                props[prop.key] = prop
        for key in ("stop", "hit"):
            if key not in props:
                example = {"stop": "`stop: drop != 0` (where a particle stops)",
                           "hit": "`hit: splash`, naming a def splash(c: cell, k: int)"}[key]
                self.error(f"particle `{p.name}` has no `{key}`", self.at_word(p, p.name), f"add {example}")
        timing = "half"
        if "timing" in props:
            timing = self._timing(props["timing"].value)
        stop = ir.Const(BOOL, False)
        if "stop" in props:
            stop = self._pred(props["stop"].value, Scope("pred"), BOOL, "stop condition")
        hit = self._handler(p, props.get("hit"), (CELL, INT), "hit(c: cell, k: int)")
        leave = self._handler(p, props.get("leave"), (CELL, DIR), "leave(c: cell, d: dir)")
        return ir.ParticleInfo(p.name, timing, stop, hit or "", leave, p.span)

    def _timing(self, e: A.Node) -> "str | ir.Expr":
        declared = isinstance(e, A.Name) and (e.id in self.enum_value or e.id in self.params)
        if isinstance(e, A.Name) and e.id in ir.TIMINGS and not declared:
            return e.id
        x = self.expr(e, Scope("const")) if declared or not isinstance(e, A.Name) else None
        if x is not None and x.ty == ERR:
            return "half"
        names = self.enums.get(x.ty.name, ()) if x is not None and x.ty.kind == "enum" else ()
        odd = [n for n in names if n not in ir.TIMINGS]
        if odd:
            self.error(f"a particle's timing is `half` or `unit`, but enum `{x.ty.name}` also has `{odd[0]}`", e,
                       "a particle flies half a cell per step or a whole cell: name the enum's values half, unit")
            return "half"
        if not names:
            self.error("a particle's timing must be `half` or `unit`, or a parameter of an enum of those", e,
                       "for example: `enum model = half, unit` and `param timing: model = half`")
            return "half"
        return x

    def _handler(self, p: A.ParticleDecl, prop: A.ParticleProp | None, want: tuple, shape: str) -> str | None:
        if prop is None:
            return None
        e = prop.value
        if not isinstance(e, A.Name) or e.id not in self.defs:
            self.error(f"`{prop.key}` names the def a particle runs, such as `{shape}`", e,
                       did_you_mean(e.id, self.defs) if isinstance(e, A.Name) else None)
            return None
        self.used.add(e.id)
        proc = self._check_def(self.defs[e.id], e)
        if proc is None:
            return None
        if tuple(dom.ty for _, dom in proc.params) != want:
            got = ", ".join(f"{n}: {dom.ty}" for n, dom in proc.params)
            self.error(f"`{e.id}` must take ({', '.join(map(str, want))}) to be a particle's `{prop.key}`, not "
                       f"({got})", e, f"declare it as `def {shape.replace(prop.key, e.id)}:`")
        elif proc.can_reject:
            self.error(f"`{e.id}` can reject a move (it has a `require`), so it cannot run inside a chain "
                       "reaction", e, "check the move before it emits particles")
        elif proc.returns != VOID:
            self.error(f"`{e.id}` returns a value, which a particle's `{prop.key}` would drop", e)
        return e.id

    def _iterable(self, e, sc):
        if isinstance(e, A.Name) and e.id in self.enums and "." not in e.id:
            return ir.Const(ir.enum_ty(e.id), None, e.span)  # every value of the enum
        if isinstance(e, A.Name) and e.id == "dir" and sc.lookup("dir") is None:
            return ir.Const(DIR, None, e.span)  # L, R, U, D
        x = self.expr(e, sc)
        if x.ty not in (SET, RANGE, ERR):
            self.error(f"`for` runs over a set of cells, a range `a..b` or an enum, not {x.ty}", e)
        return x

    def _is_global_name(self, n):
        return n in self.layers or n in self.globals or n in self.params or n in self.enum_value

    def _kind_of(self, n):
        for kind, table in (("layer", self.layers), ("global", self.globals), ("param", self.params),
                            ("enum value", self.enum_value)):
            if n in table:
                return kind
        return "name"

    def _assign(self, s, sc) -> ir.Stmt:
        t = s.target
        value = self.expr(s.value, sc)
        aug = isinstance(s, A.AugAssign)

        def combine(cur: ir.Expr) -> ir.Expr:
            if not aug:
                return value
            if not _same(cur.ty, INT) or not _same(value.ty, INT):
                self.error(f"`{s.op}=` needs ints, not {cur.ty} and {value.ty}", s)
            return ir.BinOp(INT, s.op, cur, value, s.span)

        def check_ty(want: Ty, what: str):
            got = value.ty
            if not _same(want, got):
                self.error(f"cannot assign {got} to {what} of type {want}", s.value)

        if isinstance(t, A.Name):
            n = t.id
            loc = sc.lookup(n)
            if loc is not None:
                slot, ty = loc
                cur = ir.Local(ty, slot, n, t.span)
                v = combine(cur)
                if not aug:
                    check_ty(ty, f"`{n}`")
                return ir.SetLocal(slot, v, s.span)
            if n in self.layers:
                self.used.add(n)
                if sc.kind != "legend":
                    return self.error(f"layer `{n}` needs a cell: write `{n}[cell] = ...`", t)
                self._may_write(n, self.layers[n].static, s, sc)
                dom = self.domains[n]
                v = combine(ir.LayerAt(dom.ty, n, ir.Here(CELL), t.span))
                if not aug:
                    check_ty(dom.ty, f"layer `{n}`")
                if not aug:  # (an increment is no value stored: `n -= 1` on 5..9)
                    self._const_in_domain(value, dom, s.value, f"layer `{n}`")
                return ir.SetLayer(n, ir.Here(CELL), v, s.span)
            if n in self.globals:
                self.used.add(n)
                g = self.globals[n]
                if isinstance(g, A.GlobalDecl) and g.dims:
                    return self.error(f"`{n}` is an array: assign one element, e.g. `{n}[0] = ...`", t)
                self._may_write(n, isinstance(g, A.GlobalDecl) and g.static, s, sc)
                dom = self.domains[n]
                v = combine(ir.GlobalRef(dom.ty, n, t.span))
                if not aug:
                    check_ty(dom.ty, f"global `{n}`")
                if not aug:
                    self._const_in_domain(value, dom, s.value, f"global `{n}`")
                return ir.SetGlobal(n, v, s.span)
            if n in self.params:
                return self.error(f"parameter `{n}` cannot be changed by the rules", t,
                                  "parameters are set on the command line with --param")
            if n in self.enum_value or n in DIRS or n in BUILTIN_CONSTS:
                return self.error(f"cannot assign to `{n}`", t)
            # (a legend sets what the level holds: a layer or a global, never a local of its own)
            declare = (f"declare it as a layer or a global (`layer {n}: ...`, `global {n}: ...`)"
                       if sc.kind == "legend" else f"declare a local first: `let {n} = ...`")
            return self.error(f"unknown name `{n}`", t, did_you_mean(n, self._visible(sc)) or declare)
        assert isinstance(t, A.Index)
        n = t.base.id
        if n in self.layers:
            self.used.add(n)
            self._may_write(n, self.layers[n].static, s, sc)
            where = self.e_Index(t, sc, target=True)
            if where.ty == ERR:
                return where
            dom = self.domains[n]
            if where.ty == SET:
                if aug:
                    self.error(f"`{s.op}=` on a set of cells is not supported; loop over the cells", s)
                check_ty(dom.ty, f"layer `{n}`")
                self._const_in_domain(value, dom, s.value, f"layer `{n}`")
                return ir.SetLayer(n, where, value, s.span)
            v = combine(where)
            if not aug:
                check_ty(dom.ty, f"layer `{n}`")
            if not aug:
                self._const_in_domain(value, dom, s.value, f"layer `{n}`")
            return ir.SetLayer(n, where.cell, v, s.span)
        g = self.globals.get(n)
        if isinstance(g, A.GlobalDecl) and g.dims:
            self.used.add(n)
            self._may_write(n, g.static, s, sc)
            at = self.e_Index(t, sc)
            if at.ty == ERR:
                return at
            dom = self.domains[n]
            v = combine(at)
            if not aug:
                check_ty(dom.ty, f"`{n}`")
            if not aug:
                self._const_in_domain(value, dom, s.value, f"`{n}`")
            return ir.SetArray(n, at.index, v, s.span)
        return self.e_Index(t, sc)

    def _may_write(self, name, static, s, sc):
        if sc.kind in ("heuristic", "pred", "const", "when"):
            self.error(f"`{name}` cannot be changed in {sc.what}", s)
        elif static and sc.kind not in ("init", "legend"):
            self.error(f"`{name}` is static (part of the level) and can only be set in `init` or a legend", s)
        sc.writes = True

    def _const_in_domain(self, value, dom, node, what):
        if dom.ty != INT or dom.lo is None:
            return
        x, lo, hi = folded(value), folded(dom.lo), folded(dom.hi)
        if None not in (x, lo, hi) and lo <= hi and not lo <= x <= hi:
            self.error(f"value {x} is outside {what}'s domain {lo}..{hi}", node)

    # ---- procedures
    def _params(self, params, sc, finite: bool):
        out = []
        seen = set()
        for p in params:
            dom = self.domain(p.type, f"parameter `{p.name}`", storable=False, allow_set=not finite)
            if finite and dom.ty == INT and dom.lo is None:
                self.error(f"action parameter `{p.name}` needs a finite type (a range such as 0..5, an enum, "
                           "dir, cell or bool)", p.type)
            if p.name in seen:
                self.error(f"duplicate parameter `{p.name}`", self.at_word(p, p.name))
            elif self._is_global_name(p.name):
                self.error(f"parameter `{p.name}` would hide the {self._kind_of(p.name)} `{p.name}`",
                           self.at_word(p, p.name))
            seen.add(p.name)
            sc.declare(p.name, dom.ty)
            out.append((p.name, dom))
        return tuple(out)

    def _returns(self, sc, node, what) -> Ty:
        tys = {t for t, _ in sc.returns if t != ERR}
        if len(tys) > 1:
            first = next(t for t, _ in sc.returns if t != ERR)
            odd_ty, odd = next((t, r) for t, r in sc.returns if t not in (ERR, first))
            self.error(f"{what} returns values of different types: {', '.join(sorted(map(str, tys)))}", odd.value,
                       f"the first `return` gives {first}, this one gives {odd_ty}")
        if len(tys) > 1 or not tys and sc.returns:
            return ERR  # already reported (here or at each return): no follow-on errors at the calls
        return next(iter(tys)) if tys else VOID

    def _check_def(self, d: A.DefDecl, call=None) -> ir.Procedure | None:
        state = self.def_state.get(d.name)
        if state == "done":
            return self.def_ir[d.name]
        if state == "checking":
            stack = [n for n, st in self.def_state.items() if st == "checking"]  # the defs being checked, outermost first
            via = stack[stack.index(d.name) + 1:]
            through = f" through {', '.join(f'`{n}`' for n in via)}" if via else ""
            self.error(f"`{d.name}` calls itself{through} (recursion is not allowed)", call or self.at_word(d, d.name))
            return None
        self.def_state[d.name] = "checking"
        sc = Scope("def")
        params = self._params(d.params, sc, finite=False)
        body = self.block(d.body, sc, new_scope=False)
        ret = self._returns(sc, d, f"`{d.name}`")
        if ret != VOID and not _always_returns(d.body):
            self.error(f"`{d.name}` does not return a value on every path", self.at_word(d, d.name),
                       "end it with a `return`, or give every `if` an `else` that returns")
        proc = ir.Procedure(d.name, params, body, sc.nslots, ret, sc.writes, sc.rejects, d.span)
        self.def_ir[d.name] = proc
        self.def_state[d.name] = "done"
        return proc

    # ---- the whole file
    def run(self) -> ir.Game:
        self.declare()
        for i, (name, p) in enumerate(self.params.items()):
            self.param_now = (name, list(self.params)[:i])
            self.domains[name] = self.domain(p.type, f"parameter `{name}`", storable=False)
        self.param_now = None
        for name, layer in self.layers.items():
            self.domains[name] = self.domain(layer.type, f"layer `{name}`", storable=not layer.static)
        for name, g in self.globals.items():
            if isinstance(g, A.BodyDecl):
                self.domains[name] = ir.Domain(ir.body_ty(name))
            else:
                self.domains[name] = self.domain(g.type, f"global `{name}`", storable=not g.static)
        params = []
        for i, (name, p) in enumerate(self.params.items()):
            sc = Scope("const")
            self.param_now = (name, list(self.params)[:i])
            default = self.expr(p.default, sc)
            self.param_now = None
            dom = self.domains[name]
            if not _same(default.ty, dom.ty):
                self.error(f"default of parameter `{name}` must be {dom.ty}, not {default.ty}", p.default)
            self._const_in_domain(default, dom, p.default, f"parameter `{name}`")
            params.append(ir.ParamInfo(name, dom, default, p.span))
        layers = [ir.LayerInfo(n, self.domains[n], d.static, d.span) for n, d in self.layers.items()]
        globals_ = []
        bodies = []
        for name, g in self.globals.items():
            if isinstance(g, A.BodyDecl):
                bodies.append(self._body(g))
                globals_.append(ir.GlobalInfo(name, (), self.domains[name], None, False, g.span))
                continue
            dims = tuple(self.const_expr(x, "an array size") for x in g.dims)
            for size, node in zip(dims, g.dims):  # (a size that depends on parameters is checked per level)
                value = folded(size)
                if value is not None and value < 1:
                    self.error(f"an array size must be at least 1, not {value}", node)
            default = None
            if g.default is not None:
                default = self.expr(g.default, Scope("const"))
                if not _same(default.ty, self.domains[name].ty):
                    self.error(f"default of `{name}` must be {self.domains[name].ty}, not {default.ty}", g.default)
                self._const_in_domain(default, self.domains[name], g.default, f"global `{name}`")
            globals_.append(ir.GlobalInfo(name, dims, self.domains[name], default, g.static, g.span))
        for d in self.defs.values():
            self._check_def(d)
        particles = [self._particle(p) for p in self.particles.values()]
        actions, heuristics, goals, fails, deadlocks, formats, shows = [], [], [], [], [], [], {}
        init = None
        limit = None
        score = None
        pred_slots = 0
        for d in self.rf.decls:
            if isinstance(d, A.ActionDecl):
                actions.append(self._action(d))
            elif isinstance(d, A.HeuristicDecl):
                proc = self._reading(d, d.name, f"heuristic `{d.name}`", "a heuristic", "must return an int")
                heuristics.append(ir.HeuristicInfo(proc, d.admissible))
            elif isinstance(d, A.ScoreDecl):
                if score is not None:
                    first = next(x for x in self.rf.decls if isinstance(x, A.ScoreDecl))
                    self.error(f"duplicate `score` (the first is on line {first.span.line if first.span else '?'})",
                               self.at_word(d, "score"), "a game has one score; add its parts in one expression")
                score = self._reading(d, "score", "the score", "the score", "must be an int")
            elif isinstance(d, (A.GoalDecl, A.FailDecl, A.DeadlockDecl)):
                sc = Scope("pred")
                c = self.expr(d.cond, sc)
                pred_slots = max(pred_slots, sc.nslots)
                word, found = {A.GoalDecl: ("goal", goals), A.FailDecl: ("fail", fails),
                               A.DeadlockDecl: ("deadlock", deadlocks)}[type(d)]
                if not _same(c.ty, BOOL):
                    self.error(f"a {word} condition must be bool, not {c.ty}", d.cond)
                found.append(c)
            elif isinstance(d, A.ShowDecl):
                sc = Scope("pred", cell=1, title="a `show` rule")
                c = self.expr(d.value, sc)
                pred_slots = max(pred_slots, sc.nslots)
                if d.layer not in self.layers:
                    self.error(f"`show` names no layer `{d.layer}`", self.at_word(d, d.layer),
                               did_you_mean(d.layer, self.layers) or "`show LAYER: EXPR` says how a layer is drawn")
                elif d.layer in shows:
                    self.error(f"duplicate `show {d.layer}`", self.at_word(d, d.layer), "a layer is drawn one way")
                elif not _same(c.ty, self.domains[d.layer].ty):
                    self.error(f"`show {d.layer}` must give {self.domains[d.layer].ty}, the layer's type, not {c.ty}",
                               d.value)
                else:
                    shows[d.layer] = c
            elif isinstance(d, A.InitDecl):
                if init is not None:
                    first = next(x for x in self.rf.decls if isinstance(x, A.InitDecl))
                    self.error(f"duplicate `init` block (the first is on line {first.span.line if first.span else '?'})",
                               self.at_word(d, "init"))
                sc = Scope("init")
                body = self.block(d.body, sc, new_scope=False)
                init = ir.Procedure("init", (), body, sc.nslots, VOID, True, span=d.span)
            elif isinstance(d, A.LimitDecl):
                if limit is not None:
                    self.error("duplicate `limit`", self.at_word(d, "limit"), "a game has one limit; combine them")
                cost = self.const_expr(d.cost, "a limit")
                when = ir.Const(BOOL, True)
                if d.when is not None:
                    when = self.expr(d.when, Scope("const"))
                    if not _same(when.ty, BOOL):
                        self.error(f"`when` needs a bool condition, not {when.ty}", d.when)
                limit = (cost, when)
            elif isinstance(d, A.LevelDecl):
                formats.append(self._level(d, formats))
        if not goals:
            self.error("the rules have no goal", self._game_span(), "add a line like `goal: empty(cells where ...)`")
        if not actions:
            self.error("the rules have no action", self._game_span(), "add an `action name(...):` block")
        for name, d in self.defs.items():
            if name not in self.used:
                self.error(f"def `{name}` is never used", self.at_word(d, name), "call it from an action, or delete it")
        for name, layer in self.layers.items():
            if name not in self.used:
                self.warn(f"layer `{name}` is never used", self.at_word(layer, name))
        for name, p in self.particles.items():
            if name not in self.emitted:
                self.warn(f"particle `{name}` is never emitted", self.at_word(p, name),
                          f"send some flying with `emit {name}(cell)` in an action or a def")
        heuristics = self._dominance(heuristics)
        game = next((d for d in self.rf.decls if isinstance(d, A.Game)), None)
        if self.errors:
            unique: dict = {}  # one of each: a legend shared by several formats is checked once per format
            for e in self.errors:
                unique.setdefault((e.message, str(e.span)), e)
            raise ErrorList(sorted(unique.values(), key=lambda e: (e.span.line, e.span.col) if e.span else (0, 0)))
        return ir.Game(
            name=game.name, title=game.title, path=self.path, params=tuple(params),
            enums=tuple((k, v) for k, v in self.enums.items()), layers=tuple(layers), globals=tuple(globals_),
            bodies=tuple(bodies), particles=tuple(particles), defs=tuple(self.def_ir[n] for n in self.defs),
            actions=tuple(actions),
            init=init, goals=tuple(goals), fails=tuple(fails), deadlocks=tuple(deadlocks), limit=limit,
            heuristics=tuple(heuristics), formats=tuple(formats), predicates_nlocals=pred_slots, score=score,
            redundant=any(ir.contains(a.proc.body, lambda x: isinstance(x, ir.Redundant)) for a in actions),
            commuting=any(ir.contains(a.proc.body, lambda x: isinstance(x, ir.Commutes)) for a in actions),
            persisting=any(ir.contains(a.proc.body, lambda x: isinstance(x, ir.Persists)) for a in actions),
            choosing=any(ir.contains(a.proc.body, lambda x: isinstance(x, ir.Chooses)) for a in actions),
            ranking=any(ir.contains(a.proc.body, lambda x: isinstance(x, ir.Ranks)) for a in actions),
            shows=tuple(shows.items()))

    def _reading(self, d, word: str, what: str, title: str, needs: str) -> ir.Procedure:
        """A heuristic's or the score's body: it reads the state and returns an int on every path."""
        sc = Scope("heuristic", title=title)
        body = self.block(d.body, sc, new_scope=False)
        ret = self._returns(sc, d, what)
        if ret not in (INT, ERR, VOID):
            self.error(f"{what} {needs}, not {ret}", next(r.value for t, r in sc.returns if t == ret))
        if not _always_returns(d.body):
            self.error(f"{what} does not return a value on every path", self.at_word(d, word),
                       "end it with a `return`, or give every `if` an `else` that returns")
        return ir.Procedure(word, (), body, sc.nslots, INT, False, span=d.span)

    def _action(self, d: A.ActionDecl) -> ir.ActionInfo:
        sc = Scope("action")
        params = self._params(d.params, sc, finite=True)
        when = ir.Const(BOOL, True)
        if d.when is not None:
            wsc = Scope("when")
            for name, dom in params:
                wsc.declare(name, dom.ty)
            when = self.expr(d.when, wsc)
            if not _same(when.ty, BOOL):
                self.error(f"`when` needs a bool condition, not {when.ty}", d.when)
            elif isinstance(when, ir.Const) and when.value is False:
                self.error(f"action `{d.name}` can never apply: its `when` is false", d.when)
        cost = ir.Const(INT, 1)
        if d.cost is not None:
            # a cost reads the state before the move and changes nothing: a condition's scope, with the
            # action's parameters in the same slots as in the action
            csc = Scope("pred")
            for name, dom in params:
                csc.declare(name, dom.ty)
            cost = self.expr(d.cost, csc)
            if not _same(cost.ty, INT):
                self.error(f"a cost must be an int, not {cost.ty}", d.cost)
            elif (k := folded(cost)) is not None and k < 0:
                self.error(f"a cost cannot be negative ({k})", d.cost)
        if d.notation is not None:
            names = {p for p, _ in params}
            for m in re.finditer(r"\{([^{}]*)\}", d.notation):
                if m.group(1) not in names:
                    nth = d.notation[:m.start()].count(m.group(0)) + 1
                    self.error(f"notation uses `{{{m.group(1)}}}` but `{d.name}` has no parameter of that name",
                               self.at_word(d, m.group(0), nth), did_you_mean(m.group(1), names))
        if d.unordered:
            if len(params) < 2:
                self.error(f"`unordered` needs an action with two or more parameters; `{d.name}` has {len(params)}",
                           self.at_word(d, "unordered"))
            elif any(not _same(dom.ty, params[0][1].ty) for _, dom in params):
                self.error(f"the parameters of unordered action `{d.name}` must all have the same type "
                           f"({', '.join(f'{n}: {dom.ty}' for n, dom in params)})", self.at_word(d, "unordered"),
                           "an unordered action takes a set of values of one type, such as two cells")
        body = self.block(d.body, sc, new_scope=False)
        proc = ir.Procedure(d.name, params, body, sc.nslots, VOID, True, span=d.span)
        return ir.ActionInfo(proc, d.notation, cost, when, d.span, unordered=d.unordered)

    def _body(self, b: A.BodyDecl) -> ir.BodyInfo:
        poses = tuple(p.name for p in b.poses)
        cells = []
        for p in b.poses:
            if (0, 0) not in p.cells:
                self.error(f"pose `{p.name}` must cover its anchor (0, 0)", self.at_word(p, p.name))
            if len(set(p.cells)) != len(p.cells):
                self.error(f"pose `{p.name}` lists a cell twice", self.at_word(p, p.name))
            if any(abs(x) > 1 << 62 for cell in p.cells for x in cell):
                self.error(f"an offset of pose `{p.name}` is too large (the limit is 2^62)", self.at_word(p, p.name))
            cells.append(tuple(p.cells))
        table: dict[tuple[int, int], tuple[int, tuple[int, int]]] = {}
        unknown_from = set()  # (line, pose): a `roll NAME:` line with an unknown pose is reported once
        errors_before = len(self.errors)
        for r in b.rolls:
            if r.pose not in poses:
                key = (r.span.line if r.span else 0, r.pose)
                if key not in unknown_from:
                    unknown_from.add(key)
                    self.error(f"unknown pose `{r.pose}` in a roll of `{b.name}`", self.at_word(r, r.pose, from_col=1),
                               did_you_mean(r.pose, poses))
                continue
            if r.dir not in DIRS:
                self.error(f"unknown direction `{r.dir}`: a roll goes L, R, U or D", self.at_word(r, r.dir))
                continue
            if r.to not in poses:
                self.error(f"unknown pose `{r.to}` in a roll of `{b.name}`", self.at_word(r, r.to, 2 if r.to == r.dir else 1),
                           did_you_mean(r.to, poses))
                continue
            if any(abs(x) > 1 << 62 for x in r.shift):
                self.error(f"the roll of pose `{r.pose}` to {r.dir} moves too far (the limit is 2^62)", r)
                continue
            key = (poses.index(r.pose), DIRS.index(r.dir))
            if key in table:
                self.error(f"the roll of pose `{r.pose}` to {r.dir} is given twice", r)
            table[key] = (poses.index(r.to), r.shift)
        rolls = []
        for pi, pname in enumerate(poses):
            row = []
            missing = [dname for di, dname in enumerate(DIRS) if (pi, di) not in table]
            if missing and pname not in poses[:pi] and len(self.errors) == errors_before:
                dirs = ", ".join(missing[:-1]) + (" or " if len(missing) > 1 else "") + missing[-1]
                self.error(f"body `{b.name}` does not say where pose `{pname}` rolls to {dirs}",
                           self.at_word(b.poses[pi], pname),
                           f"add a line `roll {pname}: L -> POSE (drow, dcol), ...` covering L, R, U and D")
            for di, dname in enumerate(DIRS):
                row.append(table.get((pi, di), (pi, (0, 0))))
            rolls.append(tuple(row))
        return ir.BodyInfo(b.name, poses, tuple(cells), tuple(rolls), b.span)

    def _level(self, d: A.LevelDecl, earlier) -> ir.LevelFormat:
        from .levels import READERS

        if d.format not in READERS:
            self.error(f"unknown level format `{d.format}`", self.at_word(d, d.format),
                       did_you_mean(d.format, READERS) or "known formats: " + ", ".join(sorted(READERS)))
        if any(f.format == d.format for f in earlier):
            self.error(f"level format `{d.format}` is declared twice", self.at_word(d, d.format))
        legend = []
        seen_tokens: dict[str, int] = {}
        for entry in d.legend:
            spec = _spec_span(entry)
            if entry.kind == "one" and len(entry.first) != 1 or entry.kind == "range" and (
                    len(entry.first) != 1 or len(entry.last) != 1):
                self.error("a legend entry names single characters, such as '#' or 'a'..'z'", spec)
                continue
            if entry.kind == "range" and entry.first > entry.last:
                self.error(f"empty character range '{entry.first}'..'{entry.last}'", spec)
                continue
            chars = ([entry.first] if entry.kind == "one" else
                     [chr(c) for c in range(ord(entry.first), ord(entry.last) + 1)] if entry.kind == "range" else [""])
            for ch in chars:
                if ch in seen_tokens:
                    what = f"legend character {ch!r}" if ch else "the catch-all `*`"
                    self.error(f"{what} is already given on line {seen_tokens[ch]}", spec)
                    break
                seen_tokens[ch] = entry.span.line if entry.span else 0
            sc = Scope("legend")
            body = self.block(entry.body, sc, new_scope=False)
            proc = ir.Procedure(f"legend {entry.first or '*'}", (), body, sc.nslots, VOID, True, span=entry.span)
            legend.append(ir.LegendInfo(entry.kind, entry.first, entry.last, proc, entry.span))
        return ir.LevelFormat(d.format, tuple(legend), d.span)


def _spec_span(entry):
    """The span of a legend entry's characters (`'#'`, `'a'..'z'` or `*`), not of the whole entry."""
    sp = entry.span
    if sp is None:
        return None
    m = re.compile(r"""('[^'\n]*'|"[^"\n]*")(\s*\.\.\s*('[^'\n]*'|"[^"\n]*"))?|\*""").match(
        sp.source.line_text(sp.line), sp.col - 1)
    return Span(sp.source, sp.line, sp.col, sp.line, sp.col + (len(m.group(0)) if m else 1))


def _always_returns(stmts) -> bool:
    for s in stmts:
        if isinstance(s, A.Return):
            return True
        if isinstance(s, A.While) and isinstance(s.cond, A.BoolLit) and s.cond.value:
            return True  # (the language has no `break`: only a `return` leaves `while true`, or the round limit)
        if isinstance(s, A.If) and s.orelse and all(_always_returns(b) for _, b in s.branches) and _always_returns(s.orelse):
            return True
    return False


def check(rf: A.RuleFile, path: str) -> tuple[ir.Game, list[RuleError]]:
    """Check a parsed rule file; return the IR and the warnings, or raise ErrorList."""
    c = Checker(rf, path)
    game = c.run()
    return game, c.warnings
