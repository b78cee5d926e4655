"""The namespace's values against NumPy (hypothesis over shapes, dtypes and axes) where its
semantics are the standard's and not PyTorch's: ``std``/``var``'s ``correction=0``,
reductions over axis tuples (empty ones too), ``cumulative_sum(include_initial=)``, the
``unique_*`` functions, ``take`` with negative indices, ``squeeze``'s refusal, ``eye(k=)``,
``linspace(endpoint=)``, ``astype(copy=)``, ``clip`` with array bounds, ``searchsorted``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import arraygrad as ag
from arraygrad import array_api as xp

FAST = settings(max_examples=25, deadline=None)


@st.composite
def array_and_axis(draw, dtypes=hnp.floating_dtypes(sizes=(32, 64))):
    a = draw(hnp.arrays(draw(dtypes), hnp.array_shapes(min_dims=0, max_dims=3, max_side=4),
                        elements={"min_value": -10, "max_value": 10, "allow_nan": False,
                                  "allow_subnormal": False}))
    axes = draw(st.none() | st.lists(st.integers(0, max(a.ndim - 1, 0)), unique=True,
                                     max_size=a.ndim).map(tuple))
    return a, axes


@FAST
@given(array_and_axis(), st.booleans(), st.sampled_from(["sum", "prod", "mean", "max", "min",
                                                            "std", "var"]))
def test_reductions_match_numpy(data, keepdims: bool, name: str) -> None:
    a, axes = data
    if name in ("max", "min") and a.size == 0:
        return  # no identity: both raise
    out = getattr(xp, name)(ag.tensor(a), axis=axes, keepdims=keepdims)
    with np.errstate(all="ignore"):
        expected = getattr(np, name)(a, axis=axes, keepdims=keepdims)
    assert out.dtype.name == str(expected.dtype) or name in ("sum", "prod")
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-4, atol=1e-4, equal_nan=True)


@FAST
@given(hnp.arrays(hnp.integer_dtypes(sizes=(8, 16)) | hnp.unsigned_integer_dtypes(sizes=(8,)),
                  hnp.array_shapes(max_dims=2, max_side=5), elements=st.integers(0, 3)))
def test_integer_sums_keep_signedness_in_64_bits(a: np.ndarray) -> None:
    out = xp.sum(ag.tensor(a))
    assert out.dtype == (ag.uint64 if a.dtype.kind == "u" else ag.int64)
    assert out.item() == int(a.sum())


@FAST
@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=4),
                  elements=st.floats(-5, 5)), st.booleans(), st.data())
def test_cumulative_sum_include_initial(a: np.ndarray, include_initial: bool, data) -> None:
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    out = xp.cumulative_sum(ag.tensor(a), axis=axis, include_initial=include_initial)
    expected = np.cumsum(a, axis=axis)
    if include_initial:
        pad = [(0, 0)] * a.ndim
        pad[axis] = (1, 0)
        expected = np.pad(expected, pad)
    np.testing.assert_allclose(out.numpy(), expected)


def test_std_var_default_to_the_population() -> None:
    a = np.array([[1., 2., 4.], [3., 5., 9.]])
    np.testing.assert_allclose(xp.std(ag.tensor(a)).item(), np.std(a))
    np.testing.assert_allclose(xp.var(ag.tensor(a), axis=0, correction=1).numpy(),
                               np.var(a, axis=0, ddof=1))


def test_unique_functions() -> None:
    a = np.array([[3, 1, 3], [2, 1, 7]])
    res = xp.unique_all(ag.tensor(a))
    values, indices, inverse, counts = np.unique(a, return_index=True, return_inverse=True,
                                                 return_counts=True)
    assert res.values.tolist() == values.tolist()
    assert res.indices.tolist() == indices.tolist()
    assert res.inverse_indices.shape == a.shape
    assert res.inverse_indices.reshape(-1).tolist() == inverse.reshape(-1).tolist()
    assert res.counts.tolist() == counts.tolist()
    assert xp.unique_counts(ag.tensor(a)).counts.tolist() == counts.tolist()
    assert xp.unique_inverse(ag.tensor(a)).inverse_indices.shape == a.shape
    assert xp.unique_values(ag.tensor(a)).tolist() == values.tolist()


def test_take_and_take_along_axis_with_negative_indices() -> None:
    a = np.arange(12.).reshape(3, 4)
    idx = np.array([-1, 0, 2])
    np.testing.assert_array_equal(xp.take(ag.tensor(a), ag.tensor(idx), axis=1).numpy(),
                                  np.take(a, idx, axis=1))
    along = np.array([[-1], [0], [-2]])
    np.testing.assert_array_equal(
        xp.take_along_axis(ag.tensor(a), ag.tensor(along), axis=1).numpy(),
        np.take_along_axis(a, along % 4, axis=1))
    with pytest.raises(ValueError):
        xp.take(ag.tensor(a), ag.tensor(idx))  # a 2-D array needs its axis


def test_squeeze_refuses_an_axis_that_is_not_one() -> None:
    x = ag.ones((1, 3))
    assert xp.squeeze(x, axis=0).shape == (3,)
    with pytest.raises(ValueError):
        xp.squeeze(x, axis=1)


@pytest.mark.parametrize("rows, cols, k", [(3, None, 0), (3, 5, 2), (4, 2, -1), (2, 3, 7)])
def test_eye_with_an_offset(rows: int, cols: int | None, k: int) -> None:
    np.testing.assert_array_equal(xp.eye(rows, cols, k=k).numpy(),
                                  np.eye(rows, cols, k=k, dtype=np.float32))


@pytest.mark.parametrize("endpoint", [True, False])
def test_linspace_endpoint(endpoint: bool) -> None:
    np.testing.assert_allclose(xp.linspace(0, 1, 5, endpoint=endpoint).numpy(),
                               np.linspace(0, 1, 5, endpoint=endpoint), rtol=1e-6)


def test_astype_copy_and_clip_with_arrays() -> None:
    x = xp.arange(5.)
    assert xp.astype(x, ag.float32, copy=False) is x
    plain = ag.arange(5.)  # a plain tensor stays one: its alias is the namespace's array
    alias = xp.astype(plain, ag.float32, copy=False)
    assert type(plain) is ag.Tensor and alias.data_ptr() == plain.data_ptr()
    copied = xp.astype(x, ag.float32)
    assert copied is not x and copied.data_ptr() != x.data_ptr()
    assert xp.astype(x, ag.int64).dtype == ag.int64
    out = xp.clip(x, ag.tensor([1., 1., 1., 1., 1.]), 3)
    assert out.tolist() == [1., 1., 2., 3., 3.] and out.dtype == ag.float32


def test_searchsorted_sides_and_sorter() -> None:
    base = np.array([5., 1., 3., 3.])
    sorter = np.argsort(base)
    for side in ("left", "right"):
        out = xp.searchsorted(ag.tensor(base), ag.tensor([3., 0., 6.]), side=side,
                              sorter=ag.tensor(sorter))
        assert out.tolist() == np.searchsorted(base, [3., 0., 6.], side=side,
                                               sorter=sorter).tolist()


def test_special_values_of_sign_and_floor_divide() -> None:
    x = ag.tensor([float("nan"), -2., 0., 3.])
    out = xp.sign(x)
    assert np.isnan(out[0].item()) and out[1:].tolist() == [-1., 0., 1.]
    inf = float("inf")
    q = xp.floor_divide(ag.tensor([inf, -inf, 5., -5., 7.]), ag.tensor([2., 2., -inf, inf, 2.]))
    assert q.tolist() == [inf, -inf, -0.0, -0.0, 3.]
    assert np.signbit(q.numpy()[2:4]).all()
    assert xp.floor_divide(ag.tensor([7, -7]), 2).tolist() == [3, -4]


def test_empty_ranges() -> None:
    assert xp.arange(1, 0, 1, dtype=ag.uint8).shape == (0,)
    assert xp.arange(0.5, 0.2, 0.1).dtype == ag.float32


def test_complex_expm1_of_signed_zeros() -> None:
    # the standard: expm1(±0 + 0j) is +0 + 0j, and expm1(conj(z)) is conj(expm1(z))
    z = np.array([complex(-0.0, 0.0), complex(0.0, 0.0), complex(0.0, -0.0)])
    out = xp.expm1(ag.tensor(z)).numpy()
    assert (out == 0).all() and not np.signbit(out.real).any()
    assert np.signbit(out.imag).tolist() == [False, False, True]
    np.testing.assert_allclose(xp.expm1(ag.tensor([1 + 2j])).numpy(), np.expm1([1 + 2j]))
