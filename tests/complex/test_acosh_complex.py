"""``acosh`` of complex tensors: forward values and gradients as PyTorch's, and the gradient
against finite differences on both sides of the imaginary axis (the branch of the derivative
is ``1 / (sqrt(z - 1) sqrt(z + 1))``). It raised NotImplementedError before (the Array API
namespace's complex ``acosh`` needs it)."""

from __future__ import annotations

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.autograd import gradcheck

Z = np.array([0.3 + 0.2j, -2 - 1j, -0.5 + 0.1j, 3 - 0.5j, -4 + 2j, 1.5j])


def test_complex_acosh_gradient_matches_finite_differences() -> None:
    z = ag.tensor(Z, requires_grad=True)
    assert gradcheck(ag.acosh, (z,))


def test_complex_acosh_matches_pytorch() -> None:
    torch = pytest.importorskip("torch")
    z = ag.tensor(Z, requires_grad=True)
    tz = torch.tensor(Z, requires_grad=True)
    out, tout = ag.acosh(z), torch.acosh(tz)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-12)
    out.abs().sum().backward()
    tout.abs().sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), tz.grad.numpy(), rtol=1e-10)
