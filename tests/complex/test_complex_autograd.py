"""PyTorch's complex autograd: the gradient is the conjugate Wirtinger derivative (for a real
loss ``L(x + iy)``, ``dL/dx + i dL/dy``), checked against analytic formulas, finite
differences and PyTorch itself; every rule declares whether it supports complex inputs and the
recorder refuses a rule that does not."""

from __future__ import annotations

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.autograd import gradcheck, gradgradcheck
from arraygrad.ops.rule import rules
from tests.complex.torch_pairs import as_numpy, complex_pair, needs_torch, torch


def _z(values):
    return ag.tensor(values, dtype=ag.cdouble, requires_grad=True)


def test_the_gradient_of_a_real_loss_is_its_real_gradient_packed_as_complex():
    z = _z([1 + 2j, -0.5 + 0.25j])
    (z.abs() ** 2).sum().backward()  # |z|^2 = x^2 + y^2: (2x, 2y) -> 2z
    assert z.grad.tolist() == [2 + 4j, -1 + 0.5j]
    z = _z([3 + 4j])
    z.abs().sum().backward()  # |z|: z / |z|
    assert np.allclose(as_numpy(z.grad), [0.6 + 0.8j])
    z = _z([1 + 1j])
    z.angle().sum().backward()  # atan2(y, x): (-y, x) / |z|^2 -> i z / |z|^2
    assert np.allclose(as_numpy(z.grad), [-0.5 + 0.5j])


def test_holomorphic_functions_give_g_times_the_conjugate_derivative():
    z = _z([0.3 + 0.7j, -1.1 + 0.2j])
    g = ag.tensor([1 - 2j, 0.5 + 1j], dtype=ag.cdouble)
    for fn, derivative in [(lambda t: t.exp(), np.exp), (lambda t: t * t, lambda v: 2 * v),
                           (lambda t: t.sin(), np.cos), (lambda t: t.log(), lambda v: 1 / v),
                           (lambda t: t ** 3, lambda v: 3 * v ** 2),
                           (lambda t: t.reciprocal(), lambda v: -1 / v ** 2)]:
        (got,) = ag.autograd.grad(fn(z), z, g)
        expected = as_numpy(g) * np.conj(derivative(as_numpy(z)))
        assert np.allclose(as_numpy(got), expected)


def test_a_real_input_gets_the_real_part_of_its_complex_gradient():
    x = ag.tensor([1.0, -2.0], dtype=ag.float64, requires_grad=True)
    (x * (2 - 3j)).abs().sum().backward()  # |x (2 - 3i)| = sqrt(13) |x|
    assert x.grad.dtype is ag.float64
    assert np.allclose(as_numpy(x.grad), np.sqrt(13) * np.sign([1.0, -2.0]))
    y = ag.tensor([0.5], dtype=ag.float64, requires_grad=True)
    ag.view_as_real(y.to(ag.cdouble) * 1j).sum().backward()  # Re + Im of i y: y
    assert y.grad.tolist() == [1.0]


def test_backward_of_a_complex_output_needs_a_gradient():
    z = _z([1 + 1j])
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for real "
                                           "scalar outputs but got arraygrad.complex128"):
        (z * 2).sum().backward()
    (z * 2).sum().backward(ag.tensor(1 - 1j, dtype=ag.cdouble))
    assert z.grad.tolist() == [2 - 2j]


def test_every_rule_declares_whether_it_supports_complex():
    import arraygrad.fft  # noqa: F401 - the rules load with their modules
    import arraygrad.linalg  # noqa: F401
    import arraygrad.nn.functional  # noqa: F401

    table = rules()
    assert all(type(r.complex) is bool for r in table.values())
    declared = {k for k, r in table.items() if r.complex}
    assert {"MulBackward0", "DivBackward0", "ExpBackward0", "MmBackward0", "AbsBackward0",
            "ViewAsRealBackward0", "ComplexBackward0", "SumBackward0", "CatBackward0",
            "WhereBackward0", "IndexBackward0"} <= declared
    assert "ErfBackward0" not in declared and "ReluBackward0" not in declared


def test_the_recorder_refuses_a_rule_that_does_not_declare_complex():
    z = _z([0.5 + 0.5j, 1 + 0j])
    with pytest.raises(NotImplementedError, match='"logit" not implemented for '
                                                  "'ComplexDouble': its rule LogitBackward0 "
                                                  "does not declare complex support"):
        z.logit()
    x = ag.tensor([0.5, 1.0], dtype=ag.float64, requires_grad=True)
    with pytest.raises(NotImplementedError, match="does not declare complex support"):
        ag.cummax(x.to(ag.cdouble) * 0.1, 0)
    with pytest.raises(NotImplementedError, match="\"erfinv_cpu\" not implemented for "
                                                  "'ComplexDouble'"):
        ag.erfinv(x.to(ag.cdouble) * 0.1)  # refused before any special-function kernel
    assert z.grad is None and x.grad is None  # nothing recorded, nothing changed


def test_forward_mode_of_complex_tensors_is_refused():
    import arraygrad.autograd.forward_ad as fwAD

    with fwAD.dual_level():
        z = fwAD.make_dual(ag.tensor([1 + 1j], dtype=ag.cdouble), ag.tensor([1j], dtype=ag.cdouble))
        with pytest.raises(NotImplementedError, match="forward-mode AD of complex tensors"):
            z * 2


@pytest.mark.parametrize("name, fn", [
    ("mul", lambda z: z * (z + 1j)), ("div", lambda z: (z + 2) / (z - 3j)),
    ("pow", lambda z: z ** 2.5), ("sqrt", lambda z: z.sqrt()), ("tanh", lambda z: z.tanh()),
    ("sigmoid", lambda z: z.sigmoid()), ("abs", lambda z: z.abs()),
    ("angle", lambda z: z.angle()), ("sgn", lambda z: z.sgn()), ("conj", lambda z: z.conj() * z),
    ("prod", lambda z: z.prod(0)), ("matmul", lambda z: z @ z.t()),
    ("einsum", lambda z: ag.einsum("ij,kj->ik", z, z.conj())),
    ("var", lambda z: z.var(1)), ("norm", lambda z: z.norm(p=3)),
    ("view_as_real", lambda z: ag.view_as_real(z) ** 2),
    ("index", lambda z: z[[1, 0, 1]].flip(1)), ("cumprod", lambda z: z.cumprod(1)),
])
def test_gradients_and_second_derivatives_by_finite_differences(name, fn):
    z = ag.tensor((np.arange(6).reshape(2, 3) * 0.3 - 0.7) + 1j * np.linspace(0.2, 1.1, 6)
                  .reshape(2, 3), dtype=ag.cdouble, requires_grad=True)
    assert gradcheck(fn, (z,))
    assert gradgradcheck(fn, (z,))


@needs_torch
@pytest.mark.parametrize("name", ["exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "abs",
                                  "angle", "sgn", "reciprocal", "conj", "real", "imag",
                                  "asin", "atan", "sinh", "log10", "exp2"])
def test_unary_gradients_equal_pytorchs(name):
    ours, theirs = complex_pair((4,), seed=3)
    weights = np.random.default_rng(4).standard_normal((4, 2))
    results = []
    for lib, z in ((ag, ours), (torch, theirs)):
        out = getattr(lib, name)(z).resolve_conj()
        parts = lib.view_as_real(out) if out.dtype.is_complex else out.unsqueeze(-1)
        loss = (parts * lib.tensor(weights[:, :parts.shape[-1]], dtype=lib.float64)).sum()
        (g,) = lib.autograd.grad(loss, z)
        results.append(as_numpy(g))
    np.testing.assert_allclose(results[0], results[1], rtol=1e-10, atol=1e-12)


@needs_torch
@pytest.mark.parametrize("call", [
    lambda m, a, b: a * b, lambda m, a, b: a / b, lambda m, a, b: a ** b,
    lambda m, a, b: m.matmul(a.reshape(2, 2), b.reshape(2, 2)),
    lambda m, a, b: m.where(a.real > 0, a, b * 2j), lambda m, a, b: m.stack([a, b]).sum(0),
    lambda m, a, b: m.cat([a, b]).prod(), lambda m, a, b: (a - b).abs().mean(),
    lambda m, a, b: m.einsum("i,i->", a, b), lambda m, a, b: m.lerp(a, b, 0.3),
], ids=["mul", "div", "pow", "matmul", "where", "stack-sum", "cat-prod", "abs-mean", "einsum",
        "lerp"])
def test_binary_gradients_equal_pytorchs(call):
    (oa, ta), (ob, tb) = complex_pair((4,), seed=5), complex_pair((4,), seed=6)
    found = []
    for lib, a, b in ((ag, oa, ob), (torch, ta, tb)):
        out = call(lib, a, b)
        loss = lib.view_as_real(out).sum() if out.dtype.is_complex else out.sum()
        found.append([as_numpy(g) for g in lib.autograd.grad(loss, (a, b))])
    for o, t in zip(*found):
        np.testing.assert_allclose(o, t, rtol=1e-9, atol=1e-12)
