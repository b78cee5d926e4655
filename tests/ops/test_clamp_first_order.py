"""clamp's backward on arrays (``_clamp_first_order``, plain backward with fast paths on) is
PyTorch's ``where(min <= x <= max, grad, 0)``, as the recorded formula (reference mode,
``create_graph``) is: the gradient passes at both ends, NaN inputs get none, and an infinite or
NaN gradient outside the range gives zero (a product by the mask gave NaN there before).
PyTorch's gradients where it is installed."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag
from arraygrad.ops.rule import reference_mode

VALUES = [-2.0, -0.5, -0.0, 0.0, 0.25, 0.5, 1.0, 3.0, math.inf, -math.inf, math.nan]
BOUNDS = [(0.0, None), (None, 0.5), (-0.5, 0.5), (0.25, 0.25), (1.0, 0.0), (None, -math.inf),
          (-1, 1), (0.5, math.inf)]


def _grad(dtype, low, high, grads, fast):
    x = ag.tensor(VALUES, dtype=dtype, requires_grad=True)
    with reference_mode(not fast):
        ag.clamp(x, low, high).backward(ag.tensor(grads, dtype=dtype))
    return x.grad.numpy()


@pytest.mark.parametrize("dtype", [ag.float32, ag.float64, ag.float16, ag.bfloat16])
@pytest.mark.parametrize("low,high", BOUNDS)
def test_first_order_is_the_recorded_formula(dtype, low, high):
    for grads in ([float(i + 1) for i in range(len(VALUES))],
                  [math.inf, math.nan, -math.inf] * 3 + [1.0, 2.0]):
        got, want = _grad(dtype, low, high, grads, True), _grad(dtype, low, high, grads, False)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got.astype(np.float64), want.astype(np.float64))


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(BOUNDS), st.lists(st.sampled_from([1.0, -2.0, math.inf, math.nan]),
                                         min_size=len(VALUES), max_size=len(VALUES)),
       st.booleans())
def test_against_pytorch(bounds, grads, fast):
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    low, high = bounds
    x = torch.tensor(VALUES, requires_grad=True)
    torch.clamp(x, low, high).backward(torch.tensor(grads))
    got = _grad(ag.float32, low, high, grads, fast)
    np.testing.assert_array_equal(got, x.grad.numpy())


def test_second_order_records_the_formula():
    x = ag.tensor([-1.0, 0.5, 2.0], dtype=ag.float64, requires_grad=True)
    y = ag.clamp(x, 0.0, 1.0) ** 2
    g, = ag.autograd.grad(y.sum(), x, create_graph=True)
    assert g.tolist() == [0.0, 1.0, 0.0]
    gg, = ag.autograd.grad(g.sum(), x)
    assert gg.tolist() == [0.0, 2.0, 0.0]
