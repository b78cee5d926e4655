"""``mlp_step`` / ``mlp_small_step``: one SGD step of a ReLU MLP with softmax cross-entropy."""

from __future__ import annotations

import numpy as np

from workloads.base import Impl, Workload, to_numpy, try_torch


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


def numpy_step(params, x, y, lr=0.01):
    """Forward, hand-written backward and SGD update; returns the gradients."""
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
    grads = [None] * len(params)
    for i in reversed(range(n_layers)):
        w = params[2 * i]
        grads[2 * i] = g.T @ acts[i]
        grads[2 * i + 1] = g.sum(0)
        if i:
            g = (g @ w) * (acts[i] > 0)
    for p_, g_ in zip(params, grads):
        p_ -= lr * g_
    return grads


def _numpy(sizes, batch):
    params, x, y = make_data(sizes, batch)
    return lambda: numpy_step(params, x, y)


def _arraygrad(sizes, batch):
    import arraygrad as ag
    from arraygrad import nn

    params, x, y = make_data(sizes, batch)
    layers = []
    for i, (fan_in, fan_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        lin = nn.Linear(fan_in, fan_out)
        with ag.no_grad():
            lin.weight.copy_(ag.from_numpy(params[2 * i]))
            lin.bias.copy_(ag.from_numpy(params[2 * i + 1]))
        layers += [lin, nn.ReLU()]
    model = nn.Sequential(*layers[:-1])
    opt = ag.optim.SGD(model.parameters(), lr=0.01)
    xt, yt = ag.from_numpy(x), ag.from_numpy(y)
    loss_fn = nn.CrossEntropyLoss()

    def run():
        opt.zero_grad()
        loss_fn(model(xt), yt).backward()
        grads = [to_numpy(p.grad) for p in model.parameters()]
        opt.step()
        return grads
    return run


def _torch(torch, sizes, batch):
    params, x, y = make_data(sizes, batch)
    layers = []
    for i, (fan_in, fan_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        lin = torch.nn.Linear(fan_in, fan_out)
        with torch.no_grad():
            lin.weight.copy_(torch.from_numpy(params[2 * i]))
            lin.bias.copy_(torch.from_numpy(params[2 * i + 1]))
        layers += [lin, torch.nn.ReLU()]
    model = torch.nn.Sequential(*layers[:-1])
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    loss_fn = torch.nn.CrossEntropyLoss()

    def run():
        opt.zero_grad()
        loss_fn(model(xt), yt).backward()
        grads = [to_numpy(p.grad) for p in model.parameters()]
        opt.step()
        return grads
    return run


def workload(name: str, sizes, batch, repeats) -> Workload:
    w = Workload(name, "ms/step", 1e3, repeats=repeats, rtol=2e-3)
    w.impls["numpy"] = Impl(_numpy(sizes, batch))
    w.impls["arraygrad"] = Impl(_arraygrad(sizes, batch))
    torch = try_torch()
    if torch is not None:
        w.impls["torch"] = Impl(_torch(torch, sizes, batch))
    return w


def mlp_step() -> Workload:
    return workload("mlp_step", (784, 512, 512, 10), 128, repeats=30)


def mlp_small_step() -> Workload:
    return workload("mlp_small_step", (64, 64, 64, 10), 32, repeats=300)
