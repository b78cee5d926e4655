"""First-order array formulas of the structural ops (issue 27): a plain backward through
sum, mean, expand, view/reshape, transpose/permute, squeeze/unsqueeze, slicing, indexing,
cat/stack/split/unbind and matmul takes each rule's ``first_order`` formula on native
arrays; ``create_graph=True`` and ``ARRAYGRAD_REFERENCE=1`` take the recorded vjp. The two
must agree, and agree with PyTorch."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag
from arraygrad.ops.rule import reference_mode

RNG = np.random.default_rng(27)

# (name, input shape, op): each op maps a tensor to a tensor or a tuple of tensors, and
# is written so that the same source runs on arraygrad and on PyTorch
CASES = [
    ("sum", (2, 3, 4), lambda x: x.sum()),
    ("sum_dim", (2, 3, 4), lambda x: x.sum(1)),
    ("sum_dims_keepdim", (2, 3, 4), lambda x: x.sum((0, 2), keepdim=True)),
    ("mean", (2, 3, 4), lambda x: x.mean()),
    ("mean_dim", (2, 3, 4), lambda x: x.mean(-1)),
    ("mean_keepdim", (2, 3, 4), lambda x: x.mean(1, keepdim=True)),
    ("expand", (3, 1), lambda x: x.expand(2, 3, 4)),
    ("reshape", (2, 3, 4), lambda x: x.reshape(6, 4)),
    ("view", (2, 3, 4), lambda x: x.view(-1)),
    ("reshape_of_transpose", (2, 3, 4), lambda x: x.transpose(0, 2).reshape(4, 6)),
    ("flatten", (2, 3, 4), lambda x: x.flatten(1)),
    ("transpose", (2, 3, 4), lambda x: x.transpose(0, 2)),
    ("permute", (2, 3, 4), lambda x: x.permute(2, 0, 1)),
    ("t", (3, 4), lambda x: x.t()),
    ("squeeze", (2, 1, 3), lambda x: x.squeeze()),
    ("squeeze_dim", (2, 1, 3), lambda x: x.squeeze(1)),
    ("unsqueeze", (2, 3), lambda x: x.unsqueeze(1)),
    ("slice", (4, 6), lambda x: x[1:, ::2]),
    ("select", (4, 6), lambda x: x[2]),
    ("select_last", (4, 6), lambda x: x[..., -1]),
    ("index_repeated", (4, 6), lambda x: x[[0, 2, 0]]),
    ("cat", (2, 3), lambda x: _lib(x).cat([x, x * 2.0, x[:, :1]], dim=1)),
    ("stack", (2, 3), lambda x: _lib(x).stack([x, x * 3.0], dim=1)),
    ("split", (5, 3), lambda x: x.split(2, dim=0)),
    ("split_sizes", (5, 3), lambda x: x.split([1, 4], dim=0)),
    ("chunk", (4, 6), lambda x: x.chunk(3, dim=1)),
    ("unbind", (3, 2), lambda x: x.unbind(1)),
    ("matmul", (3, 4), lambda x: x @ _const(x, (4, 5))),
    ("matmul_right", (4, 5), lambda x: _const(x, (3, 4)) @ x),
    ("matmul_batched_broadcast", (4, 5), lambda x: _const(x, (2, 3, 4)) @ x),
    ("bias_add", (5,), lambda x: _const(x, (3, 5)) + x),
]


def _lib(x):
    """The library ``x`` belongs to (arraygrad or torch)."""
    if type(x).__module__.startswith("torch"):
        import torch

        return torch
    return ag


_CONSTS: dict = {}


def _const(x, shape):
    """A fixed array of ``shape`` (the same values for every library and run)."""
    values = _CONSTS.setdefault(shape, RNG.standard_normal(shape).astype(np.float32))
    return _lib(x).tensor(values)


def _loss(lib, outs, weights):
    outs = outs if isinstance(outs, tuple) else (outs,)
    total = None
    for o, w in zip(outs, weights):
        part = (o * lib.tensor(w)).sum()
        total = part if total is None else total + part
    return total


def _weights(outs):
    outs = outs if isinstance(outs, tuple) else (outs,)
    return [RNG.standard_normal(tuple(o.shape)).astype(np.float32) for o in outs]


def _grad(shape, op, x0, weights, create_graph=False):
    x = ag.tensor(x0, requires_grad=True)
    loss = _loss(ag, op(x), weights)
    (g,) = ag.autograd.grad(loss, x, create_graph=create_graph)
    return g.detach().numpy()


@pytest.mark.parametrize("name,shape,op", CASES, ids=[c[0] for c in CASES])
def test_first_order_formula_is_the_vjp(name, shape, op):
    x0 = RNG.standard_normal(shape).astype(np.float32)
    weights = _weights(op(ag.tensor(x0)))
    fast = _grad(shape, op, x0, weights)
    with reference_mode():
        reference = _grad(shape, op, x0, weights)
    graphed = _grad(shape, op, x0, weights, create_graph=True)  # the recorded vjp
    np.testing.assert_allclose(fast, reference, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(fast, graphed, rtol=1e-6, atol=1e-6)
    assert fast.shape == shape and fast.dtype == np.float32


@pytest.mark.parametrize("name,shape,op", CASES, ids=[c[0] for c in CASES])
def test_first_order_formula_is_pytorch(name, shape, op):
    torch = pytest.importorskip("torch")
    x0 = RNG.standard_normal(shape).astype(np.float32)
    weights = _weights(op(ag.tensor(x0)))
    xt = torch.tensor(x0, requires_grad=True)
    _loss(torch, op(xt), weights).backward()
    np.testing.assert_allclose(_grad(shape, op, x0, weights), xt.grad.numpy(), rtol=1e-5,
                               atol=1e-6)


def test_a_sum_with_a_wider_dtype_casts_the_gradient_back():
    x = ag.tensor([1.0, 2.0, 3.0], dtype=ag.float32, requires_grad=True)
    x.sum(dtype=ag.float64).backward()
    assert x.grad.dtype is ag.float32
    np.testing.assert_array_equal(x.grad.numpy(), np.ones(3, np.float32))


def test_a_leaf_gradient_from_a_broadcast_formula_is_its_own_writable_array():
    # sum's first-order gradient is a broadcast view; the leaf's .grad must own its memory
    # (a later accumulation writes it in place)
    x = ag.tensor(np.ones((2, 3), np.float32), requires_grad=True)
    x.sum().backward()
    x.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((2, 3), 2.0, np.float32))


@settings(max_examples=40, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=4),
       data=st.data(), keepdim=st.booleans(), mean=st.booleans())
def test_reductions_over_any_dims_agree_with_the_vjp(shape, data, keepdim, mean):
    shape = tuple(shape)
    dims = tuple(sorted(data.draw(st.sets(st.integers(0, len(shape) - 1), min_size=1))))
    x0 = RNG.standard_normal(shape)  # float64
    op = (lambda x: x.mean(dims, keepdim=keepdim)) if mean else (
        lambda x: x.sum(dims, keepdim=keepdim))
    weights = [RNG.standard_normal(tuple(op(ag.tensor(x0)).shape))]
    fast = _grad(shape, op, x0, weights)
    with reference_mode():
        reference = _grad(shape, op, x0, weights)
    np.testing.assert_allclose(fast, reference, rtol=1e-12, atol=1e-12)


STRUCTURAL = ("SumBackward0", "SumBackward1", "MeanBackward0", "MeanBackward1",
              "ExpandBackward0", "ViewBackward0", "SqueezeBackward0", "UnsqueezeBackward0",
              "TransposeBackward0", "PermuteBackward0", "SliceBackward0", "SelectBackward0",
              "IndexBackward0", "CatBackward0", "StackBackward0", "SplitBackward0",
              "SplitWithSizesBackward0", "UnbindBackward0", "MmBackward0",
              "UnsafeViewBackward0")


def _refuse(g, n):
    raise AssertionError(f"{type(n).__name__}: the recorded vjp ran in a plain backward")


@pytest.fixture
def vjps_refused(monkeypatch):
    from arraygrad.ops.rule import fast_paths, rules

    if not fast_paths.on:
        pytest.skip("ARRAYGRAD_REFERENCE=1 takes the vjps by design")
    table = rules()
    for name in STRUCTURAL:
        rule = table[name]
        monkeypatch.setattr(rule, "vjp", _refuse if rule.joint else
                            tuple(_refuse for _ in rule.vjp))


@pytest.mark.parametrize("name,shape,op", CASES, ids=[c[0] for c in CASES])
def test_a_plain_backward_takes_the_first_order_formulas(vjps_refused, name, shape, op):
    x0 = RNG.standard_normal(shape).astype(np.float32)
    weights = _weights(op(ag.tensor(x0)))
    assert _grad(shape, op, x0, weights).shape == shape


def test_a_matmul_under_a_sum_gets_its_broadcast_gradient_right():
    # sum()'s first-order gradient is a broadcast (stride-0) array: the product's formula
    # copies it once for both operands' gradients
    torch = pytest.importorskip("torch")
    a0 = RNG.standard_normal((6, 4)).astype(np.float32)
    b0 = RNG.standard_normal((4, 5)).astype(np.float32)
    a, b = ag.tensor(a0, requires_grad=True), ag.tensor(b0, requires_grad=True)
    (a @ b).sum().backward()
    at, bt = torch.tensor(a0, requires_grad=True), torch.tensor(b0, requires_grad=True)
    (at @ bt).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), at.grad.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b.grad.numpy(), bt.grad.numpy(), rtol=1e-5, atol=1e-6)
