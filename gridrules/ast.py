"""The syntax tree both rule forms (text DSL and YAML) produce.

Values (nodes.py); every node carries its source span, which is left out of equality so that the DSL and
YAML forms of one game compare equal.
"""
from __future__ import annotations

from .errors import Span
from .nodes import SPAN, Value, node


@node
class Node(Value):
    pass


# ---- types -------------------------------------------------------------------------------------
@node
class TBool(Node):
    span: Span | None = SPAN


@node
class TInt(Node):
    span: Span | None = SPAN


@node
class TCell(Node):
    span: Span | None = SPAN


@node
class TDir(Node):
    span: Span | None = SPAN


@node
class TNamed(Node):  # an enum
    name: str
    span: Span | None = SPAN


@node
class TRange(Node):  # lo..hi, inclusive
    lo: "Expr"
    hi: "Expr"
    span: Span | None = SPAN


TypeExpr = TBool | TInt | TCell | TDir | TNamed | TRange


# ---- expressions -------------------------------------------------------------------------------
@node
class IntLit(Node):
    value: int
    span: Span | None = SPAN


@node
class BoolLit(Node):
    value: bool
    span: Span | None = SPAN


@node
class NoneLit(Node):
    span: Span | None = SPAN


@node
class Name(Node):
    id: str
    span: Span | None = SPAN


@node
class CellLit(Node):
    row: "Expr"
    col: "Expr"
    span: Span | None = SPAN


@node
class Binary(Node):
    """Arithmetic, comparison, logic and set operators: + - * / % == != < <= > >= and or | & in."""

    op: str
    left: "Expr"
    right: "Expr"
    span: Span | None = SPAN


@node
class Not(Node):
    operand: "Expr"
    span: Span | None = SPAN


@node
class Neg(Node):
    operand: "Expr"
    span: Span | None = SPAN


@node
class Where(Node):
    """`S where P`: the cells of S for which P holds (P is read at each cell, see `here`)."""

    cells: "Expr"
    pred: "Expr"
    span: Span | None = SPAN


@node
class At(Node):
    """`pose at cell`: a body value."""

    pose: str
    cell: "Expr"
    span: Span | None = SPAN


@node
class Range(Node):
    lo: "Expr"
    hi: "Expr"
    span: Span | None = SPAN


@node
class Index(Node):
    base: "Expr"
    args: tuple["Expr", ...]
    span: Span | None = SPAN


@node
class Field(Node):
    base: "Expr"
    name: str
    span: Span | None = SPAN


@node
class Call(Node):
    func: str
    args: tuple["Expr", ...]
    span: Span | None = SPAN


Expr = IntLit | BoolLit | NoneLit | Name | CellLit | Binary | Not | Neg | Where | At | Range | Index | Field | Call


# ---- statements --------------------------------------------------------------------------------
@node
class Let(Node):
    name: str
    value: Expr
    span: Span | None = SPAN


@node
class Assign(Node):
    target: Name | Index
    value: Expr
    span: Span | None = SPAN


@node
class AugAssign(Node):
    target: Name | Index
    op: str  # "+" or "-"
    value: Expr
    span: Span | None = SPAN


@node
class Require(Node):
    cond: Expr
    message: str | None = None  # shown when a level fails the requirement in `init` or a legend
    span: Span | None = SPAN


@node
class Return(Node):
    value: Expr
    span: Span | None = SPAN


@node
class CallStmt(Node):
    call: Call
    span: Span | None = SPAN


@node
class Pass(Node):
    span: Span | None = SPAN


@node
class Safe(Node):
    """`safe`: the move being made is safe — a search takes it without trying the state's other moves."""

    span: Span | None = SPAN


@node
class Redundant(Node):
    """`redundant`: a search may leave the move being made out — a cheapest solution does without it (but in
    the state the search starts from)."""

    span: Span | None = SPAN


@node
class Commutes(Node):
    """`commutes`: the move being made commutes with the next one if that one also runs `commutes` — a path
    search tries one order of such runs."""

    span: Span | None = SPAN


@node
class Persists(Node):
    """`persists`: a solution that makes the move being made later can make it now, at no greater cost — a path
    search bans it below its siblings once its own subtree failed."""

    span: Span | None = SPAN


@node
class Chooses(Node):
    """`chooses v`: the move is one of the options for `v`; a search tries first the moves of the value with the
    fewest legal moves (fail first)."""

    value: Expr
    span: Span | None = SPAN


@node
class Ranks(Node):
    """`ranks v`: the move's rank; a search tries the moves of lower rank first (after `chooses`)."""

    value: Expr
    span: Span | None = SPAN


@node
class Emit(Node):
    """`emit P(cell)` or `emit P(cell, dir)`: send particles of kind P flying (see ParticleDecl)."""

    particle: str
    args: tuple[Expr, ...]
    span: Span | None = SPAN


@node
class If(Node):
    branches: tuple[tuple[Expr, tuple["Stmt", ...]], ...]
    orelse: tuple["Stmt", ...]
    span: Span | None = SPAN


@node
class For(Node):
    var: str
    iter: Expr
    body: tuple["Stmt", ...]
    span: Span | None = SPAN


@node
class While(Node):
    cond: Expr
    body: tuple["Stmt", ...]
    span: Span | None = SPAN


Stmt = (Let | Assign | AugAssign | Require | Return | CallStmt | Pass | Safe | Redundant | Commutes | Persists | Chooses
        | Ranks | Emit | If | For | While)


# ---- declarations ------------------------------------------------------------------------------
@node
class Game(Node):
    name: str
    title: str | None
    span: Span | None = SPAN


@node
class Param(Node):
    name: str
    type: TypeExpr
    default: Expr
    span: Span | None = SPAN


@node
class EnumDecl(Node):
    name: str
    values: tuple[str, ...]
    span: Span | None = SPAN


@node
class LayerDecl(Node):
    name: str
    type: TypeExpr
    static: bool
    span: Span | None = SPAN


@node
class GlobalDecl(Node):
    name: str
    dims: tuple[Expr, ...]
    type: TypeExpr
    default: Expr | None
    static: bool
    span: Span | None = SPAN


@node
class Pose(Node):
    name: str
    cells: tuple[tuple[int, int], ...]  # offsets from the anchor
    span: Span | None = SPAN


@node
class Roll(Node):
    pose: str  # from
    dir: str  # L R U D
    to: str  # pose after the roll
    shift: tuple[int, int]  # anchor moves by this
    span: Span | None = SPAN


@node
class BodyDecl(Node):
    name: str
    poses: tuple[Pose, ...]
    rolls: tuple[Roll, ...]
    span: Span | None = SPAN


@node
class ParticleProp(Node):
    """One line of a particle declaration: `timing: half`, `stop: drop != 0`, `hit: splash`, `leave: lost`."""

    key: str
    value: Expr
    span: Span | None = SPAN


@node
class ParticleDecl(Node):
    name: str
    props: tuple[ParticleProp, ...]
    span: Span | None = SPAN


@node
class ParamDecl(Node):
    name: str
    type: TypeExpr
    span: Span | None = SPAN


@node
class DefDecl(Node):
    name: str
    params: tuple[ParamDecl, ...]
    body: tuple[Stmt, ...]
    span: Span | None = SPAN


@node
class ActionDecl(Node):
    name: str
    params: tuple[ParamDecl, ...]
    notation: str | None
    cost: Expr | None
    when: Expr | None
    body: tuple[Stmt, ...]
    span: Span | None = SPAN
    unordered: bool = False  # the parameters are a set: each combination is one move


@node
class InitDecl(Node):
    body: tuple[Stmt, ...]
    span: Span | None = SPAN


@node
class GoalDecl(Node):
    cond: Expr
    span: Span | None = SPAN


@node
class FailDecl(Node):
    cond: Expr
    span: Span | None = SPAN


@node
class DeadlockDecl(Node):
    cond: Expr
    span: Span | None = SPAN


@node
class LimitDecl(Node):
    cost: Expr
    when: Expr | None
    span: Span | None = SPAN


@node
class HeuristicDecl(Node):
    name: str
    admissible: bool
    body: tuple[Stmt, ...]  # an expression form becomes one Return
    span: Span | None = SPAN
    dominates: tuple[Name, ...] = ()  # heuristics this one is never below (the default max leaves them out)


@node
class ScoreDecl(Node):
    body: tuple[Stmt, ...]  # an expression form becomes one Return
    span: Span | None = SPAN


@node
class LegendEntry(Node):
    """Which level tokens an entry matches: one ('x'), a range ('a'..'z') or any ('*')."""

    kind: str  # "one" | "range" | "any"
    first: str | None
    last: str | None
    body: tuple[Stmt, ...]
    span: Span | None = SPAN


@node
class ShowDecl(Node):
    """`show LAYER: EXPR`: how a board is drawn, the layer's value as a player sees it, worked out per cell."""

    layer: str
    value: Expr
    span: Span | None = SPAN


@node
class LevelDecl(Node):
    format: str
    legend: tuple[LegendEntry, ...]
    span: Span | None = SPAN


Decl = (Game | Param | EnumDecl | LayerDecl | GlobalDecl | BodyDecl | ParticleDecl | DefDecl | ActionDecl | InitDecl
        | GoalDecl | FailDecl | DeadlockDecl | LimitDecl | HeuristicDecl | ScoreDecl | ShowDecl | LevelDecl)


@node
class RuleFile(Node):
    decls: tuple[Decl, ...]
    span: Span | None = SPAN
