"""The number formats' readers: every cell's value, and the place an error about it points at (worked out only
when asked), on boards written with any blanks between numbers and, in the judges' formats, rows broken across
lines anywhere."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridrules.errors import Source
from gridrules.levels import READERS

numbers = st.integers(-99, 999)
blanks = st.sampled_from([" ", "  ", "\t", " \t ", "\u00a0", " \u3000"])  # (str.split blanks)


def _written(draw, values):
    """Each value's text (rows of ints): its digits, some non-negative ones with a `+`."""
    return [[draw(st.sampled_from([str(v), f"+{v}"] if v >= 0 else [str(v)])) for v in row] for row in values]


def _place(text: str, line: int, col: int) -> str:
    """The text at a 1-based line and column, to the next blank."""
    rest = text.split("\n")[line - 1][col - 1:]
    return rest.split()[0] if rest.split() else ""


def _check(raw, values, texts, source):
    assert raw.tokens == values
    for r, row in enumerate(values):
        for c in range(len(row)):
            span = raw.span(r, c)
            assert span.line == span.end_line and span.end_col - span.col == len(texts[r][c])
            assert _place(source, span.line, span.col) == texts[r][c]


@settings(max_examples=60, deadline=None)
@given(st.data(), st.integers(1, 5), st.integers(1, 5))
def test_numbers_rows(data, rows, cols):
    values = [[data.draw(numbers) for _ in range(cols)] for _ in range(rows)]
    texts = _written(data.draw, values)
    lines = [data.draw(blanks).join(row) + data.draw(st.sampled_from(["", " "])) for row in texts]
    source = "\n" * data.draw(st.integers(0, 2)) + "\n".join(lines) + "\n"
    (raw,) = READERS["numbers"].read(Source("<level>", source))
    _check(raw, values, texts, source)


def _stream(draw, texts: list[str]) -> str:
    """Numbers broken into lines anywhere (a judge reads them as a stream)."""
    out, line = [], []
    for t in texts:
        line.append(t)
        if draw(st.integers(0, 3)) == 0:
            out.append(draw(blanks).join(line))
            line = []
    out.append(" ".join(line))
    return "\n".join(out) + "\n"


@settings(max_examples=60, deadline=None)
@given(st.data(), st.lists(st.integers(1, 4), min_size=1, max_size=3))
def test_hdu4127_cases(data, sizes):
    cases = [[[data.draw(st.integers(0, 5)) for _ in range(n)] for _ in range(n)] for n in sizes]
    written = [_written(data.draw, case) for case in cases]
    flat = []
    for n, texts in zip(sizes, written):
        flat += [str(n)] + [t for row in texts for t in row]
    source = _stream(data.draw, flat + ["0"])
    raws = READERS["hdu4127"].read(Source("<level>", source))
    assert [raw.name for raw in raws] == [f"case {k + 1}" for k in range(len(sizes))]
    for raw, case, texts in zip(raws, cases, written):
        _check(raw, case, texts, source)


@settings(max_examples=60, deadline=None)
@given(st.data(), st.integers(1, 4), st.integers(1, 4), st.integers(0, 3))
def test_hdu1175_board_and_queries(data, rows, cols, q):
    values = [[data.draw(st.integers(0, 4)) for _ in range(cols)] for _ in range(rows)]
    texts = _written(data.draw, values)
    cells = st.tuples(st.integers(1, rows), st.integers(1, cols))
    asked = [(data.draw(cells), data.draw(cells)) for _ in range(q)]
    flat = [str(rows), str(cols)] + [t for row in texts for t in row] + [str(q)]
    for (a, b), (c, d) in asked:
        flat += [str(a), str(b), str(c), str(d)]
    source = _stream(data.draw, flat + ["0", "0"])
    (raw,) = READERS["hdu1175"].read(Source("<level>", source))
    _check(raw, values, texts, source)
    assert [cells for cells, _ in raw.queries] == [((a - 1, b - 1), (c - 1, d - 1)) for (a, b), (c, d) in asked]
    for ((a, b), (c, d)), (_, span) in zip(asked, raw.queries):
        assert _place(source, span.line, span.col) == str(a)


# Tokens that look like numbers to str.isdigit() or `\d` but not to int(), or that int() refuses for their length.
_ODD_NUMBERS = st.sampled_from(["1\u00b2", "\u0663", "\u00bd", "1_0", "+", "-", "0" * 30, "9" * 4400, "12", "0", "3"])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(_ODD_NUMBERS, min_size=1, max_size=5), min_size=1, max_size=4))
def test_every_format_sniffs_and_reads_odd_numbers_without_crashing(rows):
    """A level's format is guessed before it is read: each sniff answers True or False on any text (a size `1²`
    once made int() raise inside the HDU 1175 and seed-002 sniffs), and each reader either reads the text or
    says where it is wrong (a LevelError), never anything else."""
    from gridrules.errors import LevelError

    text = "\n".join(" ".join(row) for row in rows) + "\n"
    for reader in READERS.values():
        assert reader.sniff(text) in (True, False)
        try:
            reader.read(Source("odd.txt", text))
        except LevelError as err:
            assert err.span is not None


# A file's levels of one shape share what instantiate works out from the rules (instance._setup); each level
# still gets its own set-up: its own loop rounds, its own cells, and the errors of its own parameters.
COUNTER = """game counter
param n: int = 100
layer v: 0..5
global total: 0..1000000

action poke(p: cell) "{p}":
    v[p] = 0

goal: empty(cells where v != 0)

init:
    for i in 1..n:
        total = total + v[(0, 0)]

level hdu4127:
    * : v = value
"""


def _counter_levels(tmp_path, text: str, params=None):
    from gridrules.api import load

    rules = tmp_path / "counter.grl"
    rules.write_text(COUNTER)
    level = tmp_path / "levels.txt"
    level.write_text(text)
    return load(str(rules), str(level), params)


def test_levels_that_share_a_setup_each_get_their_own_cells_and_loop_rounds(tmp_path, monkeypatch):
    from gridrules.reference import evaluator

    monkeypatch.setattr(evaluator, "MAX_SETUP_ROUNDS", 150)  # (3x3: 150 rounds a level; `init` takes 100)
    insts = _counter_levels(tmp_path, "3\n1 0 0\n0 2 0\n0 0 3\n3\n2 0 0\n0 0 0\n0 0 0\n3\n0 4 0\n0 0 0\n0 0 0\n0\n")
    assert [i.statics["total"] for i in insts] == [100, 200, 0]  # (no move stores it: the level's)
    assert [i.values(i.initial)["v"][:2] for i in insts] == [[1, 0], [2, 0], [0, 4]]
    assert insts[0].params is insts[1].params  # (one setup for the three)


def test_a_setup_that_fails_is_not_kept_and_a_loop_too_long_is_still_caught(tmp_path, monkeypatch):
    from gridrules import instance
    from gridrules.api import compile_rules, detect_format
    from gridrules.errors import LevelError, UsageError
    from gridrules.reference import evaluator

    two = "3\n1 0 0\n0 0 0\n0 0 0\n3\n1 0 0\n0 0 0\n0 0 0\n0\n"
    game, _ = compile_rules(COUNTER, "<rules>")
    fmt = detect_format(game, two, None)
    for raw in READERS[fmt.format].read(Source("<level>", two)):  # (one game and format: one setup's key)
        with pytest.raises(UsageError, match="unknown parameter `m`"):
            instance.instantiate(game, raw, fmt, {"m": 1})
        assert not any(kept[0] is game for kept in instance._SETUPS.values())
    monkeypatch.setattr(evaluator, "MAX_SETUP_ROUNDS", 150)
    with pytest.raises(LevelError, match="loops have run 150 times"):
        _counter_levels(tmp_path, two, {"n": 151})
