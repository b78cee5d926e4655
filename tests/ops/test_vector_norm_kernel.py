"""The NumPy backend's ``vector_norm`` kernel (a whole array's 2-norm without NumPy's Python
layers, ``clip_grad_norm_``'s per-gradient norms) gives NumPy's own ``vector_norm`` bit for bit and
PyTorch's value, keeps ``keepdim``'s shape and the gradient, and declines (the portable
``xp.linalg.vector_norm`` runs) every other order, axis or dtype."""

from __future__ import annotations

import math

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.ops.rule import reference_mode
from arraygrad_numpy.norm_kernels import vector_norm as kernel

RNG = np.random.default_rng(35)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(0,), (5,), (3, 4), (2, 3, 4), (1000,), (37, 61)])
def test_whole_array_two_norm_is_numpys_bit_for_bit(shape, dtype):
    a = (RNG.standard_normal(shape) * 3).astype(dtype)
    every = tuple(range(len(shape)))
    for axis in (None, every):  # NumPy: the pairwise sum of squares of the C-order row
        expected = np.asarray(np.linalg.vector_norm(a, axis=axis))
        got = kernel(a, axis, False, 2.0)
        assert got.shape == () and got.dtype == dtype
        assert got.tobytes() == expected.tobytes(), axis
    t = ag.tensor(a)
    with reference_mode():
        ref = ag.linalg.vector_norm(t).numpy()
    for dim in [None, every]:
        assert ag.linalg.vector_norm(t, dim=dim).numpy().tobytes() == ref.tobytes()


def test_non_contiguous_and_keepdim():
    a = RNG.standard_normal((4, 6))[:, ::2].T
    np.testing.assert_array_equal(kernel(a, None, False, 2.0), np.linalg.vector_norm(a))
    np.testing.assert_array_equal(kernel(a, (0, 1), False, 2.0),
                                  np.linalg.vector_norm(a, axis=(0, 1)))
    assert kernel(a, (1, 0), False, 2.0) is NotImplemented  # another summation order
    t = ag.tensor(RNG.standard_normal((3, 4)))
    out = ag.linalg.vector_norm(t, keepdim=True)
    with reference_mode():
        ref = ag.linalg.vector_norm(t, keepdim=True)
    assert out.shape == ref.shape == (1, 1)
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-15)


@pytest.mark.parametrize("args", [
    (np.ones(3), None, False, 1.0), (np.ones(3), None, False, math.inf),
    (np.ones((2, 3)), (1,), False, 2.0), (np.ones(3, dtype=np.float16), None, False, 2.0),
    (np.ones(3, dtype=np.complex64), None, False, 2.0), (np.ones(3, dtype=np.int64), None, False, 2.0),
])
def test_declines_what_it_does_not_compute(args):
    assert kernel(*args) is NotImplemented


def test_gradient_and_clip_grad_norm_are_pytorchs():
    torch = pytest.importorskip("torch")
    a = RNG.standard_normal((3, 5))
    x, tx = ag.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    ag.linalg.vector_norm(x).backward()
    torch.linalg.vector_norm(tx).backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12)
    grads = [RNG.standard_normal(s).astype(np.float32) for s in [(4, 3), (3,), (2, 4)]]
    ps = [ag.zeros(g.shape, requires_grad=True) for g in grads]
    tps = [torch.zeros(g.shape, requires_grad=True) for g in grads]
    for p, tp, g in zip(ps, tps, grads):
        p.grad, tp.grad = ag.tensor(g), torch.tensor(g)
    total = ag.nn.utils.clip_grad_norm_(ps, 0.5)
    ttotal = torch.nn.utils.clip_grad_norm_(tps, 0.5)
    np.testing.assert_allclose(total.numpy(), ttotal.numpy(), rtol=1e-6)
    for p, tp in zip(ps, tps):
        np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=1e-6)
