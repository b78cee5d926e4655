"""maximum/minimum gradients: ties split in half, the losing side gets 0, and at NaN both
sides get the gradient (PyTorch's formula; arraygrad gave the NaN side's partner nothing)."""

import math

import pytest

import arraygrad as ag


@pytest.mark.parametrize("op, a_grad, b_grad", [
    ("maximum", [1.0, 0.5, 0.0, 1.0], [1.0, 0.5, 1.0, 0.0]),
    ("minimum", [1.0, 0.5, 1.0, 0.0], [1.0, 0.5, 0.0, 1.0]),
])
def test_grads_at_nan_ties_and_either_side(op, a_grad, b_grad):
    a = ag.tensor([math.nan, 1.0, 2.0, 5.0], requires_grad=True)
    b = ag.tensor([0.0, 1.0, 3.0, 4.0], requires_grad=True)
    getattr(ag, op)(a, b).sum().backward()
    assert a.grad.tolist() == a_grad
    assert b.grad.tolist() == b_grad


@pytest.mark.parametrize("op", ["maximum", "minimum"])
def test_matches_pytorch(op):
    torch = pytest.importorskip("torch")
    values = ([math.nan, 1.0, 2.0, 5.0, -1.0], [0.0, 1.0, 3.0, 4.0, math.nan])
    ta, tb = (torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in values)
    getattr(torch, op)(ta, tb).sum().backward()
    a, b = (ag.tensor(v, dtype=ag.float64, requires_grad=True) for v in values)
    getattr(ag, op)(a, b).sum().backward()
    assert a.grad.tolist() == ta.grad.tolist()
    assert b.grad.tolist() == tb.grad.tolist()
