"""``F.layer_norm`` is one op with one node, PyTorch's ``NativeLayerNormBackward0`` (it was
eight recorded ops): forward values are the composite's (to a float32 rounding: the NumPy
backend sums rows by BLAS, NumPy's ``mean``/``var`` pairwise), gradients of input,
weight and bias are PyTorch's, the plain backward on arrays agrees with the recorded vjp
(reference mode), and double backward, forward mode and vmap hold."""

from __future__ import annotations

import numpy as np
import pytest

import arraygrad as ag
import arraygrad.nn.functional as F
from arraygrad.ops.rule import reference_mode

RNG = np.random.default_rng(35)
CASES = [((4, 6), (6,), True, True), ((2, 3, 5), (3, 5), True, True), ((3, 4), (4,), False, False),
         ((2, 5), (5,), True, False), ((2, 5), (5,), False, True), ((7,), (7,), True, True)]


def _inputs(shape, ns, w, b, dtype=np.float64):
    x = (RNG.standard_normal(shape) * 2 + 0.5).astype(dtype)
    weight = RNG.standard_normal(ns).astype(dtype) if w else None
    bias = RNG.standard_normal(ns).astype(dtype) if b else None
    return x, weight, bias


def _run(lib, x, w, b, ns, g):
    xt = lib.tensor(x, requires_grad=True)
    wt = None if w is None else lib.tensor(w, requires_grad=True)
    bt = None if b is None else lib.tensor(b, requires_grad=True)
    y = lib.nn.functional.layer_norm(xt, ns, wt, bt, 1e-5)
    y.backward(lib.tensor(g))
    grads = [t.grad.numpy() if t is not None else None for t in (xt, wt, bt)]
    return y.detach().numpy(), grads, y


@pytest.mark.parametrize("shape, ns, w, b", CASES)
def test_one_node_with_pytorchs_name_and_saved_values(shape, ns, w, b):
    x, weight, bias = _inputs(shape, ns, w, b)
    xt = ag.tensor(x, requires_grad=True)
    y = F.layer_norm(xt, ns, None if weight is None else ag.tensor(weight, requires_grad=True),
                     None if bias is None else ag.tensor(bias))
    assert y.grad_fn.name() == "NativeLayerNormBackward0"
    assert y.grad_fn.next_functions[0][0].variable is xt
    assert tuple(y.grad_fn._saved_normalized_shape) == ns
    dims = tuple(range(len(shape) - len(ns), len(shape)))
    np.testing.assert_allclose(y.grad_fn._saved_mean.numpy(), x.mean(dims, keepdims=True))


@pytest.mark.parametrize("shape, ns, w, b", CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_values_and_gradients_are_pytorchs(shape, ns, w, b, dtype):
    torch = pytest.importorskip("torch")
    x, weight, bias = _inputs(shape, ns, w, b, dtype)
    g = RNG.standard_normal(shape).astype(dtype)
    y, grads, _ = _run(ag, x, weight, bias, ns, g)
    ty, tgrads, _ = _run(torch, x, weight, bias, ns, g)
    tol = 2e-5 if dtype == np.float32 else 1e-11
    np.testing.assert_allclose(y, ty, rtol=tol, atol=tol)
    for a, t in zip(grads, tgrads):
        assert (a is None) == (t is None)
        if a is not None:
            np.testing.assert_allclose(a, t, rtol=tol, atol=tol)


@pytest.mark.parametrize("shape, ns, w, b", CASES)
def test_forward_is_the_composite(shape, ns, w, b):
    x, weight, bias = _inputs(shape, ns, w, b, np.float32)
    dims = tuple(range(len(shape) - len(ns), len(shape)))
    ref = (x - x.mean(dims, keepdims=True)) * (1 / np.sqrt(x.var(dims, keepdims=True) + 1e-5))
    ref = ref if weight is None else ref * weight
    ref = ref if bias is None else ref + bias
    got = F.layer_norm(ag.tensor(x), ns, None if weight is None else ag.tensor(weight),
                       None if bias is None else ag.tensor(bias)).numpy()
    np.testing.assert_allclose(got, ref, rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize("shape, ns, w, b", CASES)
def test_plain_backward_agrees_with_the_recorded_vjp(shape, ns, w, b):
    x, weight, bias = _inputs(shape, ns, w, b)
    g = RNG.standard_normal(shape)
    _, grads, _ = _run(ag, x, weight, bias, ns, g)
    with reference_mode():
        _, ref, _ = _run(ag, x, weight, bias, ns, g)
    for a, r in zip(grads, ref):
        if a is not None:
            np.testing.assert_allclose(a, r, rtol=1e-12, atol=1e-12)


def test_double_backward_and_forward_mode():
    x, weight, bias = _inputs((3, 4), (4,), True, True)
    args = (ag.tensor(x, requires_grad=True), ag.tensor(weight, requires_grad=True),
            ag.tensor(bias, requires_grad=True))
    fn = lambda a, w, b: F.layer_norm(a, (4,), w, b)  # noqa: E731
    assert ag.autograd.gradcheck(fn, args)
    assert ag.autograd.gradgradcheck(fn, args)
    assert ag.autograd.gradcheck(fn, args, check_forward_ad=True, check_backward_ad=False)


def test_vmap_and_half_precision():
    x, weight, bias = _inputs((5, 3, 4), (4,), True, True, np.float32)
    w, b = ag.tensor(weight), ag.tensor(bias)
    per_sample = ag.func.vmap(lambda s: F.layer_norm(s, (4,), w, b))(ag.tensor(x))
    whole = F.layer_norm(ag.tensor(x), (4,), w, b)
    np.testing.assert_allclose(per_sample.numpy(), whole.numpy(), rtol=1e-6, atol=1e-6)
    h = ag.tensor(x, dtype=ag.float16, requires_grad=True)
    y = F.layer_norm(h, (4,), w.half(), b.half())
    y.sum().backward()
    assert y.dtype == h.grad.dtype == ag.float16
