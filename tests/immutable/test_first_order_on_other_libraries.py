"""The first-order array formulas (issue 27) on JAX and Dask arrays: softmax of a 0-d tensor
takes the recorded vjp (the standard's ``sum`` refuses axis 0 of a 0-d array, where PyTorch's
``sum(0)`` of a 0-d tensor is fine), and the new formulas give NumPy's gradients."""

import numpy as np
import pytest

import arraygrad as ag
import arraygrad.nn.functional as F


@pytest.fixture(params=["jax", "dask"])
def device(request):
    return request.getfixturevalue(f"{request.param}_device")


def test_softmax_of_a_0d_tensor(device):
    x = ag.tensor(1.5, device=device, requires_grad=True)
    ag.softmax(x, dim=0).backward()
    assert x.grad.item() == 0.0


@pytest.mark.parametrize("fn", [
    lambda x: ag.softmax(x, dim=-1), lambda x: x.exp() / x.sqrt() - x.sin() * x.cos(),
    lambda x: F.layer_norm(x, (3,)), lambda x: -(x.rsqrt() - 2.0 / x),
])
def test_gradients_are_numpys(device, fn):
    x0 = np.abs(np.random.default_rng(0).standard_normal((2, 3))) + 0.5
    x = ag.tensor(x0, device=device, requires_grad=True)
    fn(x).sum().backward()
    ref = ag.tensor(x0, requires_grad=True)
    fn(ref).sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), ref.grad.numpy(), rtol=1e-12, atol=1e-12)
