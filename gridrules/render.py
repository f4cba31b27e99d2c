"""Drawing a board as text, for any ruleset: no game-specific code.

The board is drawn in the level's own notation where possible. Each legend entry of a rule file says what a
level token means (`'+' : tile[here] = floor`); the renderer runs the entries backwards: for every cell it looks
for the token whose legend assignments reproduce the cell's current layer values (static and dynamic), by
running each candidate entry on a scratch copy of the board. The level's own format is tried first, then the
rule file's other formats. Layers the legend never assigns (e.g. a `visited` layer the rules keep) are drawn
beside the board as grids of their own, as is every layer of a board that no legend can reproduce: one
character per cell (digits then letters for ints, the first letter of enum values, `#`/`.` for bools).

Cells covered by dynamic cell- or body-typed globals (a rolling block, a player, the active cube) are marked:
with a marker character (`@`, `&`, ...) in plain text, or the cell's own character highlighted when colour
is on. The dynamic globals are listed under the board as `name = value`; cells print 1-based as `row,col`,
like moves do.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from . import ir
from .errors import GridrulesError
from .instance import Instance

MARKERS = "@&%$*o+=~^"
DIGITS = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
OVERLAY_COLOURS = ("red", "blue", "magenta", "green", "cyan", "yellow")


@dataclass(frozen=True)
class _Candidate:
    token: object  # a character or an int
    value: int  # the legend's `value`
    proc: object


class Renderer:
    """Draws the states of one instance. `color=True` highlights covered cells with ANSI styles."""

    def __init__(self, inst: Instance, fmt: ir.LevelFormat | None = None, color: bool = False):
        from .reference.evaluator import Frame
        from .reference.system import interpreter

        self.inst = inst
        self.game = inst.game
        self.color = color
        self.n = inst.rows * inst.cols
        self.layers = [layer.name for layer in self.game.layers]
        self.compiler = c = interpreter(inst)
        # the scratch board legend entries run on: layers and globals at their defaults, except the values the
        # level's reader provided (switch tables and the like, which a legend may read)
        given = set(inst.raw.values) if inst.raw is not None else set()
        start = inst.values(inst.initial)
        base: dict = {}
        for name in self.layers:
            base[name] = [inst.doms[name].default()] * self.n
        for g in self.game.globals:
            if g.name in given:
                x = start[g.name]
            else:
                dom = inst.doms[g.name]
                x = dom.default()
                if g.default is not None:
                    try:
                        x = c.expr(g.default)(Frame({}, 0))
                    except Exception:  # a default a legend never reads
                        pass
                if g.name in inst.dims:
                    x = [x] * math.prod(inst.dims[g.name])
            base[g.name] = x
        self._base = base
        self._globals = [g.name for g in self.game.globals]
        self._lists = set(self.layers) | set(inst.dims)
        # formats to try: the level's own first
        own = fmt if fmt is not None else (_own_format(self.game, inst.raw) if inst.raw is not None else None)
        self.own = own
        self.own_chars = bool(inst.raw is not None and inst.raw.tokens and inst.raw.tokens[0]
                              and isinstance(inst.raw.tokens[0][0], str))
        # a `*`-only legend of another format may read numbers or characters: it cannot be run backwards safely
        others = [f for f in self.game.formats if f is not own and any(e.kind != "any" for e in f.legend)]
        self.formats = ([own] if own is not None else []) + others
        self._cands: dict[str, list] = {}
        self._matches: dict[tuple, list] = {}
        self._effects: dict[tuple, dict | None] = {}
        self._flayers: dict[str, list[str]] = {}
        self._show_reads: dict = {}  # layer -> its `show` rule, compiled at first use
        # layers the rules change, but no move of this level does (instance.py: kept out of its states)
        self._unchanged = {l.name for l in self.game.layers if not l.static and l.name not in inst.dynamic}
        self.overlays = [g for g in self.game.globals
                         if g.name in inst.dynamic and inst.doms[g.name].kind in ("cell", "body")]
        self._markers = {}
        used = self._alphabet()
        free = [m for m in MARKERS if m not in used] or list(MARKERS)
        for k, g in enumerate(self.overlays):
            self._markers[g.name] = free[k % len(free)]

    # ---- legend inversion
    def _alphabet(self) -> set:
        out = set()
        for fmt in self.game.formats:
            for e in fmt.legend:
                if e.kind == "one":
                    out.add(e.first)
                elif e.kind == "range":
                    out.update(chr(x) for x in range(ord(e.first), ord(e.last) + 1))
        return out

    def _legend_layers(self, fmt: ir.LevelFormat) -> list[str]:
        """The layers a format's legend assigns (directly or through the defs it calls), in declaration order;
        the board shows those through the legend's tokens and any other layer as a grid of its own."""
        if fmt.format not in self._flayers:
            written: set = set()
            seen: set = set()

            def walk(stmts):
                for st in stmts:
                    if isinstance(st, ir.SetLayer):
                        written.add(st.layer)
                    elif isinstance(st, ir.If):
                        for _, body in st.branches:
                            walk(body)
                        walk(st.orelse)
                    elif isinstance(st, (ir.For, ir.While)):
                        walk(st.body)
                    elif isinstance(st, ir.Eval) and isinstance(st.call, ir.CallDef) and st.call.name not in seen:
                        seen.add(st.call.name)
                        try:
                            walk(self.game.proc(st.call.name).body)
                        except StopIteration:
                            pass

            for e in fmt.legend:
                walk(e.proc.body)
            self._flayers[fmt.format] = [name for name in self.layers if name in written]
        return self._flayers[fmt.format]

    def _copy(self, v: dict) -> dict:
        """A scratch copy: layers and arrays as fresh lists (the interpreter writes them in place)."""
        return {k: (list(x) if k in self._lists else x) for k, x in v.items()}

    def _differs(self, a: dict, b: dict, name: str) -> bool:
        x, y = a[name], b[name]
        if name in self._lists:
            return list(x) != list(y)
        return x != y

    def _candidates(self, fmt: ir.LevelFormat) -> list[tuple[ir.LegendInfo, list[_Candidate] | None]]:
        """(entry, fixed candidates) in the order instantiate tries them; None: derive from the cell (ints)."""
        if fmt.format in self._cands:
            return self._cands[fmt.format]
        out = []
        chars = self.own_chars if fmt is self.own else True
        covered: set = set()
        order = sorted(fmt.legend, key=lambda e: {"one": 0, "range": 1, "any": 2}[e.kind])
        for e in order:
            proc = self.compiler.procedure(e.proc)
            if e.kind == "one":
                out.append((e, [_Candidate(e.first, 0, proc)]))
                covered.add(e.first)
            elif e.kind == "range":
                lo = ord(e.first)
                out.append((e, [_Candidate(chr(x), x - lo, proc) for x in range(lo, ord(e.last) + 1)]))
                covered.update(chr(x) for x in range(lo, ord(e.last) + 1))
            elif chars:
                out.append((e, [_Candidate(chr(x), x, proc) for x in range(33, 127) if chr(x) not in covered]))
            else:
                out.append((e, None))
        self._cands[fmt.format] = out
        return out

    def _match(self, fmt: ir.LevelFormat, key: tuple, cell: tuple[int, int]) -> list[tuple[object, bool]]:
        """The tokens of `fmt` whose legend reproduces the layer values `key`: (token, writes globals)."""
        memo = (fmt.format, key)
        if memo in self._matches:
            return self._matches[memo]
        found = []
        seen = set()
        layers = self._legend_layers(fmt)
        r, c = cell
        i = r * self.inst.cols + c
        for entry, cands in self._candidates(fmt):
            if cands is None:  # `*` over numbers: the value is the token; try the cell's own values first
                proc = self.compiler.procedure(entry.proc)
                ints = [int(x) for x in key if isinstance(x, (int, bool))]
                values = list(dict.fromkeys(ints + list(range(0, 10))))
                cands = [_Candidate(x, x, proc) for x in values]
            for cand in cands:
                if cand.token in seen:
                    continue
                scratch = self._apply(cand, cell)
                if scratch is None or tuple(scratch[name][i] for name in layers) != key:
                    continue
                writes = any(self._differs(scratch, self._base, g) for g in self._globals)
                found.append((cand.token, writes))
                seen.add(cand.token)
        self._matches[memo] = found
        return found

    def _run(self, fmt: ir.LevelFormat, token, cell):
        """Run `token`'s legend entry at `cell` on the scratch board: the scratch after it, or None."""
        for entry, cands in self._candidates(fmt):
            if cands is None:
                ok, value = entry.matches(token)
                cands = [_Candidate(token, value, self.compiler.procedure(entry.proc))] if ok else []
            for cand in cands:
                if cand.token == token:
                    return self._apply(cand, cell)
        return None

    def _apply(self, cand: _Candidate, cell):
        from .reference.evaluator import Abort

        scratch = self._copy(self._base)
        try:
            cand.proc(scratch, (), cell, cand.value)
        except (Abort, GridrulesError, ArithmeticError, TypeError, ValueError, IndexError, KeyError, RecursionError):
            return None
        return scratch

    def _consistent(self, fmt: ir.LevelFormat, token, cell, v: dict) -> bool:
        """Whether the globals `token`'s legend entry sets at `cell` hold these values in `v` (a start or target
        marker agrees only where the start or target is)."""
        memo = (fmt.format, token, cell)
        if memo not in self._effects:
            scratch = self._run(fmt, token, cell)
            effects = None
            if scratch is not None:
                effects = {}
                for g in self._globals:
                    x, y = scratch[g], self._base[g]
                    if g in self._lists:
                        changed = {k: a for k, (a, b) in enumerate(zip(x, y)) if a != b}
                        if changed:
                            effects[g] = changed
                    elif x != y:
                        effects[g] = x
            self._effects[memo] = effects
        effects = self._effects[memo]
        if effects is None:
            return False
        for g, x in effects.items():
            if g in self._lists:
                if any(v[g][k] != a for k, a in x.items()):
                    return False
            elif v[g] != x:
                return False
        return True

    def _tokens(self, fmt: ir.LevelFormat, v: dict):
        """The token of every cell in this format, or None when some cell has none.

        Among the tokens that reproduce a cell's layers, the level's own token is preferred, then tokens that
        set no globals, then tokens whose global assignments agree with the state (a start or target marker
        where the player or target is), in legend order."""
        inst = self.inst
        raw = inst.raw
        own = raw is not None and fmt is self.own
        layers = self._legend_layers(fmt)
        if not layers:
            return None
        grid = []
        for r in range(inst.rows):
            row = []
            for c in range(inst.cols):
                i = r * inst.cols + c
                key = tuple(v[name][i] for name in layers)
                found = self._match(fmt, key, (r, c))
                if not found:
                    return None
                tok = None
                if own:
                    mine = raw.tokens[r][c]
                    for t, writes in found:
                        if t == mine and (not writes or self._consistent(fmt, t, (r, c), v)):
                            tok = mine
                            break
                if tok is None:
                    pure = [t for t, w in found if not w]
                    if pure:
                        tok = pure[0]
                    else:
                        tok = next((t for t, _ in found if self._consistent(fmt, t, (r, c), v)), found[0][0])
                row.append(tok)
            grid.append(row)
        return grid

    # ---- drawing
    def covered(self, v: dict) -> dict[tuple[int, int], str]:
        """cell -> the name of the first dynamic cell/body global covering it."""
        out: dict = {}
        inst = self.inst
        for g in self.overlays:
            x = v[g.name]
            items = x if isinstance(x, list) else [x]
            for item in items:
                for cell in self._cells_of(g, item):
                    if 0 <= cell[0] < inst.rows and 0 <= cell[1] < inst.cols:
                        out.setdefault(cell, g.name)
        return out

    def _cells_of(self, g: ir.GlobalInfo, x):
        dom = self.inst.doms[g.name]
        if x is None:
            return []
        if dom.kind == "cell":
            return [tuple(x)]
        pose, anchor = x
        if anchor is None:
            return []
        body = self.game.body(g.domain.ty.name)
        return [(anchor[0] + dr, anchor[1] + dc) for dr, dc in body.cells[pose]]

    def board(self, words) -> str:
        """The board of a state (its packed words) and its dynamic globals, as text lines."""
        return self.board_of(self.inst.values(words))

    def board_of(self, v: dict, particles=()) -> str:
        """The board of a state's values; particles in flight, (cell, dir) each, drawn over their cells as
        `<`, `>`, `^`, `v` (`+` where several are)."""
        covered = self.covered(v)
        blocks = self._blocks(v)
        marks: dict = {}
        for cell, d in particles:
            marks[cell] = "+" if cell in marks else "<>^v"[d]
        lines = self._layout(blocks, covered, marks)
        lines += self.globals_lines(v)
        return "\n".join(lines)

    def path_of(self, v: dict, corners: list[tuple[int, int]]) -> str:
        """The board of a state's values with a path drawn over it (its corner cells, from one end to the
        other, as `path(...)` finds them): `-` and `|` along its straight runs, `+` at its corners; its two
        ends keep their text. A path through the ring outside the board draws that ring too."""
        _, grid, numbers = self._blocks(v)[0]
        rows, cols = self.inst.rows, self.inst.cols
        cells = [corners[0]]
        for (r0, c0), (r1, c1) in zip(corners, corners[1:]):
            dr, dc = (r1 > r0) - (r1 < r0), (c1 > c0) - (c1 < c0)
            while cells[-1] != (r1, c1):
                cells.append((cells[-1][0] + dr, cells[-1][1] + dc))
        ring = any(not (0 <= r < rows and 0 <= c < cols) for r, c in cells)
        off = 1 if ring else 0
        width = max(len(t) for row in grid for t in row)
        picture = [[" " * width] * (cols + 2 * off) for _ in range(rows + 2 * off)]
        for r in range(rows):
            for c in range(cols):
                picture[r + off][c + off] = grid[r][c].rjust(width)
        for i in range(1, len(cells) - 1):
            (pr, pc), (r, c), (nr, nc) = cells[i - 1], cells[i], cells[i + 1]
            mark = "-" if pr == r == nr else "|" if pc == c == nc else "+"
            picture[r + off][c + off] = self._paint(mark.rjust(width), bold=True)
        for r, c in (cells[0], cells[-1]):
            picture[r + off][c + off] = self._paint(picture[r + off][c + off], reverse=True)
        sep = _separator(width, numbers)
        lines = [sep.join(row).rstrip() for row in picture]
        while not lines[-1].strip():  # (a ring row the path does not use)
            lines.pop()
        while not lines[0].strip():
            lines.pop(0)
        return "\n".join(lines)

    def _paint(self, text: str, **style) -> str:
        """A path's cell: in yellow when colour is on."""
        if not self.color:
            return text
        import click

        return click.style(text, fg="yellow", **style)

    def _shown(self, v: dict) -> dict:
        """A state's values as drawn: the layers of the rules' `show` rules worked out at every cell."""
        if not self.game.shows:
            return v
        from .reference.evaluator import Frame

        out = dict(v)
        cells = [(r, c) for r in range(self.inst.rows) for c in range(self.inst.cols)]
        for layer, value in self.game.shows:
            read = self._show_reads.get(layer)
            if read is None:
                read = self._show_reads[layer] = self.compiler.expr(value)
            out[layer] = [read(Frame(v, self.game.predicates_nlocals, here=cell)) for cell in cells]
        return out

    def _blocks(self, v: dict) -> list:
        """The grids a board is drawn from: the level's tokens (as the level file would write them) and the
        layers the legend does not set (but not those the rules change and no move of this level does), else
        every layer, else dots. Layers with a `show` rule are drawn as it says."""
        v = self._shown(v)
        blocks = None
        for fmt in self.formats:
            try:
                grid = self._tokens(fmt, v)
            except RecursionError:
                grid = None
            if grid is not None:
                numbers = any(not isinstance(t, str) for row in grid for t in row)
                blocks = [("", [[str(t) for t in row] for row in grid], numbers)]
                blocks += [(name, self._layer_grid(name, v), False) for name in self.layers
                           if name not in self._legend_layers(fmt) and name not in self._unchanged]
                break
        if blocks is None:
            blocks = [(name, self._layer_grid(name, v), False) for name in self.layers]
        if not blocks:  # a game without layers: a board of dots
            blocks = [("", [["."] * self.inst.cols for _ in range(self.inst.rows)], False)]
        return blocks

    def _layer_grid(self, name: str, v: dict) -> list[list[str]]:
        chars = _layer_chars(self.inst.doms[name], v[name])
        cols = self.inst.cols
        return [chars[r * cols:(r + 1) * cols] for r in range(self.inst.rows)]

    def _mark(self, text: str, name: str) -> str:
        """A covered cell: highlighted in colour, else its marker (right-aligned like the cell's text)."""
        if self.color:
            import click

            k = [g.name for g in self.overlays].index(name)
            return click.style(text, fg=OVERLAY_COLOURS[k % len(OVERLAY_COLOURS)], reverse=True, bold=True)
        return " " * (len(text) - 1) + self._markers[name]

    def _layout(self, blocks, covered, marks=None) -> list[str]:
        """Grids of cell texts side by side; numbers and cells wider than one character are right-aligned and
        separated by blanks. Headed by the grids' names when there are several."""
        drawn = []
        for name, grid, numbers in blocks:
            width = max((len(t) for row in grid for t in row), default=1)
            sep = _separator(width, numbers)
            rows = []
            for r, row in enumerate(grid):
                parts = []
                for c, t in enumerate(row):
                    t = (marks[r, c] if marks and (r, c) in marks else t).rjust(width)
                    if (r, c) in covered:
                        t = self._mark(t, covered[(r, c)])
                    parts.append(t)
                rows.append(sep.join(parts))
            visible = self.inst.cols * width + len(sep) * (self.inst.cols - 1)
            drawn.append((name or "board", rows, max(visible, len(name or "board"))))
        if len(drawn) == 1:
            return [row.rstrip() if not self.color else row for row in drawn[0][1]]
        out = ["   ".join(name.ljust(w) for name, _, w in drawn).rstrip()]
        for r in range(self.inst.rows):
            parts = [rows[r] + " " * max(0, w - _visible_len(rows[r])) for _, rows, w in drawn]
            out.append("   ".join(parts).rstrip())
        return out

    def globals_lines(self, v: dict) -> list[str]:
        out = []
        covered = self.covered(v)
        for g in self.game.globals:
            if g.name not in self.inst.dynamic:  # (the level's: no move changes it)
                continue
            text = f"{g.name} = {self.format_value(g.name, v[g.name])}"
            if g.name in self._markers and not self.color and g.name in set(covered.values()):
                text += f"   ({self._markers[g.name]} on the board)"
            out.append(text)
        return out

    def format_value(self, name: str, x) -> str:
        dom = self.inst.doms[name]
        if isinstance(x, list):
            if dom.kind == "bool" and len(x) > 8:  # a long row of flags: say which are set
                on = [str(i) for i, b in enumerate(x) if b]
                if not on:
                    return f"all false ({len(x)} entries)"
                return f"true at {', '.join(on)}; false elsewhere ({len(x)} entries, from 0)"
            return "[" + ", ".join(self.format_value(name, y) for y in x) + "]"
        return format_scalar(dom, x)


def format_scalar(dom, x) -> str:
    k = dom.kind
    if k == "bool":
        return "true" if x else "false"
    if k == "int":
        return str(x)
    if k in ("enum", "dir"):
        return dom.names[x] if 0 <= x < len(dom.names) else str(x)
    if k == "cell":
        return "none" if x is None else f"{x[0] + 1},{x[1] + 1}"
    if k == "body":
        pose, anchor = x
        if anchor is None:
            return "none"
        return f"{dom.names[pose]} at {anchor[0] + 1},{anchor[1] + 1}"
    return str(x)


def _layer_chars(dom, values) -> list[str]:
    k = dom.kind
    if k == "bool":
        return ["#" if x else "." for x in values]
    if k == "dir":
        return [dom.names[x] for x in values]
    if k == "cell":
        return ["." if x is None else "*" for x in values]
    if k == "enum":
        firsts = [n[:1] for n in dom.names]
        if len(set(firsts)) == len(firsts) and all(firsts):
            return [firsts[x] for x in values]
        return [DIGITS[x] if x < len(DIGITS) else str(x) for x in values]
    if k == "int":
        if all(0 <= x < len(DIGITS) for x in values):
            return [DIGITS[x] for x in values]
        return [str(x) for x in values]
    return [str(x) for x in values]


def _separator(width: int, numbers: bool) -> str:
    """What stands between two cells of a drawn board: a blank between numbers or texts wider than one
    character, nothing between single characters."""
    return " " if width > 1 or numbers else ""


def _visible_len(text: str) -> int:
    import click

    return len(click.unstyle(text))


def _own_format(game: ir.Game, raw) -> ir.LevelFormat | None:
    """The format the level was read with: the one whose legend accepts every token of the level."""
    fmt = getattr(raw, "format", None)
    if isinstance(fmt, str) and game.format(fmt) is not None:
        return game.format(fmt)
    toks = [t for row in raw.tokens for t in row]
    for f in game.formats:
        if all(any(e.matches(t)[0] for e in f.legend) for t in toks):
            # a `*` legend accepts characters too; a numbers level only fits an int-token format
            if toks and isinstance(toks[0], int) != all(e.kind == "any" for e in f.legend):
                continue
            return f
    return None
