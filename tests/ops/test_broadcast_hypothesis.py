"""Property tests: broadcasting shapes and gradients, reductions (shapes, values and gradient
values against analytic float64 references), dtype promotion."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

import arraygrad as ag

SETTINGS = settings(max_examples=50, deadline=None)
F64 = ag.float64

pair_shapes = mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, min_side=1,
                                            max_side=3)


def np_sum_to(g: np.ndarray, shape: tuple) -> np.ndarray:
    """Sum ``g`` over the dims broadcasting added or expanded, giving ``shape``."""
    lead = g.ndim - len(shape)
    g = g.sum(axis=tuple(range(lead))) if lead else g
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and g.shape[i] != 1)
    return g.sum(axis=axes, keepdims=True).reshape(shape) if axes else g.reshape(shape)


def _arr(rng, shape, kind):
    if kind == "positive":
        return rng.uniform(0.5, 1.5, size=shape)
    if kind == "away":
        return rng.uniform(0.5, 1.5, size=shape) * rng.choice([-1.0, 1.0], size=shape)
    return rng.standard_normal(size=shape)


# op name -> (function, input kind, (d out/da, d out/db) as NumPy functions of a, b)
BINARY = {
    "add": (lambda a, b: a + b, "normal", (lambda a, b: np.ones_like(a + b),
                                           lambda a, b: np.ones_like(a + b))),
    "sub": (lambda a, b: a - b, "normal", (lambda a, b: np.ones_like(a + b),
                                           lambda a, b: -np.ones_like(a + b))),
    "mul": (lambda a, b: a * b, "normal", (lambda a, b: b + 0 * a, lambda a, b: a + 0 * b)),
    "div": (lambda a, b: a / b, "away", (lambda a, b: 1 / b + 0 * a, lambda a, b: -a / b ** 2)),
    "pow": (lambda a, b: a ** b, "positive", (lambda a, b: b * a ** (b - 1),
                                              lambda a, b: a ** b * np.log(a))),
    "maximum": (ag.maximum, "normal", (lambda a, b: (a > b) + 0.0 * b,
                                       lambda a, b: (b > a) + 0.0 * a)),
    "minimum": (ag.minimum, "normal", (lambda a, b: (a < b) + 0.0 * b,
                                       lambda a, b: (b < a) + 0.0 * a)),
    "where": (lambda a, b: ag.where(a > 0, a, b), "normal",
              (lambda a, b: (a > 0) + 0.0 * b, lambda a, b: (a <= 0) + 0.0 * b)),
}


@pytest.mark.parametrize("name", sorted(BINARY))
@SETTINGS
@given(shapes=pair_shapes, seed=st.integers(0, 2 ** 32 - 1))
def test_binary_broadcast_shape_and_gradients(name, shapes, seed):
    fn, kind, (da, db) = BINARY[name]
    (sa, sb), out_shape = shapes.input_shapes, shapes.result_shape
    rng = np.random.default_rng(seed)
    an, bn = _arr(rng, sa, kind), _arr(rng, sb, kind)
    a = ag.tensor(an, dtype=F64, requires_grad=True)
    b = ag.tensor(bn, dtype=F64, requires_grad=True)
    out = fn(a, b)
    assert tuple(out.shape) == tuple(out_shape)
    go = rng.standard_normal(size=out_shape)
    out.backward(ag.tensor(go, dtype=F64))
    assert tuple(a.grad.shape) == tuple(sa) and tuple(b.grad.shape) == tuple(sb)
    assert a.grad.dtype is F64 and b.grad.dtype is F64
    np.testing.assert_allclose(a.grad.numpy(), np_sum_to(go * da(an, bn), tuple(sa)),
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(b.grad.numpy(), np_sum_to(go * db(an, bn), tuple(sb)),
                               rtol=1e-10, atol=1e-12)


@SETTINGS
@given(shapes=pair_shapes, seed=st.integers(0, 2 ** 32 - 1), mixed=st.booleans())
def test_gradient_dtype_follows_input_under_promotion(shapes, seed, mixed):
    (sa, sb), out_shape = shapes.input_shapes, shapes.result_shape
    rng = np.random.default_rng(seed)
    an = rng.standard_normal(sa).astype(np.float32)
    bn = rng.standard_normal(sb).astype(np.float64 if mixed else np.float32)
    a = ag.tensor(an, dtype=ag.float32, requires_grad=True)
    b = ag.tensor(bn, dtype=F64 if mixed else ag.float32, requires_grad=True)
    (a * b).sum().backward()
    assert a.grad.dtype is ag.float32 and tuple(a.grad.shape) == tuple(sa)
    assert b.grad.dtype is b.dtype and tuple(b.grad.shape) == tuple(sb)
    # values: d/da sum(a*b) = b summed down to a's shape, and the other way round, against a
    # float64 reference from the same values; float32 tolerances for both, since, as in
    # PyTorch, the float64 b's gradient is summed from a's float32 products
    ones = np.ones(out_shape)
    a64, b64 = an.astype(np.float64), bn.astype(np.float64)
    np.testing.assert_allclose(a.grad.numpy(), np_sum_to(ones * b64, tuple(sa)),
                               rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(b.grad.numpy(), np_sum_to(ones * a64, tuple(sb)),
                               rtol=1e-5, atol=1e-5)


@SETTINGS
@given(shapes=pair_shapes)
def test_incompatible_shapes_only_fail_when_not_broadcastable(shapes):
    (sa, sb), out_shape = shapes.input_shapes, shapes.result_shape
    assert tuple((ag.zeros(sa) + ag.zeros(sb)).shape) == tuple(out_shape)
    bad = tuple(sb) + (4,) if sa and sa[-1] not in (1, 4) else None
    if bad is not None:
        with pytest.raises(RuntimeError):
            ag.zeros(sa) + ag.zeros(bad)


# -- reductions ----------------------------------------------------------------------------

@st.composite
def shape_dims_keepdim(draw, single=False):
    shape = tuple(draw(st.lists(st.integers(1, 3), min_size=1, max_size=4)))
    n = len(shape)
    if single:
        dims = draw(st.integers(-n, n - 1))
    else:
        dims = tuple(draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=n,
                                   unique_by=lambda d: d % n)))
        if len(dims) == 1 and draw(st.booleans()):
            dims = dims[0]
    return shape, dims, draw(st.booleans())


def expected_shape(shape, dims, keepdim):
    dims = (dims,) if isinstance(dims, int) else dims
    red = {d % len(shape) for d in dims}
    if keepdim:
        return tuple(1 if i in red else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in red)


REDUCTIONS = {
    "sum": (lambda x, d, k: x.sum(d, keepdim=k), lambda a, d, k: a.sum(axis=d, keepdims=k)),
    "mean": (lambda x, d, k: x.mean(d, keepdim=k), lambda a, d, k: a.mean(axis=d, keepdims=k)),
    "prod": (lambda x, d, k: x.prod(d, keepdim=k), lambda a, d, k: a.prod(axis=d, keepdims=k)),
    "amax": (lambda x, d, k: x.amax(d, keepdim=k), lambda a, d, k: a.max(axis=d, keepdims=k)),
    "amin": (lambda x, d, k: ag.amin(x, d, keepdim=k), lambda a, d, k: a.min(axis=d, keepdims=k)),
    "var": (lambda x, d, k: x.var(d, keepdim=k, correction=0),
            lambda a, d, k: a.var(axis=d, keepdims=k)),
    "std": (lambda x, d, k: x.std(d, keepdim=k, correction=0),
            lambda a, d, k: a.std(axis=d, keepdims=k)),
    "logsumexp": (lambda x, d, k: x.logsumexp(d, keepdim=k),
                  lambda a, d, k: np.log(np.exp(a).sum(axis=d, keepdims=k))),
    "norm": (lambda x, d, k: x.norm(dim=d, keepdim=k),
             lambda a, d, k: np.sqrt((a * a).sum(axis=d, keepdims=k))),
}


def reduction_grad(name, a, dims):
    """d sum(reduction(a, dims)) / da in float64: the analytic gradient, with PyTorch's even
    split between tied extrema."""
    d = (dims,) if isinstance(dims, int) else tuple(dims)
    d = tuple(sorted({i % a.ndim for i in d}))
    n = int(np.prod([a.shape[i] for i in d]))

    def keep(f):
        return f(a, axis=d, keepdims=True)

    mean = keep(np.mean)
    if name in ("amax", "amin"):
        hit = a == keep(np.max if name == "amax" else np.min)
        return hit / hit.sum(axis=d, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        return {
            "sum": lambda: np.ones_like(a),
            "mean": lambda: np.full_like(a, 1.0 / n),
            "prod": lambda: keep(np.prod) / a,
            "var": lambda: 2 * (a - mean) / n,
            # PyTorch: 0 where the std is 0 (e.g. over a single element), not 0/0
            "std": lambda: np.where(keep(np.var) == 0, 0.0,
                                    (a - mean) / (n * np.sqrt(keep(np.var)))),
            "logsumexp": lambda: np.exp(a - np.log(keep(lambda x, **k: np.exp(x).sum(**k)))),
            "norm": lambda: a / np.sqrt(keep(lambda x, **k: (x * x).sum(**k))),
        }[name]()


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@SETTINGS
@given(sdk=shape_dims_keepdim(), seed=st.integers(0, 2 ** 32 - 1))
@example(sdk=((2, 1), 1, False), seed=0)  # single-element reductions: std's gradient is 0 there
def test_reduction_shapes_values_and_grad_shape(name, sdk, seed):
    shape, dims, keepdim = sdk
    fn, np_fn = REDUCTIONS[name]
    xn = np.random.default_rng(seed).uniform(0.5, 1.5, size=shape)
    x = ag.tensor(xn, dtype=F64, requires_grad=True)
    out = fn(x, dims, keepdim)
    want = expected_shape(shape, dims, keepdim)
    assert tuple(out.shape) == want
    np_dims = dims if isinstance(dims, int) else tuple(dims)
    np.testing.assert_allclose(out.detach().numpy(), np_fn(xn, np_dims, keepdim), rtol=1e-10)
    out.sum().backward()
    assert tuple(x.grad.shape) == shape
    np.testing.assert_allclose(x.grad.numpy(), reduction_grad(name, xn, dims), rtol=1e-10,
                               atol=1e-12)


@pytest.mark.parametrize("op", ["max", "min"])
@SETTINGS
@given(sdk=shape_dims_keepdim(single=True), seed=st.integers(0, 2 ** 32 - 1))
def test_max_min_with_dim_shapes(op, sdk, seed):
    shape, dim, keepdim = sdk
    xn = np.random.default_rng(seed).permutation(int(np.prod(shape))).reshape(shape) * 1.0
    x = ag.tensor(xn, dtype=F64, requires_grad=True)
    values, indices = getattr(x, op)(dim, keepdim=keepdim)
    want = expected_shape(shape, dim, keepdim)
    assert tuple(values.shape) == want and tuple(indices.shape) == want
    np_fn = np.argmax if op == "max" else np.argmin
    np.testing.assert_array_equal(indices.numpy(), np_fn(xn, axis=dim, keepdims=keepdim))
    values.sum().backward()
    assert tuple(x.grad.shape) == shape
    assert x.grad.sum().item() == values.numel()
    # values: 1 at each selected element (the values are distinct), 0 elsewhere
    onehot = np.zeros(shape)
    np.put_along_axis(onehot, np_fn(xn, axis=dim, keepdims=True), 1.0, axis=dim)
    np.testing.assert_array_equal(x.grad.numpy(), onehot)


# -- dtype promotion ---------------------------------------------------------------------------

B, I32, I64, F16, F32 = ag.bool, ag.int32, ag.int64, ag.float16, ag.float32
DTYPES = [B, I32, I64, F16, F32, F64]
CATEGORY = {B: 0, I32: 1, I64: 1, F16: 2, F32: 2, F64: 2}

# torch.promote_types over these dtypes, written out as PyTorch defines it
PROMOTE = {
    (B, B): B, (B, I32): I32, (B, I64): I64, (B, F16): F16, (B, F32): F32, (B, F64): F64,
    (I32, I32): I32, (I32, I64): I64, (I32, F16): F16, (I32, F32): F32, (I32, F64): F64,
    (I64, I64): I64, (I64, F16): F16, (I64, F32): F32, (I64, F64): F64,
    (F16, F16): F16, (F16, F32): F32, (F16, F64): F64,
    (F32, F32): F32, (F32, F64): F64,
    (F64, F64): F64,
}


def promote(a, b):
    return PROMOTE.get((a, b)) or PROMOTE[(b, a)]


def torch_result_type(operands):
    """PyTorch's result type: operands are ("dim", dtype), ("zero", dtype) or ("scalar", value).

    Dimensioned tensors dominate; a 0-dim tensor or a Python scalar only counts
    when it raises the category (scalars give the category's default dtype).
    """
    result = None
    for tier in ("dim", "zero", "scalar"):
        tier_type = None
        for kind, v in operands:
            if kind != tier:
                continue
            d = v if tier != "scalar" else (
                B if isinstance(v, bool) else I64 if isinstance(v, int) else F32)
            tier_type = d if tier_type is None else promote(tier_type, d)
        if tier_type is None:
            continue
        if result is None or CATEGORY[tier_type] > CATEGORY[result]:
            result = tier_type
    return result


def make(kind, v):
    if kind == "scalar":
        return v
    shape = (2,) if kind == "dim" else ()
    return ag.ones(shape, dtype=v)


TENSOR_OPERANDS = [(k, d) for k in ("dim", "zero") for d in DTYPES]
SCALARS = [("scalar", True), ("scalar", 2), ("scalar", 1.5)]


def _applicable(op, da, db):
    if op == "sub":
        return not (da is B and db is B)
    return True


@pytest.mark.parametrize("op", ["add", "sub", "mul", "maximum", "where"])
def test_promotion_over_all_tensor_pairs(op):
    fn = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
          "maximum": ag.maximum,
          "where": lambda a, b: ag.where(ag.tensor(True), a, b)}[op]
    for (ka, da), (kb, db) in itertools.product(TENSOR_OPERANDS, TENSOR_OPERANDS):
        expected = torch_result_type([(ka, da), (kb, db)])
        if op == "sub" and expected is B:
            continue
        out = fn(make(ka, da), make(kb, db))
        assert out.dtype is expected, (op, ka, da, kb, db, out.dtype, expected)


@pytest.mark.parametrize("op", ["add", "mul", "radd", "rmul", "sub", "rsub"])
def test_promotion_with_python_scalars(op):
    fn = {"add": lambda t, s: t + s, "mul": lambda t, s: t * s, "radd": lambda t, s: s + t,
          "rmul": lambda t, s: s * t, "sub": lambda t, s: t - s,
          "rsub": lambda t, s: s - t}[op]
    for (kt, dt), (_, s) in itertools.product(TENSOR_OPERANDS, SCALARS):
        expected = torch_result_type([(kt, dt), ("scalar", s)])
        if op in ("sub", "rsub") and expected is B:
            continue
        if op == "rsub" and dt is B:  # PyTorch refuses ``number - bool tensor`` whatever the type
            with pytest.raises(RuntimeError, match="with a bool tensor is not supported"):
                fn(make(kt, dt), s)
            continue
        out = fn(make(kt, dt), s)
        assert out.dtype is expected, (op, kt, dt, s, out.dtype, expected)


def test_result_type_with_tensor_zero_dim_and_scalar_together():
    from arraygrad.dtypes import result_type

    for (ka, da), (kb, db), (_, s) in itertools.product(
            [("dim", d) for d in DTYPES], [("zero", d) for d in DTYPES], SCALARS):
        expected = torch_result_type([(ka, da), (kb, db), ("scalar", s)])
        got = result_type(make(ka, da), make(kb, db), s)
        assert got is expected, (da, db, s, got, expected)
    for (_, da), (_, db), (_, s) in itertools.product(
            [("zero", d) for d in DTYPES], [("zero", d) for d in DTYPES], SCALARS):
        expected = torch_result_type([("zero", da), ("zero", db), ("scalar", s)])
        assert result_type(make("zero", da), make("zero", db), s) is expected
    # chained ops keep PyTorch's rule
    assert (ag.ones(2, dtype=I32) + ag.tensor(2.0, dtype=F64) + 1.5).dtype is F64
    assert (ag.ones(2, dtype=I32) + ag.tensor(2, dtype=I64) + 1).dtype is I32


def test_true_division_promotes_integers_to_default_float():
    for (ka, da), (kb, db) in itertools.product(TENSOR_OPERANDS, TENSOR_OPERANDS):
        expected = torch_result_type([(ka, da), (kb, db)])
        if CATEGORY[expected] < 2:
            expected = F32
        out = make(ka, da) / make(kb, db)
        assert out.dtype is expected, (ka, da, kb, db, out.dtype, expected)
    for (kt, dt), (_, s) in itertools.product(TENSOR_OPERANDS, SCALARS):
        expected = torch_result_type([(kt, dt), ("scalar", s)])
        if CATEGORY[expected] < 2:
            expected = F32
        assert (make(kt, dt) / s).dtype is expected
        assert (s / make(kt, dt)).dtype is expected


@pytest.mark.parametrize("a, b, expected", [
    (ag.ones(2, dtype=I64), 1.5, F32),
    (ag.ones(2, dtype=I32), ag.tensor(1, dtype=I64), I32),
    (ag.ones(2, dtype=F16), ag.tensor(1., dtype=F64), F16),
    (ag.ones(2, dtype=I32), ag.tensor(1., dtype=F64), F64),
    (ag.ones(2, dtype=B), ag.tensor(1, dtype=I32), I32),
    (ag.ones(2, dtype=B), 1, I64),
    (ag.ones(2, dtype=I32), True, I32),
    (ag.ones(2, dtype=F16), 1e3, F16),
    (ag.tensor(1, dtype=I32), 5, I32),
    (ag.tensor(1, dtype=I32), ag.tensor(1, dtype=I64), I64),
    (ag.ones(2, dtype=I64), ag.ones(2, dtype=F16), F16),
], ids=["i64*float", "i32+i64_0d", "f16+f64_0d", "i32+f64_0d", "bool+i32_0d", "bool+int",
        "i32+bool", "f16+float", "i32_0d+int", "i32_0d+i64_0d", "i64+f16"])
def test_promotion_examples(a, b, expected):
    assert (a * b).dtype is expected
    assert (b * a).dtype is expected
    assert ag.promote_types(ag.int32, ag.float16) is F16


def test_int_tensor_divided_by_int_tensor_is_float32():
    assert (ag.tensor([1, 2]) / ag.tensor([2, 2])).dtype is F32
    assert (ag.tensor([1, 2], dtype=I32) / 2).dtype is F32
    assert (ag.tensor([True]) / ag.tensor([True])).dtype is F32


@SETTINGS
@given(da=st.sampled_from(DTYPES), db=st.sampled_from(DTYPES))
def test_promote_types_is_symmetric_and_matches_table(da, db):
    assert ag.promote_types(da, db) is promote(da, db)
    assert ag.promote_types(db, da) is promote(da, db)
