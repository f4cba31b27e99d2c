"""Level files: named readers turn text into RawLevels (cell tokens + named values) for a rule file's legend.

A reader knows a file format, never a game's mechanics: the rule file's `level FORMAT:` legend says what each
token means. Readers are registered in READERS; `sniff` lets a file's format be recognised from its content.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Callable, Sequence

from ..errors import LevelError, Source, Span, counted

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
    # per row, per cell: (line, col) of its token, 1-based, and for a number the width of its text (a list, or a
    # sequence of rows worked out when asked)
    positions: Sequence[list[tuple[int, ...]]]
    values: dict[str, object] = field(default_factory=dict)
    start_line: int = 1
    # questions the file asks about the level (HDU 1175's pairs of cells): each the arguments of a move
    # (0-based cells) and where it is written; `gridrules query` answers whether such a move is legal
    queries: list[tuple[tuple, Span]] = field(default_factory=list)
    # what is wrong with this level alone (a number that is no number, a query off its board), found while its
    # file was read: instantiate raises it, so that a file's other levels can still be solved
    error: LevelError | None = None
    query_error: LevelError | None = None  # ... or with its queries alone (`gridrules query` raises it)

    @property
    def rows(self) -> int:
        return len(self.tokens)

    @property
    def cols(self) -> int:
        return len(self.tokens[0]) if self.tokens else 0

    def span(self, r: int, c: int) -> Span:
        line, col, *width = self.positions[r][c]  # (a number's width, where its reader kept it: `+1`, `007`)
        if not width:
            width = [len(str(self.tokens[r][c])) if not isinstance(self.tokens[r][c], str) else 1]
        return Span(self.source, line, col, line, col + width[0])

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
    # where a file that starts as this format's files do leaves their layout in lines (a judge format's row of the
    # wrong length), or None: asked when such a file reads as a stream of numbers all the same
    layout: Callable[[Source], LevelError | None] | None = None


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
            raise LevelError(f"ragged grid: this row has {counted(len(row), 'cell')}, the first row has {width}",
                             Span(src, line, min(len(row), width) + 1, line, max(len(row), width) + 1))
        tokens.append(list(row))
        positions.append([(line, c + 1) for c in range(width)])
    return [RawLevel(src.path, src, tokens, positions, start_line=first + 1)]


# ---- numbers: blank-separated integers, one row per line ---------------------------------------
INTEGER = re.compile(r"[+-]?[0-9]+")  # an integer as levels and parameters write it (int() also reads `1_0`, `٥`)
_COUNT = re.compile(r"[0-9]{1,18}")  # a size or coordinate: ASCII digits (str.isdigit() also takes `²`, which int()
# refuses, and int() refuses more than 4300 digits); 18 digits are more than any size check lets through


def count_value(text: str) -> int | None:
    """A non-negative integer written in ASCII digits (at most 18 of them), else None."""
    return int(text) if _COUNT.fullmatch(text) else None


class _Ints:
    """The blank-separated integers of some lines (`values`, added a line at a time by `read`), and where each
    one is (`where`, `span`), found again in its line only when asked: a reader of a million numbers then keeps a
    million ints, not a million positions besides. Non-numbers are errors: raised at once, or, `lenient`, kept
    in `bad` by their index (their value 0) for the reader to raise (`at`) or to give to the level they are in
    (`first_bad`)."""

    def __init__(self, src: Source, lines: list[str], start: int = 0, stop: int = 0, lenient: bool = False):
        self.src, self.lines = src, lines
        self.bad: dict[int, LevelError] | None = {} if lenient else None
        self.bad_at: list[int] = []  # (bad's indices, in order: a file of many wrong cases is read in linear time)
        self.values: list[int] = []
        self.firsts: list[int] = []  # per line read that holds numbers: the index of its first one
        self.line_of: list[int] = []  # ... and the line's index
        self._columns: dict[int, list[tuple[int, int]]] = {}  # line index -> (col, width) of its numbers (where)
        for i in range(start, stop):
            self.read(i)

    def read(self, i: int) -> int:
        """Add line i's numbers; how many there were."""
        parts = self.lines[i].split()
        if parts:
            self.firsts.append(len(self.values))
            self.line_of.append(i)
            self.values.extend(self._numbers(i, parts))
        return len(parts)

    def _numbers(self, i: int, parts: list[str]) -> list[int]:
        try:
            return self._strict_numbers(i, parts)
        except LevelError:
            if self.bad is None:
                raise
        out = []  # (lenient: each wrong one kept, as 0)
        for k, part in enumerate(parts):
            try:
                out.extend(self._strict_numbers(i, [part], k))
            except LevelError as err:
                self.bad[len(self.values) + k] = err
                self.bad_at.append(len(self.values) + k)
                out.append(0)
        return out

    def at(self, k: int) -> int:
        """Number k, where only a number will do (a size, a count): a wrong one is raised."""
        if self.bad and k in self.bad:
            raise self.bad[k]
        return self.values[k]

    def first_bad(self, start: int, stop: int) -> LevelError | None:
        """The error of the first wrong number among numbers start..stop-1 (lenient), else None."""
        j = bisect.bisect_left(self.bad_at, start)
        return self.bad[self.bad_at[j]] if j < len(self.bad_at) and self.bad_at[j] < stop else None

    def _strict_numbers(self, i: int, parts: list[str], skip: int = 0) -> list[int]:
        """Line i's numbers `parts` (from its token `skip` on)."""
        # int() also reads `1_0` and other scripts' digits; the judges' formats are ASCII digits and a sign (on a
        # line of ASCII without `_`, what int() reads is that; other blanks than ASCII ones are blanks too)
        ln = self.lines[i]
        if (ln.isascii() and "_" not in ln) or all(map(INTEGER.fullmatch, parts)):
            try:
                return list(map(int, parts))
            except ValueError:  # (more digits than Python converts)
                pass
        for part, (col, width) in zip(parts, self.columns(i)[skip:]):
            span = Span(self.src, i + 1, col, i + 1, col + width)
            if not INTEGER.fullmatch(part):
                other_digits = not part.isascii() or "_" in part
                raise LevelError(f"expected a number, found `{part}`", span,
                                 "numbers are written with the digits 0-9 (and a sign)" if other_digits else None)
            try:
                int(part)
            except ValueError:  # (more digits than Python converts)
                raise LevelError(f"a number of {len(part.lstrip('+-')):,} digits; no level needs one that long",
                                 span) from None
        return list(map(int, parts))

    def columns(self, i: int) -> list[tuple[int, int]]:
        """(column, width) of each blank-separated token of line i, 1-based; worked out once a line."""
        if i not in self._columns:
            ln, col, out = self.lines[i], 0, []
            for part in ln.split():
                col = ln.index(part, col)
                out.append((col + 1, len(part)))
                col += len(part)
            self._columns[i] = out
        return self._columns[i]

    def __len__(self) -> int:
        return len(self.values)

    def where(self, k: int) -> tuple[int, int, int]:
        """(line, column, width) of number k, 1-based."""
        j = bisect.bisect_right(self.firsts, k) - 1
        i = self.line_of[j]
        col, width = self.columns(i)[k - self.firsts[j]]
        return i + 1, col, width

    def span(self, k: int, last: int | None = None) -> Span:
        """Where number k is written, or numbers k to `last`."""
        line, col, width = self.where(k)
        end_line, end_col, end_width = (line, col, width) if last is None else self.where(last)
        return Span(self.src, line, col, end_line, end_col + end_width)

    def places(self, first: int, rows: int, cols: int) -> "_Places":
        """The positions of a board of `rows` rows of `cols` numbers from number `first` (RawLevel.positions)."""
        return _Places(self, first, rows, cols)


class _Places:
    """RawLevel.positions for a board read by _Ints: row r's (line, col, width), worked out when asked (errors)."""

    def __init__(self, ints: _Ints, first: int, rows: int, cols: int):
        self.ints, self.first, self.rows, self.cols = ints, first, rows, cols

    def __len__(self) -> int:
        return self.rows

    def __getitem__(self, r: int) -> list[tuple[int, int, int]]:
        if not 0 <= r < self.rows:
            raise IndexError(r)
        at = self.first + r * self.cols
        return [self.ints.where(at + c) for c in range(self.cols)]


def read_numbers(src: Source) -> list[RawLevel]:
    lines = _lines(src.text)
    idx = [i for i, ln in enumerate(lines) if ln.strip()]
    if not idx:
        raise _empty(src)
    ints = _Ints(src, lines)
    width = None
    for i in range(idx[0], idx[-1] + 1):  # (a line at a time: its own errors before a later line's)
        count = ints.read(i)
        if not count:
            raise LevelError("blank line inside the grid", Span(src, i + 1, 1, i + 1, 2))
        if width is not None and count != width:
            raise LevelError(f"ragged grid: this row has {counted(count, 'cell')}, the first row has {width}",
                             Span(src, i + 1, 1, i + 1, len(lines[i]) + 1))
        width = count
    v = ints.values
    tokens = [v[k:k + width] for k in range(0, len(v), width)]
    return [RawLevel(src.path, src, tokens, ints.places(0, len(tokens), width), start_line=idx[0] + 1)]


def sniff_numbers(text: str) -> bool:
    """A first row of several blank-separated numbers (a later row that is not all numbers is then reported by
    the numbers reader, where it is, instead of the whole file reading as a grid of characters)."""
    rows = [ln.split() for ln in text.splitlines() if ln.strip()]
    return bool(rows) and len(rows[0]) > 1 and all(p.lstrip("+-").isdigit() for p in rows[0])


# ---- hdu4127: N, then N rows of N numbers, repeated; ends with 0 --------------------------------
def read_hdu4127(src: Source) -> list[RawLevel]:
    """Several square boards, each preceded by its size N; the input ends with a line `0` (or the file's end)."""
    return _laid_out(_read_hdu4127, _hdu4127_layout, src)


def _laid_out(read: Callable[[Source], list[RawLevel]], layout, src: Source) -> list[RawLevel]:
    """A judge format read as the judge reads it, a stream of numbers; where that fails in a file laid out in
    lines, and the lines went wrong before the place it failed (a row or query of the wrong length, after which
    everything is read shifted), the first such line is the error reported: the stream's error would blame a
    later line."""
    try:
        return read(src)
    except LevelError as err:
        wrong = layout(src)
        if wrong is not None and err.span is not None and wrong.span.line < err.span.line:
            raise wrong from None
        raise


def _line_span(src: Source, lines: list[str], i: int) -> Span:
    return Span(src, i + 1, 1, i + 1, len(lines[i]) + 1)


def _hdu4127_layout(src: Source) -> LevelError | None:
    """Where a file laid out as HDU 4127's are (its first line the size alone) leaves that layout: the first row
    line that does not hold N numbers, or a case's size line that holds more than the size; else None."""
    lines = _lines(src.text)
    rows = [(i, ln.split()) for i, ln in enumerate(lines) if ln.strip()]
    k, case = 0, 1
    while k < len(rows):
        i, parts = rows[k]
        n = count_value(parts[0])
        if len(parts) != 1 or n is None:
            if case == 1 or n is None:
                return None  # (not laid out in lines from the start, or no size: the stream's error stands)
            return LevelError(f"case {case}: its size should stand alone on its line, which holds "
                              f"{counted(len(parts), 'number')}", _line_span(src, lines, i),
                              "each case is a line `N`, then N lines of N numbers")
        if n == 0:
            return None
        for _ in range(n):
            k += 1
            if k == len(rows):
                return None
            i, parts = rows[k]
            if len(parts) != n:
                return LevelError(f"case {case}: this row has {counted(len(parts), 'number')}, a {n}x{n} board's "
                                  f"rows have {n}", _line_span(src, lines, i),
                                  "each case is a line `N`, then N lines of N numbers")
        k += 1
        case += 1
    return None


def _read_hdu4127(src: Source) -> list[RawLevel]:
    lines = _lines(src.text)
    ints = _Ints(src, lines, 0, len(lines), lenient=True)
    v = ints.values
    if not v:
        raise _empty(src)
    levels = []
    i = 0
    while i < len(v):
        n = ints.at(i)
        if n == 0:
            if i + 1 < len(v):
                raise LevelError("data after the closing `0`", ints.span(i + 1))
            break
        if n < 0:
            raise LevelError(f"a board size must be positive, not {n}", ints.span(i))
        check_size(n, n, ints.span(i))
        cells = v[i + 1: i + 1 + n * n]
        if len(cells) < n * n:
            raise LevelError(f"case {len(levels) + 1} ends early: a {n}x{n} board needs {n * n} numbers, "
                             f"found {len(cells)}", ints.span(i))
        levels.append(RawLevel(f"case {len(levels) + 1}", src, [cells[r * n:(r + 1) * n] for r in range(n)],
                               ints.places(i + 1, n, n), start_line=ints.where(i)[0],
                               error=ints.first_bad(i + 1, i + 1 + n * n)))
        i += 1 + n * n
    if not levels:
        line, col, _ = ints.where(0)
        raise LevelError("no board before the closing `0`", Span(src, line, col, line, col + 1))
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
    """A first line holding one number N, then a row of blank-separated tokens (so not a grid whose first row
    happens to be digits); or a first line holding one number that no grid row of digits is, signed or of more
    than 9 digits (`-3`: its reader says the size must be positive, where the grid's said `ragged grid`)."""
    rows = [ln.split() for ln in text.splitlines() if ln.strip()][:2]
    if not rows or len(rows[0]) != 1 or re.fullmatch(r"[+-]?[0-9]+", rows[0][0]) is None:
        return False
    return (len(rows) == 2 and len(rows[1]) > 1) or not re.fullmatch(r"[0-9]{1,9}", rows[0][0])


# ---- hdu1175: Lianliankan boards, each followed by queries -----------------------------------------------
def read_hdu1175(src: Source) -> list[RawLevel]:
    """Cases of `n m`, n rows of m numbers, `q`, then q lines `x1 y1 x2 y2` (1-based row and column); the input
    ends with `0 0` (or the file's end). Each case is a level whose queries are pairs of cells."""
    return _laid_out(_read_hdu1175, _hdu1175_layout, src)


def _hdu1175_layout(src: Source) -> LevelError | None:
    """Where a file laid out as HDU 1175's are (its first line `n m` alone) leaves that layout: the first line of
    a case that does not hold what it should (m numbers in a row, one in the query count, four in a query)."""
    lines = _lines(src.text)
    rows = [(i, ln.split()) for i, ln in enumerate(lines) if ln.strip()]
    hint = "each case is a line `n m`, n lines of m numbers, a line `q`, then q lines `x1 y1 x2 y2`"

    def wrong(what: str, k: int, want: int):
        i, parts = rows[k]
        return LevelError(f"case {case}: {what} has {counted(len(parts), 'number')}, not {want}",
                          _line_span(src, lines, i), hint)

    k, case = 0, 1
    while k < len(rows):
        i, parts = rows[k]
        size = [count_value(p) for p in parts]
        if len(parts) != 2 or None in size:
            return None if case == 1 or None in size else wrong("this size line", k, 2)
        n, m = size
        if n == 0 and m == 0:
            return None
        for _ in range(n):
            k += 1
            if k == len(rows):
                return None
            if len(rows[k][1]) != m:
                return wrong("this row", k, m)
        k += 1
        if k == len(rows):
            return None
        if len(rows[k][1]) != 1:
            return wrong("this line, the query count,", k, 1)
        q = count_value(rows[k][1][0])
        if q is None:
            return None
        for _ in range(q):
            k += 1
            if k == len(rows):
                return None
            if len(rows[k][1]) != 4:
                return wrong("this query", k, 4)
        k += 1
        case += 1
    return None


def _read_hdu1175(src: Source) -> list[RawLevel]:
    lines = _lines(src.text)
    ints = _Ints(src, lines, 0, len(lines), lenient=True)
    v = ints.values
    if not v:
        raise _empty(src)

    def take(i, count, what, numbers=True):
        """Numbers i.. of what the input says next; with `numbers`, a wrong one raised (a size, a count)."""
        if i + count > len(v):
            raise LevelError(f"the input ends early: {what} needs {count} numbers, found {len(v) - i}",
                             ints.span(i - 1 if i > 0 else 0))
        return [ints.at(k) for k in range(i, i + count)] if numbers else v[i:i + count]

    levels = []
    i = 0
    while i < len(v):
        n, m = take(i, 2, f"the size of case {len(levels) + 1}")
        if n == 0 and m == 0:
            if i + 2 < len(v):
                raise LevelError("data after the closing `0 0`", ints.span(i + 2))
            break
        for k, size in ((i, n), (i + 1, m)):
            if size <= 0:
                raise LevelError(f"a board size must be positive, not {size}", ints.span(k))
        rows, cols = n, m
        case = f"case {len(levels) + 1}"
        head, first = ints.where(i)[0], i + 2
        cells = take(first, rows * cols, f"the {rows}x{cols} board of {case}", numbers=False)
        error = ints.first_bad(first, first + rows * cols)  # (the case's own: the other cases are still read)
        i += 2 + rows * cols
        (q,) = take(i, 1, f"the query count of {case}")
        if q < 0:
            raise LevelError(f"a query count cannot be negative ({q})", ints.span(i))
        i += 1
        if 4 * q > len(v) - i:  # (at the count, which asks for more queries than the file holds)
            k = (len(v) - i) // 4
            follow = "1 query follows it" if k == 1 else f"{k:,} queries follow it"
            raise LevelError(f"the input ends early: the query count of {case} says {q:,}, but {follow}",
                             ints.span(i - 1),
                             "each query is a line `x1 y1 x2 y2`; make the count the number of query lines")
        queries, wrong = [], None
        for k in range(q):
            x1, y1, x2, y2 = take(i, 4, f"query {k + 1} of {case}", numbers=False)
            wrong = wrong or ints.first_bad(i, i + 4)
            for j, (r, c) in enumerate(((x1, y1), (x2, y2))):
                if not (1 <= r <= rows and 1 <= c <= cols) and wrong is None:
                    wrong = LevelError(f"query {k + 1} of {case} names the cell {r},{c}, outside the "
                                       f"{rows}x{cols} board", ints.span(i + 2 * j, i + 2 * j + 1))
            queries.append((((x1 - 1, y1 - 1), (x2 - 1, y2 - 1)), ints.span(i, i + 3)))
            i += 4
        levels.append(RawLevel(case, src, [cells[r * cols:(r + 1) * cols] for r in range(rows)],
                               ints.places(first, rows, cols), start_line=head, queries=queries, error=error,
                               query_error=wrong))
    if not levels:
        raise LevelError("no board before the closing `0 0`", ints.span(0))
    return levels


def _looks_hdu1175(text: str) -> bool:
    """A first line holding two numbers written plainly (`n m`), then a row of several numbers."""
    rows = [ln.split() for ln in text.splitlines() if ln.strip()][:2]
    return (len(rows) == 2 and len(rows[0]) == 2 and all(map(_plain_size, ([p] for p in rows[0])))
            and len(rows[1]) > 1 and all(re.fullmatch(r"[+-]?[0-9]+", p) for p in rows[1]))


def sniff_hdu1175(text: str) -> bool:
    """`n m`, then n rows of m numbers, then a line holding one number (the query count)."""
    rows = [ln.split() for ln in text.splitlines() if ln.strip()]
    if not rows or len(rows[0]) != 2 or None in (size := [count_value(p) for p in rows[0]]):
        return False
    n, m = size
    if n == 0 and m == 0:
        return True
    return len(rows) > n + 1 and all(len(r) == m for r in rows[1:n + 1]) and len(rows[n + 1]) == 1


from .bloxorz import (  # noqa: E402
    looks_bloxorz_seed002, read_bloxorz, read_bloxorz_seed002, sniff_bloxorz, sniff_bloxorz_seed002,
)

READERS: dict[str, Reader] = {
    r.name: r
    for r in (
        Reader("hdu4127", read_hdu4127, sniff_hdu4127,
               "HDU 4127 input: cases of `N` then N rows of N numbers; ends with `0`", _looks_hdu4127,
               _hdu4127_layout),
        Reader("hdu1175", read_hdu1175, sniff_hdu1175,
               "HDU 1175 input: cases of `n m`, n rows of m numbers, `q` and q queries `x1 y1 x2 y2`; ends with `0 0`",
               _looks_hdu1175, _hdu1175_layout),
        Reader("bloxorz_seed002", read_bloxorz_seed002, sniff_bloxorz_seed002,
               "seed 002's Bloxorz map: `N M`, the map, split, switch and bridge lines", looks_bloxorz_seed002),
        Reader("bloxorz", read_bloxorz, sniff_bloxorz,
               "gridrules' Bloxorz format: the map, `---`, then teleport/switch/bridge lines"),
        Reader("numbers", read_numbers, sniff_numbers, "rows of blank-separated numbers, one level per file"),
        Reader("grid", read_grid, lambda text: True, "rows of characters, one per cell"),
    )
}
