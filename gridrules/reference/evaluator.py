"""The reference interpreter: IR -> Python closures. Written to be obviously correct, not fast.

Values at run time: int and bool as Python values; enum and dir values as their index; a cell as a (row, col)
tuple (it may lie off the board until it is stored) or None; a set of cells as an int bitmask over
row * cols + col; a body as (pose index, anchor cell); a range as (lo, hi). Layers are flat lists in row-major
order; arrays are flat lists.
"""
from __future__ import annotations

import dataclasses
import functools
from collections import deque
from itertools import compress
from typing import Callable

from .. import ir
from ..errors import RuleRuntimeError

MAX_LOOP = 1_000_000
MAX_FLIGHT = 1_000_000  # particle moves in one chain reaction
MAX_SETUP_ROUNDS = 10_000_000  # loop rounds of a level's set-up (legend, `init`) in all, or 16 a cell if more
SAFE = ("safe",)  # the key a `safe` statement sets in a move's values (no name of the rules is a tuple)
REDUNDANT = ("redundant",)  # the same for `redundant`
COMMUTES = ("commutes",)  # the same for `commutes`
PERSISTS = ("persists",)  # the same for `persists`
CHOOSES = ("chooses",)  # the value a `chooses` statement names
RANKS = ("ranks",)  # the rank a `ranks` statement gives
BANNED = ("banned",)  # while a deadlock condition is tested in a search that bans moves: {(action, arguments)}
CHAIN = ("chain",)  # while a chain reaction runs: the particles its handlers emit, to start at the next step


class Abort(Exception):
    """A `require` failed: the action does not apply (or the level is rejected, in init and legends)."""

    def __init__(self, message, span):
        super().__init__(message)
        self.message = message
        self.span = span


class _Return(Exception):
    def __init__(self, value):
        self.value = value


class Frame:
    __slots__ = ("v", "loc", "here", "value")

    def __init__(self, v: dict, nlocals: int, here=None, value=None):
        self.v = v
        self.loc = [None] * nlocals
        self.here = here
        self.value = value


def queue_room(cells: int) -> int:
    """How many particles one def may emit at once inside a chain reaction (the compiled backend keeps them in
    a fixed queue): four from every cell, and some."""
    return min(4 * cells + 60, 1 << 16)


def particle_gap(c: "Compiler", p: ir.ParticleInfo) -> int:
    """Steps between the cells a particle of this kind enters, in this instance: 2 under `half` timing (it
    crosses a cell's centre between two edges), 1 under `unit` (a parameter may choose the timing)."""
    timing = p.timing
    if not isinstance(timing, str):
        timing = c.game.enum_values(timing.ty.name)[c.expr(timing)(Frame({}, 0))]
    return 2 if timing == "half" else 1


_PLAIN_READS = (ir.Const, ir.ParamRef, ir.BoardSize, ir.Local, ir.TokenValue, ir.GlobalRef)
_PLAIN_OPERATIONS = (ir.ArrayAt, ir.LayerAt, ir.Unary, ir.BinOp, ir.MakeCell, ir.FieldOf)


def here_free(e: ir.Expr) -> bool:
    """Whether an expression certainly cannot read `here`: plain reads, and operations on them (anything else,
    a call say, is taken to read it)."""
    if isinstance(e, _PLAIN_READS):
        return True
    if not isinstance(e, _PLAIN_OPERATIONS):
        return False
    for field in dataclasses.fields(e):
        x = getattr(e, field.name)
        if any(isinstance(y, ir.Expr) and not here_free(y) for y in (x if isinstance(x, tuple) else (x,))):
            return False
    return True


def iter_bits(mask: int):
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


STEPS = ((0, -1), (0, 1), (-1, 0), (1, 0))  # L R U D


def find_path(a, b, free: Callable, turns: int, rows: int, cols: int, outside: bool):
    """The corners of a path from cell a to cell b (both on the board) with at most `turns` turns whose inner
    cells are free (free(cell) on the board; with `outside`, the one-cell ring around the board is free too):
    [a, corner, ..., b] with the fewest turns, or None. A breadth-first search over (cell, heading) where going
    straight costs nothing and turning costs one (0-1 BFS)."""
    if turns < 0:
        return None
    if a == b:
        return [a]

    def passable(r, c):
        if 0 <= r < rows and 0 <= c < cols:
            return free((r, c))
        return outside and -1 <= r <= rows and -1 <= c <= cols

    # a state is (cell, heading: the direction of the step that entered it; None at a)
    start = (a, None)
    best = {start: 0}  # state -> fewest turns
    parent = {start: None}
    todo = deque([(0, start)])
    while todo:
        t, state = todo.popleft()
        if t > best[state]:
            continue
        cell, d = state
        if cell == b:  # popped, so reached with the fewest turns (reaching it when generated might not be)
            cells = []
            while state is not None:
                cells.append(state[0])
                state = parent[state]
            return _corners(cells[::-1])
        for d2, (dr, dc) in enumerate(STEPS):
            if d is not None and d2 == d ^ 1:  # never straight back
                continue
            t2 = t + (d is not None and d2 != d)
            nxt = (cell[0] + dr, cell[1] + dc)
            if t2 > turns or not (nxt == b or passable(*nxt)) or best.get((nxt, d2), turns + 1) <= t2:
                continue
            best[(nxt, d2)] = t2
            parent[(nxt, d2)] = state
            if t2 == t:
                todo.appendleft((t2, (nxt, d2)))
            else:
                todo.append((t2, (nxt, d2)))
    return None


def _corners(cells):
    """The cells of a path where it turns, with its two ends."""
    out = [cells[0]]
    for p, q, r in zip(cells, cells[1:], cells[2:]):
        if (q[0] - p[0], q[1] - p[1]) != (r[0] - q[0], r[1] - q[1]):
            out.append(q)
    return out + [cells[-1]]


_LISTED_BITS = 4096  # boards up to this many cells keep every cell's bit in a list (Compiler._bits)


def mask_of(flags) -> int:
    """The set (bitmask) of the indices i where flags[i] is true, in O(len(flags)) for any length."""
    return int("".join(["1" if x else "0" for x in reversed(flags)]) or "0", 2)


class Board:
    """Geometry of one level: cell indices, bitmask neighbourhoods."""

    def __init__(self, rows: int, cols: int):
        self.rows, self.cols = rows, cols
        self.n = rows * cols
        self.full = (1 << self.n) - 1
        left_col = int(("0" * (cols - 1) + "1") * rows, 2)  # (bit r * cols of every row r; in O(cells))
        self.not_left = self.full & ~left_col
        self.not_right = self.full & ~(left_col << (cols - 1))

    def on(self, cell) -> bool:
        return cell is not None and 0 <= cell[0] < self.rows and 0 <= cell[1] < self.cols

    def index(self, cell) -> int:
        return cell[0] * self.cols + cell[1]

    def cell(self, i: int):
        return divmod(i, self.cols)

    def bit(self, cell) -> int:
        return 1 << (cell[0] * self.cols + cell[1]) if self.on(cell) else 0

    def grow(self, s: int) -> int:
        """The set plus its 4-neighbours."""
        c = self.cols
        return (s | ((s << 1) & self.not_left) | ((s >> 1) & self.not_right) | (s << c) | (s >> c)) & self.full

    def neighbours(self, s: int) -> int:
        return self.grow(s) & ~s

    @property
    def adjacent(self) -> tuple[tuple[int, ...], ...]:
        """Per cell, the indices of its 4-neighbours on the board (worked out once per board size)."""
        return _adjacent(self.rows, self.cols)


@functools.cache
def _adjacent(rows: int, cols: int) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(r2 * cols + c2 for r2, c2 in ((r, c - 1), (r, c + 1), (r - 1, c), (r + 1, c))
                       if 0 <= r2 < rows and 0 <= c2 < cols) for r in range(rows) for c in range(cols))


class Compiler:
    """Compiles IR procedures and expressions of one game instance (board size and parameters known)."""

    def __init__(self, game: ir.Game, board: Board, params: dict, domains: dict):
        self.game = game
        self.board = board
        # cell i's bit, for _layer_mask and group; not for large boards, where the list alone would hold
        # cells^2 / 16 bytes (300x300: half a gigabyte)
        self._bits = [1 << i for i in range(board.n)] if board.n <= _LISTED_BITS else None
        self.params = params
        self.domains = domains  # name -> resolved Dom (see instance.py)
        self.defs: dict[str, Callable] = {}
        self.strides = {}
        self.bodies = {b.name: b for b in game.bodies}
        self.paths: list | None = None  # when a list, every path `path(...)` finds is appended (for showing moves)
        self.trace: list | None = None  # when a list, every step of every chain reaction is appended (`show --trace`)
        self._kinds = None  # particle kinds, compiled on first use (their timing may read parameters)
        # when a list [left, limit]: the loop rounds left to the code compiled from now on (a level's set-up,
        # which no --time-limit bounds), counted down by every round of every loop
        self.rounds: list[int] | None = None

    def set_strides(self, name: str, dims: tuple[int, ...]):
        strides = []
        acc = 1
        for d in reversed(dims):
            strides.append(acc)
            acc *= d
        self.strides[name] = (tuple(dims), tuple(reversed(strides)))

    # ---- expressions
    def expr(self, e: ir.Expr) -> Callable:
        return getattr(self, "x_" + type(e).__name__)(e)

    def x_Const(self, e):
        v = e.value
        return lambda f: v

    def x_ParamRef(self, e):
        v = self.params[e.name]
        return lambda f: v

    def x_BoardSize(self, e):
        v = self.board.rows if e.which == "rows" else self.board.cols
        return lambda f: v

    def x_AllCells(self, e):
        v = self.board.full
        return lambda f: v

    def x_Local(self, e):
        slot = e.slot
        return lambda f: f.loc[slot]

    def x_Here(self, e):
        return lambda f: f.here

    def x_TokenValue(self, e):
        return lambda f: f.value

    def x_GlobalRef(self, e):
        name = e.name
        return lambda f: f.v[name]

    def _flat(self, name, index, span):
        dims, strides = self.strides[name]
        idx = [self.expr(i) for i in index]

        def flat(f):
            k = 0
            for fn, d, s in zip(idx, dims, strides):
                i = fn(f)
                if not 0 <= i < d:
                    raise RuleRuntimeError(f"index {i} is outside `{name}` (size {d})", span)
                k += i * s
            return k

        return flat

    def x_ArrayAt(self, e):
        name, flat = e.name, self._flat(e.name, e.index, e.span)
        return lambda f: f.v[name][flat(f)]

    def _cell_index(self, cell_fn, what, span):
        board = self.board

        def index(f):
            c = cell_fn(f)
            if not board.on(c):
                where = "none" if c is None else f"({c[0]}, {c[1]})"
                raise RuleRuntimeError(f"{what} at {where}, which is outside the {board.rows}x{board.cols} board",
                                       span, "guard it with `on_board(...)`")
            return c[0] * board.cols + c[1]

        return index

    def x_LayerAt(self, e):
        name = e.layer
        if isinstance(e.cell, ir.Here):
            cols = self.board.cols
            return lambda f: f.v[name][f.here[0] * cols + f.here[1]]
        index = self._cell_index(self.expr(e.cell), f"reading layer `{name}`", e.span)
        return lambda f: f.v[name][index(f)]

    def x_Unary(self, e):
        x = self.expr(e.operand)
        if e.op == "not":
            return lambda f: not x(f)
        return lambda f: -x(f)

    def x_BinOp(self, e):
        op, a, b = e.op, self.expr(e.left), self.expr(e.right)
        lt, rt = e.left.ty, e.right.ty
        board = self.board
        if op == "and":
            return lambda f: a(f) and b(f)
        if op == "or":
            return lambda f: a(f) or b(f)
        if op == "==":
            return lambda f: a(f) == b(f)
        if op == "!=":
            return lambda f: a(f) != b(f)
        if op == "<":
            return lambda f: a(f) < b(f)
        if op == "<=":
            return lambda f: a(f) <= b(f)
        if op == ">":
            return lambda f: a(f) > b(f)
        if op == ">=":
            return lambda f: a(f) >= b(f)
        if op == "in":
            if rt == ir.SET:
                return lambda f: bool(b(f) & board.bit(a(f)))
            return lambda f: (lambda v, r: r[0] <= v <= r[1])(a(f), b(f))
        if op in ("/", "%"):
            span = e.span

            def div(f, floor=(op == "/")):
                x, y = a(f), b(f)
                if y == 0:
                    raise RuleRuntimeError("division by zero", span)
                return x // y if floor else x % y

            return div
        if op == "*":
            return lambda f: a(f) * b(f)
        if lt == ir.INT:
            return (lambda f: a(f) + b(f)) if op == "+" else (lambda f: a(f) - b(f))
        if lt == ir.CELL and rt == ir.DIR:
            offs = ir.DIR_OFFSETS

            def step(f):
                c, d = a(f), offs[b(f)]
                return None if c is None else (c[0] + d[0], c[1] + d[1])

            return step
        if lt == ir.CELL and rt == ir.CELL and op in ("+", "-"):
            sign = 1 if op == "+" else -1

            def shift(f):
                c, d = a(f), b(f)
                return None if c is None or d is None else (c[0] + sign * d[0], c[1] + sign * d[1])

            return shift
        # set operators; a cell operand is the set of that one cell (empty when off the board)
        sa = (lambda f: board.bit(a(f))) if lt == ir.CELL else a
        sb = (lambda f: board.bit(b(f))) if rt == ir.CELL else b
        if op == "|":
            return lambda f: sa(f) | sb(f)
        if op == "&":
            return lambda f: sa(f) & sb(f)
        return lambda f: sa(f) & ~sb(f)

    def _at_each(self, pred):
        """Evaluate `pred` with `here` bound to one cell index, restoring the outer `here`."""
        cell = self.board.cell

        def at(f, i):
            outer = f.here
            f.here = cell(i)
            try:
                return pred(f)
            finally:
                f.here = outer

        return at

    def _cell_test(self, pred: ir.Expr):
        """bind(f): the test `pred` at cell i, as _at_each evaluates it, for one evaluation of a set expression.
        `layer == x` (or `!=`) with an x that cannot read `here` compares the layer's cells with x read once, when
        the first cell is tested (so that x fails, if it fails, exactly when it would: region's and where's
        common tests, 5-10x quicker); a bool layer alone, `lit` or `not lit`, reads its cells."""
        if (isinstance(pred, ir.BinOp) and pred.op in ("==", "!=") and isinstance(pred.left, ir.LayerAt)
                and isinstance(pred.left.cell, ir.Here) and here_free(pred.right)):
            name, x, equal = pred.left.layer, self.expr(pred.right), pred.op == "=="

            def bind_layer(f):
                cells, read = f.v[name], []

                def test(i):
                    if not read:
                        read.append(x(f))
                    return (cells[i] == read[0]) == equal

                return test

            return bind_layer
        negated = isinstance(pred, ir.Unary) and pred.op == "not"
        layer = pred.operand if negated else pred
        if isinstance(layer, ir.LayerAt) and isinstance(layer.cell, ir.Here) and layer.ty == ir.BOOL:  # lit, not lit
            name = layer.layer

            def bind_bool(f):
                cells = f.v[name]
                return (lambda i: not cells[i]) if negated else (lambda i: bool(cells[i]))

            return bind_bool
        at = self._at_each(self.expr(pred))
        return lambda f: lambda i: at(f, i)

    def _layer_mask(self, pred: ir.Expr):
        """mask(f): as a set, the cells where a test of one layer holds (`lit`, `not lit`, `layer == x`, `layer !=
        x` with an x that cannot read `here`), from the layer's row in one pass, reading x when called; None for
        other conditions. `where` calls it only for a set of many cells, where _cell_test would read x too."""
        negated = isinstance(pred, ir.Unary) and pred.op == "not"
        test = pred.operand if negated else pred
        bits, full = self._bits, self.board.full
        as_mask = (lambda flags: sum(compress(bits, flags))) if bits is not None else mask_of
        if isinstance(test, ir.LayerAt) and isinstance(test.cell, ir.Here) and test.ty == ir.BOOL:
            name = test.layer
            return lambda f: (full & ~as_mask(f.v[name])) if negated else as_mask(f.v[name])
        if (not negated and isinstance(pred, ir.BinOp) and pred.op in ("==", "!=") and isinstance(pred.left, ir.LayerAt)
                and isinstance(pred.left.cell, ir.Here) and here_free(pred.right)):
            name, x, equal = pred.left.layer, self.expr(pred.right), pred.op == "=="

            def mask(f):
                v = x(f)
                m = as_mask([c == v for c in f.v[name]])
                return m if equal else full & ~m

            return mask
        return None

    def x_Where(self, e):
        s, mask, bind = self.expr(e.cells), self._layer_mask(e.pred), self._cell_test(e.pred)
        few = self.board.n // 8  # (up to this many cells, testing each is quicker than a pass over the layer)

        def where(f):
            cells = s(f)
            if mask is not None and cells.bit_count() > few:
                return cells & mask(f)
            out, test = 0, bind(f)
            for i in iter_bits(cells):
                if test(i):
                    out |= 1 << i
            return out

        return where

    def x_MakeCell(self, e):
        r, c = self.expr(e.row), self.expr(e.col)
        return lambda f: (r(f), c(f))

    def x_MakeBody(self, e):
        pose, c = e.pose, self.expr(e.anchor)
        return lambda f: (pose, c(f))

    def x_FieldOf(self, e):
        b = self.expr(e.base)
        k = {"row": 0, "col": 1, "pose": 0, "at": 1}[e.field]
        span, name = e.span, e.field

        def get(f):
            v = b(f)
            if v is None:
                raise RuleRuntimeError(f"`none` has no {name}", span)
            return v[k]

        return get

    def x_RangeOf(self, e):
        lo, hi = self.expr(e.lo), self.expr(e.hi)
        return lambda f: (lo(f), hi(f))

    def x_CallDef(self, e):
        args = [self.expr(a) for a in e.args]
        name = e.name
        defs = self.defs

        def call(f):
            return defs[name](f, [a(f) for a in args])

        return call

    def x_Builtin(self, e):
        return getattr(self, "b_" + e.name)(e, *e.args)

    def _as_set(self, x: ir.Expr):
        fn = self.expr(x)
        if x.ty == ir.CELL:
            bit = self.board.bit
            return lambda f: bit(fn(f))
        return fn

    def b_region(self, e, seeds, pred):
        s, bind = self._as_set(seeds), self._cell_test(pred)
        board = self.board

        def region(f):
            inside = frontier = s(f)
            rejected = 0
            test = bind(f)
            while frontier:
                grown = 0
                for i in iter_bits(board.neighbours(frontier) & ~inside & ~rejected):
                    if test(i):
                        grown |= 1 << i
                    else:
                        rejected |= 1 << i
                inside |= grown
                frontier = grown
            return inside

        return region

    def b_group(self, e, seeds, value):
        s, at, board = self._as_set(seeds), self._at_each(self.expr(value)), self.board
        layer = value.layer if isinstance(value, ir.LayerAt) and isinstance(value.cell, ir.Here) else None

        adjacent, bits = board.adjacent, self._bits

        def group(f):
            # a layer's cells as they are; any other value read at every cell, as the compiled backend does
            values = f.v[layer] if layer is not None else [at(f, i) for i in range(board.n)]
            inside = s(f)
            todo = list(iter_bits(inside))
            seen = bytearray(board.n)
            for i in todo:
                seen[i] = 1
            while todo:
                i = todo.pop()
                v = values[i]
                for j in adjacent[i]:
                    if not seen[j] and values[j] == v:
                        seen[j] = 1
                        inside |= bits[j] if bits is not None else 1 << j
                        todo.append(j)
            return inside

        return group

    def b_neighbours(self, e, x):
        s, board = self._as_set(x), self.board
        return lambda f: board.neighbours(s(f))

    def b_count(self, e, x):
        s = self.expr(x)
        return lambda f: s(f).bit_count()

    def b_any(self, e, x):
        s = self.expr(x)
        return lambda f: s(f) != 0

    def b_empty(self, e, x):
        s = self.expr(x)
        return lambda f: s(f) == 0

    def b_distinct(self, e, cells, value):
        s, at = self.expr(cells), self._at_each(self.expr(value))
        return lambda f: len({at(f, i) for i in iter_bits(s(f))})

    def _covered(self, body_value, body: ir.BodyInfo):
        pose, at = body_value
        if at is None:  # (a body at none covers nothing)
            return []
        r, c = at
        return [(r + dr, c + dc) for dr, dc in body.cells[pose]]

    def b_on_board(self, e, x):
        v, board = self.expr(x), self.board
        if x.ty == ir.CELL:
            return lambda f: board.on(v(f))
        body = self.bodies[x.ty.name]

        def on(f):
            value = v(f)
            return value[1] is not None and all(board.on(c) for c in self._covered(value, body))

        return on

    def b_cells(self, e, x):
        v, board, body = self.expr(x), self.board, self.bodies[x.ty.name]

        def covered(f):
            out = 0
            for c in self._covered(v(f), body):
                out |= board.bit(c)
            return out

        return covered

    def b_adjacent(self, e, a, b):
        x, y = self.expr(a), self.expr(b)

        def adjacent(f):
            p, q = x(f), y(f)
            return p is not None and q is not None and abs(p[0] - q[0]) + abs(p[1] - q[1]) == 1

        return adjacent

    def b_abs(self, e, x):
        v = self.expr(x)
        return lambda f: abs(v(f))

    def b_min(self, e, *xs):
        vs = [self.expr(x) for x in xs]
        return lambda f: min(v(f) for v in vs)

    def b_max(self, e, *xs):
        vs = [self.expr(x) for x in xs]
        return lambda f: max(v(f) for v in vs)

    def b_first(self, e, x):
        s, board = self.expr(x), self.board

        def first(f):
            m = s(f)
            return board.cell((m & -m).bit_length() - 1) if m else None

        return first

    def b_path(self, e, a, b, pred, turns, outside=None):
        pa, pb, at, k = self.expr(a), self.expr(b), self._at_each(self.expr(pred)), self.expr(turns)
        ring = self.expr(outside) if outside is not None else (lambda f: False)
        board = self.board

        def path(f):
            p, q = pa(f), pb(f)
            if not (board.on(p) and board.on(q)):
                return False
            free = {i for i in range(board.n) if at(f, i)}  # the condition, read at every cell
            corners = find_path(p, q, lambda c: board.index(c) in free, k(f), board.rows, board.cols, ring(f))
            if corners is not None and self.paths is not None:
                self.paths.append(corners)
            return corners is not None

        return path

    def b_banned(self, e, action, *args):
        ai = action.value
        fns = [self.expr(a) for a in args]
        unordered = self.game.actions[ai].unordered

        def banned(f):
            bans = f.v.get(BANNED)
            if not bans:
                return False
            values = tuple(fn(f) for fn in fns)
            if unordered:  # (instances list an unordered action's values in their natural order)
                if None in values:
                    return False
                values = tuple(sorted(values))
            return (ai, values) in bans

        return banned

    def b_roll(self, e, x, d):
        v, dv, body = self.expr(x), self.expr(d), self.bodies[x.ty.name]

        def roll(f):
            pose, at = v(f)
            to, (dr, dc) = body.rolls[pose][dv(f)]
            return (to, None if at is None else (at[0] + dr, at[1] + dc))  # (as `none + d` is none)

        return roll

    # ---- statements
    def block(self, stmts) -> Callable:
        fns = [self.stmt(s) for s in stmts]
        if len(fns) == 1:
            return fns[0]

        def run(f):
            for fn in fns:
                fn(f)

        return run

    def stmt(self, s: ir.Stmt) -> Callable:
        return getattr(self, "s_" + type(s).__name__)(s)

    def _check(self, name, span):
        """A function that rejects a value outside the stored thing's domain (ints only; cells at packing)."""
        dom = self.domains[name]
        if dom.kind != "int":
            return None
        lo, hi = dom.lo, dom.hi

        def check(v):
            if not lo <= v <= hi:
                raise RuleRuntimeError(f"value {v} is outside `{name}`'s domain {lo}..{hi}", span)

        return check

    def s_SetLocal(self, s):
        slot, v = s.slot, self.expr(s.value)

        def set_local(f):
            f.loc[slot] = v(f)

        return set_local

    def s_SetGlobal(self, s):
        name, v, check = s.name, self.expr(s.value), self._check(s.name, s.span)

        def set_global(f):
            x = v(f)
            if check:
                check(x)
            f.v[name] = x

        return set_global

    def s_SetArray(self, s):
        name, v, flat, check = s.name, self.expr(s.value), self._flat(s.name, s.index, s.span), self._check(s.name, s.span)

        def set_element(f):
            x = v(f)
            if check:
                check(x)
            f.v[name][flat(f)] = x

        return set_element

    def s_SetLayer(self, s):
        name, v, check = s.layer, self.expr(s.value), self._check(s.layer, s.span)
        if s.where.ty == ir.SET:
            cells = self.expr(s.where)

            def fill(f):
                x = v(f)
                if check:
                    check(x)
                layer = f.v[name]
                for i in iter_bits(cells(f)):
                    layer[i] = x

            return fill
        index = self._cell_index(self.expr(s.where), f"writing layer `{name}`", s.span)

        def set_cell(f):
            x = v(f)
            if check:
                check(x)
            f.v[name][index(f)] = x

        return set_cell

    def s_Require(self, s):
        c, msg, span = self.expr(s.cond), s.message, s.span

        def require(f):
            if not c(f):
                raise Abort(msg, span)

        return require

    def s_Return(self, s):
        v = self.expr(s.value)

        def ret(f):
            raise _Return(v(f))

        return ret

    def s_Eval(self, s):
        return self.expr(s.call)

    def s_Emit(self, s):
        cell, d, kind, span = self.expr(s.cell), s.dir and self.expr(s.dir), s.particle, s.span
        index, at, room = self._cell_index(cell, "emitting particles", span), self.board.cell, queue_room(self.board.n)

        def emit(f):
            c = at(index(f))
            new = [(kind, c, x) for x in ((d(f),) if d else range(4))]
            pending = f.v.get(CHAIN)
            if pending is None:
                self.chain(f, new, span)
            elif len(pending) + len(new) > room:  # (the compiled backend's queue holds this many)
                raise RuleRuntimeError(f"a def emitted more than {room:,} particles at once", span)
            else:  # inside a chain reaction: join it
                pending.extend(new)

        return emit

    def kinds(self):
        """Per particle kind: (steps between the cells it enters, its stop condition at a cell, hit, leave)."""
        if self._kinds is None:
            self._kinds = [(particle_gap(self, p), self._at_each(self.expr(p.stop)), p.hit, p.leave)
                           for p in self.game.particles]
        return self._kinds

    def chain(self, f, new, span):
        """Run a chain reaction to its end. Each step, every particle due to move enters its next cell: off the
        board it is gone; where its kind's `stop` holds, read on the state as it was when the step began, it
        stops; else it flies on. Then `leave(last cell, dir)` runs for each particle gone, in the order they were
        emitted, and `hit(cell, count)` once per cell and kind where some stopped, cells in reading order and
        kinds in declaration order. Particles emitted during step t start at step t + 1: under `half` timing a
        particle enters its next cell every second step (the first at once), under `unit` every step."""
        kinds, board, cols, v = self.kinds(), self.board, self.board.cols, f.v
        flying: list[list] = []  # [kind, cell, dir, step it next enters a cell], in the order emitted
        step = moves = 0

        def take():  # what the statement or def just run emitted
            flying.extend([k, c, d, step + 1] for k, c, d in v[CHAIN])
            v[CHAIN] = []

        v[CHAIN] = new
        try:
            take()
            while flying:
                step = min(p[3] for p in flying)
                gone, stops, still = [], {}, []
                for p in flying:
                    if p[3] != step:
                        still.append(p)
                        continue
                    moves += 1
                    if moves > MAX_FLIGHT:
                        raise RuleRuntimeError(f"this chain reaction moved particles {MAX_FLIGHT:,} times; does it "
                                               "ever end?", span)
                    k, (r, c), d = p[0], p[1], p[2]
                    dr, dc = STEPS[d]
                    to = (r + dr, c + dc)
                    if not board.on(to):
                        gone.append(p)
                    elif kinds[k][1](f, to[0] * cols + to[1]):
                        key = (to[0] * cols + to[1], k)
                        stops[key] = stops.get(key, 0) + 1
                    else:
                        p[1], p[3] = to, step + kinds[k][0]
                        still.append(p)
                flying[:] = still
                for k, c, d, _ in gone:
                    if kinds[k][3]:
                        self.defs[kinds[k][3]](f, [c, d])
                        take()
                for i, k in sorted(stops):
                    self.defs[kinds[k][2]](f, [board.cell(i), stops[i, k]])
                    take()
                if self.trace is not None:  # the step done: where particles fly, and the state
                    self.trace.append((step, [(p[1], p[2]) for p in flying],
                                       {n: list(x) if isinstance(x, list) else x for n, x in v.items()
                                        if isinstance(n, str)}))
        finally:
            del v[CHAIN]

    def s_Safe(self, s):
        def safe(f):
            f.v[SAFE] = True

        return safe

    def s_Redundant(self, s):
        def redundant(f):
            f.v[REDUNDANT] = True

        return redundant

    def s_Commutes(self, s):
        def commutes(f):
            f.v[COMMUTES] = True

        return commutes

    def s_Chooses(self, s):
        value = self.expr(s.value)

        def chooses(f):
            f.v[CHOOSES] = value(f)

        return chooses

    def s_Ranks(self, s):
        value = self.expr(s.value)

        def ranks(f):
            f.v[RANKS] = value(f)

        return ranks

    def s_Persists(self, s):
        def persists(f):
            f.v[PERSISTS] = True

        return persists

    def s_If(self, s):
        branches = [(self.expr(c), self.block(b)) for c, b in s.branches]
        orelse = self.block(s.orelse) if s.orelse else None

        def if_(f):
            for c, b in branches:
                if c(f):
                    b(f)
                    return
            if orelse:
                orelse(f)

        return if_

    def _counted(self, body, span):
        """body, counting the loop rounds of a level's set-up (self.rounds) when they are counted."""
        rounds = self.rounds
        if rounds is None:
            return body

        def counted(f):
            rounds[0] -= 1
            if rounds[0] < 0:
                raise RuleRuntimeError(f"loops have run {rounds[1]:,} times in all, the most a level's set-up may; "
                                       "does this one ever end?", span)
            body(f)

        return counted

    def s_For(self, s):
        slot, body = s.slot, self._counted(self.block(s.body), s.span)
        it = s.iter
        if isinstance(it, ir.Const) and it.value is None:  # every value of an enum (or dir)
            values = range(4) if it.ty == ir.DIR else range(len(self.game.enum_values(it.ty.name)))

            def for_enum(f):
                for v in values:
                    f.loc[slot] = v
                    body(f)

            return for_enum
        seq = self.expr(it)
        if it.ty == ir.RANGE:
            span = s.span

            def for_range(f):
                lo, hi = seq(f)
                if hi - lo >= MAX_LOOP:
                    raise RuleRuntimeError(f"this loop would run {hi - lo + 1:,} times (the limit is {MAX_LOOP:,})",
                                           span)
                for v in range(lo, hi + 1):
                    f.loc[slot] = v
                    body(f)

            return for_range
        cell = self.board.cell

        def for_cells(f):
            for i in iter_bits(seq(f)):
                f.loc[slot] = cell(i)
                body(f)

        return for_cells

    def s_While(self, s):
        c, body, span = self.expr(s.cond), self._counted(self.block(s.body), s.span), s.span

        def while_(f):
            n = 0
            while c(f):
                n += 1
                if n > MAX_LOOP:
                    raise RuleRuntimeError(f"this loop ran {MAX_LOOP:,} times; does it ever end?", span)
                body(f)

        return while_

    # ---- procedures
    def procedure(self, p: ir.Procedure) -> Callable:
        """f(frame_values, args, here=None, value=None) -> return value (None for no value)."""
        body = self.block(p.body) if p.body else (lambda f: None)
        n = p.nlocals

        def call(v, args=(), here=None, value=None):
            f = Frame(v, n, here, value)
            f.loc[: len(args)] = args
            try:
                body(f)
            except _Return as r:
                return r.value
            return None

        return call

    def compile_defs(self):
        for d in self.game.defs:
            proc = self.procedure(d)
            self.defs[d.name] = lambda f, args, proc=proc: proc(f.v, args, f.here, f.value)
