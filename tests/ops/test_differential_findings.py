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


def test_relu_passes_the_gradient_at_nan_as_pytorch():
    x = ag.tensor([float("nan"), -1.0, 2.0], dtype=ag.float64, requires_grad=True)
    (g,) = ag.autograd.grad(ag.relu(x).sum(), x, create_graph=True)
    assert g.tolist() == [1.0, 0.0, 1.0]  # PyTorch: x <= 0 ? 0 : grad, and NaN <= 0 is False
    (gg,) = ag.autograd.grad((g * x).sum(), x, allow_unused=True)
    assert gg is None or gg.tolist()[1:] == [0.0, 1.0]


@pytest.mark.parametrize("name", ["amax", "amin", "argmax", "argmin"])
def test_reductions_over_an_empty_dim_raise_pytorchs_index_error(name):
    with pytest.raises(IndexError, match=name):
        getattr(ag, name)(ag.zeros(2, 0), dim=-1)
    assert getattr(ag, name)(ag.zeros(0, 3), dim=1).shape == (0,)


def test_elu_family_and_hardswish_gradients_at_nan_and_inf_as_pytorch():
    inf, nan = float("inf"), float("nan")
    x = ag.tensor([inf, -inf, nan, 3.0, -3.0, -4.0], dtype=ag.float64, requires_grad=True)
    for fn, want in ((F.elu, [1.0, 0.0, 1.0, 1.0, math.exp(-3.0), math.exp(-4.0)]),
                     (F.hardswish, [1.0, 0.0, 1.0, 1.0, 0.0, 0.0])):
        (g,) = ag.autograd.grad(fn(x).sum(), x)
        assert g.tolist() == pytest.approx(want, rel=1e-12), fn.__name__
    (g,) = ag.autograd.grad(F.selu(x).sum(), x)
    assert not any(math.isnan(v) for v in g.tolist())  # was NaN at NaN and inf inputs


def test_cosine_similarity_of_zero_dim_tensors():
    assert F.cosine_similarity(ag.tensor(2.0), ag.tensor(-3.0), dim=-1).item() == -1.0
    with pytest.raises(IndexError):
        F.cosine_similarity(ag.tensor(2.0), ag.tensor(-3.0), dim=1)
