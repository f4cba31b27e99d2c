"""The IR: a checked, immutable game. Names are resolved, every expression has a type.

The checker (check.py) builds it from the AST; backends lower it. Nothing here depends on a level: domains
that mention parameters or the board size stay expressions until a level instantiates the game.
"""
from __future__ import annotations

import dataclasses
import functools

from .errors import Span
from .nodes import SPAN, Value, node


# ---- types -------------------------------------------------------------------------------------
@node
class Ty(Value):
    """bool | int | cell | dir | enum | set | range | body | void. `name` names the enum or body."""

    kind: str
    name: str | None = None

    def __str__(self) -> str:
        if self.kind == "enum":
            return self.name or "enum"
        if self.kind == "body":
            return f"body {self.name}"
        return self.kind


BOOL, INT, CELL, DIR, SET, RANGE, VOID = (Ty("bool"), Ty("int"), Ty("cell"), Ty("dir"), Ty("set"),
                                           Ty("range"), Ty("void"))
DIRS = ("L", "R", "U", "D")
DIR_OFFSETS = ((0, -1), (0, 1), (-1, 0), (1, 0))


def enum_ty(name: str) -> Ty:
    return Ty("enum", name)


def body_ty(name: str) -> Ty:
    return Ty("body", name)


@node
class Domain(Value):
    """The values a stored thing may take. For ints, `lo..hi` are expressions evaluated per level."""

    ty: Ty
    lo: "Expr | None" = None
    hi: "Expr | None" = None


# ---- expressions -------------------------------------------------------------------------------
@node
class Expr(Value):
    ty: Ty


@node
class Const(Expr):
    value: object  # int, bool, (r, c), None (no cell), enum/dir index
    span: Span | None = SPAN


@node
class ParamRef(Expr):
    name: str
    span: Span | None = SPAN


@node
class BoardSize(Expr):
    which: str  # "rows" | "cols"
    span: Span | None = SPAN


@node
class AllCells(Expr):
    span: Span | None = SPAN


@node
class Local(Expr):
    slot: int
    name: str
    span: Span | None = SPAN


@node
class Here(Expr):
    span: Span | None = SPAN


@node
class TokenValue(Expr):  # `value` in a level legend
    span: Span | None = SPAN


@node
class GlobalRef(Expr):
    name: str
    span: Span | None = SPAN


@node
class ArrayAt(Expr):
    name: str
    index: tuple[Expr, ...]
    span: Span | None = SPAN


@node
class LayerAt(Expr):
    layer: str
    cell: Expr  # a Here() inside cell predicates
    span: Span | None = SPAN


@node
class Unary(Expr):
    op: str  # "not" | "neg"
    operand: Expr
    span: Span | None = SPAN


@node
class BinOp(Expr):
    """op is one of: int + - * / % < <= > >= ; eq ne ; and or ; set | & - ; cell+dir cell+cell ; in."""

    op: str
    left: Expr
    right: Expr
    span: Span | None = SPAN


@node
class Where(Expr):
    cells: Expr
    pred: Expr  # evaluated with Here() bound to each cell
    span: Span | None = SPAN


@node
class MakeCell(Expr):
    row: Expr
    col: Expr
    span: Span | None = SPAN


@node
class MakeBody(Expr):
    body: str
    pose: int
    anchor: Expr
    span: Span | None = SPAN


@node
class FieldOf(Expr):
    base: Expr
    field: str  # row col (cell) | pose at (body)
    span: Span | None = SPAN


@node
class RangeOf(Expr):
    lo: Expr
    hi: Expr
    span: Span | None = SPAN


@node
class Builtin(Expr):
    """A built-in function: region neighbours count any empty distinct on_board cells adjacent abs min max
    first roll path. Predicate arguments (region's, distinct's value, path's condition) are read at each cell
    via Here()."""

    name: str
    args: tuple[Expr, ...]
    span: Span | None = SPAN


@node
class CallDef(Expr):
    name: str
    args: tuple[Expr, ...]
    span: Span | None = SPAN


def contains(node, found) -> bool:
    """Whether an IR statement or expression (or a tuple of them) has a part for which found(part) holds."""
    if found(node):
        return True
    if isinstance(node, tuple):
        return any(contains(x, found) for x in node)
    return any(contains(getattr(node, name), found) for name in _parts(type(node)))


def count(node, found) -> int:
    """How many parts of an IR statement or expression (or a tuple of them), itself included, satisfy found."""
    if isinstance(node, tuple):
        return sum(count(x, found) for x in node)
    return int(bool(found(node))) + sum(count(getattr(node, name), found) for name in _parts(type(node)))


def stored(node) -> set[str]:
    """The layers and globals an IR statement (or a tuple of them) stores to, itself (not through the defs it
    calls)."""
    names: set[str] = set()

    def note(x) -> bool:
        if isinstance(x, SetLayer):
            names.add(x.layer)
        elif isinstance(x, (SetGlobal, SetArray)):
            names.add(x.name)
        return False

    contains(node, note)
    return names


def without_hints(proc: "Procedure") -> "Procedure":
    """An action as a player's move runs it: without the statements that only tell the searches something
    (`safe`, `redundant`, `commutes`, `persists`, `chooses`, `ranks`), the `if`s left with nothing to do but
    test, and the `let`s nothing reads any more (Flood-It's test for a redundant move was most of a replay's
    work). What goes calls no def (which might reject or change the move); `proc` itself when nothing goes."""
    hints = (Safe, Redundant, Commutes, Persists, Chooses, Ranks)

    def pure(e) -> bool:
        return not contains(e, lambda x: isinstance(x, CallDef))

    def strip(body: tuple, read: set[int]) -> tuple:
        out = []
        for s in body:
            if isinstance(s, hints) and pure(s):  # (`chooses f(a)` keeps its call of f, which may reject the move)
                continue
            if isinstance(s, If):
                branches = tuple((cond, strip(b, read)) for cond, b in s.branches)
                orelse = strip(s.orelse, read)
                if not orelse and not any(b for _, b in branches) and all(pure(c) for c, _ in branches):
                    continue
                s = dataclasses.replace(s, branches=branches, orelse=orelse)
            elif isinstance(s, For):
                s = dataclasses.replace(s, body=strip(s.body, read))
            elif isinstance(s, SetLocal) and s.slot not in read and pure(s.value):
                continue
            out.append(s)
        return tuple(out)

    body = proc.body
    while True:  # (a let dropped may leave another unread)
        read: set[int] = set()
        contains(body, lambda x: isinstance(x, Local) and read.add(x.slot))  # (add answers None: every part)
        stripped = strip(body, read)
        if stripped == body:
            break
        body = stripped
    return proc if body == proc.body else dataclasses.replace(proc, body=body)


@functools.cache
def _parts(cls) -> tuple[str, ...]:
    """The fields of an IR class that hold its parts (not its span, nor a type's name); none for other values.
    (Kept per class: dataclasses.fields on every node made `contains` most of a compiled system's set-up.)"""
    if cls is Ty or not dataclasses.is_dataclass(cls):
        return ()
    return tuple(f.name for f in dataclasses.fields(cls) if f.compare)


def params_only(e: Expr) -> bool:
    """Whether an expression depends on nothing but literals, parameters and the board size (so it is one
    number per level), e.g. a cost like `swap_cost`."""
    if isinstance(e, (Const, ParamRef, BoardSize)):
        return True
    if isinstance(e, Unary):
        return params_only(e.operand)
    if isinstance(e, BinOp):
        return params_only(e.left) and params_only(e.right)
    if isinstance(e, Builtin) and e.name in ("abs", "min", "max"):
        return all(params_only(a) for a in e.args)
    return False


# ---- statements --------------------------------------------------------------------------------
@node
class Stmt(Value):
    pass


@node
class SetLocal(Stmt):
    slot: int
    value: Expr
    span: Span | None = SPAN


@node
class SetGlobal(Stmt):
    name: str
    value: Expr
    span: Span | None = SPAN


@node
class SetArray(Stmt):
    name: str
    index: tuple[Expr, ...]
    value: Expr
    span: Span | None = SPAN


@node
class SetLayer(Stmt):
    """layer[cell] = value, or layer[set] = value for every cell of a set."""

    layer: str
    where: Expr  # a cell or a set
    value: Expr
    span: Span | None = SPAN


@node
class Require(Stmt):
    cond: Expr
    message: str | None = None
    span: Span | None = SPAN


@node
class Return(Stmt):
    value: Expr
    span: Span | None = SPAN


@node
class Safe(Stmt):
    """Mark the move being made as safe: when it is legal, a search takes it alone."""

    span: Span | None = SPAN


@node
class Redundant(Stmt):
    """Mark the move being made as redundant: a search leaves it out, but in the state it starts from."""

    span: Span | None = SPAN


@node
class Commutes(Stmt):
    """Mark the move being made as commuting: two such moves in a row can be swapped (see docs, `commutes`)."""

    span: Span | None = SPAN


@node
class Persists(Stmt):
    """Mark the move being made as persisting: making it now never costs more than making it later (see docs,
    `persists`)."""

    span: Span | None = SPAN


@node
class Chooses(Stmt):
    """The move is one of the options for `value` (see docs, `chooses`): searches try the smallest choices first."""

    value: Expr
    span: Span | None = SPAN


@node
class Ranks(Stmt):
    """The move's rank is `value` (see docs, `ranks`): searches try the moves of lower rank first."""

    value: Expr
    span: Span | None = SPAN


@node
class Eval(Stmt):
    call: Expr
    span: Span | None = SPAN


@node
class Emit(Stmt):
    """Particles of one kind leave a cell: one per direction, or one in `dir`. Outside a chain the statement
    runs the whole chain reaction before the next one; inside a chain (in a `hit` or `leave` def) they join
    it and start moving at the next step."""

    particle: int  # index into Game.particles
    cell: Expr
    dir: Expr | None
    span: Span | None = SPAN


@node
class If(Stmt):
    branches: tuple[tuple[Expr, tuple[Stmt, ...]], ...]
    orelse: tuple[Stmt, ...]
    span: Span | None = SPAN


@node
class For(Stmt):
    slot: int
    iter: Expr  # a set (cells in row-major order), a range, or an enum/dir/bool type's values
    body: tuple[Stmt, ...]
    span: Span | None = SPAN


@node
class While(Stmt):
    cond: Expr
    body: tuple[Stmt, ...]
    span: Span | None = SPAN


# ---- declarations ------------------------------------------------------------------------------
@node
class ParamInfo(Value):
    name: str
    domain: Domain
    default: Expr
    span: Span | None = SPAN


@node
class LayerInfo(Value):
    name: str
    domain: Domain
    static: bool
    span: Span | None = SPAN


@node
class GlobalInfo(Value):
    name: str
    dims: tuple[Expr, ...]
    domain: Domain
    default: Expr | None
    static: bool
    span: Span | None = SPAN


@node
class BodyInfo(Value):
    """A rigid body: poses (cells as offsets from an anchor) and a roll table."""

    name: str
    poses: tuple[str, ...]
    cells: tuple[tuple[tuple[int, int], ...], ...]  # per pose
    rolls: tuple[tuple[tuple[int, tuple[int, int]], ...], ...]  # [pose][dir] -> (new pose, anchor shift)
    span: Span | None = SPAN


TIMINGS = ("half", "unit")


@node
class ParticleInfo(Value):
    """A kind of particle: how fast it flies, where it stops, and the defs run when some stop at a cell in one
    step (`hit(cell, count)`) or one leaves the board (`leave(last cell on the board, dir)`)."""

    name: str
    timing: "str | Expr"  # "half" | "unit", or a parameter expression whose enum value is named one of them
    stop: Expr  # a cell condition, read at the cell a particle enters (Here())
    hit: str
    leave: str | None
    span: Span | None = SPAN


@node
class Procedure(Value):
    """A def, an action, the init block, a heuristic or a legend entry: a body with its local slots."""

    name: str
    params: tuple[tuple[str, Domain], ...]
    body: tuple[Stmt, ...]
    nlocals: int
    returns: Ty = VOID
    writes_state: bool = False
    can_reject: bool = False  # contains a `require` (directly or through a def)
    span: Span | None = SPAN


@node
class ActionInfo(Value):
    proc: Procedure
    notation: str | None
    cost: Expr  # evaluated with the action's parameters bound, before its effects
    when: Expr  # a condition on parameters only
    span: Span | None = SPAN
    unordered: bool = False  # instances are combinations (each set of values once, in ascending order)

    @property
    def name(self) -> str:
        return self.proc.name

    @property
    def when_fixed(self) -> bool:
        """Whether `when` reads none of the parameters (`when free`): one answer for a level's every move."""
        return not contains(self.when, lambda x: isinstance(x, Local))


@node
class HeuristicInfo(Value):
    proc: Procedure
    admissible: bool
    dominates: tuple[str, ...] = ()  # the writer's promise: never below these (all admissible, as this one)
    dominated: bool = False  # some heuristic dominates this one: the default maximum leaves it out

    @property
    def in_default(self) -> bool:
        """Whether the default heuristic, the maximum of the admissible ones, takes this one."""
        return self.admissible and not self.dominated

    @property
    def name(self) -> str:
        return self.proc.name


@node
class LegendInfo(Value):
    kind: str  # one | range | any
    first: str | None
    last: str | None
    proc: Procedure
    span: Span | None = SPAN

    def matches(self, token) -> tuple[bool, int]:
        """Whether a level token (a character or an int) is covered, and its `value`."""
        if self.kind == "any":
            return True, (token if isinstance(token, int) else ord(token))
        if isinstance(token, int):
            return False, 0
        if self.kind == "one":
            return token == self.first, 0
        lo, hi = ord(self.first), ord(self.last)
        return lo <= ord(token) <= hi, ord(token) - lo


@node
class LevelFormat(Value):
    format: str
    legend: tuple[LegendInfo, ...]
    span: Span | None = SPAN


@node
class Game(Value):
    """A compiled, immutable game: everything a backend needs, nothing about one level."""

    name: str
    title: str | None
    path: str
    params: tuple[ParamInfo, ...]
    enums: tuple[tuple[str, tuple[str, ...]], ...]
    layers: tuple[LayerInfo, ...]
    globals: tuple[GlobalInfo, ...]
    bodies: tuple[BodyInfo, ...]
    particles: tuple[ParticleInfo, ...]
    defs: tuple[Procedure, ...]
    actions: tuple[ActionInfo, ...]
    init: Procedure | None
    goals: tuple[Expr, ...]
    fails: tuple[Expr, ...]
    deadlocks: tuple[Expr, ...]  # states from which, the rules promise, no goal can be reached
    limit: tuple[Expr, Expr] | None  # (max cost, when)
    heuristics: tuple[HeuristicInfo, ...]
    formats: tuple[LevelFormat, ...]
    predicates_nlocals: int = 0  # local slots used by goal / fail / deadlock / cost / when expressions
    score: Procedure | None = None  # what a solution is worth, read on its last state (higher is better)
    redundant: bool = False  # some action runs `redundant`: searches leave such moves out but where they start
    commuting: bool = False  # some action runs `commutes`: path searches try one order of commuting moves
    persisting: bool = False  # some action runs `persists`: path searches ban a failed persisting move below
    choosing: bool = False  # some action runs `chooses`: searches try the smallest choices first
    ranking: bool = False  # some action runs `ranks`: searches try the moves of lower rank first
    shows: tuple[tuple[str, Expr], ...] = ()  # (layer, its value as drawn, read per cell with `here`): `show`

    def enum_values(self, name: str) -> tuple[str, ...]:
        if name == "dir":
            return DIRS
        return dict(self.enums)[name]

    def layer(self, name: str) -> LayerInfo:
        return next(layer for layer in self.layers if layer.name == name)

    def global_(self, name: str) -> GlobalInfo:
        return next(g for g in self.globals if g.name == name)

    def body(self, name: str) -> BodyInfo:
        return next(b for b in self.bodies if b.name == name)

    def proc(self, name: str) -> Procedure:
        return next(d for d in self.defs if d.name == name)

    def format(self, name: str) -> LevelFormat | None:
        return next((f for f in self.formats if f.format == name), None)
