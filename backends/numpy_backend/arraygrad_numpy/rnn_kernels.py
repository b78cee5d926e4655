"""The NumPy backend's LSTM sequence kernels (``Backend.kernel``'s ``"lstm_sequence_forward"``
and ``"lstm_sequence_backward"``): ``rnn_sequence_formulas.lstm_forward``'s and
``lstm_backward``'s values, bit for bit, in fewer NumPy calls.

A small LSTM's step is a dozen calls on a few rows each, so the calls, not the arithmetic, set
its time (lstm_step: batch 8, hidden 64). The portable formula makes fresh arrays at every
step, forms the backward's factors there (a join of four pieces and five products), and copies
five of them into the packed buffers; here each step writes its activations, cell, ``tanh`` of
the cell and output straight into whole-sequence buffers (``out``), ten calls on views that
iterating the buffers step by step makes in C (slicing them in the loop cost as much as the
arithmetic on a few rows), and the backward's factors are formed after the loop, each ONE call
over every step's rows; the backward joins each step's gate gradients straight into one
buffer. Every element goes through
the same operations in the same order as in the portable formulas, so the values are the same;
``tests/nn/test_rnn_kernels.py`` holds them to it.

Served: dense sequences (every step has the whole batch), either direction, float32/float64
NumPy arrays, no projection (``proj_size``); the rest is declined (``NotImplemented``) and the
portable formula runs.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

__all__ = ["lstm_sequence_backward", "lstm_sequence_forward"]

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


@lru_cache(maxsize=64)
def _gate_row(hidden: int, dtype: np.dtype, factor: float) -> np.ndarray:
    """The (1, 4H) row scaling the sigmoid gates (i, f, o) by ``factor`` and keeping g:
    ``rnn_sequence_formulas.gate_scale``'s."""
    return np.concatenate([np.full((1, hidden), 1.0 if gate == "g" else factor, dtype)
                           for gate in "ifgo"], axis=-1)


def _serves(arrays: tuple[Any, ...], batch: int, sizes: tuple[int, ...]) -> bool:
    """Whether the kernels take a call on ``arrays`` (all NumPy, one float32/float64 dtype)
    with steps of ``sizes`` rows, each the whole ``batch``."""
    if not sizes or batch <= 0 or any(type(a) is not np.ndarray for a in arrays):
        return False
    dtype = arrays[0].dtype
    return dtype in _FLOATS and all(a.dtype == dtype for a in arrays) \
        and all(s == batch for s in sizes)


def lstm_sequence_forward(gi: Any, h0: Any, c0: Any, w: Any, b: Any, w_hr: Any,
                          sizes: tuple[int, ...], reverse: bool, keep: bool) -> Any:
    """``lstm_sequence_data``'s ``(output rows, h_n, c_n, *kept)`` (kept empty unless
    ``keep``), or ``NotImplemented`` for what this kernel does not serve."""
    if w_hr is not None or not _serves((gi, h0, c0, w) if b is None else (gi, h0, c0, w, b),
                                       h0.shape[0], sizes):
        return NotImplemented
    dtype = gi.dtype
    hidden = w.shape[0] // 4
    two, three = 2 * hidden, 3 * hidden
    halve = _gate_row(hidden, dtype, 0.5)
    w_t = np.ascontiguousarray((w * halve.reshape(4 * hidden, 1)).T)
    lead = gi.shape[:-1]
    gates_in = gi.reshape(-1, 4 * hidden) * halve
    if b is not None:
        gates_in += b * halve
    half = np.asarray(0.5, dtype)
    rows = gates_in.shape[0]
    batch = h0.shape[0]
    steps = len(sizes)
    act = np.empty((rows, 4 * hidden), dtype)  # tanh of the (halved) pre-activations
    sig = np.empty((rows, 4 * hidden), dtype)  # sigmoid(z) = tanh(z / 2) / 2 + 1 / 2
    cells = np.empty((rows, hidden), dtype)
    tanh_cells = np.empty((rows, hidden), dtype)
    out = np.empty((rows, hidden), dtype)
    product = np.empty((batch, hidden), dtype)  # i * g, before it joins the cell
    # every step's views made by iterating the buffers step-major (in C), not by slicing in
    # the loop: on a small batch the slices cost as much as the arithmetic; the ufuncs take
    # ``out`` positionally (a keyword costs its parsing, every call)
    by_step = (steps, batch, -1)
    gates = sig.reshape(steps, batch, 4, hidden)
    arrays = (act.reshape(by_step), gates_in.reshape(by_step), sig.reshape(by_step),
              gates[:, :, 0], gates[:, :, 1], gates[:, :, 3],
              act.reshape(steps, batch, 4, hidden)[:, :, 2], cells.reshape(by_step),
              tanh_cells.reshape(by_step), out.reshape(by_step))
    per_step = zip(*map(reversed, arrays)) if reverse else zip(*arrays)
    matmul, add, multiply, tanh = np.matmul, np.add, np.multiply, np.tanh
    h, c = h0, c0
    for a, g_in, s, s_i, s_f, s_o, g, c2, tc, h2 in per_step:
        matmul(h, w_t, a)
        add(a, g_in, a)
        tanh(a, a)
        multiply(a, half, s)
        add(s, half, s)
        multiply(s_f, c, c2)
        multiply(s_i, g, product)
        add(c2, product, c2)
        tanh(c2, tc)
        multiply(s_o, tc, h2)
        h, c = h2, c2
    result = (out.reshape(*lead, hidden), h.copy(), c.copy())
    if not keep:
        return result
    # each step's input state: the previous step's output and cell (the next one's, reversed)
    if reverse:
        h_prev = np.concatenate([out[batch:], h0])
        c_prev = np.concatenate([cells[batch:], c0])
    else:
        h_prev = np.concatenate([h0, out[:-batch]])
        c_prev = np.concatenate([c0, cells[:-batch]])
    scale = np.concatenate([act[:, two:three], c_prev, sig[:, :hidden], tanh_cells], axis=1)
    scale *= np.asarray(1.0, dtype) - act * act
    through_tanh = sig[:, three:] - out * tanh_cells
    forget = np.ascontiguousarray(sig[:, hidden:two])
    return (*result, h_prev, scale, through_tanh, forget, None)


def lstm_sequence_backward(xp: Any, g_out: Any, g_h: Any, g_c: Any, w: Any, w_hr: Any,
                           h_prev: Any, scale: Any, through_tanh: Any, forget: Any,
                           cell_out: Any, sizes: tuple[int, ...], reverse: bool,
                           need: tuple[bool, ...]) -> Any:
    """``lstm_sequence_grad_data``'s gradients of ``(gi, h0, c0, w_hh, b_hh, w_hr)`` (None
    where ``need`` says not wanted), or ``NotImplemented``; ``xp`` is the backend's namespace
    (the bias gradient is its ``sum``, as the portable formula's). Each step writes its gates'
    gradient into one buffer (the join of four pieces, ``out=``) instead of a fresh array
    copied into it."""
    if w_hr is not None or cell_out is not None or not _serves(
            (g_out, g_h, g_c, w, h_prev, scale, through_tanh, forget), g_h.shape[0], sizes):
        return NotImplemented
    dtype = g_out.dtype
    hidden = w.shape[0] // 4
    # sigmoid's quarter for i, f, o: in the hidden product's weight rows, and once at the end
    quarter = _gate_row(hidden, dtype, 0.25)
    w_q = w * quarter.reshape(4 * hidden, 1)
    g_rows = g_out.reshape(-1, hidden)
    batch = g_h.shape[0]
    steps = len(sizes)
    gates = np.empty((steps, batch, 4 * hidden), dtype)
    # views by iteration and ``out`` positional, as in the forward; the running gradients
    # live in buffers of their own (``g_h`` and ``g_c`` are read, never written)
    arrays = (g_rows.reshape(steps, batch, hidden), through_tanh.reshape(steps, batch, hidden),
              gates, scale.reshape(steps, batch, -1), forget.reshape(steps, batch, hidden))
    per_step = zip(*arrays) if reverse else zip(*map(reversed, arrays))
    d_h, d_c, d_prev, product = (np.empty((batch, hidden), dtype) for _ in range(4))
    matmul, add, multiply, concatenate = np.matmul, np.add, np.multiply, np.concatenate
    dh, dc = g_h, g_c
    for g_t, through_t, dz, scale_t, forget_t in per_step:
        add(g_t, dh, d_h)
        multiply(d_h, through_t, product)
        add(dc, product, d_c)
        concatenate((d_c, d_c, d_c, d_h), axis=1, out=dz)
        multiply(dz, scale_t, dz)
        matmul(dz, w_q, d_prev)
        multiply(d_c, forget_t, d_c)
        dh, dc = d_prev, d_c
    gates = gates.reshape(steps * batch, -1)
    gates *= quarter
    return (gates.reshape(*g_out.shape[:-1], 4 * hidden) if need[0] else None, dh, dc,
            np.matmul(gates.T, h_prev) if need[3] else None,
            xp.sum(gates, axis=0) if need[4] else None, None)
