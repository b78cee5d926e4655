"""``conv_step``: one SGD step of the demo's conv net on a batch of 64 8x8 digits
(dropout left out so every implementation computes the same thing)."""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from workloads.base import Workload, sgd_step, with_frameworks

SHAPES = [("c1w", (16, 1, 3, 3)), ("c1b", (16,)), ("c2w", (32, 16, 3, 3)), ("c2b", (32,)),
          ("l1w", (64, 512)), ("l1b", (64,)), ("l2w", (10, 64)), ("l2b", (10,))]


def make_data(seed=0):
    rng = np.random.default_rng(seed)
    params = []
    for name, shape in SHAPES:
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else None
        fan_in = fan_in or {"c1b": 9, "c2b": 144, "l1b": 512, "l2b": 64}[name]
        bound = 1 / np.sqrt(fan_in)
        params.append(rng.uniform(-bound, bound, shape).astype(np.float32))
    x = rng.random((64, 1, 8, 8)).astype(np.float32)
    y = rng.integers(0, 10, 64)
    return params, x, y


def _im2col(x):
    n, c, h, w = x.shape
    win = sliding_window_view(np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1))), (3, 3), axis=(2, 3))
    return win.transpose(0, 2, 3, 1, 4, 5).reshape(n * h * w, c * 9)


def _conv(x, w, b):
    n, _, h, wd = x.shape
    cols = _im2col(x)
    out = (cols @ w.reshape(w.shape[0], -1).T + b).reshape(n, h, wd, -1).transpose(0, 3, 1, 2)
    return out, cols


def _conv_back(g, cols, x_shape, w):
    n, c, h, wd = x_shape
    gm = g.transpose(0, 2, 3, 1).reshape(-1, w.shape[0])
    dw = (gm.T @ cols).reshape(w.shape)
    db = gm.sum(0)
    dcols = (gm @ w.reshape(w.shape[0], -1)).reshape(n, h, wd, c, 3, 3)
    dxp = np.zeros((n, c, h + 2, wd + 2), np.float32)
    for i in range(3):
        for j in range(3):
            dxp[:, :, i:i + h, j:j + wd] += dcols[..., i, j].transpose(0, 3, 1, 2)
    return dxp[:, :, 1:-1, 1:-1], dw, db


def numpy_step(params, x, y, lr=0.01):
    c1w, c1b, c2w, c2b, l1w, l1b, l2w, l2b = params
    z1, cols1 = _conv(x, c1w, c1b)
    a1 = np.maximum(z1, 0)
    z2, cols2 = _conv(a1, c2w, c2b)
    a2 = np.maximum(z2, 0)
    blocks = a2.reshape(64, 32, 4, 2, 4, 2)
    pooled = blocks.max(axis=(3, 5))
    flat = pooled.reshape(64, -1)
    h = flat @ l1w.T + l1b
    r = np.maximum(h, 0)
    logits = r @ l2w.T + l2b
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    g = p
    g[np.arange(64), y] -= 1
    g /= 64
    d_l2w, d_l2b = g.T @ r, g.sum(0)
    g = (g @ l2w) * (h > 0)
    d_l1w, d_l1b = g.T @ flat, g.sum(0)
    g = (g @ l1w).reshape(pooled.shape)
    mask = blocks == pooled[:, :, :, None, :, None]
    g2 = (mask * g[:, :, :, None, :, None]).reshape(a2.shape) * (z2 > 0)
    g1, d_c2w, d_c2b = _conv_back(g2, cols2, a1.shape, c2w)
    g1 = g1 * (z1 > 0)
    _, d_c1w, d_c1b = _conv_back(g1, cols1, x.shape, c1w)
    grads = [d_c1w, d_c1b, d_c2w, d_c2b, d_l1w, d_l1b, d_l2w, d_l2b]
    for p_, g_ in zip(params, grads):
        p_ -= lr * g_
    return grads


def _framework(lib):
    params, x, y = make_data()
    nn = lib.nn
    model = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 32, 3, padding=1),
                          nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(512, 64), nn.ReLU(),
                          nn.Linear(64, 10))
    return sgd_step(lib, model, params, x, y)


def conv_step() -> Workload:
    w = Workload("conv_step", "ms/step", 1e3, repeats=30, rtol=2e-3)
    params, x, y = make_data()
    return with_frameworks(w, lambda: numpy_step(params, x, y), _framework)
