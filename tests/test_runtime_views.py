"""runtime.borrow and the descriptor views (runtime.u1, u2, i1, i2): the arrays that generated entry points
read without owning them (codegen._entry, system._descriptor)."""
import numpy as np
from numba import njit

from gridrules.compiled import runtime as rt
from gridrules.compiled.system import _descriptor


@njit
def _borrow_and_write(a, b):
    a, b = rt.borrow(a), rt.borrow(b)
    a[1, 2] = 7
    b[0] = np.uint64(9)
    return a.shape[0], a.shape[1], a.strides[0], b.shape[0], a.sum()


def test_a_borrowed_array_is_the_same_memory_with_the_same_shape():
    a = np.arange(12, dtype=np.int64).reshape(3, 4)
    b = np.zeros(5, np.uint64)
    rows, cols, stride, n, total = _borrow_and_write(a, b)
    assert (rows, cols, stride, n) == (3, 4, 32, 5)
    assert a[1, 2] == 7 and b[0] == 9 and total == np.arange(12).sum() - 6 + 7


@njit
def _views(d):
    s, m, g, bm = rt.u1(d, 0), rt.i2(d, 3), rt.i1(d, 6), rt.u2(d, 9)
    m[2, 1] += 100
    return s.sum(), m.shape[0], m.shape[1], m.sum(), g[g.shape[0] - 1], bm.shape[0], bm.shape[1], bm[1, 2]


def test_descriptor_views_read_and_write_the_described_arrays():
    s = np.array([3, 4], np.uint64)
    m = np.arange(15, dtype=np.int64).reshape(5, 3)
    g = np.array([-1, -2, -3], np.int64)
    bm = np.arange(8, dtype=np.uint64).reshape(2, 4)
    got = _views(_descriptor((s, m, g, bm)))
    assert got == (7, 5, 3, np.arange(15).sum() + 100, -3, 2, 4, 6)
    assert m[2, 1] == 7 + 100


def test_a_descriptor_refuses_arrays_the_views_cannot_read():
    for bad in (np.zeros((4, 4), np.int64)[:, 1], np.zeros(3, np.int32), np.zeros((2, 2, 2), np.uint64)):
        try:
            _descriptor((bad,))
        except AssertionError:
            continue
        raise AssertionError(f"accepted {bad.dtype} {bad.shape}")
