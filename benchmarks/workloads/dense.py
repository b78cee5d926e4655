"""``matmul_big`` (``(A @ B).sum()`` at 1024x1024) and ``broadcast_reduce``
(``((x[:, None, :] * y[None, :, :]).sum(-1)).mean()`` with x, y of shape (256, 128))."""

from __future__ import annotations

import numpy as np

from workloads.base import Impl, Workload, to_numpy, try_torch


def _data(shape_a, shape_b, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape_a).astype(np.float32),
            rng.standard_normal(shape_b).astype(np.float32))


def matmul_big() -> Workload:
    import arraygrad as ag

    a, b = _data((1024, 1024), (1024, 1024))
    w = Workload("matmul_big", "ms", 1e3, repeats=15)

    def numpy_run():
        _ = (a @ b).sum()
        g = np.ones((1024, 1024), np.float32)
        return [g @ b.T, a.T @ g]

    def framework(lib):
        def run():
            x = lib.tensor(a, requires_grad=True)
            y = lib.tensor(b, requires_grad=True)
            (x @ y).sum().backward()
            return [to_numpy(x.grad), to_numpy(y.grad)]
        return run

    w.impls["numpy"] = Impl(numpy_run)
    w.impls["arraygrad"] = Impl(framework(ag))
    torch = try_torch()
    if torch is not None:
        w.impls["torch"] = Impl(framework(torch))
    return w


def broadcast_reduce() -> Workload:
    import arraygrad as ag

    xa, ya = _data((256, 128), (256, 128))
    w = Workload("broadcast_reduce", "ms", 1e3, repeats=30)

    def numpy_run():
        prod = xa[:, None, :] * ya[None, :, :]
        _ = prod.sum(-1).mean()
        g = np.float32(1.0 / (256 * 256))
        # d/dx_ik = sum_j g * y_jk ; d/dy_jk = sum_i g * x_ik
        return [np.broadcast_to(ya.sum(0) * g, xa.shape), np.broadcast_to(xa.sum(0) * g, ya.shape)]

    def framework(lib):
        def run():
            x = lib.tensor(xa, requires_grad=True)
            y = lib.tensor(ya, requires_grad=True)
            (x[:, None, :] * y[None, :, :]).sum(-1).mean().backward()
            return [to_numpy(x.grad), to_numpy(y.grad)]
        return run

    w.impls["numpy"] = Impl(numpy_run)
    w.impls["arraygrad"] = Impl(framework(ag))
    torch = try_torch()
    if torch is not None:
        w.impls["torch"] = Impl(framework(torch))
    return w
