"""``masked_fill`` with a number is one node, PyTorch's ``MaskedFillBackward0`` (it was the
scatter machinery's ``ScatterBackward1``, through ``nonzero`` and a scatter-add): values,
first and second derivatives, broadcast masks and dtypes against PyTorch and finite
differences; the errors as before."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag


def test_the_node_is_pytorchs():
    x = ag.arange(12.0).reshape(3, 4).requires_grad_()
    y = x.masked_fill(x > 5, -1.5)
    assert y.grad_fn.name() == "MaskedFillBackward0"
    assert y.tolist() == [[0, 1, 2, 3], [4, 5, -1.5, -1.5], [-1.5] * 4]
    y.sum().backward()
    assert x.grad.tolist() == [[1, 1, 1, 1], [1, 1, 0, 0], [0, 0, 0, 0]]


def test_second_derivative_and_gradcheck():
    x = ag.randn(3, 4, dtype=ag.float64, requires_grad=True)
    mask = ag.tensor([True, False, False, True])  # broadcast over the rows
    assert ag.autograd.gradcheck(lambda t: t.masked_fill(mask, 2.0) ** 3, (x,))
    assert ag.autograd.gradgradcheck(lambda t: t.masked_fill(mask, 2.0) ** 3, (x,))
    g, = ag.autograd.grad((x.masked_fill(mask, 0.0) ** 2).sum(), x, create_graph=True)
    assert g.grad_fn is not None
    assert np.array_equal(g.detach().numpy(), np.where(mask.numpy(), 0.0, 2 * x.detach().numpy()))


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([(3, 4), (2, 3, 4), (5,)]), st.integers(0, 3),
       st.sampled_from(["float32", "float64", "int64", "bool"]),
       st.sampled_from([0, -1, 2.5, True, float("-inf")]))
def test_values_and_gradients_match_pytorch(shape, mask_dims, dtype, value):
    torch = pytest.importorskip("torch")
    if dtype in ("int64", "bool") and isinstance(value, float) and not np.isfinite(value):
        return  # -inf into an integer tensor: undefined in both libraries
    rng = np.random.default_rng(len(shape) * 7 + mask_dims)
    x = (rng.standard_normal(shape) * 3).astype(dtype)
    mask = rng.random(shape[len(shape) - min(mask_dims, len(shape)):]) < 0.5
    floating = dtype.startswith("float")
    got = ag.tensor(x, requires_grad=floating)
    want = torch.tensor(x, requires_grad=floating)
    a, b = got.masked_fill(ag.tensor(mask), value), want.masked_fill(torch.tensor(mask), value)
    assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
    assert np.array_equal(a.detach().numpy(), b.detach().numpy())
    if floating:
        w = rng.standard_normal(shape)
        (a * ag.tensor(w, dtype=a.dtype)).sum().backward()
        (b * torch.tensor(w, dtype=b.dtype)).sum().backward()
        assert np.array_equal(got.grad.numpy(), want.grad.numpy())


def test_errors_are_as_before():
    x = ag.zeros(2, 3)
    with pytest.raises(RuntimeError, match="Bool"):
        x.masked_fill(ag.tensor([1, 0, 1]), 1.0)
    with pytest.raises(RuntimeError, match="masked_fill"):
        x.masked_fill(ag.ones(4, 2, 3, dtype=ag.bool), 1.0)
    with pytest.raises(RuntimeError, match="0-dimensional"):
        x.masked_fill(ag.ones(3, dtype=ag.bool), ag.ones(3))
    assert x.tolist() == [[0.0] * 3] * 2


def test_in_place_and_a_value_that_requires_grad():
    x = ag.arange(6.0).requires_grad_()
    y = x * 1
    y.masked_fill_(y > 3, 9.0)
    assert y.grad_fn.name() == "MaskedFillBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [1, 1, 1, 1, 0, 0]
    v = ag.tensor(2.0, requires_grad=True)
    z = ag.arange(4.0).masked_fill(ag.tensor([True, False, True, False]), v)
    z.sum().backward()
    assert v.grad.item() == 2.0  # the value's gradient: the masked entries' sum
