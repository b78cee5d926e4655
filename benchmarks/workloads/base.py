"""The shape of a workload: per implementation, a prepared callable and the gradients it gives."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np


@dataclass
class Impl:
    """One implementation of a workload: ``run()`` does the timed work and returns its
    gradients (arrays or tensors: the check, run once, converts them with ``to_numpy``, so
    the timed calls do no conversion the NumPy floor does not do)."""

    run: Callable[[], list]
    correct: bool | None = None  # checked already (the compiled step against its eager twin)


@dataclass
class Workload:
    """A named workload, its unit, how to turn seconds into that unit, and its implementations."""

    name: str
    unit: str
    scale: float
    impls: dict = field(default_factory=dict)
    repeats: int = 30
    rtol: float = 1e-3
    note: str = ""
    framework: Callable | None = None  # framework(lib) -> run: bench.py builds "compiled" from it
    compiled: bool = True  # whether bench.py times a compiled column (False: too slow to record)
    compiled_note: str = ""  # why the compiled column is empty, when it is


def to_numpy(t):
    """A tensor's (or array's) values as a NumPy array, for the gradient check."""
    if hasattr(t, "detach"):
        t = t.detach()
        if str(t.dtype).endswith("bfloat16"):  # PyTorch's has no NumPy form: compare in float32
            t = t.float()
        return np.asarray(t.cpu().numpy() if hasattr(t, "cpu") else t.numpy())
    return np.asarray(t)


def try_torch():
    """PyTorch if installed (the bench extra), else None."""
    try:
        import torch

        torch.set_num_threads(1)
        return torch
    except ImportError:
        return None


def sgd_step(lib, model, params, x, y, loss=None, optimizer=None):
    """A framework's training step on ``model`` after loading ``params`` (NumPy arrays, in
    ``model.parameters()`` order); ``run()`` returns the gradients of the step.

    ``loss(model, x, y)`` gives the step's loss (tensors in); by default the cross-entropy
    of ``model(x)`` against the labels ``y``. ``optimizer(lib, parameters)`` makes the
    optimizer; by default SGD with learning rate 0.01."""
    with lib.no_grad():
        for p, v in zip(model.parameters(), params):
            p.copy_(lib.from_numpy(v))
    opt = (optimizer or _sgd)(lib, model.parameters())
    xt, yt = lib.from_numpy(x), lib.from_numpy(y)
    if loss is None:
        cross_entropy = lib.nn.CrossEntropyLoss()

        def loss(m, xt, yt):
            return cross_entropy(m(xt), yt)
    trained = list(model.parameters())

    def run():
        opt.zero_grad()
        loss(model, xt, yt).backward()
        opt.step()  # updates the parameters, not their gradients
        return [p.grad for p in trained]
    return run


def _sgd(lib, parameters):
    return lib.optim.SGD(parameters, lr=0.01)


def draw_params(shapes, seed=0):
    """Float32 NumPy parameters for ``shapes``: matrices and kernels from PyTorch's default
    U(-1/sqrt(fan_in), 1/sqrt(fan_in)), vectors (biases, norm weights) around it too, so no
    gradient is checked at a special point (a zero bias, a unit scale)."""
    rng = np.random.default_rng(seed)
    out = []
    for shape in shapes:
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
        bound = 1 / np.sqrt(fan_in)
        out.append(rng.uniform(-bound, bound, shape).astype(np.float32))
    return out


def with_frameworks(w: Workload, numpy_run, framework) -> Workload:
    """Fill ``w`` with the NumPy floor (None: a model with no hand-written floor, whose
    gradients are checked against PyTorch's), arraygrad, and PyTorch if installed;
    ``framework`` is kept for the compiled column (``workloads.compiled``), which the bench
    adds when timing."""
    import arraygrad

    w.framework = framework
    if numpy_run is not None:
        w.impls["numpy"] = Impl(numpy_run)
    w.impls["arraygrad"] = Impl(framework(arraygrad))
    torch = try_torch()
    if torch is not None:
        w.impls["torch"] = Impl(framework(torch))
    return w
