"""``tril``/``triu`` are one op each (PyTorch's ``TrilBackward0``/``TriuBackward0``), computed on
the arrays: values, batched inputs, infinities outside the triangle, gradients (first and
second order, forward mode) and PyTorch's results."""

from __future__ import annotations

import math

import numpy as np
import pytest

import arraygrad as ag


@pytest.mark.parametrize("fn,name", [(ag.tril, "TrilBackward0"), (ag.triu, "TriuBackward0")])
@pytest.mark.parametrize("diagonal", [-2, -1, 0, 1, 3])
def test_values_and_gradients(fn, name, diagonal):
    x = ag.randn(2, 3, 4, dtype=ag.float64, requires_grad=True)
    y = fn(x, diagonal)
    assert type(y.grad_fn).__name__ == name
    mask = (np.tril if fn is ag.tril else np.triu)(np.ones((3, 4)), diagonal)
    np.testing.assert_array_equal(y.detach().numpy(), x.detach().numpy() * mask)
    assert ag.autograd.gradcheck(lambda t: fn(t, diagonal), (x,))
    assert ag.autograd.gradgradcheck(lambda t: fn(t, diagonal), (x,))
    with ag.autograd.forward_ad.dual_level():
        d = ag.autograd.forward_ad.make_dual(x.detach(), ag.ones_like(x))
        tangent = ag.autograd.forward_ad.unpack_dual(fn(d, diagonal)).tangent
    np.testing.assert_array_equal(tangent.numpy(), np.broadcast_to(mask, x.shape))


def test_infinities_outside_give_zero_and_integers_and_errors():
    m = ag.full((3, 3), -math.inf)
    assert ag.triu(m, diagonal=1).tolist() == [[0, -math.inf, -math.inf], [0, 0, -math.inf],
                                                [0, 0, 0]]
    assert ag.tril(ag.tensor([[1, 2], [3, 4]])).tolist() == [[1, 0], [3, 4]]
    assert ag.triu(ag.tensor([[1, 2], [3, 4]])).dtype is ag.int64
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        ag.triu(ag.ones(3))
    x = ag.ones(2, 2)
    assert x.triu(1).tolist() == [[0, 1], [0, 0]] and x.tril(-1).tolist() == [[0, 0], [1, 0]]


def test_against_pytorch():
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(0).standard_normal((2, 4, 5)).astype(np.float32)
    for name in ("tril", "triu"):
        for d in (-1, 0, 2):
            x, t = ag.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
            g = np.arange(40, dtype=np.float32).reshape(2, 4, 5)
            getattr(ag, name)(x, d).backward(ag.tensor(g))
            getattr(torch, name)(t, d).backward(torch.tensor(g))
            assert getattr(ag, name)(x, d).tolist() == getattr(torch, name)(t, d).tolist()
            assert x.grad.tolist() == t.grad.tolist()
            assert type(getattr(ag, name)(x, d).grad_fn).__name__ == \
                type(getattr(torch, name)(t, d).grad_fn).__name__
