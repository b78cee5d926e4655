"""Fused recurrent cell steps: one node per LSTM, GRU or Elman step.

``lstm_cell(gi, h, c, w_hh, b_hh)``, ``gru_cell(gi, h, w_hh, b_hh)`` and
``rnn_cell(gi, h, w_hh, b_hh, relu)`` take the step's input projection ``gi = W_ih x + b_ih``
(a layer computes it for all time steps with one ``linear``), the state and the
hidden-to-hidden parameters, and record ONE node each: the hidden product, the gates and the
state update run on arrays, and the first-order backward is the cell's backward on arrays
(``rnn_cell_formulas``). Under ``create_graph=True`` or ``ARRAYGRAD_REFERENCE=1`` the backward
recomputes the step from the saved inputs with Tensor ops and applies the same formulas to
Tensors, so double backward and forward mode (``VIA_VJP``) see a differentiable graph.

Dtypes the fused rules do not take (half precision, whose ``linear`` rounds once in float32)
and autocast run the same formulas on Tensors, op by op.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from arraygrad.amp import state as _amp
from arraygrad.nn._functional import rnn_cell_formulas as cf, rnn_sequence_formulas as sf
from arraygrad.nn._functional.linear import linear, linear_data
from arraygrad.ops import linalg
from arraygrad.ops.activation_backward import threshold_backward, threshold_grad_data
from arraygrad.ops.rule import VIA_VJP, defop
from arraygrad.creation import full
from arraygrad.ops.shape import cat
from arraygrad.tensor import Tensor
from arraygrad.transform_state import array_kernel, kernel_function

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend
    from arraygrad.ops.rule import RuleNode

__all__ = ["lstm_cell", "gru_cell", "rnn_cell"]

def _cat0(parts: list[Tensor]) -> Tensor:
    """Tensors joined along dim 0."""
    return cat(parts, 0)


TENSORS: cf.Kit = cf.Kit(
    linear=linear, matmul=linalg.matmul, t=lambda a: a.t(), t_dense=lambda a: a.t(),
    sigmoid=lambda a: a.sigmoid(), tanh=lambda a: a.tanh(), relu=lambda a: a.relu(),
    relu_grad=threshold_backward, chunk=lambda a, n: a.chunk(n, -1),
    cat=lambda parts: cat(parts, -1), cat0=_cat0, reshape=lambda a, shape: a.reshape(shape),
    scalar=lambda value, like: value,
    full=lambda shape, value, like: full(shape, value, dtype=like.dtype, device=like.device),
    gate_scale=lambda hidden, gates, factor, like: sf.gate_scale(TENSORS, hidden, gates, factor,
                                                                 like),
    rows=lambda n, like: cf.ListRows(_cat0),
    sum0=lambda a: a.sum(0))


@lru_cache(maxsize=None)
def array_kit(backend: Backend) -> cf.Kit:
    """The formulas' operations on ``backend``'s native arrays."""
    xp = backend.xp
    # the raw functions: these run inside the cell kernels, which a transform takes whole
    lin = kernel_function(linear_data)
    relu_grad = kernel_function(threshold_grad_data)

    native = backend.array_type if backend.mutable_arrays and not backend.lazy else None

    def rows(n: int, like: Any) -> Any:
        # a buffer for the library's own arrays; pieces for others (vmap's batched arrays)
        if native is not None and type(like) is native:
            return cf.BufferRows(xp, n, like)
        return cf.ListRows(cat0)

    def cat0(parts: list[Any]) -> Any:
        return xp.concat(parts, axis=0)

    @lru_cache(maxsize=64)
    def scales(hidden: int, gates: str, factor: float, dtype: Any) -> Any:
        # made once per shape and dtype: a short sequence (a sampling loop's one step) would
        # otherwise build it at every call
        return xp.concat([xp.full((1, hidden), factor if kind == "s" else 1.0, dtype=dtype)
                          for kind in gates], axis=-1)

    def chunk(a: Any, n: int) -> list[Any]:
        size = a.shape[-1] // n
        return [a[..., j * size:(j + 1) * size] for j in range(n)]

    return cf.Kit(
        linear=lambda x, w, b: lin(backend, x, w, b), matmul=xp.matmul, t=lambda a: a.T,
        # a copy: BLAS multiplies a few rows by a transposed view several times slower
        t_dense=lambda a: xp.reshape(a.T, (a.shape[1], a.shape[0]), copy=True),
        sigmoid=lambda a: 0.5 * xp.tanh(0.5 * a) + 0.5,  # as ``sigmoid``: no exp overflow
        tanh=xp.tanh, relu=lambda a: xp.maximum(a, xp.zeros((), dtype=a.dtype)),
        relu_grad=lambda g, y: relu_grad(backend, g, y), chunk=chunk,
        cat=lambda parts: xp.concat(parts, axis=-1), cat0=cat0, rows=rows,
        reshape=xp.reshape, sum0=lambda a: xp.sum(a, axis=0),
        # a 0-d array of the operand's dtype: NumPy converts a Python float at every operation
        scalar=lambda value, like: xp.asarray(value, dtype=like.dtype),
        full=lambda shape, value, like: xp.full(shape, value, dtype=like.dtype),
        gate_scale=lambda hidden, gates, factor, like: scales(hidden, gates, factor,
                                                              like.dtype))


def fusable_operands(*tensors: Tensor | None) -> bool:
    """Whether the fused rules take these operands: one backend, float32/float64 (or wider),
    no autocast."""
    first = tensors[0]
    assert first is not None
    backend = first._backend
    dtype = first._data.dtype
    return not _amp.on and dtype in backend.wide_floating_natives and all(
        t is None or (t._backend is backend and t._data.dtype == dtype) for t in tensors)


def _needs(n: RuleNode) -> tuple[bool, ...]:
    return tuple([e is not None for e in n._next])


# -- LSTM ------------------------------------------------------------------------------------

@array_kernel
def lstm_cell_data(backend: Backend, gi: Any, h: Any, c: Any, w: Any, b: Any) -> tuple[Any, ...]:
    """``lstm_forward`` on arrays."""
    return cf.lstm_forward(array_kit(backend), gi, h, c, w, b)


@array_kernel
def lstm_cell_grad_data(backend: Backend, gh: Any, gc: Any, h: Any, c: Any, w: Any, i: Any,
                        f: Any, g: Any, o: Any, tc: Any, need: tuple[bool, ...]
                        ) -> tuple[Any, ...]:
    """The gradients of ``(gi, h, c, w_hh, b_hh)`` on arrays (None where not needed)."""
    k = array_kit(backend)
    d_gates, d_c = cf.lstm_backward(k, gh, gc, c, i, f, g, o, tc)
    d_h, d_w, d_b = cf.hidden_grads(k, d_gates, h, w, (need[1], need[3], need[4]))
    return d_gates if need[0] else None, d_h, d_c if need[2] else None, d_w, d_b


def _lstm_first_order(gd: list[Any], n: RuleNode, backend: Backend) -> tuple[Any, ...]:
    s = n.saved_data
    return lstm_cell_grad_data(backend, gd[0], gd[1], s("hx"), s("cx"), s("weight_hh"),
                               s("gate_i"), s("gate_f"), s("gate_g"), s("gate_o"),
                               s("tanh_cy"), _needs(n))


def _lstm_vjp(g: list[Tensor], n: RuleNode) -> tuple[Any, ...]:
    """The recorded backward: the step again in Tensor ops, then the same formulas."""
    k = TENSORS
    h, w = n.hx, n.weight_hh
    _, _, i, f, gg, o, tc = cf.lstm_forward(k, n.input_gates, h, n.cx, w, n.bias_hh)
    need = _needs(n)
    d_gates, d_c = cf.lstm_backward(k, g[0], g[1], n.cx, i, f, gg, o, tc)
    d_h, d_w, d_b = cf.hidden_grads(k, d_gates, h, w, (need[1], need[3], need[4]))
    return d_gates, d_h, d_c, d_w, d_b


LSTM_CELL = defop("ThnnFusedLstmCellBackward0", jvp=VIA_VJP, outputs=2,
                  inputs=("input_gates", "hx", "cx", "weight_hh", "bias_hh"),
                  saves=("input_gates", "hx", "cx", "weight_hh", "bias_hh", "gate_i", "gate_f",
                         "gate_g", "gate_o", "tanh_cy"),
                  vjp=_lstm_vjp, first_order=_lstm_first_order)


def lstm_cell(gi: Tensor, h: Tensor, c: Tensor, w_hh: Tensor, b_hh: Tensor | None
              ) -> tuple[Tensor, Tensor]:
    """One LSTM step from its input projection ``gi``: ``(h', c')``, one node."""
    if not fusable_operands(gi, h, c, w_hh, b_hh):
        return cf.lstm_forward(TENSORS, gi, h, c, w_hh, b_hh)[:2]
    backend = gi._backend
    h2, c2, i, f, g, o, tc = lstm_cell_data(backend, gi._data, h._data, c._data, w_hh._data,
                                            None if b_hh is None else b_hh._data)
    out = LSTM_CELL.record_many((h2, c2), backend, (gi, h, c, w_hh, b_hh), gate_i=i,
                                gate_f=f, gate_g=g, gate_o=o, tanh_cy=tc)
    return out[0], out[1]


# -- GRU -------------------------------------------------------------------------------------

@array_kernel
def gru_cell_data(backend: Backend, gi: Any, h: Any, w: Any, b: Any) -> tuple[Any, ...]:
    """``gru_forward`` on arrays."""
    return cf.gru_forward(array_kit(backend), gi, h, w, b)


@array_kernel
def gru_cell_grad_data(backend: Backend, gy: Any, h: Any, w: Any, r: Any, z: Any, n: Any,
                       h_n: Any, need: tuple[bool, ...]) -> tuple[Any, ...]:
    """The gradients of ``(gi, h, w_hh, b_hh)`` on arrays (None where not needed)."""
    k = array_kit(backend)
    d_gi, d_hidden, d_direct = cf.gru_backward(k, gy, h, r, z, n, h_n)
    d_h, d_w, d_b = cf.hidden_grads(k, d_hidden, h, w, need[1:])
    return d_gi if need[0] else None, None if d_h is None else d_h + d_direct, d_w, d_b


def _gru_first_order(gd: Any, n: RuleNode, backend: Backend) -> tuple[Any, ...]:
    s = n.saved_data
    return gru_cell_grad_data(backend, gd, s("hx"), s("weight_hh"), s("gate_r"), s("gate_z"),
                              s("gate_n"), s("hidden_n"), _needs(n))


def _gru_vjp(g: Tensor, n: RuleNode) -> tuple[Any, ...]:
    """The recorded backward: the step again in Tensor ops, then the same formulas."""
    k = TENSORS
    h, w = n.hx, n.weight_hh
    _, r, z, nn_, h_n = cf.gru_forward(k, n.input_gates, h, w, n.bias_hh)
    d_gi, d_hidden, d_direct = cf.gru_backward(k, g, h, r, z, nn_, h_n)
    d_h, d_w, d_b = cf.hidden_grads(k, d_hidden, h, w, _needs(n)[1:])
    return d_gi, None if d_h is None else d_h + d_direct, d_w, d_b


GRU_CELL = defop("ThnnFusedGruCellBackward0", jvp=VIA_VJP,
                 inputs=("input_gates", "hx", "weight_hh", "bias_hh"),
                 saves=("input_gates", "hx", "weight_hh", "bias_hh", "gate_r", "gate_z",
                        "gate_n", "hidden_n"),
                 vjp=_gru_vjp, first_order=_gru_first_order)


def gru_cell(gi: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor | None) -> Tensor:
    """One GRU step from its input projection ``gi``: ``h'``, one node."""
    if not fusable_operands(gi, h, w_hh, b_hh):
        return cf.gru_forward(TENSORS, gi, h, w_hh, b_hh)[0]
    backend = gi._backend
    y, r, z, n, h_n = gru_cell_data(backend, gi._data, h._data, w_hh._data,
                                    None if b_hh is None else b_hh._data)
    return GRU_CELL.record(y, backend, (gi, h, w_hh, b_hh), gate_r=r, gate_z=z, gate_n=n,
                           hidden_n=h_n)


# -- Elman -----------------------------------------------------------------------------------

@array_kernel
def rnn_cell_data(backend: Backend, gi: Any, h: Any, w: Any, b: Any, relu: bool) -> Any:
    """``rnn_forward`` on arrays."""
    return cf.rnn_forward(array_kit(backend), gi, h, w, b, relu)


@array_kernel
def rnn_cell_grad_data(backend: Backend, gy: Any, y: Any, h: Any, w: Any, relu: bool,
                       need: tuple[bool, ...]) -> tuple[Any, ...]:
    """The gradients of ``(gi, h, w_hh, b_hh)`` on arrays (None where not needed)."""
    k = array_kit(backend)
    d_pre = cf.rnn_backward(k, gy, y, relu)
    return (d_pre if need[0] else None, *cf.hidden_grads(k, d_pre, h, w, need[1:]))


def _rnn_first_order(gd: Any, n: RuleNode, backend: Backend) -> tuple[Any, ...]:
    s = n.saved_data
    return rnn_cell_grad_data(backend, gd, s("result"), s("hx"), s("weight_hh"), n.relu,
                              _needs(n))


def _rnn_vjp(g: Tensor, n: RuleNode) -> tuple[Any, ...]:
    """The recorded backward: the step again in Tensor ops, then the same formulas."""
    k = TENSORS
    h, w = n.hx, n.weight_hh
    y = cf.rnn_forward(k, n.input_gates, h, w, n.bias_hh, n.relu)
    d_pre = cf.rnn_backward(k, g, y, n.relu)
    return (d_pre, *cf.hidden_grads(k, d_pre, h, w, _needs(n)[1:]))


RNN_CELL = defop("RnnCellBackward0", jvp=VIA_VJP, params=("relu",),
                 inputs=("input_gates", "hx", "weight_hh", "bias_hh"),
                 saves=("input_gates", "hx", "weight_hh", "bias_hh", "result"),
                 vjp=_rnn_vjp, first_order=_rnn_first_order)


def rnn_cell(gi: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor | None, relu: bool) -> Tensor:
    """One Elman step from its input projection ``gi``: ``act(gi + W_hh h + b_hh)``, one
    node."""
    if not fusable_operands(gi, h, w_hh, b_hh):
        return cf.rnn_forward(TENSORS, gi, h, w_hh, b_hh, relu)
    backend = gi._backend
    y = rnn_cell_data(backend, gi._data, h._data, w_hh._data,
                      None if b_hh is None else b_hh._data, relu)
    return RNN_CELL.record(y, backend, (gi, h, w_hh, b_hh), relu=relu)
