"""``F.gelu`` is one op with one node, PyTorch's ``GeluBackward0`` (it was five recorded
ops, ``MulBackward0`` at the top): its forward and plain backward run on arrays, the
recorded vjp (``create_graph``, reference mode, forward mode) in Tensor ops; values,
first and second derivatives as PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest

import arraygrad as ag
import arraygrad.nn.functional as F
from arraygrad.ops.rule import fast_paths, reference_mode

RNG = np.random.default_rng(27)
X0 = (RNG.standard_normal((5, 7)) * 3).astype(np.float32)
G0 = RNG.standard_normal((5, 7)).astype(np.float32)
APPROXIMATIONS = ["none", "tanh"]


@pytest.mark.parametrize("approximate", APPROXIMATIONS)
def test_gelu_records_one_node_named_as_pytorchs(approximate):
    x = ag.tensor(X0, requires_grad=True)
    y = F.gelu(x, approximate=approximate)
    assert y.grad_fn.name() == "GeluBackward0"
    assert y.grad_fn._saved_approximate == approximate
    np.testing.assert_array_equal(y.grad_fn._saved_self.detach().numpy(), X0)
    assert y.grad_fn.next_functions[0][0].variable is x


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("approximate", APPROXIMATIONS)
def test_gelu_values_and_gradients_are_pytorchs(approximate, dtype):
    torch = pytest.importorskip("torch")
    x = ag.tensor(X0.astype(dtype), requires_grad=True)
    y = F.gelu(x, approximate=approximate)
    y.backward(ag.tensor(G0.astype(dtype)))
    tx = torch.tensor(X0.astype(dtype), requires_grad=True)
    ty = torch.nn.functional.gelu(tx, approximate=approximate)
    ty.backward(torch.tensor(G0.astype(dtype)))
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=rtol, atol=rtol)
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=rtol, atol=rtol)
    assert y.dtype == x.grad.dtype == x.dtype


@pytest.mark.parametrize("approximate", APPROXIMATIONS)
def test_gelu_second_derivative_is_pytorchs(approximate):
    torch = pytest.importorskip("torch")
    x = ag.tensor(X0.astype(np.float64), requires_grad=True)
    (g,) = ag.autograd.grad(F.gelu(x, approximate=approximate).sum(), x, create_graph=True)
    (h,) = ag.autograd.grad(g.sum(), x)
    tx = torch.tensor(X0.astype(np.float64), requires_grad=True)
    (tg,) = torch.autograd.grad(torch.nn.functional.gelu(tx, approximate=approximate).sum(), tx,
                                create_graph=True)
    (th,) = torch.autograd.grad(tg.sum(), tx)
    np.testing.assert_allclose(h.numpy(), th.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("approximate", APPROXIMATIONS)
def test_gelu_first_order_formula_is_the_recorded_vjp(approximate):
    def grad():
        x = ag.tensor(X0.astype(np.float64), requires_grad=True)
        F.gelu(x, approximate=approximate).backward(ag.tensor(G0.astype(np.float64)))
        return x.grad.numpy()

    fast = grad()
    with reference_mode():
        reference = grad()
    np.testing.assert_allclose(fast, reference, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("approximate", APPROXIMATIONS)
def test_gelu_passes_gradcheck_and_gradgradcheck(approximate):
    x = ag.tensor(X0[:2, :3].astype(np.float64), requires_grad=True)
    fn = lambda t: F.gelu(t, approximate=approximate)  # noqa: E731
    assert ag.autograd.gradcheck(fn, (x,))
    assert ag.autograd.gradgradcheck(fn, (x,))


def test_gelu_of_bfloat16_computes_in_float32_and_rounds_once():
    torch = pytest.importorskip("torch")
    x = ag.tensor(X0, dtype=ag.bfloat16, requires_grad=True)
    y = F.gelu(x)
    y.sum().backward()
    tx = torch.tensor(X0, dtype=torch.bfloat16, requires_grad=True)
    ty = torch.nn.functional.gelu(tx)
    ty.sum().backward()
    assert y.dtype == x.grad.dtype == ag.bfloat16
    # (one rounding to bfloat16 of float32 values within an ulp of PyTorch's: at most one
    # bfloat16 ulp apart)
    np.testing.assert_allclose(y.detach().float().numpy(), ty.detach().float().numpy(),
                               rtol=8e-3, atol=1e-5)
    np.testing.assert_allclose(x.grad.float().numpy(), tx.grad.float().numpy(), rtol=1e-2,
                               atol=1e-2)


@pytest.mark.skipif(not fast_paths.on, reason="the first-order formula is the fast path's")
def test_gelu_plain_backward_reads_the_forwards_erf_back(monkeypatch):
    # erf is most of gelu's time: the forward's is saved, the plain backward computes none
    from arraygrad.nn import _ops

    calls = []
    real = _ops.kernel_data
    monkeypatch.setattr(_ops, "kernel_data", lambda *a: calls.append(a[0]) or real(*a))
    x = ag.tensor(X0, requires_grad=True)
    y = F.gelu(x)
    assert calls == ["erf"]
    y.backward(ag.tensor(G0))
    assert calls == ["erf"]
    torch = pytest.importorskip("torch")
    tx = torch.tensor(X0, requires_grad=True)
    torch.nn.functional.gelu(tx).backward(torch.tensor(G0))
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)
