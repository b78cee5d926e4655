"""The meta namespace's shape rules against NumPy itself: for random shapes, a function on meta
arrays gives the shape and dtype (or the error class) the CPU namespace gives on real arrays."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from arraygrad_meta.array import MetaArray
from arraygrad_meta.namespace import get
from arraygrad_meta.rules_indexing import indexed_shape
from arraygrad_meta.standins import replaced
from arraygrad_numpy.backend import NumpyBackend

SETTINGS = settings(max_examples=60, deadline=None)
CPU = NumpyBackend().xp
XP = get()
DTYPES = ["float32", "float64", "int32", "int64", "bool", "float16"]

shapes = st.lists(st.integers(0, 4), min_size=0, max_size=4).map(tuple)


def _real(shape, dtype):
    return np.ones(shape, dtype=dtype)


def _same(meta, real):
    """``meta`` (a meta result) stands for ``real`` (the CPU's): shapes and dtypes agree."""
    if isinstance(real, (tuple, list)):
        assert len(meta) == len(real)
        for m, r in zip(meta, real):
            _same(m, r)
        return
    real = np.asarray(real)
    assert isinstance(meta, MetaArray)
    assert meta.shape == real.shape and meta.dtype == real.dtype, (meta, real.shape, real.dtype)


def _both(name, *args, **kwargs):
    """``name`` on the CPU namespace (real arrays) and on the meta one (meta arrays): both
    raise the same class, or the results agree."""
    real_args = [replaced(a, lambda m: _real(m.shape, m.dtype)) for a in args]
    try:
        with np.errstate(all="ignore"):
            want = _resolve(CPU, name)(*real_args, **kwargs)
    except Exception as e:
        with pytest.raises(type(e)):
            _resolve(XP, name)(*args, **kwargs)
        return
    _same(_resolve(XP, name)(*args, **kwargs), want)


def _resolve(ns, name):
    for part in name.split("."):
        ns = getattr(ns, part)
    return ns


def _broadcastable(draw, n):
    base = draw(st.lists(st.integers(1, 4), min_size=0, max_size=4))
    out = []
    for _ in range(n):
        keep = draw(st.integers(0, len(base)))
        out.append(tuple(1 if draw(st.booleans()) else s for s in base[len(base) - keep:]))
    return out


@SETTINGS
@given(st.data(), st.sampled_from(["add", "multiply", "divide", "maximum", "equal", "pow",
                                   "floor_divide", "logaddexp", "atan2", "where"]),
       st.sampled_from(DTYPES), st.sampled_from(DTYPES))
def test_elementwise_broadcasts_and_promotes(data, name, da, db):
    a, b, c = _broadcastable(data.draw, 3)
    if name == "where":
        _both(name, MetaArray(a, "bool"), MetaArray(b, da), MetaArray(c, db))
    else:
        _both(name, MetaArray(a, da), MetaArray(b, db))


@SETTINGS
@given(shapes, st.sampled_from(DTYPES), st.sampled_from(["sum", "prod", "max", "mean", "any",
                                                          "argmax", "std"]),
       st.one_of(st.none(), st.integers(-4, 3), st.lists(st.integers(-4, 3), max_size=3,
                                                         unique=True).map(tuple)),
       st.booleans())
def test_reductions_drop_or_keep_their_axes(shape, dtype, name, axis, keepdims):
    if name == "argmax" and isinstance(axis, tuple):
        axis = None
    kw = {"correction": 1} if name == "std" else {}
    _both(name, MetaArray(shape, dtype), axis=axis, keepdims=keepdims, **kw)


@SETTINGS
@given(shapes, st.sampled_from(DTYPES), st.data())
def test_views_are_numpys_own_shapes(shape, dtype, data):
    x = MetaArray(shape, dtype)
    n = len(shape)
    _both("reshape", x, (-1,))
    _both("permute_dims", x, tuple(data.draw(st.permutations(range(n)))))
    _both("expand_dims", x, axis=data.draw(st.integers(-n - 2, n + 1)))
    _both("flip", x)
    if n >= 2:
        _both("matrix_transpose", x)
        _both("linalg.diagonal", x)


@SETTINGS
@given(st.lists(st.integers(0, 3), min_size=1, max_size=3).map(tuple),
       st.integers(1, 3), st.integers(-3, 3), st.sampled_from(DTYPES), st.sampled_from(DTYPES))
def test_joins(shape, count, axis, da, db):
    arrays = [MetaArray(shape, da if k % 2 else db) for k in range(count)]
    _both("concat", arrays, axis=axis)
    _both("stack", arrays, axis=axis)
    grown = [MetaArray(shape[:-1] + (k,), da) for k in range(count)]
    _both("concat", grown, axis=-1)


def _keys(shape):
    """Index keys for an array of ``shape``: ints, slices, None, Ellipsis and integer index
    arrays, in NumPy's mixes (adjacent or separated advanced indices)."""
    n = len(shape)
    entry = st.one_of(
        st.integers(-3, 3), st.none(),
        st.builds(slice, st.one_of(st.none(), st.integers(-4, 4)),
                  st.one_of(st.none(), st.integers(-4, 4)),
                  st.one_of(st.none(), st.integers(1, 3))),
        st.lists(st.integers(1, 3), min_size=0, max_size=2).map(tuple))
    return st.lists(entry, min_size=1, max_size=n + 1)


@SETTINGS
@given(st.lists(st.integers(1, 4), min_size=1, max_size=4).map(tuple), st.data())
def test_advanced_indexing_shapes_are_numpys(shape, data):
    raw = data.draw(_keys(shape))
    key = tuple(np.zeros(k, dtype=np.int64) if isinstance(k, tuple) else k for k in raw)
    if data.draw(st.booleans()) and len(key) < len(shape):
        key = (Ellipsis,) + key
    try:
        want = np.ones(shape)[key].shape
    except IndexError:
        with pytest.raises(IndexError):
            indexed_shape(shape, key) if any(isinstance(k, np.ndarray) for k in key) else \
                MetaArray(shape, "float64")[key]
        return
    meta_key = tuple(MetaArray(k.shape, "int64") if isinstance(k, np.ndarray) else k for k in key)
    assert MetaArray(shape, "float64")[meta_key].shape == want


@pytest.mark.parametrize("a, b", [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)),
                                  ((5, 1, 2, 3), (4, 3, 6)), ((2, 3), (4, 5)), ((), (3,))])
def test_matmul_shapes(a, b):
    _both("matmul", MetaArray(a, "float32"), MetaArray(b, "float64"))


@pytest.mark.parametrize("name, shape, kw", [
    ("linalg.inv", (2, 3, 3), {}), ("linalg.det", (4, 4), {}), ("linalg.slogdet", (2, 3, 3), {}),
    ("linalg.cholesky", (3, 3), {}), ("linalg.qr", (5, 3), {}), ("linalg.qr", (3, 5), {}),
    ("linalg.qr", (5, 3), {"mode": "complete"}), ("linalg.eigh", (2, 4, 4), {}),
    ("linalg.svd", (5, 3), {}), ("linalg.svd", (3, 5), {"full_matrices": False}),
    ("linalg.svdvals", (2, 3, 5), {}), ("linalg.pinv", (3, 5), {}),
    ("linalg.vector_norm", (3, 4), {"axis": 1}), ("linalg.matrix_norm", (2, 3, 4), {}),
])
def test_linalg_shapes(name, shape, kw):
    x = MetaArray(shape, "float32")
    real = np.eye(shape[-2], shape[-1], dtype=np.float32) + np.zeros(shape, np.float32)
    _same(_resolve(XP, name)(x, **kw), _resolve(CPU, name)(real, **kw))


def test_solve_and_tensordot_shapes():
    _same(XP.linalg.solve(MetaArray((2, 3, 3), "float64"), MetaArray((3, 4), "float64")),
          CPU.linalg.solve(np.eye(3) + np.zeros((2, 3, 3)), np.ones((3, 4))))
    _both("tensordot", MetaArray((2, 3, 4), "float32"), MetaArray((3, 4, 5), "float32"), axes=2)
    _both("vecdot", MetaArray((2, 3), "float32"), MetaArray((4, 1, 3), "float32"))


@pytest.mark.parametrize("call", [
    lambda ns: ns.zeros((2, 3), dtype=ns.int32), lambda ns: ns.ones(4),
    lambda ns: ns.full((2,), 1.5), lambda ns: ns.arange(7), lambda ns: ns.arange(1, 2.5, 0.25),
    lambda ns: ns.arange(5, 1, -2), lambda ns: ns.linspace(0, 1, 9), lambda ns: ns.eye(3, 5),
    lambda ns: ns.asarray([[1, 2], [3, 4]]), lambda ns: ns.empty((0, 3), dtype=ns.bool),
])
def test_creation_shapes(call):
    _same(call(XP), call(CPU))


def test_values_are_refused_as_pytorch_does():
    x = MetaArray((3,), "float32")
    with pytest.raises(RuntimeError, match="Tensor.item\\(\\) cannot be called on meta tensors"):
        float(x)
    with pytest.raises(NotImplementedError, match="torch.nonzero"):
        XP.nonzero(x)
    with pytest.raises(NotImplementedError, match="nonzero"):
        x[MetaArray((3,), "bool")]
    with pytest.raises(NotImplementedError, match="_unique2"):
        XP.unique_values(x)
    with pytest.raises(TypeError, match="can't convert meta device type tensor to numpy"):
        np.asarray(x)


def test_setitem_checks_the_value_fits():
    x = MetaArray((3, 4), "float32")
    x[1:, ::2] = MetaArray((2, 1), "float32")
    x[MetaArray((3,), "bool")] = 1.0  # the selection's length is unknown: any value
    with pytest.raises(ValueError, match="could not broadcast"):
        x[0] = MetaArray((5,), "float32")


def test_in_place_operators_keep_the_target():
    x = MetaArray((2, 3), "float32")
    x += MetaArray((3,), "float64")  # NumPy's same-kind cast back
    assert x.shape == (2, 3) and x.dtype == np.float32
    with pytest.raises(ValueError, match="non-broadcastable"):
        x *= MetaArray((4, 2, 3), "float32")
    i = MetaArray((2,), "int64")
    with pytest.raises(TypeError, match="same_kind"):
        i += MetaArray((2,), "float32")
