"""``matmul_big`` (``(A @ B).sum()`` at 1024x1024), ``matmul_bf16`` (the same in bfloat16,
beside the float32 NumPy floor) and ``broadcast_reduce``
(``((x[:, None, :] * y[None, :, :]).sum(-1)).mean()`` with x, y of shape (256, 128))."""

from __future__ import annotations

import numpy as np

from workloads.base import Workload, with_frameworks


def _data(shape_a, shape_b, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape_a).astype(np.float32),
            rng.standard_normal(shape_b).astype(np.float32))


def _grads_of(a, b, fn):
    """A framework run: gradients of ``fn(x, y)`` for leaves made from ``a`` and ``b``."""
    def framework(lib):
        def run():
            x = lib.tensor(a, requires_grad=True)
            y = lib.tensor(b, requires_grad=True)
            fn(x, y).backward()
            return [x.grad, y.grad]
        return run
    return framework


def matmul_big() -> Workload:
    a, b = _data((1024, 1024), (1024, 1024))

    def numpy_run():
        _ = (a @ b).sum()
        g = np.ones((1024, 1024), np.float32)
        return [g @ b.T, a.T @ g]

    return with_frameworks(Workload("matmul_big", "ms", 1e3, repeats=15), numpy_run,
                           _grads_of(a, b, lambda x, y: (x @ y).sum()))


def matmul_bf16() -> Workload:
    """``matmul_big`` with bfloat16 leaves (the frameworks' bfloat16 matmul, accumulating in
    float32), timed beside the float32 NumPy floor: its ratio is bfloat16's cost over
    float32's. The inputs are bfloat16 values, so the floor's float32 gradients are the exact
    sums the bfloat16 ones round (checked to 1%)."""
    a, b = _data((1024, 1024), (1024, 1024))
    a, b = _bfloat16_values(a), _bfloat16_values(b)

    def numpy_run():
        _ = (a @ b).sum()
        g = np.ones((1024, 1024), np.float32)
        return [g @ b.T, a.T @ g]

    def framework(lib):
        def run():
            x = lib.tensor(a).to(lib.bfloat16).requires_grad_()
            y = lib.tensor(b).to(lib.bfloat16).requires_grad_()
            (x @ y).sum().backward()
            return [x.grad, y.grad]
        return run

    return with_frameworks(Workload("matmul_bf16", "ms", 1e3, repeats=15, rtol=1e-2), numpy_run,
                           framework)


def _bfloat16_values(x: np.ndarray) -> np.ndarray:
    """``x`` (float32) rounded to the nearest bfloat16, as float32 (round half to even on the
    16 bits dropped)."""
    bits = x.view(np.uint32)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return rounded.astype(np.uint32).view(np.float32)


def broadcast_reduce() -> Workload:
    xa, ya = _data((256, 128), (256, 128))

    def numpy_run():
        prod = xa[:, None, :] * ya[None, :, :]
        _ = prod.sum(-1).mean()
        g = np.float32(1.0 / (256 * 256))
        # d/dx_ik = sum_j g * y_jk ; d/dy_jk = sum_i g * x_ik
        return [np.broadcast_to(ya.sum(0) * g, xa.shape), np.broadcast_to(xa.sum(0) * g, ya.shape)]

    return with_frameworks(Workload("broadcast_reduce", "ms", 1e3, repeats=30), numpy_run,
                           _grads_of(xa, ya, lambda x, y: (x[:, None, :] * y[None, :, :])
                                     .sum(-1).mean()))
