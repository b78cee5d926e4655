"""``positive``, ``rsub``, ``dist``, ``renorm``, ``cross``, ``vander``, ``index_reduce``,
``unravel_index``, ``nonzero_static``, ``is_same_size``/``is_signed``, the stacking functions,
the real-tensor forms of the complex functions (``real``, ``imag``, ``angle``, ``conj``...) and
the constants: values, dtypes and gradients against PyTorch, gradcheck, errors."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.autograd import gradcheck, gradgradcheck
from torch_compare import same_as_torch as _same

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

F64 = ag.float64


def _pair(shape, seed=0, positive=False):
    data = np.random.default_rng(seed).standard_normal(shape)
    if positive:
        data = np.abs(data) + 0.5
    return (ag.tensor(data.tolist(), dtype=F64).reshape(shape).requires_grad_(),
            torch.tensor(data, dtype=torch.float64, requires_grad=True))


DIFFERENTIABLE = {
    "rsub_scalar": ((3,), lambda m, x: m.rsub(x, 5, alpha=2)),
    "rsub_tensor": ((2, 3), lambda m, x: m.rsub(x, m.ones(3, dtype=x.dtype))),
    "dist_2": ((2, 3), lambda m, x: m.dist(x, m.zeros(3, dtype=x.dtype))),
    "dist_3": ((4,), lambda m, x: x.dist(m.ones(4, dtype=x.dtype), 3)),
    "dist_inf": ((4,), lambda m, x: m.dist(x, m.ones(4, dtype=x.dtype), float("inf"))),
    "renorm_dim0": ((3, 4), lambda m, x: m.renorm(x, 2, 0, 1.0)),
    "renorm_dim1_p3": ((3, 4), lambda m, x: x.renorm(3, 1, 0.5)),
    "cross_dim": ((2, 3), lambda m, x: m.cross(x, x.flip(0) + 1, dim=1)),
    "cross_default_dim": ((3, 2), lambda m, x: x.cross(x * x)),
    "vander": ((4,), lambda m, x: m.vander(x)),
    "vander_n_increasing": ((3,), lambda m, x: m.vander(x, 5, True)),
    "index_reduce_amax": ((3, 2), lambda m, x: m.index_reduce(
        x * 1, 0, m.tensor([0, 0, 2]), x.flip(0) * 2, "amax")),
    "index_reduce_mean": ((3, 2), lambda m, x: x.index_reduce(
        1, m.tensor([1, 1]), x * 3, "mean", include_self=False)),
    "hstack": ((2, 3), lambda m, x: m.hstack([x, x[:, :1]])),
    "hstack_1d": ((3,), lambda m, x: m.hstack([x, x[:1]])),
    "vstack": ((3,), lambda m, x: m.vstack([x, x * 2])),
    "row_stack": ((2, 3), lambda m, x: m.row_stack([x, x[0]])),
    "dstack": ((2, 3), lambda m, x: m.dstack([x, x])),
    "column_stack": ((3,), lambda m, x: m.column_stack([x, m.ones(3, 2, dtype=x.dtype)])),
    "angle": ((5,), lambda m, x: m.angle(x)),
    "positive": ((3,), lambda m, x: m.positive(x) * 2),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(DIFFERENTIABLE))
def test_matches_torch(name):
    shape, fn = DIFFERENTIABLE[name]
    a, t = _pair(shape)
    # PyTorch 2.13's vander backward fails ("modified by an inplace operation"): values only
    inputs = [] if name.startswith("vander") else [(a, t)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # cross without dim
        _same(fn(ag, a), fn(torch, t), inputs)


@pytest.mark.parametrize("name", sorted(DIFFERENTIABLE))
def test_gradcheck(name):
    shape, fn = DIFFERENTIABLE[name]
    x = ag.randn(*shape, dtype=F64, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert gradcheck(lambda x: fn(ag, x), (x,))
        if name not in ("dist_inf", "index_reduce_amax"):  # piecewise linear
            assert gradgradcheck(lambda x: fn(ag, x), (x,))


def test_index_reduce_prod_gradcheck():
    x = ag.rand(3, 2, dtype=F64, requires_grad=True)
    src = (ag.rand(3, 2, dtype=F64) + 0.5).requires_grad_()
    assert gradcheck(lambda x, s: ag.index_reduce(x, 0, ag.tensor([0, 0, 2]), s, "prod"), (x, src))


@needs_torch
@pytest.mark.parametrize("call", [
    lambda m: m.rsub(m.tensor([1, 2]), m.tensor([3, 3])),
    lambda m: m.dist(m.ones(3), m.zeros(3), 0),
    lambda m: m.vander(m.tensor([2, 3])),
    lambda m: m.vander(m.tensor([True, False])),
    lambda m: m.vander(m.tensor([2, 3]), 0),
    lambda m: m.stack(m.unravel_index(m.tensor([4, -1, 6]), (2, 3))),
    lambda m: m.unravel_index(m.tensor(5), (2, 3))[1],
    lambda m: m.nonzero_static(m.tensor([[0, 1], [1, 1]]), size=5),
    lambda m: m.nonzero_static(m.tensor([0, 1, 1, 1]), size=2, fill_value=7),
    lambda m: m.nonzero_static(m.tensor(3), size=2),
    lambda m: m.index_reduce(m.ones(3, 2), 0, m.tensor([0, 0, 2]),
                             m.tensor([[2., 3], [4, 5], [6, 7]]), "prod"),
    lambda m: m.angle(m.tensor([-1, 0, 2])),
    lambda m: m.angle(m.tensor([-1., float("nan"), 2.])),
    lambda m: m.angle(m.tensor([True])),
    lambda m: m.hstack([m.tensor([1, 2]), m.tensor([3])]),
    lambda m: m.column_stack([m.tensor(1), m.tensor(2)]),
    lambda m: m.positive(m.tensor([1, 2])),
], ids=["rsub_int", "dist_0", "vander_int", "vander_bool", "vander_0", "unravel", "unravel_0d",
        "nonzero_static_pad", "nonzero_static_cut", "nonzero_static_0d", "index_reduce_prod",
        "angle_int", "angle_nan", "angle_bool", "hstack_int", "column_stack_0d", "positive_int"])
def test_values_and_dtypes_match_torch(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = call(ag), call(torch)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert np.array_equal(ours.numpy(), theirs.numpy(), equal_nan=True)


@needs_torch
@pytest.mark.parametrize("call", [
    lambda m: m.positive(m.tensor([True])),
    lambda m: m.renorm(m.ones(2), 2, 0, 1),
    lambda m: m.renorm(m.ones(2, 2), 2, 0, -1),
    lambda m: m.renorm(m.ones(2, 2), 0, 0, 1),
    lambda m: m.vander(m.ones(2, 2)),
    lambda m: m.vander(m.ones(2), -1),
    lambda m: m.cross(m.ones(2, 2), m.ones(2, 2)),
    lambda m: m.unravel_index(m.tensor([1.]), (2,)),
    lambda m: m.unravel_index(m.tensor([1]), (2, -1)),
    lambda m: m.nonzero_static(m.tensor([1]), size=-1),
    lambda m: m.index_reduce(m.ones(3, 2), 0, m.tensor([0]), m.ones(1, 2), "sum"),
    lambda m: m.dist(m.tensor([1, 2]), m.tensor([3, 4])),
    lambda m: m.imag(m.ones(2)),
    lambda m: m.ones(2).imag,
    lambda m: m.hstack([]),
], ids=["positive_bool", "renorm_1d", "renorm_maxnorm", "renorm_p", "vander_2d", "vander_n",
        "cross_no_3", "unravel_float", "unravel_negative", "nonzero_static_size",
        "index_reduce_sum", "dist_int", "imag", "imag_property", "hstack_empty"])
def test_errors_match_torch(call):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)) as ours:
        call(ag)
    assert str(theirs.value)[:20] in str(ours.value)


def test_real_tensor_complex_forms():
    x = ag.ones(2, requires_grad=True)
    assert x.real is x and ag.real(x) is x
    for name in ("conj", "conj_physical", "resolve_conj", "resolve_neg"):
        assert getattr(ag, name)(x) is x and getattr(x, name)() is x
    y = ag.ones(2)
    assert ag.conj_physical_(y) is y and y.conj_physical_() is y
    assert not ag.is_conj(x) and not x.is_neg() and not x.is_conj()


def test_predicates():
    assert ag.is_same_size(ag.ones(2, 3), ag.zeros(2, 3)) and not ag.ones(2).is_same_size(ag.ones(3))
    assert ag.ones(2).is_signed() and ag.is_signed(ag.ones(2, dtype=ag.int32))
    assert not ag.tensor([True]).is_signed()


def test_constants():
    assert (ag.pi, ag.e, ag.inf) == (math.pi, math.e, math.inf) and math.isnan(ag.nan)
    assert ag.newaxis is None and tuple(ag.ones(3)[:, ag.newaxis].shape) == (3, 1)


def test_renorm_inplace():
    x = ag.tensor([[3., 4.], [0.3, 0.4]])
    assert x.renorm_(2, 0, 1.0) is x
    np.testing.assert_allclose(x.numpy(), [[0.6, 0.8], [0.3, 0.4]], rtol=1e-6)
