"""The NumPy backend's ``mean`` (its sum over the count, one C call) is NumPy's own ``mean``
bit for bit for float32/float64 arrays of any shape, axes and ``keepdims``, except over
trailing or leading axes (the backend's ``sum`` adds those by one BLAS product: within a few
float roundings of NumPy's); other dtypes, empty means (NaN) and PyTorch's values stay as they
were. The row sums themselves: ``tests/ops/test_numpy_row_sums.py``."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag

XP = ag.zeros(1)._backend.xp


@st.composite
def array_and_axis(draw):
    shape = tuple(draw(st.lists(st.integers(1, 6), min_size=0, max_size=4)))
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    scale = 10.0 ** draw(st.integers(-4, 4))
    seed = draw(st.integers(0, 2 ** 16))
    x = (np.random.default_rng(seed).standard_normal(shape) * scale).astype(dtype)
    choices = [None] + list(range(len(shape))) + [tuple(range(len(shape)))]
    if len(shape) > 1:
        choices.append((0, len(shape) - 1))
        choices.append(-1)
    return x, draw(st.sampled_from(choices)), draw(st.booleans())


def _trailing(x, axis):
    """Whether ``axis`` names trailing or leading axes of ``x``, leaving at least one (the
    sums the backend takes as one BLAS product)."""
    if axis is None or x.ndim < 2:
        return False
    axes = sorted(a % x.ndim for a in ((axis,) if isinstance(axis, int) else axis))
    return 0 < len(axes) < x.ndim and axes in (list(range(x.ndim - len(axes), x.ndim)),
                                                list(range(len(axes))))


@settings(max_examples=200, deadline=None)
@given(array_and_axis())
def test_mean_is_numpys_bit_for_bit(case):
    x, axis, keepdims = case
    got = np.asarray(XP.mean(x, axis=axis, keepdims=keepdims))
    expected = np.asarray(np.mean(x, axis=axis, keepdims=keepdims))
    assert got.dtype == expected.dtype and got.shape == expected.shape
    if _trailing(x, axis):  # rows or columns summed by BLAS: NumPy's to a few roundings
        eps = np.finfo(x.dtype).eps
        bound = 8 * eps * np.mean(np.abs(x), axis=axis, keepdims=keepdims)
        assert np.all(np.abs(got - expected) <= bound)
    else:
        assert got.tobytes() == expected.tobytes()


def test_other_dtypes_and_empty_means():
    h = np.array([1.0, 2.0, 4.0], dtype=np.float16)
    assert XP.mean(h).dtype == np.float16
    c = np.array([1 + 1j, 3 - 1j])
    assert XP.mean(c) == 2 + 0j
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert np.isnan(XP.mean(np.zeros((0,), np.float32)))
        assert XP.mean(np.zeros((0, 3), np.float32), axis=0).shape == (3,)


def test_tensor_mean_is_pytorchs():
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(1).standard_normal((5, 7, 3)).astype(np.float32)
    for dim in [None, 0, (1, 2), -1]:
        got = ag.tensor(a).mean() if dim is None else ag.tensor(a).mean(dim)
        ref = torch.tensor(a).mean() if dim is None else torch.tensor(a).mean(dim)
        np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=2e-7, atol=1e-7)
