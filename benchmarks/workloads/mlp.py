"""``mlp_step`` / ``mlp_small_step``: one SGD step of a ReLU MLP with softmax cross-entropy;
``mlp_raw_step``: the small one written with raw tensors (``h @ W + b``)."""

from __future__ import annotations

import numpy as np

from workloads.base import Workload, sgd_step, with_frameworks


def make_data(sizes, batch, seed=0):
    """Weights (PyTorch's Linear init bounds), inputs and labels as float32 NumPy arrays."""
    rng = np.random.default_rng(seed)
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        bound = 1 / np.sqrt(fan_in)
        params.append(rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32))
        params.append(rng.uniform(-bound, bound, (fan_out,)).astype(np.float32))
    x = rng.standard_normal((batch, sizes[0])).astype(np.float32)
    y = rng.integers(0, sizes[-1], batch)
    return params, x, y


def numpy_forward(params, x, y):
    """The floor's forward: the layers' inputs, and the loss gradient w.r.t. the logits."""
    acts, h = [x], x
    n_layers = len(params) // 2
    for i in range(n_layers):
        w, b = params[2 * i], params[2 * i + 1]
        h = h @ w.T + b
        if i < n_layers - 1:
            h = np.maximum(h, 0)
        acts.append(h)
    logits = h
    shifted = logits - logits.max(1, keepdims=True)
    p = np.exp(shifted)
    p /= p.sum(1, keepdims=True)
    g = p
    g[np.arange(len(y)), y] -= 1
    g /= len(y)
    return acts, g


def numpy_backward(params, acts, g):
    """The floor's hand-written backward: one gradient per parameter."""
    n_layers = len(params) // 2
    grads = [None] * len(params)
    for i in reversed(range(n_layers)):
        w = params[2 * i]
        grads[2 * i] = g.T @ acts[i]
        grads[2 * i + 1] = g.sum(0)
        if i:
            g = (g @ w) * (acts[i] > 0)
    return grads


def numpy_update(params, grads, lr=0.01):
    """The floor's SGD update, in place."""
    for p_, g_ in zip(params, grads):
        p_ -= lr * g_


def numpy_step(params, x, y, lr=0.01):
    """Forward, hand-written backward and SGD update; returns the gradients."""
    acts, g = numpy_forward(params, x, y)
    grads = numpy_backward(params, acts, g)
    numpy_update(params, grads, lr)
    return grads


def _numpy(sizes, batch):
    params, x, y = make_data(sizes, batch)
    return lambda: numpy_step(params, x, y)


def _framework(lib, sizes, batch):
    """The MLP in ``lib`` (arraygrad or torch) with the same weights as the NumPy floor."""
    params, x, y = make_data(sizes, batch)
    layers = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        layers += [lib.nn.Linear(fan_in, fan_out), lib.nn.ReLU()]
    return sgd_step(lib, lib.nn.Sequential(*layers[:-1]), params, x, y)


def workload(name: str, sizes, batch, repeats) -> Workload:
    w = Workload(name, "ms/step", 1e3, repeats=repeats, rtol=2e-3)
    return with_frameworks(w, _numpy(sizes, batch), lambda lib: _framework(lib, sizes, batch))


def mlp_step() -> Workload:
    return workload("mlp_step", (784, 512, 512, 10), 128, repeats=30)


def mlp_small_step() -> Workload:
    return workload("mlp_small_step", (64, 64, 64, 10), 32, repeats=300)


def _raw_numpy(sizes, batch):
    """The floor of ``mlp_raw_step``: ``mlp_small_step``'s, its weight gradients read as the
    raw step's (in, out) matrices (a transposed view: no work)."""
    params, x, y = make_data(sizes, batch)

    def run():
        grads = numpy_step(params, x, y)
        return [g.T if g.ndim == 2 else g for g in grads]
    return run


def _raw_framework(lib, sizes, batch):
    """The MLP written with raw tensors: ``h @ W + b``, ``F.relu``, ``F.cross_entropy``, SGD."""
    params, x, y = make_data(sizes, batch)
    leaves = [lib.tensor(np.ascontiguousarray(p.T) if p.ndim == 2 else p, requires_grad=True)
              for p in params]
    opt = lib.optim.SGD(leaves, lr=0.01)
    xt, yt = lib.from_numpy(x), lib.from_numpy(y)
    relu, cross_entropy = lib.nn.functional.relu, lib.nn.functional.cross_entropy
    layers = list(zip(leaves[::2], leaves[1::2]))

    def run():
        opt.zero_grad()
        h = xt
        for i, (w, b) in enumerate(layers):
            h = h @ w + b
            if i < len(layers) - 1:
                h = relu(h)
        cross_entropy(h, yt).backward()
        opt.step()
        return [p.grad for p in leaves]
    return run


def mlp_raw_step() -> Workload:
    """``mlp_raw_step``: ``mlp_small_step``'s network (64-64-64-10, batch 32) written as a
    new user writes it from a tutorial, without ``nn.Linear``."""
    sizes, batch = (64, 64, 64, 10), 32
    w = Workload("mlp_raw_step", "ms/step", 1e3, repeats=300, rtol=2e-3)
    return with_frameworks(w, _raw_numpy(sizes, batch),
                           lambda lib: _raw_framework(lib, sizes, batch))
