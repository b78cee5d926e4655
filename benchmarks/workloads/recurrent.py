"""``lstm_step``: one SGD step of a one-layer LSTM (sequence 16, batch 8, input 32, hidden 64)
whose loss is the sum of its outputs times fixed weights (so every output step gets a gradient
and no classifier hides the recurrence's cost)."""

from __future__ import annotations

import numpy as np

from workloads.base import Workload, sgd_step, with_frameworks

SEQ, BATCH, INPUT, HIDDEN = 16, 8, 32, 64


def make_data(seed=0):
    """PyTorch's LSTM parameters in its order (``weight_ih_l0`` (4H, I), ``weight_hh_l0``
    (4H, H), ``bias_ih_l0``, ``bias_hh_l0``; gates i, f, g, o) drawn from its U(-1/sqrt(H),
    1/sqrt(H)), the input (T, B, I) and the loss weights (T, B, H), all float32."""
    rng = np.random.default_rng(seed)
    bound = 1 / np.sqrt(HIDDEN)
    shapes = [(4 * HIDDEN, INPUT), (4 * HIDDEN, HIDDEN), (4 * HIDDEN,), (4 * HIDDEN,)]
    params = [rng.uniform(-bound, bound, s).astype(np.float32) for s in shapes]
    x = rng.standard_normal((SEQ, BATCH, INPUT)).astype(np.float32)
    weights = rng.standard_normal((SEQ, BATCH, HIDDEN)).astype(np.float32)
    return params, x, weights


def _sigmoid(z):
    return 1 / (1 + np.exp(-z))


def numpy_forward(params, x):
    """The floor's forward from zero states: every step's gates ``(i, f, g, o)``, cells
    ``c_t``, ``tanh(c_t)`` and outputs ``h_t``, stacked over time."""
    w_ih, w_hh, b_ih, b_hh = params
    steps, batch, _ = x.shape
    hidden = w_hh.shape[1]
    # the input's share of every gate, for all steps in one product
    x_gates = (x.reshape(steps * batch, -1) @ w_ih.T + (b_ih + b_hh)).reshape(steps, batch, -1)
    h = np.zeros((batch, hidden), np.float32)
    c = np.zeros((batch, hidden), np.float32)
    gates, cells, tanh_cells, outs = [], [], [], []
    for t in range(steps):
        z = x_gates[t] + h @ w_hh.T
        i, f, o = (_sigmoid(z[:, k * hidden:(k + 1) * hidden]) for k in (0, 1, 3))
        g = np.tanh(z[:, 2 * hidden:3 * hidden])
        c = f * c + i * g
        tanh_c = np.tanh(c)
        h = o * tanh_c
        gates.append((i, f, g, o))
        cells.append(c)
        tanh_cells.append(tanh_c)
        outs.append(h)
    return gates, cells, tanh_cells, np.stack(outs)


def numpy_backward(params, x, weights, gates, cells, tanh_cells, outs):
    """The floor's hand-written backpropagation through time of ``sum(outs * weights)``."""
    w_ih, w_hh, _, _ = params
    steps, batch, _ = x.shape
    hidden = w_hh.shape[1]
    d_z = np.empty((steps, batch, 4 * hidden), np.float32)  # d loss / d pre-activation gates
    d_h_next = np.zeros((batch, hidden), np.float32)  # from step t+1 through w_hh
    d_c_next = np.zeros((batch, hidden), np.float32)  # from step t+1 through f * c
    for t in reversed(range(steps)):
        i, f, g, o = gates[t]
        c_prev = cells[t - 1] if t else np.zeros_like(cells[0])
        d_h = weights[t] + d_h_next
        d_c = d_h * o * (1 - tanh_cells[t] ** 2) + d_c_next
        d_z[t, :, :hidden] = d_c * g * i * (1 - i)
        d_z[t, :, hidden:2 * hidden] = d_c * c_prev * f * (1 - f)
        d_z[t, :, 2 * hidden:3 * hidden] = d_c * i * (1 - g * g)
        d_z[t, :, 3 * hidden:] = d_h * tanh_cells[t] * o * (1 - o)
        d_h_next = d_z[t] @ w_hh
        d_c_next = d_c * f
    h_prev = np.concatenate([np.zeros((1, batch, hidden), np.float32), outs[:-1]])
    flat_dz = d_z.reshape(steps * batch, -1)
    d_w_ih = flat_dz.T @ x.reshape(steps * batch, -1)
    d_w_hh = flat_dz.T @ h_prev.reshape(steps * batch, -1)
    d_b = flat_dz.sum(0)
    return [d_w_ih, d_w_hh, d_b, d_b.copy()]  # both biases add to the same gates


def numpy_step(params, x, weights, lr=0.01):
    """Forward, hand-written backward and SGD update; returns the gradients."""
    gates, cells, tanh_cells, outs = numpy_forward(params, x)
    grads = numpy_backward(params, x, weights, gates, cells, tanh_cells, outs)
    for p_, g_ in zip(params, grads):
        p_ -= lr * g_
    return grads


def _weighted_output_sum(model, xt, weights):
    output, _ = model(xt)
    return (output * weights).sum()


def _framework(lib):
    """``lib.nn.LSTM`` (arraygrad or torch) with the floor's parameters."""
    params, x, weights = make_data()
    model = lib.nn.LSTM(INPUT, HIDDEN)
    return sgd_step(lib, model, params, x, weights, loss=_weighted_output_sum)


def lstm_step() -> Workload:
    w = Workload("lstm_step", "ms/step", 1e3, repeats=30, rtol=2e-3)
    params, x, weights = make_data()
    return with_frameworks(w, lambda: numpy_step(params, x, weights), _framework)
