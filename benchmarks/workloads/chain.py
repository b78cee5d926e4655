"""``overhead_chain``: 200 alternating elementwise ops on a shape-(4,) tensor, forward+backward."""

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
