"""The compiled backend's bitboard helpers against plain Python sets of (row, col) cells.

Games exercise these on small boards only; here boards go up to 70 columns, so shifts by a row cross word
boundaries (cols >= 64) and rows straddle words.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

pytest.importorskip("numba")
from gridrules.compiled import runtime as rt  # noqa: E402


def pack(cells, rows, cols):
    k = max(1, -(-(rows * cols) // 64))
    out = np.zeros(k, np.uint64)
    for r, c in cells:
        i = r * cols + c
        out[i >> 6] |= np.uint64(1) << np.uint64(i & 63)
    return out


def unpack(words, rows, cols):
    return {(i // cols, i % cols) for i in range(rows * cols) if (int(words[i >> 6]) >> (i & 63)) & 1}


def masks(rows, cols):
    every = {(r, c) for r in range(rows) for c in range(cols)}
    return (pack({x for x in every if x[1] != 0}, rows, cols), pack({x for x in every if x[1] != cols - 1}, rows, cols),
            pack(every, rows, cols))


def step(cells, rows, cols):
    return {(r + dr, c + dc) for r, c in cells for dr, dc in ((0, 1), (0, -1), (1, 0), (-1, 0))
            if 0 <= r + dr < rows and 0 <= c + dc < cols}


@st.composite
def boards(draw):
    rows, cols = draw(st.integers(1, 9)), draw(st.sampled_from([1, 2, 3, 7, 8, 13, 63, 64, 65, 70]))
    cells = st.tuples(st.integers(0, rows - 1), st.integers(0, cols - 1))
    return rows, cols, draw(st.sets(cells, max_size=30)), draw(st.sets(cells, max_size=200))


@settings(max_examples=150, deadline=None)
@given(boards())
def test_grow_border_flood_match_python_sets(board):
    rows, cols, a, allowed = board
    nl, nr, full = masks(rows, cols)
    pa = pack(a, rows, cols)
    out, scratch = np.full_like(pa, 12345), np.full_like(pa, 999)  # (stale contents must not matter)
    rt.grow_into(pa, out, cols, len(pa), nl, nr, full)
    assert unpack(out, rows, cols) == a | step(a, rows, cols)
    assert unpack(rt.border_into(pa, out, cols, len(pa), nl, nr, full), rows, cols) == step(a, rows, cols) - a
    region, frontier = set(a), set(a)
    while frontier:
        frontier = (step(frontier, rows, cols) & allowed) - region
        region |= frontier
    flooded = rt.flood_into(pa, pack(allowed, rows, cols), out, scratch, cols, len(pa), nl, nr, full)
    assert flooded is out and unpack(out, rows, cols) == region


@settings(max_examples=150, deadline=None)
@given(boards(), st.integers(-1, 8 * 70 - 1))
def test_elementwise_helpers_match_python_sets(board, i):
    """The `_into` helpers write their result into `out`, which may be one of their inputs."""
    rows, cols, a, b = board
    pa, pb = pack(a, rows, cols), pack(b, rows, cols)
    for name, expected in (("union_into", a | b), ("minus_into", a - b)):
        fn = getattr(rt, name)
        assert unpack(fn(pa, pb, np.full_like(pa, 7)), rows, cols) == expected
        assert unpack(fn(pa.copy(), pb, pa.copy()), rows, cols) == expected
        aliased = pa.copy()
        assert unpack(fn(aliased, pb, aliased), rows, cols) == expected  # out is the first input
    assert unpack(rt.copy_into(pa, np.full_like(pa, 7)), rows, cols) == a
    assert unpack(rt.empty_into(np.full_like(pa, 7)), rows, cols) == set()
    inside = i if i < rows * cols else -1
    one = rt.single_into(inside, np.full_like(pa, 7))
    assert unpack(one, rows, cols) == ({(inside // cols, inside % cols)} if inside >= 0 else set())
    assert rt.count(pa) == len(a) and rt.nonempty(pa) == bool(a) and rt.same(pa, pack(set(a), rows, cols))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 63), min_size=1, max_size=150), st.sets(st.integers(0, 149)), st.integers(-3, 3))
def test_distinct_in(values, cells, lo):
    """distinct_in: the values a layer row takes over a set, as `distinct` counts them."""
    row = np.array([v + lo for v in values], np.int64)
    inside = {i for i in cells if i < len(values)}
    words = np.zeros(-(-len(values) // 64), np.uint64)
    for i in inside:
        words[i >> 6] |= np.uint64(1) << np.uint64(i & 63)
    assert rt.distinct_in(row, words, lo, 64) == len({values[i] for i in inside})


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(-2, 5), min_size=1, max_size=150), st.integers(-1, 2))
def test_value_masks_and_counts(row, lo):
    values = np.array(row, np.int64)
    k = -(-len(row) // 64)
    found = rt.value_masks(values, lo, 4, k, np.full((4, k), 7, np.uint64))
    for j in range(4):
        expected = {i for i, v in enumerate(row) if v == lo + j}
        got = {i for i in range(len(row)) if (int(found[j][i >> 6]) >> (i & 63)) & 1}
        assert got == expected
        assert rt.count(found[j]) == len(expected)
        assert rt.first(found[j]) == (min(expected) if expected else -1)
        assert rt.same(found[j], rt.equal_mask(values, lo + j, k))


@given(st.integers(0, 63))
def test_bit_index(b):
    assert rt.bit_index(np.uint64(1) << np.uint64(b)) == b


@given(st.lists(st.one_of(st.integers(-3, 40), st.integers(-(1 << 62), 1 << 62),
                          st.sampled_from([-(1 << 63), (1 << 63) - 1])), max_size=300))
def test_distinct_count(values):
    """Both ways of counting (a table for a narrow span of values, a heap sort for a wide one, spans past int64
    included)."""
    assert rt.distinct_count(np.array(values, np.int64)) == len(set(values))


@settings(max_examples=150, deadline=None)
@given(st.one_of(st.lists(st.integers(-2**40, 2**40), max_size=60),
                 st.lists(st.integers(-5, 300), max_size=60),
                 st.lists(st.integers(-5, 300), max_size=60, unique=True),
                 st.lists(st.sampled_from([-(1 << 63), (1 << 63) - 1, 0, -1]), max_size=8)), st.data())
def test_sort_and_argsort(values, data):
    """Every way of sorting: a bit row for distinct values in a narrow span (duplicates fall back), counting for
    keys in a narrow span, a heap sort otherwise (spans past int64 included)."""
    n = data.draw(st.integers(0, len(values)))
    a = np.array(values + [7], np.int64)  # (an entry past n that must stay where it is)
    rt.sort_ints(a, n)
    assert a[:n].tolist() == sorted(values[:n]) and a[n:].tolist() == values[n:] + [7]
    keys = np.array(values + [0], np.int64)
    order = np.full(len(keys), -1, np.int64)
    rt.argsort_ints(keys, n, order)
    assert order[:n].tolist() == sorted(range(n), key=lambda i: (values[i], i))


@pytest.mark.parametrize("ruleset", ["bloxorz", "drops", "floodit", "lianliankan", "splashback"])
def test_generated_modules_sort_only_with_the_runtime(ruleset, root):
    """numba names the machine code of its own sort and argsort by a per-process counter: two cached modules
    built in different processes may each hold one under the same name, and once both are loaded a call can run
    the other (a module's in-place sort ran another module's argsort, leaving the array unsorted). Generated
    code sorts with runtime.sort_ints / argsort_ints only."""
    import re

    from gridrules import api
    from gridrules.compiled.codegen import generate
    from gridrules.reference.system import interpreter

    level = sorted((root / "rulesets" / ruleset / "levels").glob("*"))[0]
    inst = api.load(ruleset, level)[0]
    source = generate(inst, None, interpreter(inst))[0]
    assert not re.search(r"\.sort\(|np\.sort|argsort\(", source.replace("rt.argsort_ints(", ""))


@settings(max_examples=150, deadline=None)
@given(boards(), st.data())
def test_group_matches_python(board, data):
    """group_into over the equal edges of same_masks_into: the seeds' equal-value components, by a plain BFS."""
    rows, cols, seeds, _ = board
    values = data.draw(st.lists(st.integers(0, 2), min_size=rows * cols, max_size=rows * cols))
    nl, nr, full = masks(rows, cols)
    right, down = np.full_like(full, 5), np.full_like(full, 9)  # (stale contents must not matter)
    rt.same_masks_into(np.array(values, np.int64), right, down, rows * cols, cols)
    out = np.full_like(full, 3)  # (nor what `out` held)
    got = rt.group_into(pack(seeds, rows, cols), right, down, out, cols, len(out), full)
    reached, todo = set(seeds), list(seeds)
    while todo:
        r, c = todo.pop()
        for x in step({(r, c)}, rows, cols) - reached:
            if values[x[0] * cols + x[1]] == values[r * cols + c]:
                reached.add(x)
                todo.append(x)
    assert unpack(got, rows, cols) == reached


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 7), st.integers(1, 3), st.integers(0, 2), st.data())
def test_one_values_mask_is_that_row_of_every_values_masks(planes, k, p, data):
    """plane_mask(code): the row `code` of plane_masks, on random planes (codes past the layer's count
    included), with the words before `p` not the layer's."""
    s = np.array(data.draw(st.lists(st.integers(0, 2**64 - 1), min_size=p + planes * k, max_size=p + planes * k)),
                 np.uint64)
    full = np.array(data.draw(st.lists(st.integers(0, 2**64 - 1), min_size=k, max_size=k)), np.uint64)
    count = 1 << planes
    every = rt.plane_masks(s, p, planes, k, count, full, np.zeros((count, k), np.uint64))
    for code in range(count):
        assert rt.plane_mask(s, p, planes, k, code, full, np.zeros(k, np.uint64)).tolist() == every[code].tolist()
