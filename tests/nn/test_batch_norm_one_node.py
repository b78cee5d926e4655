"""``F.batch_norm`` in training is one node (``NativeBatchNormBackward0``): its output and the
running statistics are the composite's bit for bit (the Tensor ops it replaced), its gradients
the composite's within rounding (a closed form, not the chain of eleven vjps), the same on the
fast path (array formulas) and the reference one (the recorded vjp), PyTorch's too; it passes
gradcheck and gradgradcheck."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag
from arraygrad.nn import functional as F
from arraygrad.ops.rule import reference_mode


def _composite(x, rm, rv, w, b, momentum, eps=1e-5):
    """The Tensor ops ``batch_norm`` was made of, in their order (the oracle)."""
    dims = (0,) + tuple(range(2, x.ndim))
    cshape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    mean = x.mean(dim=dims, keepdim=True)
    var = x.var(dim=dims, unbiased=False, keepdim=True)
    y = (x - mean) * ag.rsqrt(var + eps)
    if w is not None:
        y = y * w.reshape(cshape) + b.reshape(cshape)
    count = x.numel() // x.shape[1]
    with ag.no_grad():
        if rm is not None:
            rm.copy_(rm * (1 - momentum) + mean.reshape(-1) * momentum)
            rv.copy_(rv * (1 - momentum) + var.reshape(-1) * (count / (count - 1)) * momentum)
    return y


def _run(shape, affine, running, dtype, seed, momentum=0.1, composite=False):
    rng = np.random.default_rng(seed)
    x = ag.tensor(rng.standard_normal(shape) * 3 + 1, dtype=dtype, requires_grad=True)
    c = shape[1]
    w = ag.tensor(rng.standard_normal(c), dtype=dtype, requires_grad=True) if affine else None
    b = ag.tensor(rng.standard_normal(c), dtype=dtype, requires_grad=True) if affine else None
    rm = ag.tensor(rng.standard_normal(c), dtype=dtype) if running else None
    rv = ag.tensor(rng.random(c) + 0.5, dtype=dtype) if running else None
    if composite:
        y = _composite(x, rm, rv, w, b, momentum)
    else:
        y = F.batch_norm(x, rm, rv, w, b, training=True, momentum=momentum)
    (y * ag.tensor(rng.standard_normal(shape), dtype=dtype)).sum().backward()
    exact = [y.detach().numpy()]
    if running:
        exact += [rm.numpy(), rv.numpy(), np.array([rm._version, rv._version])]
    grads = [x.grad.numpy()] + ([w.grad.numpy(), b.grad.numpy()] if affine else [])
    return exact, grads, type(y.grad_fn).__name__


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([(4, 3), (5, 2, 7), (3, 4, 2, 3), (2, 3, 2, 2, 2)]), st.booleans(),
       st.booleans(), st.sampled_from(["float32", "float64"]), st.integers(0, 1000))
def test_the_composite_bit_for_bit(shape, affine, running, dtype, seed):
    exact, grads, node = _run(shape, affine, running, getattr(ag, dtype), seed)
    with reference_mode():
        ref_exact, ref_grads, ref_node = _run(shape, affine, running, getattr(ag, dtype), seed)
    want_exact, want_grads, _ = _run(shape, affine, running, getattr(ag, dtype), seed,
                                     composite=True)
    assert node == ref_node == "NativeBatchNormBackward0"
    for g, r, w in zip(exact, ref_exact, want_exact):
        assert g.dtype == w.dtype and np.array_equal(g, w) and np.array_equal(r, w)
    tol = 2e-5 if dtype == "float32" else 1e-12
    for g, r, w in zip(grads, ref_grads, want_grads):
        assert g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol)
        np.testing.assert_allclose(r, w, rtol=tol, atol=tol)


def test_float16_and_a_running_buffer_of_another_dtype_keep_working():
    x = ag.randn(4, 3, 5, dtype=ag.float16, requires_grad=True)
    y = F.batch_norm(x, ag.zeros(3), ag.ones(3), training=True)  # float32 buffers
    y.float().sum().backward()
    assert x.grad.shape == x.shape and y.dtype is ag.float16
    rm = ag.zeros(3, dtype=ag.float64)
    F.batch_norm(ag.randn(4, 3, 5), rm, None, training=True)
    assert rm.dtype is ag.float64 and rm.abs().sum().item() > 0


def test_gradcheck_and_double_backward():
    x = ag.randn(4, 3, 2, dtype=ag.float64, requires_grad=True)
    w = ag.randn(3, dtype=ag.float64, requires_grad=True)
    b = ag.randn(3, dtype=ag.float64, requires_grad=True)
    fn = lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True)  # noqa: E731
    assert ag.autograd.gradcheck(fn, (x, w, b))
    assert ag.autograd.gradgradcheck(fn, (x, w, b))


def test_against_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((6, 4, 3, 3)).astype(np.float32)
    gs = rng.standard_normal((6, 4, 3, 3)).astype(np.float32)
    res = {}
    for lib in (ag, torch):
        x = lib.tensor(xs, requires_grad=True)
        bn = lib.nn.BatchNorm2d(4)
        with lib.no_grad():
            bn.weight.copy_(lib.tensor([0.5, 1.0, 1.5, -2.0]))
            bn.bias.copy_(lib.tensor([0.1, 0.2, 0.3, 0.4]))
        y = bn(x)
        (y * lib.tensor(gs)).sum().backward()
        res[lib.__name__] = [t.detach().numpy() for t in (y, x.grad, bn.weight.grad, bn.bias.grad,
                                                          bn.running_mean, bn.running_var)]
        res[lib.__name__].append(type(y.grad_fn).__name__)
        res[lib.__name__].append(int(bn.num_batches_tracked))
    for a, t in zip(res["arraygrad"], res["torch"]):
        if isinstance(a, np.ndarray):
            np.testing.assert_allclose(a, t, rtol=1e-5, atol=1e-5)
        else:
            assert a == t
