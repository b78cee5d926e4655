"""``nn.grad``: a convolution's input and weight gradients from its output gradient."""

from __future__ import annotations

import numpy as np
import pytest

import arraygrad as ag
from arraygrad import nn


@pytest.mark.parametrize("n, x_shape, w_shape, groups", [
    (1, (2, 4, 9), (6, 2, 3), 2), (2, (2, 4, 7, 6), (6, 2, 3, 2), 2),
    (3, (1, 4, 5, 5, 4), (2, 4, 2, 3, 2), 1)])
def test_matches_pytorch(n, x_shape, w_shape, groups):
    torch = pytest.importorskip("torch", reason="compares against PyTorch")
    x = torch.randn(*x_shape, dtype=torch.float64)
    w = torch.randn(*w_shape, dtype=torch.float64)
    out = getattr(torch.nn.functional, f"conv{n}d")(x, w, stride=2, padding=1, groups=groups)
    go = torch.randn_like(out)
    expected_in = getattr(torch.nn.grad, f"conv{n}d_input")(x.shape, w, go, stride=2,
                                                            padding=1, groups=groups)
    expected_w = getattr(torch.nn.grad, f"conv{n}d_weight")(x, w.shape, go, stride=2,
                                                            padding=1, groups=groups)
    got_in = getattr(nn.grad, f"conv{n}d_input")(tuple(x.shape), ag.tensor(w.numpy()),
                                                 ag.tensor(go.numpy()), stride=2, padding=1,
                                                 groups=groups)
    got_w = getattr(nn.grad, f"conv{n}d_weight")(ag.tensor(x.numpy()), tuple(w.shape),
                                                 ag.tensor(go.numpy()), stride=2, padding=1,
                                                 groups=groups)
    np.testing.assert_allclose(got_in.numpy(), expected_in.numpy(), atol=1e-12)
    np.testing.assert_allclose(got_w.numpy(), expected_w.numpy(), atol=1e-12)


def test_is_the_autograd_gradient_and_differentiable():
    x = ag.randn(1, 2, 6, 6, dtype=ag.float64, requires_grad=True)
    w = ag.randn(3, 2, 3, 3, dtype=ag.float64, requires_grad=True)
    out = nn.functional.conv2d(x, w, padding=1)
    go = ag.randn(*out.shape, dtype=ag.float64)
    gx, gw = ag.autograd.grad(out, (x, w), go)
    assert ag.allclose(nn.grad.conv2d_input(x.shape, w, go, padding=1), gx)
    assert ag.allclose(nn.grad.conv2d_weight(x, w.shape, go, padding=1), gw)
    assert nn.grad.conv2d_input(x.shape, w, go, padding=1).requires_grad
    with pytest.raises(RuntimeError, match="does not match the convolution's output"):
        nn.grad.conv2d_input(x.shape, w, go[..., :3], padding=1)
