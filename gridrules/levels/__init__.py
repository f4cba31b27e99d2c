"""Level files: named readers turn text into RawLevels (cell tokens + named values) for a rule file's legend.

A reader knows a file format, never a game's mechanics: the rule file's `level FORMAT:` legend says what each
token means. Readers are registered in READERS; `sniff` lets a file's format be recognised from its content.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

from ..errors import LevelError, Source, Span

# The most cells a level may have (4096 x 4096), and the most elements an array global may have: beyond them a
# level's rows alone would take gigabytes of memory.
MAX_CELLS = 1 << 24
MAX_ELEMENTS = 1 << 24


def check_size(rows: int, cols: int, span: Span) -> None:
    """A LevelError for a level of more than MAX_CELLS cells (before a reader or `instantiate` lists them)."""
    if rows * cols > MAX_CELLS:
        raise LevelError(f"the level would have {rows:,} x {cols:,} cells: more than the {MAX_CELLS:,} a level may "
                         "have", span)


@dataclass
class RawLevel:
    """One level as read from a file: tokens per cell (str or int) with their positions, and named values."""

    name: str
    source: Source
    tokens: list[list[str | int]]
    positions: list[list[tuple[int, int]]]  # (line, col) of each token, 1-based
    values: dict[str, object] = field(default_factory=dict)
    start_line: int = 1
    # questions the file asks about the level (HDU 1175's pairs of cells): each the arguments of a move
    # (0-based cells) and where it is written; `gridrules query` answers whether such a move is legal
    queries: list[tuple[tuple, Span]] = field(default_factory=list)

    @property
    def rows(self) -> int:
        return len(self.tokens)

    @property
    def cols(self) -> int:
        return len(self.tokens[0]) if self.tokens else 0

    def span(self, r: int, c: int) -> Span:
        line, col = self.positions[r][c]
        width = len(str(self.tokens[r][c])) if not isinstance(self.tokens[r][c], str) else 1
        return Span(self.source, line, col, line, col + width)

    def head_span(self) -> Span:
        return Span(self.source, self.start_line, 1, self.start_line, 2)


@dataclass(frozen=True)
class Reader:
    name: str
    read: Callable[[Source], list[RawLevel]]
    sniff: Callable[[str], bool]
    description: str
    # a weaker test: the text starts as this format's files do (its header), whatever follows; asked only when
    # no format's sniff accepts the text and the last format tried (`grid`) cannot read it either, so that the
    # error reported is this format's (`case 1 ends early`) rather than the grid's (`ragged grid`)
    looks: Callable[[str], bool] | None = None


def _lines(text: str) -> list[str]:
    return [ln.rstrip("\r") for ln in text.split("\n")]


def _empty(src: Source) -> LevelError:
    return LevelError("the level file is empty", Span(src, 1, 1, 1, 2))


# ---- grid: one character per cell --------------------------------------------------------------
def read_grid(src: Source) -> list[RawLevel]:
    """Rows of characters, one per cell; blank lines before and after are ignored; rows must be equally long."""
    lines = _lines(src.text)
    idx = [i for i, ln in enumerate(lines) if ln.strip()]
    if not idx:
        raise _empty(src)
    first, last = idx[0], idx[-1]
    rows = [lines[i] for i in range(first, last + 1)]
    if len({len(r) for r in rows}) > 1:  # trailing blanks are cells, unless they are what makes rows ragged
        rows = [r.rstrip() for r in rows]
    width = len(rows[0])
    tokens, positions = [], []
    for k, row in enumerate(rows):
        line = first + k + 1
        if not row:
            raise LevelError("blank line inside the grid", Span(src, line, 1, line, 2))
        if len(row) != width:
            raise LevelError(f"ragged grid: this row has {len(row)} cells, the first row has {width}",
                             Span(src, line, min(len(row), width) + 1, line, max(len(row), width) + 1))
        tokens.append(list(row))
        positions.append([(line, c + 1) for c in range(width)])
    return [RawLevel(src.path, src, tokens, positions, start_line=first + 1)]


# ---- numbers: blank-separated integers, one row per line ---------------------------------------
def _int_tokens(src: Source, lines: list[str], start: int, stop: int):
    """Yield (line, col, int) for every blank-separated token in lines[start:stop]; non-numbers are errors."""
    for i in range(start, stop):
        ln = lines[i]
        col = 0
        for part in ln.split():
            col = ln.index(part, col)
            plain = part.isascii() and "_" not in part  # (int() also reads `1_0` and other scripts' digits)
            try:
                if not plain:
                    raise ValueError
                value = int(part)
            except ValueError:
                raise LevelError(f"expected a number, found `{part}`",
                                 Span(src, i + 1, col + 1, i + 1, col + 1 + len(part)),
                                 None if plain else "numbers are written with the digits 0-9 (and a sign)") from None
            yield i + 1, col + 1, value
            col += len(part)


def read_numbers(src: Source) -> list[RawLevel]:
    lines = _lines(src.text)
    idx = [i for i, ln in enumerate(lines) if ln.strip()]
    if not idx:
        raise _empty(src)
    tokens, positions = [], []
    for i in range(idx[0], idx[-1] + 1):
        row = list(_int_tokens(src, lines, i, i + 1))
        if not row:
            raise LevelError("blank line inside the grid", Span(src, i + 1, 1, i + 1, 2))
        if tokens and len(row) != len(tokens[0]):
            raise LevelError(f"ragged grid: this row has {len(row)} cells, the first row has {len(tokens[0])}",
                             Span(src, i + 1, 1, i + 1, len(lines[i]) + 1))
        tokens.append([v for _, _, v in row])
        positions.append([(ln, c) for ln, c, _ in row])
    return [RawLevel(src.path, src, tokens, positions, start_line=idx[0] + 1)]


def sniff_numbers(text: str) -> bool:
    """A first row of several blank-separated numbers (a later row that is not all numbers is then reported by
    the numbers reader, where it is, instead of the whole file reading as a grid of characters)."""
    rows = [ln.split() for ln in text.splitlines() if ln.strip()]
    return bool(rows) and len(rows[0]) > 1 and all(p.lstrip("+-").isdigit() for p in rows[0])


# ---- hdu4127: N, then N rows of N numbers, repeated; ends with 0 --------------------------------
def read_hdu4127(src: Source) -> list[RawLevel]:
    """Several square boards, each preceded by its size N; the input ends with a line `0` (or the file's end)."""
    lines = _lines(src.text)
    toks = list(_int_tokens(src, lines, 0, len(lines)))
    if not toks:
        raise _empty(src)
    levels = []
    i = 0
    while i < len(toks):
        line, col, n = toks[i]
        if n == 0:
            if i + 1 < len(toks):
                ln2, c2, v2 = toks[i + 1]
                raise LevelError("data after the closing `0`", Span(src, ln2, c2, ln2, c2 + len(str(v2))))
            break
        if n < 0:
            raise LevelError(f"a board size must be positive, not {n}", Span(src, line, col, line, col + len(str(n))))
        cells = toks[i + 1: i + 1 + n * n]
        if len(cells) < n * n:
            raise LevelError(f"case {len(levels) + 1} ends early: a {n}x{n} board needs {n * n} numbers, "
                             f"found {len(cells)}", Span(src, line, col, line, col + len(str(n))))
        rows = [cells[r * n:(r + 1) * n] for r in range(n)]
        levels.append(RawLevel(f"case {len(levels) + 1}", src, [[v for _, _, v in row] for row in rows],
                               [[(ln, c) for ln, c, _ in row] for row in rows], start_line=line))
        i += 1 + n * n
    if not levels:
        raise LevelError("no board before the closing `0`", Span(src, toks[0][0], toks[0][1], toks[0][0], toks[0][1] + 1))
    return levels


def _plain_size(row: list[str]) -> bool:
    """A row holding one number written plainly: ASCII digits, no leading zero (`01` is a grid row), at most 9."""
    return len(row) == 1 and re.fullmatch(r"0|[1-9][0-9]{0,8}", row[0]) is not None


def sniff_hdu4127(text: str) -> bool:
    """A first line holding one number N written plainly (no leading zero: `01` is a grid row), then N-number rows."""
    rows = [ln.split() for ln in text.splitlines() if ln.strip()]
    if not rows or not _plain_size(rows[0]):
        return False
    n = int(rows[0][0])
    return n == 0 or len(rows) > n and all(len(r) == n for r in rows[1:n + 1])


def _looks_hdu4127(text: str) -> bool:
    """A first line holding one number N written plainly, then a row of blank-separated tokens (so not a grid
    whose first row happens to be digits)."""
    rows = [ln.split() for ln in text.splitlines() if ln.strip()][:2]
    return len(rows) == 2 and _plain_size(rows[0]) and len(rows[1]) > 1


# ---- hdu1175: Lianliankan boards, each followed by queries -----------------------------------------------
def read_hdu1175(src: Source) -> list[RawLevel]:
    """Cases of `n m`, n rows of m numbers, `q`, then q lines `x1 y1 x2 y2` (1-based row and column); the input
    ends with `0 0` (or the file's end). Each case is a level whose queries are pairs of cells."""
    lines = _lines(src.text)
    toks = list(_int_tokens(src, lines, 0, len(lines)))
    if not toks:
        raise _empty(src)

    def span(t):
        line, col, v = t
        return Span(src, line, col, line, col + len(str(v)))

    def take(i, count, what):
        got = toks[i:i + count]
        if len(got) < count:
            at = toks[i - 1] if i > 0 else toks[0]
            raise LevelError(f"the input ends early: {what} needs {count} numbers, found {len(got)}", span(at))
        return got

    levels = []
    i = 0
    while i < len(toks):
        n, m = take(i, 2, f"the size of case {len(levels) + 1}")
        if n[2] == 0 and m[2] == 0:
            if i + 2 < len(toks):
                raise LevelError("data after the closing `0 0`", span(toks[i + 2]))
            break
        for t in (n, m):
            if t[2] <= 0:
                raise LevelError(f"a board size must be positive, not {t[2]}", span(t))
        rows, cols = n[2], m[2]
        case = f"case {len(levels) + 1}"
        cells = take(i + 2, rows * cols, f"the {rows}x{cols} board of {case}")
        i += 2 + rows * cols
        (q,) = take(i, 1, f"the query count of {case}")
        if q[2] < 0:
            raise LevelError(f"a query count cannot be negative ({q[2]})", span(q))
        i += 1
        queries = []
        for k in range(q[2]):
            x1, y1, x2, y2 = quad = take(i, 4, f"query {k + 1} of {case}")
            for r, c in ((x1, y1), (x2, y2)):
                if not (1 <= r[2] <= rows and 1 <= c[2] <= cols):
                    raise LevelError(f"query {k + 1} of {case} names the cell {r[2]},{c[2]}, outside the "
                                     f"{rows}x{cols} board", Span(src, r[0], r[1], c[0], c[1] + len(str(c[2]))))
            first, last = span(quad[0]), span(quad[3])
            queries.append((((x1[2] - 1, y1[2] - 1), (x2[2] - 1, y2[2] - 1)),
                            Span(src, first.line, first.col, last.end_line, last.end_col)))
            i += 4
        grid = [cells[r * cols:(r + 1) * cols] for r in range(rows)]
        levels.append(RawLevel(case, src, [[v for _, _, v in row] for row in grid],
                               [[(ln, c) for ln, c, _ in row] for row in grid], start_line=n[0], queries=queries))
    if not levels:
        raise LevelError("no board before the closing `0 0`", span(toks[0]))
    return levels


def sniff_hdu1175(text: str) -> bool:
    """`n m`, then n rows of m numbers, then a line holding one number (the query count)."""
    rows = [ln.split() for ln in text.splitlines() if ln.strip()]
    if not rows or len(rows[0]) != 2 or not all(p.isdigit() for p in rows[0]):
        return False
    n, m = int(rows[0][0]), int(rows[0][1])
    if n == 0 and m == 0:
        return True
    return len(rows) > n + 1 and all(len(r) == m for r in rows[1:n + 1]) and len(rows[n + 1]) == 1


from .bloxorz import read_bloxorz, read_bloxorz_seed002, sniff_bloxorz, sniff_bloxorz_seed002  # noqa: E402

READERS: dict[str, Reader] = {
    r.name: r
    for r in (
        Reader("hdu4127", read_hdu4127, sniff_hdu4127,
               "HDU 4127 input: cases of `N` then N rows of N numbers; ends with `0`", _looks_hdu4127),
        Reader("hdu1175", read_hdu1175, sniff_hdu1175,
               "HDU 1175 input: cases of `n m`, n rows of m numbers, `q` and q queries `x1 y1 x2 y2`; ends with `0 0`"),
        Reader("bloxorz_seed002", read_bloxorz_seed002, sniff_bloxorz_seed002,
               "seed 002's Bloxorz map: `N M`, the map, split, switch and bridge lines"),
        Reader("bloxorz", read_bloxorz, sniff_bloxorz,
               "gridrules' Bloxorz format: the map, `---`, then teleport/switch/bridge lines"),
        Reader("numbers", read_numbers, sniff_numbers, "rows of blank-separated numbers, one level per file"),
        Reader("grid", read_grid, lambda text: True, "rows of characters, one per cell"),
    )
}
