"""Native helpers that generated code calls: sets of cells as arrays of uint64 words (bit i = cell i).

Written once, compiled once (cached), used by every rule file. Each helper returns a new array and never
changes its inputs, so generated code can share set values freely.
"""
from __future__ import annotations

import numpy as np
from numba import njit, uint64

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


@njit(cache=True)
def empty_set(k):
    return np.zeros(k, np.uint64)


@njit(cache=True)
def full_set(n, k):
    out = np.zeros(k, np.uint64)
    for i in range(n):
        out[i >> 6] |= ONE << uint64(i & 63)
    return out


@njit(cache=True)
def single(i, k):
    out = np.zeros(k, np.uint64)
    if i >= 0:
        out[i >> 6] |= ONE << uint64(i & 63)
    return out


@njit(cache=True)
def has(a, i):
    return (a[i >> 6] >> uint64(i & 63)) & ONE != 0


@njit(cache=True)
def add(a, i):
    a[i >> 6] |= ONE << uint64(i & 63)


@njit(cache=True)
def union(a, b):
    return a | b


@njit(cache=True)
def inter(a, b):
    return a & b


@njit(cache=True)
def minus(a, b):
    return a & ~b


@njit(cache=True)
def same(a, b):
    for j in range(a.shape[0]):
        if a[j] != b[j]:
            return False
    return True


@njit(cache=True)
def count(a):
    n = 0
    for j in range(a.shape[0]):
        if a[j]:
            n += popcount(a[j])
    return n


@njit(cache=True)
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
def members(a):
    """The cell indices of a set, ascending (row-major order)."""
    out = np.empty(count(a), np.int64)
    n = 0
    for j in range(a.shape[0]):
        x = a[j]
        while x:
            low = x & (~x + ONE)
            out[n] = j * 64 + bit_index(low)
            n += 1
            x ^= low
    return out


@njit(cache=True)
def neighbours(a, rows, cols):
    """Cells 4-adjacent to the set and not in it."""
    out = np.zeros(a.shape[0], np.uint64)
    for i in members(a):
        r, c = i // cols, i % cols
        if r > 0:
            add(out, i - cols)
        if r + 1 < rows:
            add(out, i + cols)
        if c > 0:
            add(out, i - 1)
        if c + 1 < cols:
            add(out, i + 1)
    return out & ~a


@njit(cache=True)
def distinct_count(values):
    if values.shape[0] == 0:
        return 0
    v = np.sort(values)
    n = 1
    for j in range(1, v.shape[0]):
        if v[j] != v[j - 1]:
            n += 1
    return n


# ---- bitboard fast paths: whole words at a time -----------------------------------------------------------
@njit(cache=True)
def shl(a, s):
    """The set with every cell index raised by s (bits leaving the last word are dropped)."""
    k = a.shape[0]
    out = np.zeros(k, np.uint64)
    q, r = s >> 6, s & 63
    for j in range(k - 1, q - 1, -1):
        v = a[j - q] << uint64(r)
        if r != 0 and j - q - 1 >= 0:
            v |= a[j - q - 1] >> uint64(64 - r)
        out[j] = v
    return out


@njit(cache=True)
def shr(a, s):
    """The set with every cell index lowered by s."""
    k = a.shape[0]
    out = np.zeros(k, np.uint64)
    q, r = s >> 6, s & 63
    for j in range(0, k - q):
        v = a[j + q] >> uint64(r)
        if r != 0 and j + q + 1 < k:
            v |= a[j + q + 1] << uint64(64 - r)
        out[j] = v
    return out


@njit(cache=True)
def grow(a, cols, not_left, not_right, full):
    """The set and its 4-neighbours; not_left/not_right mask out the cells a shift wrapped to another row."""
    return (a | (shl(a, 1) & not_left) | (shr(a, 1) & not_right) | shl(a, cols) | shr(a, cols)) & full


@njit(cache=True)
def border(a, cols, not_left, not_right, full):
    """Cells 4-adjacent to the set and not in it (the bitboard form of `neighbours`)."""
    return grow(a, cols, not_left, not_right, full) & ~a


@njit(cache=True)
def flood(seeds, allowed, cols, not_left, not_right, full):
    """The seeds plus every cell of `allowed` 4-connected to them through `allowed`."""
    cur = seeds.copy()
    while True:
        nxt = cur | (grow(cur, cols, not_left, not_right, full) & allowed)
        if same(nxt, cur):
            return cur
        cur = nxt


@njit(cache=True)
def equal_mask(row, value, k):
    """The cells whose value in a layer row equals `value`."""
    out = np.zeros(k, np.uint64)
    for i in range(row.shape[0]):
        if row[i] == value:
            out[i >> 6] |= ONE << uint64(i & 63)
    return out
