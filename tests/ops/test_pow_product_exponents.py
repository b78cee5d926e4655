"""``x ** 3`` and ``x ** -2`` of a float32/float64 tensor are PyTorch's values bit for bit, and
``x ** -0.5`` its formula: its CPU kernel computes them as products and a reciprocal
(``x * x * x``, ``1 / (x * x)``, ``1 / sqrt(x)``), where the library's ``pow`` differs in the
last place (NumPy's did, for most elements); other exponents and dtypes keep ``pow``."""

from __future__ import annotations

import numpy as np
import pytest

import arraygrad as ag

RNG = np.random.default_rng(3)
X = RNG.standard_normal(4000) * 3


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("exponent", [3, 3.0, -2, -0.5, 2, 0.5, -1, 1.7, 4])
def test_number_exponents_are_pytorchs_bit_for_bit(exponent, dtype):
    torch = pytest.importorskip("torch")
    x = X.astype(dtype)
    got = (ag.tensor(x) ** exponent).numpy()
    expected = (torch.tensor(x) ** exponent).numpy()
    if exponent in (1.7, 4, 0.5, -0.5):
        # each library's pow or sqrt (PyTorch's vectorised sqrt need not round as NumPy's):
        # within an ulp or two
        np.testing.assert_allclose(got, expected, rtol=4 * np.finfo(dtype).eps, equal_nan=True)
    else:  # products and quotients round the same everywhere
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("exponent", [3, -2, -0.5])
def test_products_match_their_formulas_and_gradients(exponent):
    x = ag.tensor(np.abs(X[:50]) + 0.5, requires_grad=True)
    y = x ** exponent
    xd = x.detach().numpy()
    formula = {3: xd * xd * xd, -2: 1 / (xd * xd), -0.5: 1 / np.sqrt(xd)}[exponent]
    np.testing.assert_array_equal(y.detach().numpy(), formula)
    assert y.grad_fn.name() == "PowBackward0"
    assert ag.autograd.gradcheck(lambda t: t ** exponent, (x[:6].detach().requires_grad_(),))
    z = ag.tensor(xd.copy())
    z.pow_(exponent)
    np.testing.assert_array_equal(z.numpy(), formula)


def test_other_dtypes_keep_pow():
    h = ag.tensor([1.5, -2.0], dtype=ag.float16)
    assert (h ** 3).dtype == ag.float16
    np.testing.assert_allclose((h ** 3).float().numpy(), [3.375, -8.0])
    i = ag.tensor([2, -3])
    assert (i ** 3).tolist() == [8, -27] and (i ** 3).dtype == ag.int64
    c = ag.tensor([1 + 1j])
    np.testing.assert_allclose((c ** 3).numpy(), [(1 + 1j) ** 3])
    assert (2 ** ag.tensor([3.0])).tolist() == [8.0]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("exponent", [2, 3, 3.0, 0.5, -2])
def test_gradient_in_pytorchs_order_bit_for_bit(exponent, dtype):
    """``g * (b * x ** (b - 1))``, PyTorch's order (it was ``(g * b) * x ** (b - 1)``)."""
    torch = pytest.importorskip("torch")
    x0 = (np.abs(X[:2000]) + 0.1).astype(dtype)
    g0 = RNG.standard_normal(2000).astype(dtype)
    x = ag.tensor(x0, requires_grad=True)
    (x ** exponent).backward(ag.tensor(g0))
    tx = torch.tensor(x0, requires_grad=True)
    (tx ** exponent).backward(torch.tensor(g0))
    if exponent in (0.5, -2):  # x ** -0.5, x ** -3 inside: each library's pow
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=4 * np.finfo(dtype).eps)
    else:
        np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())
