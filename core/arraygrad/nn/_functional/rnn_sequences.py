"""Fused recurrent layers: ONE node per layer and direction for the whole sequence.

``lstm_sequence``, ``gru_sequence`` and ``rnn_sequence`` take the input projection of every
time step in packed rows (``gi``, (N, G*H): ``W_ih x + b_ih``, one ``linear`` for all steps),
the initial state and the hidden-to-hidden parameters, and record one node: the forward walks
the steps on arrays and keeps what the backward reads in packed rows; the first-order backward
walks them in reverse on arrays and forms each weight's gradient with one product over all
steps (``rnn_sequence_formulas``), so the engine runs one node, not one per step, and adds no
weight gradient per step. Under ``create_graph=True`` the backward recomputes the sequence
from the saved inputs with Tensor ops and applies the same formulas to Tensors, so double
backward and forward mode (``VIA_VJP``) see a differentiable graph.

The layers (``nn.modules._recurrence``) call these when ``fusable`` says so; otherwise (fast
paths off: ``ARRAYGRAD_REFERENCE=1`` or a dual level open; half precision; autocast) they run
the per-step cells of ``rnn_cells``, the reference the sequences are tested against.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, Sequence

from arraygrad.autograd.grad_mode import _state as _grad
from arraygrad.nn._functional import rnn_sequence_formulas as sf
from arraygrad.nn._functional.rnn_cells import TENSORS, array_kit, fusable_operands
from arraygrad.ops.backend_kernels import dispatch_kernel
from arraygrad.ops.rule import VIA_VJP, defop, fast_paths
from arraygrad.tensor import Tensor
from arraygrad.transform_state import array_kernel

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend
    from arraygrad.ops.rule import RuleNode

__all__ = ["fusable", "lstm_sequence", "gru_sequence", "rnn_sequence"]


def fusable(*tensors: Tensor | None) -> bool:
    """Whether a layer runs as sequence nodes: fast paths on and operands the fused rules take
    (one backend, float32/float64, no autocast)."""
    return fast_paths.on and fusable_operands(*tensors)


def _keeps(tensors: Sequence[Tensor | None]) -> bool:
    """Whether a node will be recorded (so the forward keeps what the backward reads)."""
    return _grad.enabled and any(t is not None and t._requires_grad for t in tensors)


def _needs(n: RuleNode) -> tuple[bool, ...]:
    return tuple([e is not None for e in n._next])


def _plan(n: RuleNode) -> sf.Plan:
    return sf.Plan.of(n.batch_sizes, n.reverse)


def _data(t: Tensor | None) -> Any:
    return None if t is None else t._data


# -- LSTM ------------------------------------------------------------------------------------

_LSTM_KEPT = ("h_prev", "gates_scale", "cell_scale", "gate_f", "cell_out")


@array_kernel
def lstm_sequence_data(backend: Backend, gi: Any, h0: Any, c0: Any, w: Any, b: Any, w_hr: Any,
                       sizes: tuple[int, ...], reverse: bool, keep: bool) -> tuple[Any, ...]:
    """``(output rows, h_n, c_n, *kept)`` on arrays (kept empty unless ``keep``): the
    backend's ``"lstm_sequence_forward"`` kernel while fast paths are on, when it has one
    that serves the call, else the portable formula (its reference twin)."""
    return dispatch_kernel("lstm_sequence_forward", backend,
                           functools.partial(_lstm_forward_portable, backend),
                           gi, h0, c0, w, b, w_hr, sizes, reverse, keep)


def _lstm_forward_portable(backend: Backend, gi: Any, h0: Any, c0: Any, w: Any, b: Any,
                           w_hr: Any, sizes: tuple[int, ...], reverse: bool, keep: bool
                           ) -> tuple[Any, ...]:
    out, h_n, c_n, kept = sf.lstm_forward(array_kit(backend), sf.Plan.of(sizes, reverse), gi,
                                          h0, c0, w, b, w_hr, keep)
    return (out, h_n, c_n, *kept)


@array_kernel
def lstm_sequence_grad_data(backend: Backend, g_out: Any, g_h: Any, g_c: Any, w: Any,
                            w_hr: Any, h_prev: Any, gates_scale: Any, cell_scale: Any,
                            gate_f: Any, cell_out: Any, sizes: tuple[int, ...], reverse: bool,
                            need: tuple[bool, ...]) -> tuple[Any, ...]:
    """The gradients of ``(gi, h0, c0, w_hh, b_hh, w_hr)`` on arrays (None where not needed):
    the backend's ``"lstm_sequence_backward"`` kernel while fast paths are on, when it has
    one that serves the call, else the portable formula."""
    return dispatch_kernel("lstm_sequence_backward", backend,
                           functools.partial(_lstm_backward_portable, backend), g_out, g_h, g_c,
                           w, w_hr, h_prev, gates_scale, cell_scale, gate_f, cell_out, sizes,
                           reverse, need)


def _lstm_backward_portable(backend: Backend, g_out: Any, g_h: Any, g_c: Any, w: Any,
                            w_hr: Any, h_prev: Any, gates_scale: Any, cell_scale: Any,
                            gate_f: Any, cell_out: Any, sizes: tuple[int, ...], reverse: bool,
                            need: tuple[bool, ...]) -> tuple[Any, ...]:
    return sf.lstm_backward(array_kit(backend), sf.Plan.of(sizes, reverse), g_out, g_h, g_c, w,
                            w_hr, (h_prev, gates_scale, cell_scale, gate_f, cell_out), need)


def _lstm_first_order(gd: list[Any], n: RuleNode, backend: Backend) -> tuple[Any, ...]:
    s = n.saved_data
    return lstm_sequence_grad_data(backend, gd[0], gd[1], gd[2], s("weight_hh"),
                                   s("weight_hr"), *(s(name) for name in _LSTM_KEPT),
                                   n.batch_sizes, n.reverse, _needs(n))


def _lstm_vjp(g: list[Tensor], n: RuleNode) -> tuple[Any, ...]:
    """The recorded backward: the sequence again in Tensor ops, then the same formulas."""
    p = _plan(n)
    w, w_hr = n.weight_hh, n.weight_hr
    *_, kept = sf.lstm_forward(TENSORS, p, n.input_gates, n.hx, n.cx, w, n.bias_hh, w_hr, True)
    return sf.lstm_backward(TENSORS, p, g[0], g[1], g[2], w, w_hr, kept, _needs(n))


LSTM_SEQUENCE = defop(
    "LstmSequenceBackward0", jvp=VIA_VJP, outputs=3, params=("batch_sizes", "reverse"),
    inputs=("input_gates", "hx", "cx", "weight_hh", "bias_hh", "weight_hr"),
    saves=("input_gates", "hx", "cx", "weight_hh", "bias_hh", "weight_hr", *_LSTM_KEPT),
    vjp=_lstm_vjp, first_order=_lstm_first_order)


def lstm_sequence(gi: Tensor, h0: Tensor, c0: Tensor, w_hh: Tensor, b_hh: Tensor | None,
                  w_hr: Tensor | None, sizes: Sequence[int], reverse: bool
                  ) -> tuple[Tensor, Tensor, Tensor]:
    """One LSTM layer and direction over every step: ``(output rows, h_n, c_n)``, one node.
    ``gi`` (N, 4H) in packed rows, ``sizes[t]`` rows for step ``t``."""
    inputs = (gi, h0, c0, w_hh, b_hh, w_hr)
    keep = _keeps(inputs)
    sizes = tuple(sizes)
    out, h_n, c_n, *kept = lstm_sequence_data(gi._backend, gi._data, h0._data, c0._data,
                                              w_hh._data, _data(b_hh), _data(w_hr), sizes,
                                              reverse, keep)
    out, h_n, c_n = LSTM_SEQUENCE.record_many(
        (out, h_n, c_n), gi._backend, inputs, batch_sizes=sizes, reverse=reverse,
        **dict(zip(_LSTM_KEPT, kept)))
    return out, h_n, c_n


# -- GRU -------------------------------------------------------------------------------------

_GRU_KEPT = ("h_prev", "gates", "gate_n", "hidden_n")


@array_kernel
def gru_sequence_data(backend: Backend, gi: Any, h0: Any, w: Any, b: Any,
                      sizes: tuple[int, ...], reverse: bool, keep: bool) -> tuple[Any, ...]:
    """``(output rows, h_n, *kept)`` on arrays."""
    out, h_n, kept = sf.gru_forward(array_kit(backend), sf.Plan.of(sizes, reverse), gi, h0, w,
                                    b, keep)
    return (out, h_n, *kept)


@array_kernel
def gru_sequence_grad_data(backend: Backend, g_out: Any, g_h: Any, w: Any, h_prev: Any,
                           gates: Any, gate_n: Any, hidden_n: Any, sizes: tuple[int, ...],
                           reverse: bool, need: tuple[bool, ...]) -> tuple[Any, ...]:
    """The gradients of ``(gi, h0, w_hh, b_hh)`` on arrays (None where not needed)."""
    return sf.gru_backward(array_kit(backend), sf.Plan.of(sizes, reverse), g_out, g_h, w,
                           (h_prev, gates, gate_n, hidden_n), need)


def _gru_first_order(gd: list[Any], n: RuleNode, backend: Backend) -> tuple[Any, ...]:
    s = n.saved_data
    return gru_sequence_grad_data(backend, gd[0], gd[1], s("weight_hh"),
                                  *(s(name) for name in _GRU_KEPT), n.batch_sizes, n.reverse,
                                  _needs(n))


def _gru_vjp(g: list[Tensor], n: RuleNode) -> tuple[Any, ...]:
    """The recorded backward: the sequence again in Tensor ops, then the same formulas."""
    p = _plan(n)
    w = n.weight_hh
    *_, kept = sf.gru_forward(TENSORS, p, n.input_gates, n.hx, w, n.bias_hh, True)
    return sf.gru_backward(TENSORS, p, g[0], g[1], w, kept, _needs(n))


GRU_SEQUENCE = defop(
    "GruSequenceBackward0", jvp=VIA_VJP, outputs=2, params=("batch_sizes", "reverse"),
    inputs=("input_gates", "hx", "weight_hh", "bias_hh"),
    saves=("input_gates", "hx", "weight_hh", "bias_hh", *_GRU_KEPT),
    vjp=_gru_vjp, first_order=_gru_first_order)


def gru_sequence(gi: Tensor, h0: Tensor, w_hh: Tensor, b_hh: Tensor | None,
                 sizes: Sequence[int], reverse: bool) -> tuple[Tensor, Tensor]:
    """One GRU layer and direction over every step: ``(output rows, h_n)``, one node."""
    inputs = (gi, h0, w_hh, b_hh)
    sizes = tuple(sizes)
    out, h_n, *kept = gru_sequence_data(gi._backend, gi._data, h0._data, w_hh._data,
                                        _data(b_hh), sizes, reverse, _keeps(inputs))
    out, h_n = GRU_SEQUENCE.record_many((out, h_n), gi._backend, inputs, batch_sizes=sizes,
                                        reverse=reverse, **dict(zip(_GRU_KEPT, kept)))
    return out, h_n


# -- Elman -----------------------------------------------------------------------------------

@array_kernel
def rnn_sequence_data(backend: Backend, gi: Any, h0: Any, w: Any, b: Any,
                      sizes: tuple[int, ...], reverse: bool, relu: bool,
                      keep: bool) -> tuple[Any, ...]:
    """``(output rows, h_n, *kept)`` on arrays."""
    out, h_n, kept = sf.rnn_forward(array_kit(backend), sf.Plan.of(sizes, reverse), gi, h0, w,
                                    b, relu, keep)
    return (out, h_n, *kept)


@array_kernel
def rnn_sequence_grad_data(backend: Backend, g_out: Any, g_h: Any, w: Any, out: Any,
                           h_prev: Any, sizes: tuple[int, ...], reverse: bool, relu: bool,
                           need: tuple[bool, ...]) -> tuple[Any, ...]:
    """The gradients of ``(gi, h0, w_hh, b_hh)`` on arrays (None where not needed)."""
    return sf.rnn_backward(array_kit(backend), sf.Plan.of(sizes, reverse), g_out, g_h, w, out,
                           (h_prev,), relu, need)


def _rnn_first_order(gd: list[Any], n: RuleNode, backend: Backend) -> tuple[Any, ...]:
    s = n.saved_data
    return rnn_sequence_grad_data(backend, gd[0], gd[1], s("weight_hh"), s("output"),
                                  s("h_prev"), n.batch_sizes, n.reverse, n.relu, _needs(n))


def _rnn_vjp(g: list[Tensor], n: RuleNode) -> tuple[Any, ...]:
    """The recorded backward: the sequence again in Tensor ops, then the same formulas."""
    p = _plan(n)
    w = n.weight_hh
    out, _, kept = sf.rnn_forward(TENSORS, p, n.input_gates, n.hx, w, n.bias_hh, n.relu, True)
    return sf.rnn_backward(TENSORS, p, g[0], g[1], w, out, kept, n.relu, _needs(n))


RNN_SEQUENCE = defop(
    "RnnSequenceBackward0", jvp=VIA_VJP, outputs=2,
    params=("batch_sizes", "reverse", "relu"),
    inputs=("input_gates", "hx", "weight_hh", "bias_hh"),
    saves=("input_gates", "hx", "weight_hh", "bias_hh", "output", "h_prev"),
    vjp=_rnn_vjp, first_order=_rnn_first_order)


def rnn_sequence(gi: Tensor, h0: Tensor, w_hh: Tensor, b_hh: Tensor | None,
                 sizes: Sequence[int], reverse: bool, relu: bool) -> tuple[Tensor, Tensor]:
    """One Elman layer and direction over every step: ``(output rows, h_n)``, one node."""
    inputs = (gi, h0, w_hh, b_hh)
    sizes = tuple(sizes)
    keep = _keeps(inputs)
    out, h_n, *kept = rnn_sequence_data(gi._backend, gi._data, h0._data, w_hh._data,
                                        _data(b_hh), sizes, reverse, relu, keep)
    named = {"output": out, "h_prev": kept[0]} if keep else {"output": None, "h_prev": None}
    out, h_n = RNN_SEQUENCE.record_many((out, h_n), gi._backend, inputs, batch_sizes=sizes,
                                        reverse=reverse, relu=relu, **named)
    return out, h_n
