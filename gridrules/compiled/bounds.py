"""What values an int expression may take on a level, as far as its parts tell: generated code computes in 64-bit
integers, and where an operation's result may pass them, codegen checks it (an error, not a wrapped value: numba's
adds and multiplies are `nsw` to LLVM, which may even drop a test of a wrapped result afterwards).

The bounds are sound for any level the generated module may run on: stored values lie in their domains (every
store is checked), parameters are written into the code, and what depends on the board size is bounded by the
largest level (levels.MAX_CELLS). What nothing bounds (a local, a def's value) may be any 64-bit integer.
"""
from __future__ import annotations

from .. import ir
from ..instance import Instance
from ..levels import MAX_CELLS

LEAST, MOST = -(1 << 63), (1 << 63) - 1
ANY = (LEAST, MOST)
_BOARD = (0, MAX_CELLS)  # a row, a column, a count of cells, a board's size


def fits(b: tuple[int, int]) -> bool:
    return LEAST <= b[0] and b[1] <= MOST


def clipped(b: tuple[int, int]) -> tuple[int, int]:
    """Bounds of a 64-bit value worked out as `b`: what passes 64 bits is an error before anything holds it."""
    return max(b[0], LEAST), min(b[1], MOST)


def int_bounds(e: ir.Expr, inst: Instance, local: dict | None = None, on_board=frozenset()) -> tuple[int, int]:
    """(lo, hi) such that e's value lies in lo..hi, exactly computed (Python ints): it may pass 64 bits, which
    is what an operation's check is for. An operand's bounds are clipped to 64 bits (a checked operation
    yields a 64-bit value or stops). `local`: the bounds of the procedure's int locals (locals_of; a slot not
    in it may hold anything); `on_board`: the cell locals that hold cells of the board."""
    if isinstance(e, ir.Local):
        return (local or {}).get(e.slot, ANY)
    if isinstance(e, ir.Const):
        return (e.value, e.value) if isinstance(e.value, int) and not isinstance(e.value, bool) else ANY
    if isinstance(e, ir.ParamRef):
        v = inst.params[e.name]
        return (v, v) if isinstance(v, int) and not isinstance(v, bool) else ANY
    if isinstance(e, ir.BoardSize):
        return _BOARD
    if isinstance(e, (ir.GlobalRef, ir.ArrayAt)):
        return _stored(inst, e.name)
    if isinstance(e, ir.LayerAt):
        return _stored(inst, e.layer)
    if isinstance(e, ir.FieldOf):
        board = _on_board(e.base) or isinstance(e.base, ir.Local) and e.base.slot in on_board
        return _BOARD if e.field in ("row", "col") and board else ANY
    if isinstance(e, ir.Builtin):
        if e.name in ("count", "distinct"):
            return _BOARD
        if e.name in ("abs", "min", "max"):
            parts = [_operand(a, inst, local, on_board) for a in e.args]
            if e.name == "min":
                return min(p[0] for p in parts), min(p[1] for p in parts)
            if e.name == "max":
                return max(p[0] for p in parts), max(p[1] for p in parts)
            (lo, hi), = parts
            return (0 if lo <= 0 <= hi else min(abs(lo), abs(hi)), max(abs(lo), abs(hi)))
        return ANY
    if isinstance(e, ir.Unary) and e.op != "not":
        lo, hi = _operand(e.operand, inst, local, on_board)
        return -hi, -lo
    if isinstance(e, ir.BinOp) and e.ty == ir.INT:
        return combine(e.op, _operand(e.left, inst, local, on_board), _operand(e.right, inst, local, on_board))
    return ANY


def combine(op: str, a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    """The bounds of `x op y` for x in a, y in b (op: + - * / %, with the language's floor division)."""
    if op == "+":
        return a[0] + b[0], a[1] + b[1]
    if op == "-":
        return a[0] - b[1], a[1] - b[0]
    if op == "*":
        ends = [x * y for x in a for y in b]
        return min(ends), max(ends)
    if op == "/":  # (the largest magnitude comes from the smallest divisor: divisors 1 and -1 bound it)
        m = max(abs(a[0]), abs(a[1]))
        return -m, m
    if op == "%":  # (the result takes the divisor's sign and stays below it in magnitude)
        m = max(abs(b[0]), abs(b[1]))
        return -m, m
    return ANY


def _operand(e: ir.Expr, inst: Instance, local, on_board) -> tuple[int, int]:
    return clipped(int_bounds(e, inst, local, on_board))


def _stored(inst: Instance, name: str) -> tuple[int, int]:
    dom = inst.doms.get(name)
    return (dom.lo, dom.hi) if dom is not None and dom.kind == "int" else ANY


def _on_board(e: ir.Expr) -> bool:
    """Whether a cell expression's value is a cell of the board (or `none`, whose fields are an error)."""
    if isinstance(e, ir.Here):
        return True
    if isinstance(e, (ir.GlobalRef, ir.ArrayAt, ir.LayerAt)):  # (a stored cell is on the board: stores check it)
        return True
    if isinstance(e, ir.Builtin) and e.name == "first":
        return True
    if isinstance(e, ir.Const):
        return e.value is None or all(0 <= v < MAX_CELLS for v in e.value)
    return False


def _unknown_yet(x, env: dict, given: list) -> bool:
    return isinstance(x, ir.Local) and x.slot not in env and any(slot == x.slot for slot, _ in given)


def locals_of(body: tuple, inst: Instance, fixed: dict[int, tuple[int, int]]) -> dict[int, tuple[int, int]]:
    """The bounds of a procedure's int locals over its whole body, whatever the order it runs in: each holds
    only values its `let`s and loops give it. `fixed`: what the parameters' slots hold on entry (their domains,
    or ANY; a parameter given a new value holds that too). Worked out to a fixed point; a local that a few
    rounds leave still growing (`moves += 1` in a loop) may hold anything."""
    given: list[tuple[int, object]] = []  # (slot, an int expression or a range's (lo, hi)) for each binding

    def note(x) -> bool:
        if isinstance(x, ir.SetLocal) and x.value.ty == ir.INT:
            given.append((x.slot, x.value))
        elif isinstance(x, ir.For) and isinstance(x.iter, ir.RangeOf):
            given.append((x.slot, (x.iter.lo, x.iter.hi)))
        elif isinstance(x, ir.For) and x.iter.ty == ir.RANGE:  # (a range held in a local: its ends unknown)
            given.append((x.slot, None))
        return False

    ir.contains(body, note)
    env = dict(fixed)
    for rounds in range(6):
        new = dict(env)
        for slot, value in given:
            if ir.contains(value, lambda x: _unknown_yet(x, env, given)):
                continue  # (a local none of whose values is known yet gives none yet)
            if value is None:
                b = ANY
            elif isinstance(value, tuple):
                b = (_operand(value[0], inst, env, ())[0], _operand(value[1], inst, env, ())[1])
            else:
                b = _operand(value, inst, env, ())
            old = new.get(slot)
            new[slot] = b if old is None else (min(old[0], b[0]), max(old[1], b[1]))
        if new == env:
            return env
        if rounds >= 3:  # (still growing: what grows may grow to anything)
            new = {slot: b if env.get(slot) == b else ANY for slot, b in new.items()}
        env = new
    return {}  # (not settled: any local may hold anything)
