"""The core's erfc and erfinv (ops.families.math_special): the portable Array API
implementations against Python's math.erf/erfc in float64 (tails included), gradients, and
PyTorch (skipped without it)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.ops._erf import erfc_data as _erfc_data
from arraygrad.ops.families.math_special import _erfinv_data

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

F64 = ag.float64


def _xp():
    return ag.tensor([0.0])._backend.xp


def test_portable_erfc_matches_math_erfc_in_float64():
    xs = np.concatenate([np.linspace(-6.0, 26.0, 3001), [0.0, 0.46875, -0.46875, 4.0]])
    ours = _erfc_data(_xp(), xs)
    ref = np.array([math.erfc(v) for v in xs])
    np.testing.assert_allclose(ours, ref, rtol=1e-13, atol=0)


def test_portable_erfinv_inverts_erf_in_float64_tails_included():
    centre = np.linspace(-0.999, 0.999, 2001)
    y = _erfinv_data(_xp(), centre)
    np.testing.assert_allclose([math.erf(v) for v in y], centre, rtol=0, atol=4.5e-16)  # 2 ulps
    # the tails: 1 - x down to the last double below 1; checked through erfc (no cancellation)
    gaps = np.logspace(-16, -1, 300)
    y = _erfinv_data(_xp(), 1.0 - gaps)
    np.testing.assert_allclose([math.erfc(v) for v in y], 1.0 - (1.0 - gaps), rtol=1e-12)
    y = _erfinv_data(_xp(), -(1.0 - gaps))
    np.testing.assert_allclose([math.erfc(-v) for v in y], 1.0 - (1.0 - gaps), rtol=1e-12)
    tiny = np.logspace(-300, -2, 50)
    np.testing.assert_allclose(_erfinv_data(_xp(), tiny), tiny * math.sqrt(math.pi) / 2,
                               rtol=1e-4)


def test_erfinv_edges():
    with np.errstate(all="ignore"):
        out = ag.erfinv(ag.tensor([1.0, -1.0, 1.5, -2.0, math.nan, 0.0], dtype=F64)).numpy()
    assert out[0] == math.inf and out[1] == -math.inf and out[5] == 0.0
    assert np.isnan(out[2:5]).all()
    assert ag.erfinv(ag.tensor([0, 1])).dtype is ag.float32
    assert ag.erfc(ag.tensor([0.5], dtype=ag.float16)).dtype is ag.float16


@pytest.mark.parametrize("name,low,high", [("erfc", -2.0, 3.0), ("erfinv", -0.95, 0.95)])
def test_gradients_and_double_backward(name, low, high):
    fn = getattr(ag, name)
    x = ag.tensor(np.random.default_rng(0).uniform(low, high, (2, 3)), dtype=F64,
                  requires_grad=True)
    assert ag.autograd.gradcheck(fn, (x,))
    assert ag.autograd.gradgradcheck(fn, (x,))
    y = fn(x)
    assert type(y.grad_fn).__name__ == {"erfc": "ErfcBackward0",
                                        "erfinv": "ErfinvBackward0"}[name]
    y.sum().backward()
    a = x.detach().numpy()
    expected = (-2 / math.sqrt(math.pi) * np.exp(-a * a) if name == "erfc"
                else math.sqrt(math.pi) / 2 * np.exp(y.detach().numpy() ** 2))
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-12)


def test_erfc_rejects_non_tensors():
    with pytest.raises(TypeError, match="erfc"):
        ag.erfc(0.5)


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_portable_implementations_match_pytorch(dtype):
    x = np.concatenate([np.linspace(-1.0, 1.0, 4001), [1.0 - 1e-7, -1.0 + 1e-7]]).astype(dtype)
    with np.errstate(all="ignore"):
        ours = _erfinv_data(_xp(), x)
    theirs = torch.erfinv(torch.tensor(x)).numpy()
    tol = 1e-13 if dtype == "float64" else 2e-6
    np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol)
    z = np.linspace(-5.0, 9.0, 2001).astype(dtype)
    np.testing.assert_allclose(_erfc_data(_xp(), z), torch.erfc(torch.tensor(z)).numpy(),
                               rtol=tol, atol=0)
    np.testing.assert_allclose(ag.erfc(ag.tensor(z)).numpy(),
                               torch.erfc(torch.tensor(z)).numpy(), rtol=tol, atol=0)


@pytest.mark.parametrize("eps", [None, 0.1])
def test_logit_values_and_gradients(eps):
    a = np.array([0.05, 0.3, 0.5, 0.95])
    x = ag.tensor(a, dtype=F64, requires_grad=True)
    y = ag.logit(x, eps)
    z = a if eps is None else np.clip(a, eps, 1 - eps)
    np.testing.assert_allclose(y.detach().numpy(), np.log(z / (1 - z)), rtol=1e-14)
    y.sum().backward()
    inside = np.ones_like(a) if eps is None else (a >= eps) & (a <= 1 - eps)
    np.testing.assert_allclose(x.grad.numpy(), inside / (a * (1 - a)), rtol=1e-14)
    x = ag.tensor(np.array([0.2, 0.4, 0.7]), dtype=F64, requires_grad=True)
    assert ag.autograd.gradcheck(lambda t: ag.logit(t, eps), (x,))
    assert ag.autograd.gradgradcheck(lambda t: ag.logit(t, eps), (x,))


def test_xlogy_values_and_gradients():
    with np.errstate(all="ignore"):
        out = ag.xlogy(ag.tensor([0.0, 0.0, 2.0, math.nan], dtype=F64),
                       ag.tensor([0.0, math.nan, 3.0, 1.0], dtype=F64)).numpy()
    assert out[0] == 0.0 and np.isnan(out[1]) and np.isnan(out[3])
    assert out[2] == pytest.approx(2 * math.log(3.0))
    assert ag.xlogy(2, ag.tensor([3.0])).item() == pytest.approx(2 * math.log(3.0))
    assert ag.xlogy(ag.tensor([2]), 3).dtype is ag.float32
    rng = np.random.default_rng(1)
    x = ag.tensor(rng.uniform(-1, 1, (2, 3)), dtype=F64, requires_grad=True)
    y = ag.tensor(rng.uniform(0.5, 1.5, (3,)), dtype=F64, requires_grad=True)
    assert ag.autograd.gradcheck(ag.xlogy, (x, y))
    assert ag.autograd.gradgradcheck(ag.xlogy, (x, y))


@needs_torch
def test_logit_and_xlogy_edges_match_pytorch():
    vals = [0.0, 0.3, 1.0, -0.2, 1.3, math.nan, 0.95]
    for eps in (None, 0.1):
        a = ag.tensor(vals, dtype=F64, requires_grad=True)
        t = torch.tensor(vals, dtype=torch.float64, requires_grad=True)
        with np.errstate(all="ignore"):
            o = ag.logit(a, eps)
            o.sum().backward()
        p = torch.logit(t, eps)
        p.sum().backward()
        np.testing.assert_allclose(o.detach().numpy(), p.detach().numpy(), equal_nan=True)
        np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), equal_nan=True)
    a = [0.0, 0.0, 1.0, 2.0, math.nan, 0.0, -1.0]
    b = [0.0, math.nan, 0.0, 3.0, 1.0, -1.0, 2.0]
    A, B = (ag.tensor(v, dtype=F64, requires_grad=True) for v in (a, b))
    TA, TB = (torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (a, b))
    with np.errstate(all="ignore"):
        o = ag.xlogy(A, B)
        o.sum().backward()
    p = torch.xlogy(TA, TB)
    p.sum().backward()
    assert type(o.grad_fn).__name__ == type(p.grad_fn).__name__
    for ours, theirs in ((o, p), (A.grad, TA.grad), (B.grad, TB.grad)):
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(),
                                   equal_nan=True)
