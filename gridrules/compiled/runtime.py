"""Native helpers that generated code calls: sets of cells as arrays of uint64 words (bit i = cell i).

Written once, compiled once (cached), used by every rule file. A helper named `..._into` writes its result into
its last array argument `out` (a scratch row the generated code owns, see codegen.Lowering.row) and returns it:
an allocation per set operation was most of the cost of set-heavy rules. `out` may be an input of an
elementwise helper, never of a helper that reads neighbouring words (border_into, flood_into). `value_masks`
and `plane_masks` fill the rows `out` they are given likewise. The other helpers return a new array or a number
and never change their inputs, except `add` and `grow_into`, which write into a set still being built, and
`distinct_count`, which may sort its scratch array.
"""
from __future__ import annotations

import numpy as np

from . import import_numba

import_numba()
from numba import carray, njit, types, uint64  # noqa: E402
from numba.core import cgutils  # noqa: E402
from numba.extending import intrinsic  # noqa: E402
from llvmlite import ir  # noqa: E402

ONE = uint64(1)

# The index of a word's lowest set bit by de Bruijn multiplication (numba has no count-trailing-zeros).
_DEBRUIJN = uint64(0x03F79D71B4CB0A89)
BIT_INDEX = np.zeros(64, np.int64)
for _i in range(64):
    BIT_INDEX[(((1 << _i) * 0x03F79D71B4CB0A89) & ((1 << 64) - 1)) >> 58] = _i


@njit(cache=True)
def bit_index(low):
    """The index of the single set bit of `low` (a power of two)."""
    return BIT_INDEX[(low * _DEBRUIJN) >> uint64(58)]


@njit(cache=True)
def popcount(x):
    x = x - ((x >> ONE) & uint64(0x5555555555555555))
    x = (x & uint64(0x3333333333333333)) + ((x >> uint64(2)) & uint64(0x3333333333333333))
    x = (x + (x >> uint64(4))) & uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * uint64(0x0101010101010101)) >> uint64(56))


@intrinsic
def borrow(typingctx, a):
    """A view of array `a` that owns no reference to its memory (no NRT meminfo). Every call that passes an
    owned array atomically increments and decrements its count; generated code passes the same few arrays to
    many small functions, so the entry points borrow them once (their caller keeps them alive)."""
    if not isinstance(a, types.Array):
        return None

    def codegen(context, builder, sig, args):
        view = context.make_array(a)(context, builder, value=args[0])
        view.meminfo = cgutils.get_null_value(view.meminfo.type)
        view.parent = cgutils.get_null_value(view.parent.type)
        return view._getvalue()

    return a(a), codegen


@intrinsic
def prefetch(typingctx, a, i):
    """Ask the CPU to start loading element i of the C-contiguous array `a` (counted in reading order: row r of
    a 2-d array starts at r * a.shape[1]) into its caches, and go on: a search that will probe its table at
    several places soon asks for them all first, so that their cache misses overlap instead of following each
    other."""
    if not (isinstance(a, types.Array) and a.layout == "C" and isinstance(i, types.Integer)):
        return None

    def codegen(context, builder, sig, args):
        ary = context.make_array(a)(context, builder, value=args[0])
        address = builder.bitcast(builder.gep(ary.data, [args[1]]), ir.IntType(8).as_pointer())
        fnty = ir.FunctionType(ir.VoidType(), [address.type, ir.IntType(32), ir.IntType(32), ir.IntType(32)])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0i8")
        i32 = ir.IntType(32)
        builder.call(fn, [address, i32(0), i32(3), i32(1)])  # (a read, kept in every cache level, data)
        return context.get_dummy_value()

    return types.void(a, i), codegen


def _overflow_test(name):
    """An intrinsic telling whether a 64-bit `a op b` would pass the 64-bit integers, by LLVM's
    `{name}.with.overflow` (the processor's overflow flag). A test of the result itself does not do: numba's
    adds and multiplies are `nsw`, so LLVM may assume they never wrap and drop such a test."""

    @intrinsic
    def overflows(typingctx, a, b):
        if not (isinstance(a, types.Integer) and isinstance(b, types.Integer)):
            return None

        def codegen(context, builder, sig, args):
            x, y = (context.cast(builder, v, t, types.int64) for v, t in zip(args, sig.args))
            return builder.extract_value(getattr(builder, name + "_with_overflow")(x, y), 1)

        return types.boolean(a, b), codegen

    return overflows


sum_overflows = _overflow_test("sadd")
difference_overflows = _overflow_test("ssub")
product_overflows = _overflow_test("smul")
_LEAST = np.int64(-(1 << 63))


@njit(cache=True, inline="always")
def quotient_overflows(a, b):
    """Whether a // b passes the 64-bit integers: only -2^63 // -1 does (2^63)."""
    return a == _LEAST and b == -1


@njit(cache=True, inline="always")
def negation_overflows(a):
    """Whether -a (or abs(a)) passes the 64-bit integers: only -(-2^63) does."""
    return a == _LEAST


def _pointer_to(dtype):
    """An intrinsic reading an int64 address as a pointer to `dtype` (what numba's carray takes)."""

    @intrinsic
    def pointer(typingctx, address):
        def codegen(context, builder, sig, args):
            return builder.inttoptr(args[0], context.get_value_type(sig.return_type))

        return types.CPointer(dtype)(types.int64), codegen

    return pointer


_u64_at, _i64_at = _pointer_to(types.uint64), _pointer_to(types.int64)


# The arrays of a descriptor (an int64 array of rows [address, shape...], three slots each; system._descriptor
# makes one): Python then passes one array to an entry point, not fourteen, each of which numba would check and
# unbox on every call. The views own nothing, like borrow's: the descriptor's maker keeps the arrays alive.
@njit(cache=True, inline="always")
def u1(d, k):
    return carray(_u64_at(d[k]), (d[k + 1],))


@njit(cache=True, inline="always")
def u2(d, k):
    return carray(_u64_at(d[k]), (d[k + 1], d[k + 2]))


@njit(cache=True, inline="always")
def i1(d, k):
    return carray(_i64_at(d[k]), (d[k + 1],))


@njit(cache=True, inline="always")
def i2(d, k):
    return carray(_i64_at(d[k]), (d[k + 1], d[k + 2]))


@njit(cache=True)
def list_successors(n, MOVE, OUT, COST, LIST):
    """expand's first n successors as rows of LIST (its words as int64 bits), each the move's number, the
    state's words and the cost: Python reads them all with one struct call (system.CompiledSystem.successors)."""
    words = OUT.shape[1]
    at = 0
    for k in range(n):
        LIST[at] = MOVE[k]
        for w in range(words):
            LIST[at + 1 + w] = np.int64(OUT[k, w])
        LIST[at + 1 + words] = COST[k]
        at += words + 2


# Whole-array copies are written as loops: a slice assignment (`D[:, :] = D0`) makes numba compile its
# broadcasting and error-message machinery into every caller, seconds of compile time per rule file.
@njit(cache=True)
def copy_state(D0, g0, D, g):
    """D, g = D0, g0: the decoded parent into one move's working copy."""
    for row in range(D0.shape[0]):
        for i in range(D0.shape[1]):
            D[row, i] = D0[row, i]
    for j in range(g0.shape[0]):
        g[j] = g0[j]


@njit(cache=True)
def take_emitted(ab, at, P, n, start):
    """Move the particles queued in `ab` (count at ab[at], then from ab[at + 4] kind, cell, direction each) into
    rows n.. of P, each to enter its first cell at step `start`. Returns P's new row count; raises
    codegen.OUT_OF_ROOM when P has no room for them (no bigger array is made here: see codegen.chain_code)."""
    q = ab[at]
    if n + q > P.shape[0]:
        raise ValueError("gridrules:room")  # (codegen.OUT_OF_ROOM)
    for j in range(q):
        e = at + 4 + 3 * j
        P[n, 0], P[n, 1], P[n, 2], P[n, 3] = ab[e], ab[e + 1], ab[e + 2], start
        n += 1
    ab[at] = 0
    return n


@njit(cache=True)
def clear(words):
    for w in range(words.shape[0]):
        words[w] = uint64(0)


@njit(cache=True)
def empty_set(k):
    return np.zeros(k, np.uint64)


@njit(cache=True, inline="always")
def single_into(i, out):
    """{cell i} (nothing for i < 0)."""
    for j in range(out.shape[0]):
        out[j] = uint64(0)
    if i >= 0:
        out[i >> 6] |= ONE << uint64(i & 63)
    return out


@njit(cache=True)
def never():
    """False, which numba's typing does not see (a call, not a constant): codegen._keep_a_return's way back,
    which no pruning of branches drops before typing; LLVM inlines it, and then drops it."""
    return False


@njit(cache=True, inline="always")
def empty_into(out):
    for j in range(out.shape[0]):
        out[j] = uint64(0)
    return out


@njit(cache=True, inline="always")
def copy_into(a, out):
    for j in range(out.shape[0]):
        out[j] = a[j]
    return out


@njit(cache=True, inline="always")
def union_into(a, b, out):
    for j in range(out.shape[0]):
        out[j] = a[j] | b[j]
    return out


@njit(cache=True, inline="always")
def minus_into(a, b, out):
    for j in range(out.shape[0]):
        out[j] = a[j] & ~b[j]
    return out


@njit(cache=True, inline="always")
def has(a, i):
    return (a[i >> 6] >> uint64(i & 63)) & ONE != 0


@njit(cache=True, inline="always")
def add(a, i):
    a[i >> 6] |= ONE << uint64(i & 63)


@njit(cache=True, inline="always")
def same(a, b):
    for j in range(a.shape[0]):
        if a[j] != b[j]:
            return False
    return True


@njit(cache=True, inline="always")
def count(a):
    n = 0
    for j in range(a.shape[0]):
        if a[j]:
            n += popcount(a[j])
    return n


@njit(cache=True, inline="always")
def nonempty(a):
    for j in range(a.shape[0]):
        if a[j] != 0:
            return True
    return False


@njit(cache=True)
def first(a):
    """The lowest cell index in the set, or -1."""
    for j in range(a.shape[0]):
        x = a[j]
        if x:
            return j * 64 + bit_index(x & (~x + ONE))
    return -1


@njit(cache=True)
def _sift_down(a, root, end):
    while 2 * root + 1 < end:
        child = 2 * root + 1
        if child + 1 < end and a[child + 1] > a[child]:
            child += 1
        if a[root] >= a[child]:
            return
        a[root], a[child] = a[child], a[root]
        root = child


@njit(cache=True, inline="always")
def _span(a, n):
    """(lowest value of a[:n], highest - lowest), the span -1 when it passes int64 (it would wrap negative);
    n >= 1. The sorts and counts below take shortcuts when the span is narrow."""
    lo, hi = a[0], a[0]
    for i in range(n):
        lo, hi = min(lo, a[i]), max(hi, a[i])
    return lo, hi - lo if hi - lo >= 0 else -1


# Generated modules sort with these, never with numba's own sort or argsort: numba builds those per process and
# names their machine code by a per-process counter, so two cached modules compiled in different processes can
# both hold a differently built sort under one name, and once both are loaded a call may run the other one (seen:
# a module's in-place sort bound to another module's argsort, leaving the array unsorted). Functions of this
# module have one name everywhere.
@njit(cache=True)
def sort_ints(a, n):
    """Sort a[:n] in place: a few values by insertion; distinct values spanning less than 64 per value (a
    search's move numbers, say) are marked in a bit row and read back in order; others are heap-sorted."""
    if n <= 16:
        sort_in_place(a, n)
        return
    lo, span = _span(a, n)
    if 0 <= span < 64 * n:
        marks = np.zeros((span >> 6) + 1, np.uint64)
        distinct = True
        for i in range(n):
            v = a[i] - lo
            bit = ONE << np.uint64(v & 63)
            if marks[v >> 6] & bit:
                distinct = False
                break
            marks[v >> 6] |= bit
        if distinct:
            k = 0
            for w in range(marks.shape[0]):
                x = marks[w]
                while x:
                    low = x & (~x + ONE)
                    x ^= low
                    a[k] = lo + w * 64 + bit_index(low)
                    k += 1
            return
    sort_in_place(a, n)


@njit(cache=True)
def sort_in_place(a, n):
    """Sort a[:n] in place, making no array (a chain step's hits): a few values by insertion, more by heap."""
    if n <= 16:
        for i in range(1, n):
            x, j = a[i], i - 1
            while j >= 0 and a[j] > x:
                a[j + 1] = a[j]
                j -= 1
            a[j + 1] = x
        return
    for start in range(n // 2 - 1, -1, -1):
        _sift_down(a, start, n)
    for end in range(n - 1, 0, -1):
        a[0], a[end] = a[end], a[0]
        _sift_down(a, 0, end)


@njit(cache=True)
def _sift_down_by(keys, order, root, end):
    while True:
        child = 2 * root + 1
        if child >= end:
            return
        a, b = order[child], order[child + 1] if child + 1 < end else -1
        if b >= 0 and (keys[b] > keys[a] or keys[b] == keys[a] and b > a):
            child += 1
        x, y = order[root], order[child]
        if keys[x] > keys[y] or keys[x] == keys[y] and x > y:
            return
        order[root], order[child] = y, x
        root = child


@njit(cache=True)
def argsort_ints(keys, n, order):
    """order[:n] = the indices 0..n-1 sorted by keys[index], equal keys by index: counted when the keys lie within
    a span of 4096 (a layer's values, say), else heap-sorted."""
    if n == 0:
        return
    lo, span = _span(keys, n)
    if 0 <= span < 4096:
        start = np.zeros(span + 2, np.int64)
        for i in range(n):
            start[keys[i] - lo + 1] += 1
        for v in range(1, span + 2):
            start[v] += start[v - 1]
        for i in range(n):
            v = keys[i] - lo
            order[start[v]] = i
            start[v] += 1
        return
    for i in range(n):
        order[i] = i
    for start in range(n // 2 - 1, -1, -1):
        _sift_down_by(keys, order, start, n)
    for end in range(n - 1, 0, -1):
        order[0], order[end] = order[end], order[0]
        _sift_down_by(keys, order, 0, end)


@njit(cache=True)
def distinct_count(values):
    """How many different numbers `values` (a scratch array) holds. Values within a span of 4096 (a layer's
    colours, say) are ticked off in a table; wider ones are heap-sorted in place (np.sort would cost seconds
    of compiling)."""
    n = values.shape[0]
    if n == 0:
        return 0
    lo, span = _span(values, n)
    if 0 <= span < 4096:
        seen = np.zeros(span + 1, np.bool_)
        count = 0
        for v in values:
            if not seen[v - lo]:
                seen[v - lo] = True
                count += 1
        return count
    for start in range(n // 2 - 1, -1, -1):
        _sift_down(values, start, n)
    for end in range(n - 1, 0, -1):
        values[0], values[end] = values[end], values[0]
        _sift_down(values, 0, end)
    count = 1
    for j in range(1, n):
        if values[j] != values[j - 1]:
            count += 1
    return count


# ---- bitboard fast paths: whole words at a time -----------------------------------------------------------
@njit(cache=True, inline="always")
def grow_into(a, out, cols, k, not_left, not_right, full):
    """out = the set and its 4-neighbours, a word at a time with no temporaries; not_left/not_right mask out
    the cells a one-column shift wrapped to another row. (These bitboard helpers take the row length and the
    words of a set, k, as arguments and are inlined where called: where the board's shape is a constant, as in
    an extension module built for it, the shifts and loops are then known in advance.)"""
    q, r = cols >> 6, cols & 63
    zero = uint64(0)
    for j in range(k):
        x = a[j]
        up1 = x << ONE
        if j > 0:
            up1 |= a[j - 1] >> uint64(63)
        down1 = x >> ONE
        if j + 1 < k:
            down1 |= a[j + 1] << uint64(63)
        up = zero
        if j - q >= 0:
            up = a[j - q] << uint64(r)
            if r != 0 and j - q - 1 >= 0:
                up |= a[j - q - 1] >> uint64(64 - r)
        down = zero
        if j + q < k:
            down = a[j + q] >> uint64(r)
            if r != 0 and j + q + 1 < k:
                down |= a[j + q + 1] << uint64(64 - r)
        out[j] = (x | (up1 & not_left[j]) | (down1 & not_right[j]) | up | down) & full[j]


@njit(cache=True, inline="always")
def border_into(a, out, cols, k, not_left, not_right, full):
    """The cells 4-adjacent to the set `a` and not in it (the bitboard form of `neighbours`), into `out` (which
    must not be `a`)."""
    grow_into(a, out, cols, k, not_left, not_right, full)
    for j in range(k):
        out[j] &= ~a[j]
    return out


@njit(cache=True, inline="always")
def flood_into(seeds, allowed, out, nxt, cols, k, not_left, not_right, full):
    """The seeds plus every cell of `allowed` 4-connected to them through `allowed` (one step of growth a round),
    into `out`, with `nxt` as scratch (neither of them `seeds` or `allowed`)."""
    for j in range(k):
        out[j] = seeds[j]
    while True:
        grow_into(out, nxt, cols, k, not_left, not_right, full)
        changed = uint64(0)  # (the bits a round adds, OR-ed: no branch a word, see group_into)
        for j in range(k):
            v = out[j] | (nxt[j] & allowed[j])
            changed |= v ^ out[j]
            out[j] = v
        if changed == 0:
            return out


@njit(cache=True)
def same_masks_into(row, same_right, same_down, n, cols):
    """The cells whose right neighbour (same_right) and lower neighbour (same_down) hold the same value in a
    row of n cell values: the edges `group` may step along."""
    for j in range(same_right.shape[0]):
        same_right[j] = uint64(0)
        same_down[j] = uint64(0)
    for i in range(n):
        bit = ONE << uint64(i & 63)
        if i % cols + 1 < cols and row[i] == row[i + 1]:
            same_right[i >> 6] |= bit
        if i + cols < n and row[i] == row[i + cols]:
            same_down[i >> 6] |= bit


@njit(cache=True, inline="always")
def group_into(seeds, same_right, same_down, out, cols, k, full):
    """The seeds plus every cell reached from them by steps between 4-adjacent cells of equal value (the edges
    of same_masks_into), into `out` (not an input). Each round steps every member along its equal edges, a word
    at a time, in place: a word's growth reaches the words after it in the same round (fewer rounds than
    stepping from the last round's set alone: ~1.2x quicker on random 14x14 boards). Whether a word grew is
    OR-ed into one word and tested once a round: a branch a word, which the data decides, mispredicts often."""
    q, r = cols >> 6, cols & 63
    zero = uint64(0)
    for j in range(k):
        out[j] = seeds[j] & full[j]
    while True:
        changed = zero
        for j in range(k):
            x = out[j]
            right = (x & same_right[j]) << ONE  # to cell i + 1
            if j > 0:
                right |= (out[j - 1] & same_right[j - 1]) >> uint64(63)
            left = x >> ONE  # to cell i - 1
            if j + 1 < k:
                left |= out[j + 1] << uint64(63)
            down = zero  # to cell i + cols
            if j - q >= 0:
                down = (out[j - q] & same_down[j - q]) << uint64(r)
                if r != 0 and j - q - 1 >= 0:
                    down |= (out[j - q - 1] & same_down[j - q - 1]) >> uint64(64 - r)
            up = zero  # to cell i - cols
            if j + q < k:
                up = out[j + q] >> uint64(r)
                if r != 0 and j + q + 1 < k:
                    up |= out[j + q + 1] << uint64(64 - r)
            y = x | right | (left & same_right[j]) | down | (up & same_down[j])
            changed |= y ^ x
            out[j] = y
        if changed == 0:
            return out


@njit(cache=True)
def distinct_in(row, a, lo, count):
    """How many different values row[i] takes over the cells i of set `a`, for values in lo..lo+count-1 with
    count <= 64 (a layer's domain): ticked off in one word, no scratch array."""
    seen = uint64(0)
    for j in range(a.shape[0]):
        x = a[j]
        while x:
            low = x & (~x + ONE)
            x ^= low
            seen |= ONE << uint64(row[j * 64 + bit_index(low)] - lo)
    return popcount(seen)


@njit(cache=True)
def value_masks(row, lo, count, k, out):
    """For each value lo..lo+count-1 of a layer row, the set of cells holding it (one pass over the row), in
    rows 0.. count-1 of `out`; returns out."""
    for c in range(count):
        for j in range(k):
            out[c, j] = 0
    for i in range(row.shape[0]):
        v = row[i] - lo
        if 0 <= v < count:
            out[v, i >> 6] |= ONE << uint64(i & 63)
    return out


@njit(cache=True, inline="always")
def plane_code(s, p, planes, k, i):
    """The code a layer holds at cell i, read from a packed state: its `planes` bit planes of k words each lie
    from word p of s (layout.py), and bit q of the code is bit i of plane q."""
    w, b = p + (i >> 6), uint64(i & 63)
    x = 0
    for q in range(planes):
        x |= np.int64((s[w + q * k] >> b) & ONE) << q
    return x


@njit(cache=True)
def plane_mask(s, p, planes, k, code, full, out):
    """One value's mask of plane_masks (the cells whose plane bits spell `code`), into `out`: for a layer of
    many values, of which a function asks for one or two (planes * k word operations, not count times that)."""
    for j in range(k):
        m = full[j]
        for q in range(planes):
            x = s[p + q * k + j]
            m &= x if (code >> q) & 1 else ~x
        out[j] = m
    return out


@njit(cache=True, inline="always")
def plane_store(s, p, planes, k, cells, code, full):
    """Every cell of the set `cells` given the code `code`, in a layer's bit planes laid out as plane_masks reads
    them (where a move keeps a layer it stores only as sets: codegen's Lowering.in_planes)."""
    for q in range(planes):
        at = p + q * k
        if (code >> q) & 1:
            for j in range(k):
                s[at + j] |= cells[j] & full[j]
        else:
            for j in range(k):
                s[at + j] &= ~cells[j]


@njit(cache=True, inline="always")
def plane_store_cell(s, p, planes, k, i, code):
    """Cell i given the code `code`, in a layer's bit planes laid out as plane_code reads them."""
    w, bit = p + (i >> 6), ONE << uint64(i & 63)
    for q in range(planes):
        if (code >> q) & 1:
            s[w + q * k] |= bit
        else:
            s[w + q * k] &= ~bit


@njit(cache=True, inline="always")
def copy_row(D0, D, row):
    """One layer's row of the decoded parent into a move's copy (copy_state, for one row)."""
    for i in range(D0.shape[1]):
        D[row, i] = D0[row, i]


@njit(cache=True, inline="always")
def plane_masks(s, p, planes, k, count, full, out):
    """value_masks read from a packed state instead of a row: the layer's codes lie in `planes` bit planes of k
    words each from word p of s (layout.py), so the cells holding code c are those whose plane bits spell c."""
    for c in range(count):
        for j in range(k):
            m = full[j]
            for q in range(planes):
                x = s[p + q * k + j]
                m &= x if (c >> q) & 1 else ~x
            out[c, j] = m
    return out


@njit(cache=True)
def distinct_masks(masks, a):
    """distinct_in read from a layer's value masks: how many of the values' cell sets meet the set a."""
    n = 0
    for c in range(masks.shape[0]):
        for j in range(a.shape[0]):
            if masks[c, j] & a[j]:
                n += 1
                break
    return n


@njit(cache=True, inline="always")
def same_masks_from(masks, same_right, same_down, cols, k, not_right):
    """same_masks_into read from a layer's value masks, a word at a time: a cell and its right (lower)
    neighbour hold the same value when both lie in one value's mask."""
    q, r = cols >> 6, cols & 63
    for j in range(k):
        right = uint64(0)
        down = uint64(0)
        for c in range(masks.shape[0]):
            x = masks[c, j]
            nxt = x >> ONE  # (bit i: cell i + 1)
            if j + 1 < k:
                nxt |= masks[c, j + 1] << uint64(63)
            right |= x & nxt
            below = uint64(0)  # (bit i: cell i + cols)
            if j + q < k:
                below = masks[c, j + q] >> uint64(r)
                if r != 0 and j + q + 1 < k:
                    below |= masks[c, j + q + 1] << uint64(64 - r)
            down |= x & below
        same_right[j] = right & not_right[j]
        same_down[j] = down


@njit(cache=True)
def equal_mask(row, value, k):
    """The cells whose value in a layer row equals `value`."""
    out = np.zeros(k, np.uint64)
    for i in range(row.shape[0]):
        if row[i] == value:
            out[i >> 6] |= ONE << uint64(i & 63)
    return out


# ---- path queries: the board inside a one-cell ring, (rows + 2) x (cols + 2) cells ------------------------
# Free cells are read from a layer row (`layer == value`: `cells` empty) or from a set of cells. A pair query with
# at most two turns (the usual game rule) needs no search and no ringed grid: with the straight free runs out of
# a and out of b known, a path is a straight line, one corner where a run of a meets a run of b, or a straight
# free middle leg between a cell of a's run and a cell of b's run in one row or column. More turns: the
# breadth-first `path` over a built grid.
_NO_CELLS, _NO_ROW = np.empty(0, np.uint64), np.empty(0, np.int64)  # (constants in native code: no allocation)


@njit(inline="always", cache=True)
def _free(row, value, cells, rows, cols, outside, r, c):
    """Whether ringed-board cell (r, c) may be crossed (row[...] == value when cells is empty, else a member)."""
    if r == 0 or c == 0 or r == rows + 1 or c == cols + 1:
        return outside
    i = (r - 1) * cols + c - 1
    if cells.shape[0] == 0:
        return row[i] == value
    return (cells[i >> 6] >> np.uint64(i & 63)) & np.uint64(1) != 0


@njit(cache=True)
def ring_grid(row, value, cells, rows, cols, outside):
    """Which cells of the ringed board a path may pass (see `_free`), as a (rows + 2) x (cols + 2) row."""
    w = cols + 2
    free = np.empty((rows + 2) * w, np.uint8)
    for r in range(rows + 2):
        for c in range(w):
            free[r * w + c] = 1 if _free(row, value, cells, rows, cols, outside, r, c) else 0
    return free


@njit(cache=True)
def path(free, rows, cols, a, b, turns):
    """Whether cell b can be reached from cell a (board indices) by at most turns + 1 straight segments
    through free cells of the ringed board (see ring_grid); b itself need not be free. Breadth-first by
    segments: the cells one more segment reaches are the free runs seen from the cells reached so far. A run
    stops at a cell reached with fewer segments, whose own runs cover what lies beyond it, so each cell is
    crossed at most once per direction and segment count."""
    if turns < 0:
        return False
    if a == b:
        return True
    w, h = cols + 2, rows + 2
    ea = (a // cols + 1) * w + a % cols + 1
    eb = (b // cols + 1) * w + b % cols + 1
    seg = np.full(h * w, np.int64(1) << 40)
    queue = np.empty(h * w, np.int64)
    seg[ea] = 0
    queue[0] = ea
    head, tail = 0, 1
    for s in range(1, turns + 2):
        end = tail
        if head == end:
            return False
        while head < end:
            x = queue[head]
            head += 1
            xr, xc = x // w, x % w
            for d in range(4):
                dr, dc = (0, 0, -1, 1)[d], (-1, 1, 0, 0)[d]
                yr, yc = xr + dr, xc + dc
                while 0 <= yr < h and 0 <= yc < w:
                    y = yr * w + yc
                    if y == eb:
                        return True
                    if free[y] == 0 or seg[y] < s:
                        break
                    if seg[y] > s:
                        seg[y] = s
                        queue[tail] = y
                        tail += 1
                    yr += dr
                    yc += dc
    return False


@njit(cache=True)
def _path_few(row, value, cells, rows, cols, outside, a, b, turns):
    """path() for turns 0..2. (The eight runs and two legs are written out: the same code through small inlined
    helpers measured 2x slower per pair.)"""
    ar, ac, br, bc = a // cols + 1, a % cols + 1, b // cols + 1, b % cols + 1
    h, w = rows + 2, cols + 2
    # a's and b's runs: the farthest free cell up, down, left and right (their own row/column when none)
    ua, da, la, ra = ar, ar, ac, ac
    while ua > 0 and _free(row, value, cells, rows, cols, outside, ua - 1, ac):
        ua -= 1
    while da < h - 1 and _free(row, value, cells, rows, cols, outside, da + 1, ac):
        da += 1
    while la > 0 and _free(row, value, cells, rows, cols, outside, ar, la - 1):
        la -= 1
    while ra < w - 1 and _free(row, value, cells, rows, cols, outside, ar, ra + 1):
        ra += 1
    if ua == da and la == ra:  # a is walled in (most tiles of a full board): only a neighbour joins it
        return abs(ar - br) + abs(ac - bc) == 1
    ub, db, lb, rb = br, br, bc, bc
    while ub > 0 and _free(row, value, cells, rows, cols, outside, ub - 1, bc):
        ub -= 1
    while db < h - 1 and _free(row, value, cells, rows, cols, outside, db + 1, bc):
        db += 1
    while lb > 0 and _free(row, value, cells, rows, cols, outside, br, lb - 1):
        lb -= 1
    while rb < w - 1 and _free(row, value, cells, rows, cols, outside, br, rb + 1):
        rb += 1
    if ub == db and lb == rb:
        return abs(ar - br) + abs(ac - bc) == 1
    # no turn: b lies in one of a's runs or just past its end
    if ar == br and la - 1 <= bc <= ra + 1 or ac == bc and ua - 1 <= br <= da + 1:
        return True
    if turns == 0:
        return False
    # one turn, at (ar, bc) or (br, ac)
    if ac != bc and ar != br:
        if la <= bc <= ra and ub <= ar <= db:
            return True
        if lb <= ac <= rb and ua <= br <= da:
            return True
    if turns == 1:
        return False
    # two turns: a middle leg along row r from (r, ac) to (r, bc), or along column c
    if ac != bc:
        lo, hi = min(ac, bc), max(ac, bc)
        for r in range(max(ua, ub), min(da, db) + 1):
            if r == ar or r == br:
                continue
            c = lo + 1
            while c < hi and _free(row, value, cells, rows, cols, outside, r, c):
                c += 1
            if c == hi:
                return True
    if ar != br:
        lo, hi = min(ar, br), max(ar, br)
        for c in range(max(la, lb), min(ra, rb) + 1):
            if c == ac or c == bc:
                continue
            r = lo + 1
            while r < hi and _free(row, value, cells, rows, cols, outside, r, c):
                r += 1
            if r == hi:
                return True
    return False


@njit(inline="always", cache=True)
def _path_query(row, value, cells, rows, cols, outside, a, b, turns):
    if turns < 0:
        return False
    if a == b:
        return True
    if turns <= 2:
        return _path_few(row, value, cells, rows, cols, outside, a, b, turns)
    return path(ring_grid(row, value, cells, rows, cols, outside), rows, cols, a, b, turns)


@njit(cache=True)
def path_eq(row, value, rows, cols, outside, a, b, turns):
    """path() through the cells whose layer value is `value`."""
    return _path_query(row, value, _NO_CELLS, rows, cols, outside, a, b, turns)


@njit(cache=True)
def path_in(cells, rows, cols, outside, a, b, turns):
    """path() through the cells of a set."""
    return _path_query(_NO_ROW, 0, cells, rows, cols, outside, a, b, turns)


# ---- the moves a path search has banned (loops.deepening, the `persists` promise), read by `banned(...)`
# A table of open addressing in the work row ab from ab[at]: [slot width w, capacity (a power of 2), count], then
# `capacity` slots of w: the action's index (-1: empty) and the move's argument columns (as MARG's columns 1..,
# zeros past the action's own). Bans come and go last in, first out, so a removal just empties its slot (no later
# key's probe ran through it).
BAN_HEADER = 3


@njit(cache=True, inline="always")
def _ban_slot(ab, at, action, key):
    """The slot holding (action, key), or the empty slot where it belongs."""
    w = ab[at]
    mask = ab[at + 1] - 1
    h = np.uint64(action + 1) * np.uint64(0x9E3779B97F4A7C15)
    for j in range(w - 1):
        x = key[j] if j < len(key) else 0
        h = (h ^ np.uint64(x)) * np.uint64(0xbf58476d1ce4e5b9)
        h ^= h >> np.uint64(31)
    s = np.int64(h & np.uint64(mask))
    while True:
        p = at + BAN_HEADER + s * w
        if ab[p] < 0:
            return p
        if ab[p] == action:
            same = True
            for j in range(w - 1):
                if ab[p + 1 + j] != (key[j] if j < len(key) else 0):
                    same = False
                    break
            if same:
                return p
        s = (s + 1) & mask


@njit(cache=True)
def is_banned(ab, at, action, key):
    """Whether the move (action, argument columns `key`) is in the ban table at ab[at] (at < 0: none)."""
    return at >= 0 and ab[_ban_slot(ab, at, action, key)] >= 0


@njit(cache=True)
def is_banned_unordered(ab, at, action, key, width):
    """is_banned for an unordered action: its values (groups of `width` columns) put first in the order its
    instance lists them (cells in reading order, numbers ascending: lexicographic on the columns)."""
    if at < 0:
        return False
    k = np.empty(len(key), np.int64)
    for j in range(len(key)):
        k[j] = key[j]
    for g in range(1, len(key) // width):  # (insertion sort of a few groups)
        h = g
        while h > 0:
            first = 0
            while first < width and k[h * width + first] == k[(h - 1) * width + first]:
                first += 1
            if first == width or k[h * width + first] > k[(h - 1) * width + first]:
                break
            for c in range(width):
                k[h * width + c], k[(h - 1) * width + c] = k[(h - 1) * width + c], k[h * width + c]
            h -= 1
    return ab[_ban_slot(ab, at, action, k)] >= 0


@njit(cache=True)
def ban(ab, at, action, key):
    """Put the move in the table; False (nothing done) when the table is half full."""
    if 2 * (ab[at + 2] + 1) > ab[at + 1]:
        return False
    p = _ban_slot(ab, at, action, key)
    ab[p] = action
    for j in range(ab[at] - 1):
        ab[p + 1 + j] = key[j] if j < len(key) else 0
    ab[at + 2] += 1
    return True


@njit(cache=True)
def unban(ab, at, action, key):
    """Take out the move put in last of those still in the table."""
    ab[_ban_slot(ab, at, action, key)] = -1
    ab[at + 2] -= 1


@njit(cache=True)
def clear_bans(ab, at):
    w = ab[at]
    for s in range(ab[at + 1]):
        ab[at + BAN_HEADER + s * w] = -1
    ab[at + 2] = 0


# ---- `chooses` and `ranks`: the order a search tries the moves in
CHOSE_NOTHING = -(1 << 40)  # the choice of a move that ran no `chooses` (expand writes it): a choice of its own


@njit(cache=True)
def _dense(values, n, by_value, dense):
    """dense[k] = how many distinct values lie below values[k] (by_value: the indices sorted by value)."""
    argsort_ints(values, n, by_value)
    d = 0
    for i in range(n):
        if i > 0 and values[by_value[i]] != values[by_value[i - 1]]:
            d += 1
        dense[by_value[i]] = d


@njit(cache=True)
def search_order(OUT, MOVE, COST, choices, ranks, n):
    """Reorder the n moves listed (rows of OUT, MOVE, COST) into the order a search tries them: the choices with
    the fewest moves first, then the lower ranks, then listing order (reference.system.search_order)."""
    by_value = np.empty(n, np.int64)
    argsort_ints(choices, n, by_value)
    size = np.empty(n, np.int64)
    i = 0
    while i < n:
        j = i
        while j < n and choices[by_value[j]] == choices[by_value[i]]:
            j += 1
        for k in range(i, j):
            size[by_value[k]] = 1 if choices[by_value[k]] == CHOSE_NOTHING else j - i
        i = j
    rank = np.empty(n, np.int64)
    _dense(ranks, n, by_value, rank)
    key = np.empty(n, np.int64)
    for k in range(n):
        key[k] = (size[k] * n + rank[k]) * n + k
    order = np.empty(n, np.int64)
    argsort_ints(key, n, order)
    rows, moves, costs = OUT[:n].copy(), MOVE[:n].copy(), COST[:n].copy()
    for k in range(n):
        for w in range(OUT.shape[1]):  # (word by word: a row assignment compiles numba's shape-mismatch message)
            OUT[k, w] = rows[order[k], w]
        MOVE[k] = moves[order[k]]
        COST[k] = costs[order[k]]
