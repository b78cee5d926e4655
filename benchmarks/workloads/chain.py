"""``overhead_chain``: 200 alternating elementwise ops on a shape-(4,) tensor, forward+backward
with Python-scalar operands; ``tensor_chain``: the same with tensor operands."""

from __future__ import annotations

import numpy as np

from workloads.base import Workload, with_frameworks

OPS = 200


def _numpy(x0):
    def run():
        xs, kinds = [], []
        y = x0
        for i in range(OPS // 2):
            y = y + np.float32(1.0)
            xs.append(y)
            if i % 2:
                y = y * np.float32(0.5)
                kinds.append("mul")
            else:
                y = np.tanh(y)
                kinds.append("tanh")
        g = np.ones_like(y)
        for out_in, kind in zip(reversed(xs), reversed(kinds)):
            if kind == "mul":
                g = g * np.float32(0.5)
            else:
                t = np.tanh(out_in)
                g = g * (np.float32(1) - t * t)
        return [g]
    return run


def _framework(lib, x0):
    def run():
        x = lib.tensor(x0, requires_grad=True)
        y = x
        for i in range(OPS // 2):
            y = y + 1.0
            y = y * 0.5 if i % 2 else y.tanh()
        y.sum().backward()
        return [x.grad]
    return run


def workload() -> Workload:
    x0 = np.array([0.1, 0.2, 0.3, 0.4], dtype=np.float32)
    return with_frameworks(Workload("overhead_chain", "us/op", 1e6 / OPS, repeats=200),
                           _numpy(x0), lambda lib: _framework(lib, x0))


TRIPLES = 66  # 198 ops: ``y + x``, ``y * x``, ``y.tanh()`` repeated


def _tensor_numpy(x0):
    def run():
        x = x0
        sums, tanhs = [], []
        y = x
        for _ in range(TRIPLES):
            a = y + x
            y = np.tanh(a * x)
            sums.append(a)
            tanhs.append(y)
        g = np.ones_like(x)
        gx = np.zeros_like(x)
        for a, t in zip(reversed(sums), reversed(tanhs)):
            g_b = g * (np.float32(1) - t * t)  # through tanh
            gx += g_b * a  # b = a * x: x's share
            g = g_b * x  # a's share, and a = y + x: both y and x get it
            gx += g
        return [gx + g]  # the chain starts at y = x
    return run


def _tensor_framework(lib, x0):
    def run():
        x = lib.tensor(x0, requires_grad=True)
        y = x
        for _ in range(TRIPLES):
            y = y + x
            y = y * x
            y = y.tanh()
        y.sum().backward()
        return [x.grad]
    return run


def tensor_chain() -> Workload:
    """``tensor_chain``: ``y + x``, ``y * x``, ``y.tanh()`` with x a (4,) float32 leaf that
    needs its gradient: every op has two tensor operands needing gradients (or one), unlike
    ``overhead_chain``'s Python scalars, so each op's backward accumulates into x."""
    x0 = np.array([0.1, 0.2, 0.3, 0.4], dtype=np.float32)
    return with_frameworks(Workload("tensor_chain", "us/op", 1e6 / (3 * TRIPLES), repeats=200),
                           _tensor_numpy(x0), lambda lib: _tensor_framework(lib, x0))
