"""``leaky_relu`` is one node, PyTorch's ``LeakyReluBackward0``: its values and gradients are the
composite's (``where(x > 0, x, x * slope)``), its array backward the recorded vjp's bit for
bit, and the in-place form and double backward still work."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag
import arraygrad.nn.functional as F
from arraygrad.ops.rule import reference_mode

VALUES = [-3.0, -0.5, -0.0, 0.0, 1e-3, 0.25, 2.0, math.inf, -math.inf]


def _run(dtype, slope, values):
    x = ag.tensor(values, dtype=dtype, requires_grad=True)
    y = F.leaky_relu(x, slope)
    y.backward(ag.linspace(-1, 2, len(values)).to(dtype))
    return y.detach(), x.grad


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from(VALUES) | st.floats(-5, 5), min_size=1, max_size=8),
       st.sampled_from([0.01, 0.2, 1.5, 0, -0.3]),
       st.sampled_from(["float32", "float64", "float16", "bfloat16"]))
def test_values_and_gradients_match_the_composite(values, slope, dtype):
    dt = getattr(ag, dtype)
    y, g = _run(dt, slope, values)
    with reference_mode():
        ry, rg = _run(dt, slope, values)
    x = ag.tensor(values, dtype=dt)
    composite = ag.where(x > 0, x, x * slope)
    assert repr(y.tolist()) == repr(composite.tolist()) == repr(ry.tolist())  # NaN as NaN
    assert repr(g.tolist()) == repr(rg.tolist())  # the array backward is the vjp's bit for bit


def test_one_node_named_as_pytorchs():
    x = ag.randn(4, requires_grad=True)
    y = F.leaky_relu(x, 0.1)
    assert type(y.grad_fn).__name__ == "LeakyReluBackward0"
    assert y.grad_fn.next_functions[0][0] is not None
    assert type(ag.nn.LeakyReLU(0.2)(x).grad_fn).__name__ == "LeakyReluBackward0"


def test_double_backward_and_forward_mode():
    x = ag.tensor([-2.0, -0.5, 0.3, 3.0], dtype=ag.float64, requires_grad=True)
    fn = lambda v: F.leaky_relu(v, 0.2)  # noqa: E731
    assert ag.autograd.gradcheck(fn, (x,), check_forward_ad=True)
    assert ag.autograd.gradgradcheck(fn, (x,))


def test_inplace_and_nan():
    x = ag.tensor([-1.0, 2.0, math.nan])
    F.leaky_relu(x, 0.5, inplace=True)
    assert x.tolist()[:2] == [-0.5, 2.0] and math.isnan(x.tolist()[2])
    with pytest.raises(RuntimeError):
        F.leaky_relu(ag.tensor([1, 2]), 0.1)  # integers: PyTorch's kernel refuses them


def test_matches_pytorch():
    torch = pytest.importorskip("torch")
    for name in ("float32", "float64", "float16", "bfloat16"):
        x = ag.tensor([-2.0, -0.7, 0.0, 0.3, 3.0], dtype=getattr(ag, name), requires_grad=True)
        tx = torch.tensor([-2.0, -0.7, 0.0, 0.3, 3.0], dtype=getattr(torch, name),
                          requires_grad=True)
        y, ty = F.leaky_relu(x, 0.2), torch.nn.functional.leaky_relu(tx, 0.2)
        y.backward(ag.ones(5, dtype=x.dtype) * 3)
        ty.backward(torch.ones(5, dtype=tx.dtype) * 3)
        assert y.float().tolist() == ty.float().tolist()
        assert x.grad.float().tolist() == tx.grad.float().tolist()
        assert type(y.grad_fn).__name__ == type(ty.grad_fn).__name__
