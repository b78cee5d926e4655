"""First-order array formulas of exp, log, sqrt, rsqrt, sin, cos, neg, sub, div and softmax
(issue 27): a plain backward takes them; they give the recorded vjp's gradients bit for bit
(reference mode takes the vjp), decline what they do not cover (complex, float16, broadcast
operands) and agree with PyTorch; create_graph keeps the recorded vjp (double backward)."""

from __future__ import annotations

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.ops.rule import fast_paths, reference_mode

RNG = np.random.default_rng(35)

CASES = [
    ("exp", lambda x: x.exp()),
    ("log", lambda x: x.log()),
    ("sqrt", lambda x: x.sqrt()),
    ("rsqrt", lambda x: x.rsqrt()),
    ("sin", lambda x: x.sin()),
    ("cos", lambda x: x.cos()),
    ("neg", lambda x: -x),
    ("sub_tensor", lambda x: x - x.detach() * 0.5),
    ("rsub", lambda x: 1.5 - x),
    ("sub_from", lambda x: x.detach() - x),
    ("sub_alpha", lambda x: ag.sub(x.detach(), x, alpha=2.0)),
    ("div_number", lambda x: x / 3.0),
    ("div_int", lambda x: x / 3),
    ("number_over", lambda x: 2.0 / x),
    ("div_tensors", lambda x: x / (x.detach() + 2.0)),
    ("div_by", lambda x: (x.detach() + 1.0) / x),
    ("div_self", lambda x: x / x),
    ("div_broadcast", lambda x: x / x[:1]),
    ("softmax_last", lambda x: ag.softmax(x, dim=-1)),
    ("softmax_first", lambda x: ag.softmax(x, dim=0)),
    ("chain", lambda x: (x.exp() / x.sqrt() - x.sin()).log()),
]


def _grad(fn, x0, g0):
    x = ag.tensor(x0, requires_grad=True)
    (gx,) = ag.autograd.grad(fn(x), x, ag.tensor(g0))
    return gx.numpy()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name, fn", CASES, ids=[c[0] for c in CASES])
def test_first_order_is_the_vjp_bit_for_bit(name, fn, dtype):
    x0 = (np.abs(RNG.standard_normal((3, 4))) + 0.5).astype(dtype)
    g0 = RNG.standard_normal(fn(ag.tensor(x0)).shape).astype(dtype)
    got = _grad(fn, x0, g0)
    with reference_mode():
        ref = _grad(fn, x0, g0)
    assert got.dtype == ref.dtype
    np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("name, fn", CASES, ids=[c[0] for c in CASES])
def test_gradients_are_pytorchs(name, fn):
    torch = pytest.importorskip("torch")
    x0 = np.abs(RNG.standard_normal((3, 4))) + 0.5
    g0 = RNG.standard_normal(fn(ag.tensor(x0)).shape)
    got = _grad(fn, x0, g0)
    tfn = {"sub_alpha": lambda x: torch.sub(x.detach(), x, alpha=2.0),
           "softmax_last": lambda x: torch.softmax(x, dim=-1),
           "softmax_first": lambda x: torch.softmax(x, dim=0)}.get(name, fn)
    tx = torch.tensor(x0, requires_grad=True)
    (tg,) = torch.autograd.grad(tfn(tx), tx, torch.tensor(g0))
    np.testing.assert_allclose(got, tg.numpy(), rtol=1e-12, atol=1e-12)


def test_the_formulas_run_and_decline(monkeypatch):
    if not fast_paths.on:
        pytest.skip("reference mode: the vjp runs")
    from arraygrad.ops.activation import SOFTMAX
    from arraygrad.ops.elementwise import DIV, EXP

    calls = []

    def spied(rule):
        def wrap(f):
            def spy(gd, n, backend):
                out = f(gd, n, backend)
                calls.append((rule.name, out is not None))
                return out
            return None if f is None else spy
        monkeypatch.setattr(rule, "first_order", tuple(wrap(f) for f in rule.first_order))

    for rule in (SOFTMAX, EXP, DIV):
        spied(rule)
    x = ag.randn(2, 3, requires_grad=True)
    ag.softmax(x, dim=1).exp().div(x[:1]).sum().backward()  # div by a broadcast row
    h = ag.randn(2, 3, dtype=ag.float16, requires_grad=True)
    ag.softmax(h, dim=1).sum().backward()
    assert calls == [("DivBackward0", False), ("DivBackward0", False),  # broadcast: the vjp
                     ("ExpBackward0", True), ("SoftmaxBackward0", True),
                     ("SoftmaxBackward0", False)]  # float16: the vjp


def test_complex_and_half_keep_the_vjp():
    for dtype in (ag.complex64, ag.float16):
        x = ag.tensor([0.5, 1.5], dtype=dtype, requires_grad=True)
        (g,) = ag.autograd.grad((x.exp() / 2.0 - x).sum().real if dtype.is_complex else
                                (x.exp() / 2.0 - x).sum(), x)
        assert g.dtype == dtype


def test_double_backward_records_the_vjp():
    x = ag.tensor([0.7, 1.3], dtype=ag.float64, requires_grad=True)
    (g,) = ag.autograd.grad((x.sqrt() / x.sin()).sum(), x, create_graph=True)
    (h,) = ag.autograd.grad(g.sum(), x)
    assert ag.autograd.gradgradcheck(lambda t: (t.sqrt() / t.sin()).sum(), (x,))
    assert h.shape == x.shape
