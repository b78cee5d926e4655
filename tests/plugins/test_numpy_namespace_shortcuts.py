"""The NumPy backend's namespace replaces array-api-compat's Python wrappers by NumPy's own
functions or ufunc reductions where the results are the same for the standard's arguments:
``any``/``all`` (``logical_or``/``logical_and.reduce``), ``stack`` (one ``concatenate``),
``arange`` and ``cumulative_sum`` (NumPy 2's own), ``clip`` between 0-d bounds (the ufunc),
``take_along_axis`` (its fancy index), ``reshape``/``expand_dims``/``permute_dims`` (the
array's methods, an index), ``asarray``/``empty_like`` (NumPy's own without a device),
``broadcast_to`` (a zero-stride array over the buffer). Each is
checked against the function it replaces, over dtypes, shapes and axes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import array_api_compat.numpy as compat

import arraygrad as ag

XP = ag.ones(1)._backend.xp
DTYPES = [np.bool_, np.int32, np.int64, np.uint8, np.float32, np.float64, np.complex64]


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(got, want, equal_nan=got.dtype.kind in "fc")


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(0, 3), max_size=3).map(tuple), st.sampled_from(DTYPES),
       st.booleans(), st.data())
def test_any_and_all_are_numpys(shape, dtype, keepdims, data):
    x = data.draw(st.lists(st.sampled_from([0, 1, 2]), min_size=int(np.prod(shape)),
                           max_size=int(np.prod(shape))))
    x = np.array(x).reshape(shape).astype(dtype)
    if x.dtype.kind == "f" and x.size:
        x.flat[0] = np.nan  # NaN is true, as in NumPy
    ndim = len(shape)
    axes = [None] + list(range(-ndim, ndim)) + ([(0, ndim - 1)] if ndim > 1 else [])
    axis = data.draw(st.sampled_from(axes))
    for ours, theirs in ((XP.any, np.any), (XP.all, np.all)):
        _same(ours(x, axis=axis, keepdims=keepdims), theirs(x, axis=axis, keepdims=keepdims))


def test_any_and_all_of_zero_dimensional_and_empty_arrays():
    for x in (np.array(True), np.array(0.0), np.bool_(False), np.zeros((2, 0)), np.array([])):
        _same(XP.any(x), np.any(x))
        _same(XP.all(x), np.all(x))


@pytest.mark.skipif(not hasattr(np, "cumulative_sum"), reason="NumPy before 2.1")
@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.bool_, np.float32, np.float64])
def test_cumulative_sum_is_the_compat_one(dtype):
    x = (np.arange(12) % 5).reshape(3, 4).astype(dtype)
    for kwargs in ({"axis": 0}, {"axis": -1}, {"axis": 1, "include_initial": True},
                   {"axis": 0, "dtype": np.float64}):
        _same(XP.cumulative_sum(x, **kwargs), compat.cumulative_sum(x, **kwargs))
    with pytest.raises(ValueError):  # more than one dimension needs an axis, as the standard
        XP.cumulative_sum(x)


def test_arange_is_the_standards():
    for args, kwargs in (((5,), {}), ((2, 9, 3), {}), ((4,), {"dtype": np.int32}),
                         ((0.5, 2.0, 0.5), {}), ((3,), {"dtype": np.float32})):
        _same(XP.arange(*args, **kwargs), compat.arange(*args, **kwargs))


@settings(max_examples=80, deadline=None)
@given(st.sampled_from([np.float32, np.float64, np.float16]),
       st.lists(st.integers(0, 4), min_size=0, max_size=3).map(tuple),
       st.sampled_from([-np.inf, -1.0, -0.0, 0.0, 0.5]), st.sampled_from([np.inf, 0.0, 1.0, -2.0]),
       st.data())
def test_clip_between_zero_dimensional_bounds_is_the_general_clip(dtype, shape, low, high, data):
    x = np.asarray(data.draw(st.lists(
        st.sampled_from([-3.0, -0.0, 0.0, 0.25, 2.0, np.inf, -np.inf, np.nan]),
        min_size=int(np.prod(shape)), max_size=int(np.prod(shape))))).reshape(shape)
    x = x.astype(dtype)
    lo, hi = np.asarray(low).astype(x.dtype), np.asarray(high).astype(x.dtype)
    got, want = XP.clip(x, lo, hi), compat.clip(x, lo, hi)
    _same(got, want)
    assert np.array_equal(np.signbit(got), np.signbit(want))  # -0.0 kept as the ufunc keeps it
    _same(XP.clip(x, min=0.5), compat.clip(x, min=0.5))  # a Python bound: the general clip


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple), st.data())
def test_take_along_axis_is_numpys(shape, data):
    ndim = len(shape)
    axis = data.draw(st.integers(-ndim, ndim - 1))
    ishape = tuple(data.draw(st.sampled_from([1, n])) if i != axis % ndim
                   else data.draw(st.integers(0, 5)) for i, n in enumerate(shape))
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    n = shape[axis]
    idx = np.asarray(data.draw(st.lists(st.integers(-n, n - 1), min_size=int(np.prod(ishape)),
                                        max_size=int(np.prod(ishape)))),
                     dtype=data.draw(st.sampled_from([np.int64, np.int32]))).reshape(ishape)
    _same(XP.take_along_axis(x, idx, axis=axis), np.take_along_axis(x, idx, axis=axis))


def test_take_along_axis_refuses_what_numpy_refuses():
    x = np.ones((3, 4))
    for idx, axis in ((np.zeros(3, np.int64), 1), (np.zeros((3, 1), np.int64), 2),
                      (np.zeros((3, 1)), 1)):
        with pytest.raises(Exception) as ours:
            XP.take_along_axis(x, idx, axis=axis)
        with pytest.raises(Exception) as theirs:
            np.take_along_axis(x, idx, axis=axis)
        assert type(ours.value) is type(theirs.value)


@pytest.mark.parametrize("make", [lambda: np.arange(24.0).reshape(2, 3, 4),
                                  lambda: np.arange(24.0).reshape(2, 3, 4).transpose(2, 0, 1),
                                  lambda: np.arange(24.0).reshape(4, 6)[:, ::2],
                                  lambda: np.array(3.5)], ids=["contiguous", "transposed",
                                                              "strided", "0-d"])
def test_reshape_and_expand_dims_are_numpys(make):
    x = make()
    for axis in range(-x.ndim - 1, x.ndim + 1):
        ours, theirs = XP.expand_dims(x, axis=axis), np.expand_dims(x, axis)
        _same(ours, theirs)
        assert np.shares_memory(ours, x) == np.shares_memory(theirs, x)
    for bad in (x.ndim + 1, -x.ndim - 2):
        with pytest.raises(np.exceptions.AxisError):
            XP.expand_dims(x, axis=bad)
    for shape in ((-1,), (x.size,), (1, -1), ((1,) * 3)) if x.size == 1 else \
            ((-1,), (x.size,), (2, -1), (x.size // 2, 2)):
        ours, theirs = XP.reshape(x, shape), compat.reshape(x, shape)
        _same(ours, theirs)
        assert np.shares_memory(ours, x) == np.shares_memory(theirs, x)
        _same(XP.reshape(x, shape, copy=True), compat.reshape(x, shape, copy=True))
    try:  # ``copy=False``: a view or NumPy's refusal (the transposed one), as the wrapper's
        theirs = compat.reshape(x, (-1,), copy=False)
    except ValueError:
        with pytest.raises(ValueError):
            XP.reshape(x, (-1,), copy=False)
    else:
        assert np.shares_memory(XP.reshape(x, (-1,), copy=False), x) and \
            np.shares_memory(theirs, x)


def test_permute_dims_is_numpys():
    x = np.arange(24.0).reshape(2, 3, 4)
    for axes in ((0, 1, 2), (2, 0, 1), (1, 0, 2), (-1, 0, 1)):
        ours = XP.permute_dims(x, axes)
        _same(ours, np.transpose(x, axes))
        assert np.shares_memory(ours, x)
    _same(XP.permute_dims(np.array(2.0), ()), np.transpose(np.array(2.0), ()))
    for bad in ((0, 1), (0, 0, 1), (0, 1, 3)):
        with pytest.raises(Exception) as ours:
            XP.permute_dims(x, bad)
        with pytest.raises(Exception) as theirs:
            np.transpose(x, bad)
        assert type(ours.value) is type(theirs.value)


def test_asarray_and_empty_like_are_numpys():
    x = np.arange(6, dtype=np.float32)
    assert XP.asarray(x) is x and XP.asarray(x, dtype=np.float32) is x
    for obj, dtype in (([1, 2], None), (2.5, np.float32), ([[True]], None), (x, np.float64),
                       (np.float32(1), None)):
        _same(XP.asarray(obj, dtype=dtype), compat.asarray(obj, dtype=dtype))
    assert XP.asarray(x, copy=True) is not x
    with pytest.raises(ValueError):
        XP.asarray(x, device="cuda")  # the wrapper's device check
    got = XP.empty_like(x, dtype=np.int16)
    assert got.shape == x.shape and got.dtype == np.int16
    assert XP.empty_like(x, device="cpu").dtype == x.dtype


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 3), max_size=3).map(tuple), st.sampled_from(DTYPES),
       st.booleans(), st.data())
def test_broadcast_to_is_numpys(shape, dtype, strided, data):
    """Any shape broadcast to any target it broadcasts to (ones expanded, leading dims added,
    0-size dims): the same values, strides and read-only view of ``x`` as NumPy's; a strided
    input, a target it does not broadcast to and a negative size go to NumPy's (its error)."""
    x = np.arange(int(np.prod(shape)) * (2 if strided else 1)).astype(dtype)
    x = x[::2] if strided else x
    x = x.reshape(shape)
    lead = data.draw(st.lists(st.integers(0, 3), max_size=2), label="leading dims")
    target = tuple(lead) + tuple(data.draw(st.integers(0, 3)) if n == 1 else n for n in shape)
    got, want = XP.broadcast_to(x, target), np.broadcast_to(x, target)
    _same(got, want)
    assert got.strides == want.strides and not got.flags.writeable
    assert got.size == 0 or np.shares_memory(got, x)
    bad = target + (2,) if shape and shape[-1] not in (1, 2) else (-1,)
    with pytest.raises(ValueError):
        XP.broadcast_to(x, bad)


def test_broadcast_to_of_a_zero_dimensional_gradient():
    """A reduction's gradient (0-d) spread over the input's shape, as ``sum``'s backward."""
    g = np.array(2.5, np.float32)
    got = XP.broadcast_to(g, (4, 3))
    assert got.strides == (0, 0) and not got.flags.writeable
    _same(got, np.full((4, 3), 2.5, np.float32))
    assert XP.reshape(np.float64(1.5), ()) == 1.5  # a NumPy scalar reshapes by its method
