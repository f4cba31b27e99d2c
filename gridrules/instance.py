"""A game instance: one checked game, its parameter values and one level. Immutable once built.

`instantiate` resolves domains for the level's board size, applies the rule file's legend to the level's
tokens, assigns the reader's named values, runs `init`, and packs the initial state (layout.py).
"""
from __future__ import annotations

import functools
import math
import struct
from dataclasses import dataclass, field
from types import MappingProxyType

from . import ir
from .errors import GridrulesError, LevelError, RuleError, RuleRuntimeError, Span, UsageError, shown_char
from .layout import Layout
from .levels import INTEGER, MAX_ELEMENTS, RawLevel, check_size


@dataclass(frozen=True)
class Dom:
    """A resolved domain: what one stored value may be, and how it is coded into bits."""

    kind: str  # bool | int | enum | dir | cell | body
    lo: int = 0
    hi: int = 0
    names: tuple[str, ...] = ()  # enum values, dir names, body poses
    cells: int = 0  # board cells (for cell and body codes)

    @property
    def count(self) -> int:
        return {"bool": 2, "int": self.hi - self.lo + 1, "enum": len(self.names), "dir": 4,
                "cell": self.cells + 1, "body": len(self.names) * (self.cells + 1)}[self.kind]

    def default(self):
        """What an unset value holds: 0 (or the lowest value when 0 is outside the range), false, the first
        enum value, `none`."""
        low = 0 if self.lo <= 0 <= self.hi else self.lo
        return {"bool": False, "int": low, "enum": 0, "dir": 0, "cell": None, "body": (0, None)}[self.kind]

    def describe(self) -> str:
        return f"{self.lo}..{self.hi}" if self.kind == "int" else self.kind


def _cell_code(c, rows, cols):
    if c is None:
        return rows * cols
    r, k = c
    if not (0 <= r < rows and 0 <= k < cols):
        raise ValueError(c)
    return r * cols + k


@functools.cache
def _code_of_digits(planes: int) -> dict[tuple[str, ...], int]:
    """A cell's code from its digits read across `planes` planes, highest bit first: ("1", "0", "1") -> 5."""
    return {tuple(format(c, f"0{planes}b")): c for c in range(1 << planes)}


_TRUTH = {"0": False, "1": True}


@functools.cache
def _plane_digits(count: int, bit: int) -> bytes:
    """For codes 0..count-1 (count <= 256), the ASCII digit of their bit `bit`, as a table for bytes.translate
    (codes from count on get `x`, which int() refuses)."""
    return bytes(b"x"[0] if c >= count else b"1"[0] if c >> bit & 1 else b"0"[0] for c in range(256))


class PerRules:
    """What is worked out once for a game's rules on a board size (with its parameters, domains, arrays and
    `extra`), not once per level: the levels that differ only in what their cells and state hold share it. Games
    are found by identity first, as one file's levels share theirs (hashing a game by value costs ~60 us a
    level), then by value (the same rules loaded again)."""

    def __init__(self, size: int = 16):
        self.entries: dict = {}  # key -> [(games equal by value, the value worked out for them), ...]
        self.size = size

    def get(self, inst: "Instance", extra, make):
        """make()'s value, worked out once per such rules (`extra`: whatever else it depends on)."""
        game = inst.game
        try:
            key = (inst.rows, inst.cols, tuple(sorted(inst.params.items())), tuple(sorted(inst.doms.items())),
                   tuple(sorted(inst.dims.items())), extra)
            kept = self.entries.get(key, ())
        except TypeError:  # (something unhashable: work it out anew)
            return make()
        for games, value in kept:
            if any(g is game for g in games):
                return value
        for games, value in kept:
            if game in games:  # (by value; kept for its identity next time, with a few others)
                games.append(game)
                del games[:-4]
                return value
        value = make()
        if sum(len(v) for v in self.entries.values()) >= self.size:
            self.entries.pop(next(iter(self.entries)))
        self.entries.setdefault(key, []).append(([game], value))
        return value


@dataclass(frozen=True, eq=False)
class Instance:
    game: ir.Game
    level: str  # the level's name (file, or case N)
    rows: int
    cols: int
    params: MappingProxyType
    doms: MappingProxyType  # name -> Dom for params, layers and globals
    dims: MappingProxyType  # array name -> dims
    statics: MappingProxyType  # name -> value (layers and arrays as tuples)
    dynamic: tuple[str, ...]  # names stored in the state, in layout order
    layout: Layout
    initial: tuple[int, ...]
    limit: int | None
    raw: RawLevel = field(repr=False, default=None)

    # ---- codes
    def code(self, name: str, value) -> int:
        d = self.doms[name]
        k = d.kind
        if k == "bool":
            return 1 if value else 0
        if k == "int":
            return value - d.lo
        if k in ("enum", "dir"):
            return value
        if k == "cell":
            return _cell_code(value, self.rows, self.cols)
        pose, anchor = value
        return pose * (d.cells + 1) + _cell_code(anchor, self.rows, self.cols)

    def decode(self, name: str, code: int):
        d = self.doms[name]
        k = d.kind
        if k == "bool":
            return bool(code)
        if k == "int":
            return code + d.lo
        if k in ("enum", "dir"):
            return code
        n = d.cells
        if k == "cell":
            return None if code == n else divmod(code, self.cols)
        pose, c = divmod(code, n + 1)
        return (pose, None if c == n else divmod(c, self.cols))

    def _codes(self, name: str, values: list) -> list[int]:
        """code() of every value of a layer (ValueError for a cell off the board)."""
        d = self.doms[name]
        if d.kind in ("enum", "dir") or d.kind == "int" and d.lo == 0:
            return values
        if d.kind == "int":
            return [x - d.lo for x in values]
        if d.kind == "bool":  # (True and False as bytes 1 and 0: the interpreter stores only bools in them)
            return bytes(values)
        return [self.code(name, x) for x in values]

    def _decoded(self, name: str, codes: list[int]) -> list:
        """decode() of every code of a layer."""
        d = self.doms[name]
        if d.kind in ("enum", "dir") or d.kind == "int" and d.lo == 0:
            return codes
        if d.kind == "int":
            return [c + d.lo for c in codes]
        if d.kind == "bool":
            return [c == 1 for c in codes]
        return [self.decode(name, c) for c in codes]

    def pack(self, v: dict, span=None) -> tuple[int, ...]:
        """Dynamic values -> state words. A cell off the board cannot be stored: that is a rule error."""
        big = 0
        lay = self.layout
        codes: dict[str, list[int]] = {}  # each layer's cell codes, cell 0 last, worked out once for its planes
        for plane in lay.planes:
            if plane.layer not in codes:
                try:
                    codes[plane.layer] = self._codes(plane.layer, v[plane.layer])[::-1]
                except ValueError:
                    raise RuleRuntimeError(
                        f"layer `{plane.layer}` would be stored holding a cell outside the {self.rows}x{self.cols} "
                        "board", span, "add `require on_board(...)` before the end of the action") from None
            # the plane's bits as a binary numeral, cell 0 last: linear in the cells (OR-ing bit after bit into
            # one big int is quadratic, minutes on a 1000x1000 board)
            cells = codes[plane.layer]
            count = self.doms[plane.layer].count
            if count <= 256:  # (a byte a cell, each translated to its digit: ~6x quicker than a join)
                bits = int(bytes(cells).translate(_plane_digits(count, plane.bit)), 2)
            else:
                b = plane.bit
                bits = int("".join(["1" if c >> b & 1 else "0" for c in cells]), 2)
            big |= bits << (64 * plane.word)
        for slot in lay.slots:
            x = v[slot.name]
            if slot.name in self.dims:
                x = x[slot.index]
            try:
                c = self.code(slot.name, x)
            except ValueError:
                raise RuleRuntimeError(
                    f"`{slot.name}` would be stored holding a cell outside the {self.rows}x{self.cols} board",
                    span, "add `require on_board(...)` before the end of the action") from None
            big |= c << (64 * slot.word + slot.shift)
        return struct.unpack(f"<{lay.words}Q", big.to_bytes(8 * lay.words, "little"))  # (linear: no shift per word)

    def unpack(self, words: tuple[int, ...]) -> dict:
        big = int.from_bytes(struct.pack(f"<{len(words)}Q", *words), "little")
        out: dict = {}
        lay = self.layout
        n = self.rows * self.cols
        digits: dict[str, dict[int, str]] = {}  # per layer, per bit, its plane's bits as digits from cell 0
        for plane in lay.planes:
            bits = (big >> (64 * plane.word)) & ((1 << n) - 1)
            digits.setdefault(plane.layer, {})[plane.bit] = format(bits, f"0{n}b")[::-1]
        for name, planes in digits.items():
            top = max(planes)
            # each cell's code, its bits read across the planes (highest first) as one binary numeral
            rows = [planes.get(b, "0" * n) for b in range(top, -1, -1)]
            if top == 0 and self.doms[name].kind == "bool":
                out[name] = list(map(_TRUTH.__getitem__, rows[0]))
                continue
            if top < 8:  # (a table of every code's digits: one lookup a cell, no int() of a string)
                codes = list(map(_code_of_digits(top + 1).__getitem__, zip(*rows)))
            else:
                codes = [int("".join(t), 2) for t in zip(*rows)]
            out[name] = self._decoded(name, codes)
        for name in self.dims:
            if name in self.dynamic:
                out[name] = [None] * math.prod(self.dims[name])
        for slot in lay.slots:
            c = (big >> (64 * slot.word + slot.shift)) & ((1 << slot.width) - 1)
            x = self.decode(slot.name, c)
            if slot.name in self.dims:
                out[slot.name][slot.index] = x
            else:
                out[slot.name] = x
        return out

    def values(self, words) -> dict:
        """Every value a rule can read in this state: statics and the unpacked dynamic ones."""
        v = dict(self.statics)
        v.update(self.unpack(words))
        return v


# ---- building an instance --------------------------------------------------------------------------
def parse_param_value(game: ir.Game, name: str, text: str, rows: int | None = None, cols: int | None = None):
    """A --param value, by the parameter's type: ints, true/false, enum names, cells as `row,col` counted from 1
    like the cells in moves (the rule language itself counts from 0)."""
    info = next((p for p in game.params if p.name == name), None)
    if info is None:
        from .errors import did_you_mean

        known = ", ".join(p.name for p in game.params) or "none"
        raise UsageError(f"unknown parameter `{name}` for {game.name} (its parameters: {known})"
                         + (f"; {did_you_mean(name, [p.name for p in game.params])}"
                            if did_you_mean(name, [p.name for p in game.params]) else ""))
    ty = info.domain.ty
    t = text.strip()

    def integer(digits: str) -> int:
        if not INTEGER.fullmatch(digits.strip()):
            raise ValueError(digits)
        return int(digits)

    try:
        if ty == ir.INT:
            return integer(t)
        if ty == ir.BOOL:
            if t.lower() in ("true", "1", "yes", "on"):
                return True
            if t.lower() in ("false", "0", "no", "off"):
                return False
            raise ValueError
        if ty == ir.CELL:
            if t.lower() in ("centre", "center"):
                return ("centre",)
            r, c = map(integer, t.strip("()").split(","))  # 1-based, as moves print cells
            if r < 1 or c < 1:
                raise ValueError
            return (r - 1, c - 1)
        if ty == ir.DIR:
            return ir.DIRS.index(t)
        if ty.kind == "enum":
            return game.enum_values(ty.name).index(t)
    except (ValueError, IndexError):
        pass
    want = {"int": "an integer", "bool": "true or false", "cell": "a cell `row,col` (1-based, as in moves) or `centre`",
            "dir": "L, R, U or D"}.get(ty.kind, f"one of {', '.join(game.enum_values(ty.name)) if ty.kind == 'enum' else ty}")
    raise UsageError(f"parameter `{name}` must be {want}, not `{text}`")


def _values(d: ir.Domain, cells: int, game: ir.Game, value) -> int:
    """How many values an action parameter of domain `d` takes (reference.system.parameter_values lists them)."""
    if d.ty == ir.INT:
        return max(0, value(d.hi) - value(d.lo) + 1)
    if d.ty == ir.CELL:
        return cells
    return {ir.BOOL: 2, ir.DIR: 4}.get(d.ty) or len(game.enum_values(d.ty.name))


def instantiate(game: ir.Game, raw: RawLevel, fmt: ir.LevelFormat, overrides: dict | None = None,
                every_move: bool = True) -> Instance:
    """The level set up: its legend read and `init` run (on the reference interpreter). With `every_move`, a level
    with more moves than can be listed (reference.system.MAX_MOVES) is refused first, before the legend and `init`,
    which take long on such a board; without it (api.query, which builds only the moves asked about) it is set up
    all the same."""
    from .reference.evaluator import Abort

    if raw.error is not None:  # (found by its reader; the file's other levels were still read)
        raise raw.error
    rows, cols = raw.rows, raw.cols
    if rows == 0 or cols == 0:
        raise LevelError("the level has no cells", raw.head_span())
    check_size(rows, cols, raw.head_span())
    try:
        setup = _setup(game, rows, cols, fmt, overrides or {})
    except _OffBoard as err:  # (located at the level: a file's levels may differ in size)
        hint = (f"`--param {err.name}=centre` gives each level its centre" if err.given else
                f"that is the rule file's default: `--param {err.name}=ROW,COL` gives another")
        raise LevelError(str(err), raw.head_span(), hint) from None
    if every_move and setup.too_many is not None:
        raise UsageError(setup.too_many)
    doms, dims, const = setup.doms, setup.dims, setup.const
    const.rounds[0] = const.rounds[1]  # (each level's set-up has them all)
    v = {name: x if n is None else [x] * n for name, (x, n) in setup.defaults.items()}

    # the legend: each token of the level means some assignments at its cell
    meaning = setup.meaning  # token -> (its entry's procedure, plain store or None, value): worked out once a token
    for r in range(rows):
        for c in range(cols):
            tok = raw.tokens[r][c]
            known_token = meaning.get(tok)
            if known_token is None:
                for entry, proc, plain in setup.procs:
                    ok, value = entry.matches(tok)
                    if ok:
                        break
                else:
                    shown = f"character `{shown_char(tok)}`" if isinstance(tok, str) else f"value {tok}"
                    known = ", ".join(_legend_key(e) for e in setup.entries)
                    hint = f"the rules' legend knows: {known}" if setup.entries else "the rules' legend is empty"
                    if not isinstance(tok, str):
                        hint = f"numbers match only a `*` entry in the legend, e.g. `* : layer = value` ({hint})"
                    raise LevelError(f"unknown {shown} in a `{fmt.format}` level", raw.span(r, c), hint)
                # (a value outside a layer's domain runs the entry, which reports it)
                if plain is not None and not all(lo <= value <= hi for _, lo, hi in plain[0]):
                    plain = None
                known_token = meaning[tok] = (proc, plain, value)
            proc, plain, value = known_token
            if plain is not None:
                for name, _, _ in plain[0]:
                    v[name][r * cols + c] = value
                for name, x in plain[1]:
                    v[name] = x
                continue
            try:
                proc(v, (), (r, c), value)
            except Abort as a:
                raise LevelError(a.message or "the level breaks a rule of the legend", raw.span(r, c),
                                 f"required by {a.span}") from None
            except RuleRuntimeError as err:
                raise LevelError(err.message, raw.span(r, c), f"in the legend at {err.span}") from None

    # named values from the reader (e.g. switch tables); the rule file must declare each one
    for name, value in raw.values.items():
        g = next((g for g in game.globals if g.name == name), None)
        if g is None:
            raise RuleError(f"level format `{fmt.format}` provides `{name}`, but the rules declare no global `{name}`",
                            fmt.span)
        v[name] = _bind_value(game, g, doms[name], dims.get(name), value, fmt)

    if setup.init is not None:
        try:
            setup.init(v)
        except Abort as a:
            raise LevelError(a.message or "the level does not meet the rules' requirements", raw.head_span(),
                             f"required by {a.span}") from None
        except RuleRuntimeError as err:
            raise LevelError(f"while setting up this level: {err.message}", raw.head_span(),
                             f"at {err.span}") from None

    # What no move of this level can store belongs to the level, like a static layer: it is kept out of the
    # state (smaller states; the compiled code reads it as the level's, e.g. its value masks worked out once).
    statics = {}
    for name in setup.static_names:
        statics[name] = tuple(v[name]) if name in setup.layer_names or name in dims else v[name]
    inst = Instance(game, raw.name, rows, cols, setup.params, MappingProxyType(doms), MappingProxyType(dims),
                    MappingProxyType(statics), setup.dynamic, setup.layout, (), setup.limit, raw)
    try:
        words = inst.pack(v)
    except RuleRuntimeError as err:
        init = game.init.span if game.init is not None else None
        raise LevelError(f"after setting up this level, {err.message}", raw.head_span(),
                         f"it is set by the `init` block at {init}" if init else None) from None
    object.__setattr__(inst, "initial", words)
    return inst


@dataclass(frozen=True, eq=False)
class _Setup:
    """What instantiate works out from the rules, the board's shape and the parameters given, before it reads a
    level's cells: the same for each of a file's levels of one shape (_setup keeps it)."""
    params: MappingProxyType
    doms: dict
    dims: dict
    const: object  # the reference Compiler the legend's and init's code run on
    defaults: dict  # name -> (its default, how many cells or elements hold it, None for a scalar)
    entries: list  # the legend's entries, in the order they are tried
    procs: list  # per entry: (entry, its procedure, its plain store or None)
    meaning: dict  # token -> (procedure, plain store or None, value), as the levels meet them
    init: object  # the `init` block's procedure, or None
    layer_names: frozenset
    static_names: tuple  # the layers and globals no move of these levels stores (Instance.statics)
    dynamic: tuple
    layout: Layout
    limit: int | None
    too_many: str | None = None  # why the level's moves cannot all be listed (reference.system.instance_count)


_SETUPS: dict = {}  # (game's id, rows, cols, format's id, parameters given) -> (game, format, _Setup)


def _setup(game: ir.Game, rows: int, cols: int, fmt: ir.LevelFormat, overrides: dict) -> _Setup:
    """_make_setup's answer, kept for the next level of the same game, format, shape and parameters given (a
    file's levels: ~0.3 ms a level on 14x14 Flood-It); a setup that fails is not kept, so each level says so."""
    try:
        key = (id(game), rows, cols, id(fmt), tuple(sorted(overrides.items())))
        kept = _SETUPS.get(key)
    except TypeError:  # (a parameter's value that cannot be hashed: worked out for this level alone)
        return _make_setup(game, rows, cols, fmt, dict(overrides))
    if kept is not None and kept[0] is game and kept[1] is fmt:
        return kept[2]
    setup = _make_setup(game, rows, cols, fmt, dict(overrides))
    if len(_SETUPS) >= 16:
        _SETUPS.clear()
    _SETUPS[key] = (game, fmt, setup)
    return setup


class _OffBoard(UsageError):
    """A cell parameter off a level's board (which level: instantiate says); `given`: whether --param gave it."""

    def __init__(self, message: str, name: str, given: bool):
        super().__init__(message)
        self.name, self.given = name, given


def _make_setup(game: ir.Game, rows: int, cols: int, fmt: ir.LevelFormat, overrides: dict) -> _Setup:
    from .reference.evaluator import MAX_SETUP_ROUNDS, Board, Compiler, Frame
    from .reference.system import instance_count

    board = Board(rows, cols)
    params: dict = {}
    doms: dict[str, Dom] = {}
    const = Compiler(game, board, params, doms)
    setup_rounds = max(MAX_SETUP_ROUNDS, 16 * rows * cols)  # (nested loops in `init` must end: no --time-limit)
    const.rounds = [setup_rounds, setup_rounds]

    def const_value(e: ir.Expr):
        return const.expr(e)(Frame({}, 0))

    def resolve(d: ir.Domain, what) -> Dom:
        ty = d.ty
        if ty == ir.INT:
            if d.lo is None:
                return Dom("int", -(1 << 62), 1 << 62)
            lo, hi = const_value(d.lo), const_value(d.hi)
            if hi - lo >= 1 << 62:  # codes must fit native 64-bit integers
                raise RuleError(f"{what} has a domain of {hi - lo + 1} values, more than this engine stores "
                                f"(at most 2^62)", getattr(d.lo, "span", None))
            if lo > hi:
                raise _empty_domain(what, d, lo, hi, "for this level")
            return Dom("int", lo, hi)
        if ty == ir.BOOL:
            return Dom("bool")
        if ty == ir.DIR:
            return Dom("dir", names=ir.DIRS)
        if ty == ir.CELL:
            return Dom("cell", cells=rows * cols)
        if ty.kind == "enum":
            return Dom("enum", names=game.enum_values(ty.name))
        if ty.kind == "body":
            return Dom("body", names=game.body(ty.name).poses, cells=rows * cols)
        raise AssertionError(ty)

    given = set(overrides)
    for p in game.params:  # in order: a default may use earlier parameters
        doms[p.name] = resolve(p.domain, f"parameter `{p.name}`")
        if p.name in overrides:
            value = overrides.pop(p.name)
            if value == ("centre",):
                value = (rows // 2, cols // 2)
        else:
            value = const_value(p.default)
        dom = doms[p.name]
        if dom.kind == "int" and not dom.lo <= value <= dom.hi:
            raise _outside_range(p.name, dom.lo, dom.hi, value)
        if dom.kind == "cell" and not board.on(value):
            raise _OffBoard(f"parameter `{p.name}` = {value[0] + 1},{value[1] + 1} is outside this level's "
                            f"{rows}x{cols} board", p.name, p.name in given)
        params[p.name] = value
    if overrides:
        raise UsageError(f"unknown parameter `{next(iter(overrides))}`")
    for action in (a for a in game.actions if a.unordered):  # one set of values (the checker: of one type)
        ranges = {(const_value(d.lo), const_value(d.hi)) for _, d in action.proc.params if d.lo is not None}
        if len(ranges) > 1:
            shown = ", ".join(f"{lo}..{hi}" for lo, hi in sorted(ranges))
            raise RuleError(f"the parameters of unordered action `{action.name}` range over different values for "
                            f"this level ({shown}); they must range over the same ones", action.span)
    too_many = None  # (too many moves: said before the legend and `init`, slow on such a board; instantiate)
    for action in game.actions:
        if _switched_off(action, const_value):
            continue  # (as `when free` in Flood-It: it has no moves to count)
        try:
            instance_count(action, [_values(d, rows * cols, game, const_value) for _, d in action.proc.params])
        except UsageError as err:
            too_many = str(err)
            break

    v: dict = {}
    dims: dict[str, tuple[int, ...]] = {}
    for layer in game.layers:
        doms[layer.name] = resolve(layer.domain, f"layer `{layer.name}`")
        v[layer.name] = (doms[layer.name].default(), rows * cols)
    for g in game.globals:
        doms[g.name] = resolve(g.domain, f"global `{g.name}`")
        default = const_value(g.default) if g.default is not None else doms[g.name].default()
        dom = doms[g.name]
        if dom.kind == "int" and not dom.lo <= default <= dom.hi:  # (both may depend on the parameters)
            raise RuleError(f"global `{g.name}` would start at {default}, outside its domain {dom.lo}..{dom.hi} "
                            "for this level", g.span, "check the parameters it is set from")
        if g.dims:
            shape = tuple(const_value(x) for x in g.dims)
            if any(s < 1 for s in shape):
                size = " x ".join(map(str, shape))
                raise RuleError(f"array `{g.name}` would have size {size} for this level; every size must be at least 1",
                                g.span)
            if math.prod(shape) > MAX_ELEMENTS:
                size = (f"size {' x '.join(f'{n:,}' for n in shape)} ({math.prod(shape):,} elements)"
                        if len(shape) > 1 else f"{shape[0]:,} elements")
                raise RuleError(f"array `{g.name}` would have {size} for this level: more than the "
                                f"{MAX_ELEMENTS:,} an array may have", g.span)
            dims[g.name] = shape
            const.set_strides(g.name, shape)
            v[g.name] = (default, math.prod(shape))
        else:
            v[g.name] = (default, None)
    const.compile_defs()

    entries = sorted(fmt.legend, key=lambda e: {"one": 0, "range": 1, "any": 2}[e.kind])
    procs = [(e, const.procedure(e.proc), _plain_store(e.proc, doms)) for e in entries]
    written = _written(game, const_value)
    dynamic_layers = [(l.name, doms[l.name].count) for l in game.layers if l.name in written]
    dynamic_scalars = [(g.name, math.prod(dims.get(g.name, ())), doms[g.name].count) for g in game.globals
                       if g.name in written]
    limit = None
    if game.limit is not None and const_value(game.limit[1]):
        limit = const_value(game.limit[0])
    return _Setup(MappingProxyType(params), doms, dims, const, v, entries, procs, {},
                  const.procedure(game.init) if game.init is not None else None,
                  frozenset(l.name for l in game.layers), tuple(x.name for x in (*game.layers, *game.globals) if x.name not in written),
                  tuple(n for n, _ in dynamic_layers) + tuple(n for n, _, _ in dynamic_scalars),
                  Layout.build(rows * cols, dynamic_layers, dynamic_scalars), limit, too_many)


def _empty_domain(what: str, d: ir.Domain, lo: int, hi: int, where: str) -> RuleError:
    """`layer `colour` has an empty domain 0..-1 for this level`, at the range as the rules write it."""
    a, b = getattr(d.lo, "span", None), getattr(d.hi, "span", None)
    span = Span(a.source, a.line, a.col, b.end_line, b.end_col) if a and b and a.line == b.line else a
    return RuleError(f"{what} has an empty domain {lo}..{hi} {where}", span, "check the parameters it depends on")


def _outside_range(name: str, lo: int, hi: int, value) -> UsageError:
    return UsageError(f"parameter `{name}` must be in {lo}..{hi}, not {value}")


def parameters_break(game: ir.Game, given: dict) -> GridrulesError | None:
    """What parameter values given without a level (`validate -p`) break before any level loads, as a level's
    set-up (_make_setup) would find it: a value outside its parameter's range, or an int domain of a layer or
    global left empty (`layer colour: 0..colours-1` with colours=0). Only domains of the parameters alone are
    worked out (check.folded): the board's size needs a level."""
    from .check import folded

    values: dict = {}

    def bounds(d: ir.Domain):
        if d.ty != ir.INT or d.lo is None:
            return None, None
        return folded(d.lo, values), folded(d.hi, values)

    for p in game.params:
        lo, hi = bounds(p.domain)
        value = given[p.name] if p.name in given else folded(p.default, values)
        if p.name in given and None not in (lo, hi) and isinstance(value, int) and not lo <= value <= hi:
            return _outside_range(p.name, lo, hi, value)
        values[p.name] = value
    for what, info in [("layer", x) for x in game.layers] + [("global", x) for x in game.globals]:
        lo, hi = bounds(info.domain)
        if None not in (lo, hi) and lo > hi:
            return _empty_domain(f"{what} `{info.name}`", info.domain, lo, hi, "with these parameters")
    return None


def _written(game: ir.Game, const_value) -> set[str]:
    """The dynamic layers and globals a move of this level may store: those stored by a def (particles' handlers
    are defs) or by an action whose `when` does not rule it out for the level's parameters (const_value reads
    a `when` that mentions no action parameter)."""
    found, by_defs, by_actions = _STORES.get(id(game), (None, set(), ()))
    if found is not game:  # (walking the bodies is ~0.1..2 ms: once a game, not once a level)
        dynamic = {x.name for x in (*game.layers, *game.globals) if not x.static}
        by_defs = dynamic & ir.stored(tuple(d.body for d in game.defs))
        by_actions = tuple(dynamic & ir.stored(a.proc.body) for a in game.actions)
        if len(_STORES) >= 16:
            _STORES.clear()
        _STORES[id(game)] = (game, by_defs, by_actions)
    written = set(by_defs)
    for action, stores in zip(game.actions, by_actions):
        if not _switched_off(action, const_value):
            written |= stores
    return written


_STORES: dict[int, tuple] = {}  # id(game) -> (game, what its defs store, what each action stores)


def _switched_off(action: ir.ActionInfo, const_value) -> bool:
    """Whether an action has no moves on this level: its `when`, of no parameter, is false."""
    return action.when_fixed and not const_value(action.when)


def _plain_store(proc: ir.Procedure, doms: dict) -> tuple | None:
    """How to run a legend entry without the interpreter (a million times on a large board), when all it does is
    store the token's value in int layers and constants in globals (`* : tile = value; judge = true`): the
    layers, as (name, lo, hi), and the globals, as (name, value); both empty for `pass`. None for anything else:
    it runs. (Layers and globals have different names: storing the layers first changes nothing.)"""
    layers, globals_ = [], []
    for s in proc.body:
        if (isinstance(s, ir.SetLayer) and isinstance(s.where, ir.Here) and isinstance(s.value, ir.TokenValue)
                and doms[s.layer].kind == "int"):
            layers.append((s.layer, doms[s.layer].lo, doms[s.layer].hi))
        elif (isinstance(s, ir.SetGlobal) and isinstance(s.value, ir.Const)
              and doms[s.name].kind in ("bool", "enum", "dir")):
            globals_.append((s.name, s.value.value))
        else:
            return None
    return layers, globals_


def _legend_key(e: ir.LegendInfo) -> str:
    if e.kind == "one":
        return repr(e.first)
    if e.kind == "range":
        return f"{e.first!r}..{e.last!r}"
    return "*"


def _bind_value(game, g: ir.GlobalInfo, dom: Dom, shape, value, fmt):
    def conv(x):
        if dom.kind == "enum":
            if x not in dom.names:
                raise RuleError(f"level format `{fmt.format}` gives `{g.name}` the value `{x}`, which enum "
                                f"{g.domain.ty} lacks (it has {', '.join(dom.names)})", g.span)
            return dom.names.index(x)
        if dom.kind == "int" and not (isinstance(x, int) and dom.lo <= x <= dom.hi):
            raise RuleError(f"level format `{fmt.format}` gives `{g.name}` the value {x!r}, outside {dom.describe()}",
                            g.span)
        if dom.kind == "bool" and not isinstance(x, bool):
            raise RuleError(f"level format `{fmt.format}` gives `{g.name}` the value {x!r}, not a bool", g.span)
        if dom.kind == "cell" and x is not None and not (isinstance(x, tuple) and len(x) == 2):
            raise RuleError(f"level format `{fmt.format}` gives `{g.name}` the value {x!r}, not a cell", g.span)
        return x

    if shape is None:
        return conv(value)
    flat = []

    def walk(x, depth):
        if depth == len(shape):
            flat.append(conv(x))
            return
        if not isinstance(x, (list, tuple)) or len(x) != shape[depth]:
            raise RuleError(f"level format `{fmt.format}` gives `{g.name}` a different shape than its declared "
                            f"size {list(shape)}", g.span)
        for y in x:
            walk(y, depth + 1)

    walk(value, 0)
    return flat
