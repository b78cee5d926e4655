"""The NumPy backend's ``sum`` over trailing axes (rows of 2 to ``_ROW_SUM_MAX`` elements
behind at least one leading axis) or over leading axes (columns of 2 or more, at least one
axis left) of a C-contiguous float32/float64 array of at least ``_ROW_SUM_MIN_SIZE``
elements is ONE matrix-vector
product with a ones vector (``arraygrad_numpy.backend._row_sums``): its values are that
product's, within a few roundings of NumPy's pairwise sum and of the exact sum; every other
call is NumPy's reduction bit for bit, and the shapes, dtypes and ``keepdims`` are the
standard's."""

from __future__ import annotations

import contextlib
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag
from arraygrad_numpy import backend as numpy_backend

XP = ag.zeros(1)._backend.xp
ROW_MAX = numpy_backend._ROW_SUM_MAX


@contextlib.contextmanager
def _smallest_arrays(size):
    """Row sums by BLAS from arrays of ``size`` elements on (the threshold is read per call)."""
    was = numpy_backend._ROW_SUM_MIN_SIZE
    numpy_backend._ROW_SUM_MIN_SIZE = size
    try:
        yield
    finally:
        numpy_backend._ROW_SUM_MIN_SIZE = was


@st.composite
def rows(draw):
    """An array, the axes of a sum (trailing or leading ones, in any order and sign), keepdims,
    and whether they are the leading ones."""
    dims = tuple(draw(st.lists(st.integers(1, 20), min_size=2, max_size=4)))
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    seed = draw(st.integers(0, 2 ** 16))
    x = (np.random.default_rng(seed).standard_normal(dims) * 3).astype(dtype)
    k = draw(st.integers(1, len(dims) - 1))
    leading = draw(st.booleans())
    axes = list(range(k)) if leading else list(range(len(dims) - k, len(dims)))
    axes = [a - len(dims) if draw(st.booleans()) else a for a in axes]
    axis = axes[0] if k == 1 and draw(st.booleans()) else tuple(draw(st.permutations(axes)))
    return x, axis, draw(st.booleans()), leading


@settings(max_examples=150, deadline=None)
@given(rows())
def test_trailing_rows_and_leading_columns_are_one_product_near_the_exact_sum(case):
    x, axis, keepdims, leading = case
    with _smallest_arrays(0):  # (the drawn arrays are small: every one takes the product)
        got = XP.sum(x, axis=axis, keepdims=keepdims)
    want = np.sum(x, axis=axis, keepdims=keepdims)
    assert type(got) is np.ndarray and got.dtype == x.dtype and got.shape == want.shape
    axes = (axis,) if isinstance(axis, int) else axis
    length = math.prod(x.shape[a] for a in axes)
    # the summed elements of each result, one line each
    lines = x.reshape(length, -1).T if leading else x.reshape(-1, length)
    if leading and length >= 2:
        product = np.ones(length, x.dtype) @ x.reshape(length, -1)
        assert got.tobytes() == product.reshape(got.shape).tobytes()
    elif not leading and 2 <= length <= ROW_MAX:
        product = lines @ np.ones(length, x.dtype)
        assert got.tobytes() == product.reshape(got.shape).tobytes()
    else:
        assert got.tobytes() == want.tobytes()
    exact = np.array([math.fsum(r) for r in lines.astype(np.float64)])
    bound = 2 * length * np.finfo(x.dtype).eps * np.abs(lines).sum(axis=1)
    assert np.all(np.abs(got.reshape(-1).astype(np.float64) - exact) <= bound)


def test_other_calls_are_numpys_reduction():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 6, 5)).astype(np.float32)
    for args in [dict(axis=None), dict(axis=1), dict(axis=(0, 2)), dict(axis=(0, 1, 2)),
                 dict(axis=-1, dtype=np.float64)]:
        assert XP.sum(x, **args).tobytes() == np.add.reduce(x, **args).tobytes(), args
    strided = x[:, :, ::2]  # not C-contiguous
    assert XP.sum(strided, axis=-1).tobytes() == np.add.reduce(strided, axis=-1).tobytes()
    ints = np.arange(12).reshape(3, 4)
    assert XP.sum(ints, axis=-1).dtype == np.sum(ints, axis=-1).dtype
    long_rows = rng.standard_normal((2, ROW_MAX + 1)).astype(np.float32)
    assert XP.sum(long_rows, axis=1).tobytes() == np.add.reduce(long_rows, axis=1).tobytes()
    with pytest.raises(Exception):  # an axis out of range: NumPy's error
        XP.sum(x, axis=3)


def test_small_arrays_keep_the_reduction_and_large_ones_take_the_product():
    rng = np.random.default_rng(5)
    small = rng.standard_normal((32, 16)).astype(np.float32)
    assert small.size < numpy_backend._ROW_SUM_MIN_SIZE
    assert XP.sum(small, axis=1).tobytes() == np.add.reduce(small, axis=1).tobytes()
    large = rng.standard_normal((1024, 128)).astype(np.float32)
    assert XP.sum(large, axis=1).tobytes() == (large @ np.ones(128, np.float32)).tobytes()
    assert XP.sum(large, axis=0).tobytes() == (np.ones(1024, np.float32) @ large).tobytes()


def test_nan_and_infinity_propagate_as_in_a_sum():
    x = np.ones((3, 8), np.float64)
    x[0, 2], x[1, 5], x[2, 0], x[2, 1] = np.nan, np.inf, np.inf, -np.inf
    with _smallest_arrays(0):
        got = XP.sum(x, axis=-1)
    assert np.isnan(got[0]) and got[1] == np.inf and np.isnan(got[2])


def test_tensor_sums_and_softmax_are_pytorchs():
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(4).standard_normal((8, 16, 128)).astype(np.float32)
    for fn in (lambda m, t: t.sum(-1), lambda m, t: t.mean((1, 2)), lambda m, t: t.sum((0, 1)),
               lambda m, t: m.nn.functional.softmax(t, -1),
               lambda m, t: m.nn.functional.layer_norm(t, (128,))):
        got, ref = fn(ag, ag.tensor(a)), fn(torch, torch.tensor(a))
        np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=2e-6, atol=2e-6)
