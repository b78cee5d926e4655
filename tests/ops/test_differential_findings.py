"""Disagreements with PyTorch that tests/differential found, each fixed (these failed before)."""

import math

import pytest

import arraygrad as ag
import arraygrad.nn.functional as F


def test_xlogy_gradient_in_self_is_log_other_even_where_self_is_zero():
    x = ag.tensor([0.0, 0.0, 0.0, 1.0], dtype=ag.float64, requires_grad=True)
    y = ag.tensor([2.0, -1.0, 0.0, 3.0], dtype=ag.float64, requires_grad=True)
    gx, gy = ag.autograd.grad(ag.xlogy(x, y).sum(), (x, y))
    # d/dx x*log(y) = log(y); PyTorch zeroes it only where x == 0 and y <= 0
    assert gx.tolist() == [math.log(2.0), 0.0, 0.0, math.log(3.0)]
    assert gy.tolist()[3] == pytest.approx(1 / 3)


def test_layer_norm_refuses_an_empty_normalized_shape():
    with pytest.raises(RuntimeError, match="at least 1-dimensional"):
        F.layer_norm(ag.ones(3), ())
