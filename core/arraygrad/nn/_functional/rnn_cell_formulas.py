"""The recurrent cells' forward and backward formulas, written once for arrays and for Tensors.

Each formula takes a *kit* (``ARRAYS`` for native arrays, ``TENSORS`` for Tensors): the few
functions that are spelled differently on the two (activations, products, chunks, a sum over
the batch). The fused cell rules (``rnn_cells``) run them on arrays for the forward and the
first-order backward, and on Tensors for the recorded backward (``create_graph=True``,
``ARRAYGRAD_REFERENCE=1``) and for the composite step of dtypes the fused rules do not take.

Gate layouts are PyTorch's: LSTM (i, f, g, o); GRU (r, z, n) with ``b_hn`` inside the reset
product. ``gi`` is the input projection ``W_ih x + b_ih`` of the step, ``h``/``c`` the state.
"""

from __future__ import annotations

from typing import Any, NamedTuple


class Kit(NamedTuple):
    """The operations the formulas need, on one kind of operand."""

    linear: Any  # (x, w, b or None) -> x @ w.T + b
    matmul: Any  # (a, b) -> a @ b
    t: Any  # 2-D transpose
    t_dense: Any  # 2-D transpose laid out row-major (a weight a loop multiplies by many times)
    sigmoid: Any
    tanh: Any
    relu: Any
    relu_grad: Any  # (g, y) -> g where y > 0, else 0 (y a relu output)
    chunk: Any  # (x, n) -> n equal pieces along the last dim
    cat: Any  # list -> one array along the last dim
    cat0: Any  # list -> one array along dim 0 (the rows)
    reshape: Any  # (a, shape) -> a reshaped
    scalar: Any  # (number, like) -> the number as an operand of ``like``'s dtype
    full: Any  # (shape, number, like) -> a new array of ``like``'s dtype (and device)
    rows: Any  # (n, like) -> a collector of n packed rows like ``like``'s (``ListRows``...)
    gate_scale: Any  # (hidden, gates, factor, like) -> ``rnn_sequence_formulas.gate_scale``
    sum0: Any  # sum over the batch (dim 0)


class ListRows:
    """Packed rows gathered as pieces and joined once (``put(start, value)`` in any order,
    then ``result()``): any kind of operand."""

    __slots__ = ("cat0", "pieces")

    def __init__(self, cat0: Any) -> None:
        self.cat0 = cat0
        self.pieces: list[tuple[int, Any]] = []

    def put(self, start: int, value: Any) -> None:
        self.pieces.append((start, value))

    def result(self) -> Any:
        pieces = [v for _, v in sorted(self.pieces, key=lambda sv: sv[0])]
        return pieces[0] if len(pieces) == 1 else self.cat0(pieces)


class BufferRows:
    """Packed rows written into one array made up front: no piece outlives its step, so a
    step's temporaries reuse memory instead of each step touching fresh pages (which costs
    more than the copy), and no join at the end. For mutable native arrays only."""

    __slots__ = ("buffer",)

    def __init__(self, xp: Any, n: int, like: Any) -> None:
        self.buffer = xp.empty((n, like.shape[-1]), dtype=like.dtype)

    def put(self, start: int, value: Any) -> None:
        self.buffer[start:start + value.shape[0], ...] = value

    def result(self) -> Any:
        return self.buffer


def lstm_forward(k: Kit, gi: Any, h: Any, c: Any, w: Any, b: Any) -> tuple[Any, ...]:
    """``(h', c', i, f, g, o, tanh(c'))``: ``c' = f c + i g``, ``h' = o tanh(c')``, the gates
    activated (what the backward reads)."""
    i, f, g, o = k.chunk(gi + k.linear(h, w, b), 4)
    i, f, g, o = k.sigmoid(i), k.sigmoid(f), k.tanh(g), k.sigmoid(o)
    c2 = f * c + i * g
    tc = k.tanh(c2)
    return o * tc, c2, i, f, g, o, tc


def lstm_backward(k: Kit, gh: Any, gc: Any, c: Any, i: Any, f: Any, g: Any, o: Any, tc: Any
                  ) -> tuple[Any, Any]:
    """``(d gates, d c)`` from the gradients of ``h'`` and ``c'`` (d gates: the gradient of the
    pre-activation gates, which is also the input projection's)."""
    dc = gc + gh * o * (1 - tc * tc)
    d_gates = k.cat([dc * g * i * (1 - i), dc * c * f * (1 - f), dc * i * (1 - g * g),
                     gh * tc * o * (1 - o)])
    return d_gates, dc * f


def gru_forward(k: Kit, gi: Any, h: Any, w: Any, b: Any) -> tuple[Any, ...]:
    """``(h', r, z, n, W_hn h + b_hn)``: ``n = tanh(gi_n + r (W_hn h + b_hn))``,
    ``h' = n + z (h - n)`` (PyTorch's form of ``(1 - z) n + z h``)."""
    i_r, i_z, i_n = k.chunk(gi, 3)
    h_r, h_z, h_n = k.chunk(k.linear(h, w, b), 3)
    r = k.sigmoid(i_r + h_r)
    z = k.sigmoid(i_z + h_z)
    n = k.tanh(i_n + r * h_n)
    return n + z * (h - n), r, z, n, h_n


def gru_backward(k: Kit, gy: Any, h: Any, r: Any, z: Any, n: Any, h_n: Any
                 ) -> tuple[Any, Any, Any]:
    """``(d gi, d hidden gates, d h through the update gate)`` from the gradient of ``h'``;
    the hidden gates are ``W_hh h + b_hh``."""
    d_n = gy * (1 - z) * (1 - n * n)
    d_z = gy * (h - n) * z * (1 - z)
    d_r = d_n * h_n * r * (1 - r)
    return k.cat([d_r, d_z, d_n]), k.cat([d_r, d_z, d_n * r]), gy * z


def rnn_forward(k: Kit, gi: Any, h: Any, w: Any, b: Any, relu: bool) -> Any:
    """Elman step ``act(gi + W_hh h + b_hh)``."""
    pre = gi + k.linear(h, w, b)
    return k.relu(pre) if relu else k.tanh(pre)


def rnn_backward(k: Kit, gy: Any, y: Any, relu: bool) -> Any:
    """The gradient of the pre-activation from that of ``y``."""
    return k.relu_grad(gy, y) if relu else gy * (1 - y * y)


def hidden_grads(k: Kit, d_hidden_gates: Any, h: Any, w: Any, need: tuple[bool, ...]
                 ) -> tuple[Any, Any, Any]:
    """The gradients of ``h``, ``W_hh`` and ``b_hh`` through ``W_hh h + b_hh`` (None where
    ``need`` says not wanted)."""
    return (k.matmul(d_hidden_gates, w) if need[0] else None,
            k.matmul(k.t(d_hidden_gates), h) if need[1] else None,
            k.sum0(d_hidden_gates) if need[2] else None)
