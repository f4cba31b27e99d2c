"""Seed 002's Bloxorz level format, with the spec's extensions (open-only switches, per-bridge operations).

The reader turns the file into cell characters (the rule file's legend gives them meaning) and these named
values, which the rule file declares as static globals (and `bridge` as a dynamic one):
  switch_heavy[19]      bool, per switch letter A..S: pressed only by the standing block (`X`) or by any touch (`O`)
  switch_ops[19, 26]    per switch and bridge letter: "keep", "toggle", "open" or "close"
  split_first[5], split_second[5]   per split letter T..X: the two cubes' cells; the first is active
  present[26]           per bridge letter a..z: whether the bridge is there at the start
"""
from __future__ import annotations

import re

from ..errors import LevelError, Source, Span, counted
from . import _COUNT, count_value  # (defined before levels/__init__ imports this module, at its end)

SWITCHES = "ABCDEFGHIJKLMNOPQRS"
SPLITS = "TUVWX"
BRIDGES = "abcdefghijklmnopqrstuvwxyz"
_KIND = {"T": "toggle", "F": "close", "N": "open"}
_SUFFIX = {"+": "open", "-": "close", "^": "toggle"}


def _size(text: str) -> int | None:
    """A header's size, sign and all (no map row of either format reads like `-7 13`: its errors are this
    format's, not the other's)."""
    return int(text) if re.fullmatch(r"-?[0-9]{1,18}", text) else None


def sniff_bloxorz_seed002(text: str) -> bool:
    for ln in text.splitlines():
        if ln.strip():
            parts = ln.split()
            return len(parts) == 2 and all(_size(p) is not None for p in parts)
    return False


def read_bloxorz_seed002(src: Source):
    from . import RawLevel, _empty, _lines, check_size

    lines = _lines(src.text)
    i = 0
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i == len(lines):
        raise _empty(src)
    head = lines[i].split()
    if len(head) != 2 or None in (size := [_size(p) for p in head]):
        raise LevelError("expected the map size `ROWS COLS` on the first line", Span(src, i + 1, 1, i + 1, len(lines[i]) + 1),
                         "seed 002's levels start with the map's size (e.g. `6 10`); a level in gridrules' own format "
                         "has no size line but a line `---` after its map")
    n, m = size
    if n < 1 or m < 1:
        raise LevelError(f"a map needs at least one row and one column, not {n} x {m}", Span(src, i + 1, 1, i + 1, len(lines[i]) + 1))
    check_size(n, m, Span(src, i + 1, 1, i + 1, len(lines[i]) + 1))
    map_lines = lines[i + 1: i + 1 + n]
    if len(map_lines) < n:
        col = lines[i].index(head[0]) + 1
        have = len(map_lines) - (1 if map_lines and map_lines[-1] == "" else 0)  # not the newline ending the file
        raise LevelError(f"the header says {n} rows, but the file has only {have} lines after it",
                         Span(src, i + 1, col, i + 1, col + len(head[0])))
    tokens, positions = [], []
    for k, row in enumerate(map_lines):
        line = i + 2 + k
        row = row.rstrip("\r")
        # (the header counts more rows than the map has, where the rest reads as split, bridge or switch lines: a
        # split or bridge line is no map row, as no map cell is a digit; a switch line, too long to be one)
        if _describes(row) and _all_describe(map_lines[k:]):
            raise _counted_too_many(src, n, m, map_lines, k, line, "is")
        if len(row.rstrip()) > m:
            if _switch_line(row) and _all_describe(map_lines[k:]):
                raise _counted_too_many(src, n, m, map_lines, k, line, "reads like")
            raise LevelError(f"this map row is longer than the {m} columns the header gives",
                             Span(src, line, m + 1, line, len(row) + 1))
        row = row[:m].ljust(m)
        tokens.append(list(row))
        positions.append([(line, c + 1) for c in range(m)])
    present = {ch for row in tokens for ch in row}
    heavy = [False] * len(SWITCHES)
    ops = [["keep"] * len(BRIDGES) for _ in SWITCHES]
    first: list = [None] * len(SPLITS)
    second: list = [None] * len(SPLITS)
    bridge = [False] * len(BRIDGES)
    seen: dict[str, int] = {}
    named: dict[str, Span] = {}  # a bridge letter a switch names -> that switch line (the first)
    for k in range(i + 1 + n, len(lines)):
        raw = lines[k]
        line = k + 1
        text = raw.strip()
        if not text:
            continue
        col0 = raw.index(text[0]) + 1
        span = Span(src, line, col0, line, col0 + len(text))
        letter = text[0]
        if letter in seen:
            raise LevelError(f"`{letter}` is described twice (first on line {seen[letter]})", span)
        seen[letter] = line
        parts = text.split()
        if letter in SPLITS:
            nums = parts[1:]
            values = [count_value(p) for p in nums]
            if len(parts[0]) != 1 or len(nums) != 4 or None in values:
                raise LevelError(f"a split line reads `{letter} r1 c1 r2 c2`", span)
            r1, c1, r2, c2 = values
            for r, c in ((r1, c1), (r2, c2)):
                if not (1 <= r <= n and 1 <= c <= m):
                    raise LevelError(f"split target ({r}, {c}) is outside the {n} x {m} map", span)
            first[SPLITS.index(letter)] = (r1 - 1, c1 - 1)
            second[SPLITS.index(letter)] = (r2 - 1, c2 - 1)
        elif letter in SWITCHES:
            if len(parts) < 3 or len(parts[0]) != 1 or parts[1] not in _KIND or parts[2] not in ("X", "O"):
                raise LevelError(f"a switch line reads `{letter} T|F|N X|O bridges...`", span)
            s = SWITCHES.index(letter)
            heavy[s] = parts[2] == "X"
            for part in parts[3:]:
                for b, suffix in re.findall(r"(.)([+\-^]?)", part):
                    if b not in BRIDGES:
                        raise LevelError(f"`{b}` is not a bridge letter (a..z)", span)
                    ops[s][BRIDGES.index(b)] = _SUFFIX[suffix] if suffix else _KIND[parts[1]]
                    named.setdefault(b, span)
        elif letter in BRIDGES:
            if len(parts) != 2 or len(parts[0]) != 1 or parts[1] not in ("0", "1"):
                raise LevelError(f"a bridge line reads `{letter} 0` (absent) or `{letter} 1` (present)", span)
            bridge[BRIDGES.index(letter)] = parts[1] == "1"
        else:
            raise LevelError(f"unexpected line: a split (T..X), switch (A..S) or bridge (a..z) line starts with "
                             f"its letter, not `{letter}`", span)
    for ch in sorted(present):
        if (ch in SPLITS or ch in SWITCHES or ch in BRIDGES) and ch not in seen:
            # (a switch line read as a map row makes letters no line describes: when the map ends in such rows,
            # the header counted them, and saying so is the useful message)
            tail = len(map_lines)
            while tail > 0 and _switch_line(map_lines[tail - 1]):
                tail -= 1
            above = {cell for row in tokens[:tail] for cell in row}
            # (such a row's own switch undescribed, though the map above holds it: its line, read as a row)
            if any(row.strip()[0] not in seen and row.strip()[0] in above for row in map_lines[tail:]):
                raise _counted_too_many(src, n, m, map_lines, tail, i + 2 + tail, "reads like")
            kind = "split" if ch in SPLITS else "switch" if ch in SWITCHES else "bridge"
            r = next(r for r, row in enumerate(tokens) if ch in row)
            c = tokens[r].index(ch)
            line, col = positions[r][c]
            raise LevelError(f"{kind} `{ch}` is on the map but has no line describing it", Span(src, line, col, line, col + 1))
    _bridges_described(named, seen, "a line `{b} 0` or `{b} 1`")
    values = {"switch_heavy": heavy, "switch_ops": ops, "split_first": first, "split_second": second,
              "present": bridge}
    return [RawLevel(src.path, src, tokens, positions, values, start_line=i + 1)]


def _describes(row: str) -> bool:
    """Whether a line is certainly a split or bridge line (a letter, then numbers), not a map row: no map cell is
    a digit. (A switch line, `A T X a`, is also a map row of cells: _switch_line.)"""
    parts = row.split()
    return (len(parts) >= 2 and parts[0] in SPLITS + BRIDGES and len(parts[0]) == 1
            and all(p.isdigit() for p in parts[1:]))


_SWITCH_LINE = re.compile(r"\s*[A-S]\s+[TFN]\s+[XO](\s+[a-z+\-^]+)*\s*")


def _switch_line(row: str) -> bool:
    """Whether a line has a switch line's shape (`A T X ab`). Such a line is also a row of map cells, so it is
    taken for a switch line only where the map would otherwise be wrong: its row too long, or a letter of the
    map left undescribed."""
    return _SWITCH_LINE.fullmatch(row.rstrip("\r")) is not None


def _all_describe(rows: list) -> bool:
    """Whether every one of these lines reads as a split, bridge or switch line."""
    return all(_describes(r.rstrip("\r")) or _switch_line(r) for r in rows)


def _counted_too_many(src, n: int, m: int, map_lines: list, k: int, line: int, how: str) -> LevelError:
    """The header counts the map's row k + 1 (on `line`), which `how` ("is", "reads like") a split, bridge or
    switch line: the map has k rows."""
    row = map_lines[k].rstrip("\r")
    text = row.strip()
    kind = "split" if text[0] in SPLITS else "bridge" if text[0] in BRIDGES else "switch"
    col = row.index(text[0]) + 1
    return LevelError(f"the header says {n} rows, but this line, the map's row {k + 1}, {how} a {kind} line",
                      Span(src, line, col, line, col + len(text)),
                      f"the map has {counted(k, 'row')}: make the header `{k} {m}`" if k else None)


# ---- gridrules' own Bloxorz format -------------------------------------------------------------
# The map (as in seed 002, rows may be short or empty), a line `---`, then one line per fact:
#   teleport T: 2,8 2,6          the cubes' cells, 1-based row,col; the first is the active cube
#   switch A heavy: a toggle, b open, c close      (soft or heavy; toggle, open or close per bridge)
#   bridge a: present | absent
# Blank lines and `#` comments are allowed after the map.
_OWN_LINE = re.compile(r"^(teleport|switch|bridge)\s+(\S+)\s*(soft|heavy)?\s*:\s*(.*)$")
_OPS = ("toggle", "open", "close")


def _no_separator(src, lines: list, fact: int) -> LevelError:
    """The map runs into its facts (the first on line fact + 1) without a line `---` between them."""
    return LevelError("expected a line `---` after the map", Span(src, fact + 1, 1, fact + 1, len(lines[fact]) + 1),
                      "put `---` on a line of its own between the map and its teleport/switch/bridge lines")


def sniff_bloxorz(text: str) -> bool:
    return any(ln.strip() == "---" for ln in text.splitlines())


def looks_bloxorz_seed002(text: str) -> bool:
    """No line `---` and no teleport/switch/bridge line of the own format: a seed-002 level whose size line is
    wrong or missing (`a b`), which its reader reports at the first line, rather than an own-format level whose
    `---` is missing at the end of the file."""
    return not any(ln.strip() == "---" or _OWN_LINE.match(ln.strip()) for ln in text.splitlines())


def read_bloxorz(src: Source):
    from . import RawLevel, _empty, _lines

    lines = _lines(src.text)
    if not src.text.strip():
        raise _empty(src)
    try:
        # the last `---` line: a map row of fragile tiles may read `---` too, a fact line never does
        sep = max(i for i, ln in enumerate(lines) if ln.strip() == "---")
    except ValueError:
        fact = next((i for i, ln in enumerate(lines) if _OWN_LINE.match(ln.strip())), None)
        if fact is not None:  # the facts are there: `---` is missing before the first one
            raise _no_separator(src, lines, fact) from None
        end = max((i for i, ln in enumerate(lines) if ln.strip()), default=0)  # after the last non-blank line
        raise LevelError("expected a line `---` after the map", Span(src, end + 1, len(lines[end]) + 1, end + 1,
                                                                     len(lines[end]) + 2)) from None
    fact = next((i for i in range(sep) if _OWN_LINE.match(lines[i].strip())), None)
    if fact is not None and not any(lines[i].strip() == "---" for i in range(fact)):  # (none between map and facts)
        raise _no_separator(src, lines, fact)
    if fact is not None:  # (a fact line before the last `---`: a second `---` follows the facts)
        extra = next(i for i in range(fact + 1, sep + 1) if lines[i].strip() == "---")
        col = lines[extra].index("-") + 1
        raise LevelError("a second line `---`: the facts after the map end the level",
                         Span(src, extra + 1, col, extra + 1, col + 3),
                         f"remove it: the lines before it, from line {fact + 1}, are read as map rows while it is "
                         "there")
    first = next((i for i in range(sep) if lines[i].strip()), None)
    if first is None:
        raise LevelError("the map before `---` is empty", Span(src, sep + 1, 1, sep + 1, 4))
    last = max(i for i in range(sep) if lines[i].strip())
    rows = [lines[i] for i in range(first, last + 1)]  # trailing blanks are void cells; they count for width
    m = max(len(r) for r in rows)
    tokens = [list(r.ljust(m)) for r in rows]
    positions = [[(first + 1 + k, c + 1) for c in range(m)] for k in range(len(rows))]
    n = len(rows)
    heavy = [False] * len(SWITCHES)
    ops = [["keep"] * len(BRIDGES) for _ in SWITCHES]
    first_cube: list = [None] * len(SPLITS)
    second_cube: list = [None] * len(SPLITS)
    present = [False] * len(BRIDGES)
    seen: dict[str, int] = {}
    named: dict[str, Span] = {}  # (as in read_bloxorz_seed002)
    for k in range(sep + 1, len(lines)):
        raw = lines[k].split("#")[0].rstrip()
        line = k + 1
        if not raw.strip():
            continue
        col0 = len(raw) - len(raw.lstrip()) + 1
        span = Span(src, line, col0, line, len(raw) + 1)
        mt = _OWN_LINE.match(raw.strip())
        if not mt:
            raise LevelError("expected `teleport X: r,c r,c`, `switch A soft|heavy: a toggle, ...` or "
                             "`bridge a: present|absent`", span)
        kind, letter, weight, rest = mt.groups()
        if letter in seen:
            raise LevelError(f"`{letter}` is described twice (first on line {seen[letter]})", span)
        seen[letter] = line
        if kind == "teleport":
            if letter not in SPLITS:
                raise LevelError(f"a teleport is one of the letters {SPLITS}, not `{letter}`", span)
            at = f"({_COUNT.pattern})"  # (a coordinate, as count_value reads one)
            cells = re.fullmatch(rf"\s*{at}\s*,\s*{at}\s+{at}\s*,\s*{at}\s*", rest)
            if not cells:
                raise LevelError("a teleport line reads `teleport T: r1,c1 r2,c2` (1-based)", span)
            r1, c1, r2, c2 = (int(x) for x in cells.groups())
            for r, c in ((r1, c1), (r2, c2)):
                if not (1 <= r <= n and 1 <= c <= m):
                    raise LevelError(f"teleport target {r},{c} is outside the {n} x {m} map", span)
            first_cube[SPLITS.index(letter)] = (r1 - 1, c1 - 1)
            second_cube[SPLITS.index(letter)] = (r2 - 1, c2 - 1)
        elif kind == "switch":
            if letter not in SWITCHES:
                raise LevelError(f"a switch is one of the letters {SWITCHES}, not `{letter}`", span)
            if weight is None:
                raise LevelError("say whether the switch is `soft` or `heavy`: `switch A soft: a toggle`", span)
            s = SWITCHES.index(letter)
            heavy[s] = weight == "heavy"
            for part in (p.strip() for p in rest.split(",") if p.strip()):
                words = part.split()
                if len(words) != 2 or words[0] not in BRIDGES or words[1] not in _OPS:
                    raise LevelError(f"`{part}`: each effect reads `BRIDGE toggle|open|close`, e.g. `a toggle`", span)
                ops[s][BRIDGES.index(words[0])] = words[1]
                named.setdefault(words[0], span)
        else:
            if letter not in BRIDGES:
                raise LevelError(f"a bridge is one of the letters a..z, not `{letter}`", span)
            if rest.strip() not in ("present", "absent"):
                raise LevelError("a bridge line reads `bridge a: present` or `bridge a: absent`", span)
            present[BRIDGES.index(letter)] = rest.strip() == "present"
    for ch in sorted({ch for row in tokens for ch in row}):
        if (ch in SPLITS or ch in SWITCHES or ch in BRIDGES) and ch not in seen:
            kind = "teleport" if ch in SPLITS else "switch" if ch in SWITCHES else "bridge"
            r = next(r for r, row in enumerate(tokens) if ch in row)
            line, col = positions[r][tokens[r].index(ch)]
            raise LevelError(f"{kind} `{ch}` is on the map but has no `{kind} {ch}: ...` line",
                             Span(src, line, col, line, col + 1))
    _bridges_described(named, seen, "a line `bridge {b}: present` or `bridge {b}: absent`")
    values = {"switch_heavy": heavy, "switch_ops": ops, "split_first": first_cube, "split_second": second_cube,
              "present": present}
    return [RawLevel(src.path, src, tokens, positions, values, start_line=first + 1)]


def _bridges_described(named: dict, seen: dict, wanted: str) -> None:
    """A bridge a switch names has a line of its own (a typo'd letter would otherwise switch nothing, silently)."""
    for b, span in named.items():
        if b not in seen:
            raise LevelError(f"a switch names bridge `{b}`, which no line describes", span,
                             f"add {wanted.format(b=b)}, or name a bridge the level has")
