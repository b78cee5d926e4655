"""Top-level recurrences (``torch.lstm``, ``torch.gru``, ``torch.rnn_tanh``,
``torch.rnn_relu`` and their ``*_cell`` forms): PyTorch's flat-weight ATen forms over the
recurrence ``nn.RNN``/``LSTM``/``GRU`` run (``nn.modules._recurrence``).

Each multi-layer form has two overloads, as PyTorch's: ``(input, hx, params, has_biases,
num_layers, dropout, train, bidirectional, batch_first)`` and, for a packed sequence,
``(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional)``.
``params`` lists each layer and direction's ``w_ih, w_hh[, b_ih, b_hh][, w_hr]``.
"""

from __future__ import annotations

import inspect
from typing import Any, Sequence

from arraygrad.nn.modules import _recurrence as R
from arraygrad.nn._functional.linear import linear
from arraygrad.tensor import Tensor

__all__ = ["lstm", "gru", "rnn_tanh", "rnn_relu", "lstm_cell", "gru_cell", "rnn_tanh_cell",
           "rnn_relu_cell"]


def _input_form(input: Any, hx: Any, params: Any, has_biases: Any, num_layers: Any,
                dropout: Any, train: Any, bidirectional: Any, batch_first: Any) -> None:
    """The dense overload's parameters (for binding)."""


def _data_form(data: Any, batch_sizes: Any, hx: Any, params: Any, has_biases: Any,
               num_layers: Any, dropout: Any, train: Any, bidirectional: Any) -> None:
    """The packed overload's parameters (for binding)."""


_INPUT, _DATA = inspect.signature(_input_form), inspect.signature(_data_form)


def _bind(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    """The arguments by name, of whichever overload they fit: the packed one names ``data``
    or ``batch_sizes``, or has the ``params`` list fourth (where the dense one has
    ``has_biases``)."""
    packed = ("data" in kwargs or "batch_sizes" in kwargs
              or (len(args) > 3 and isinstance(args[3], (list, tuple))))
    for form in ((_DATA,) if packed else (_INPUT, _DATA)):
        try:
            return dict(form.bind(*args, **kwargs).arguments)
        except TypeError:
            continue
    raise TypeError(f"{name}() received an invalid combination of arguments. Expected (input, "
                    "hx, params, has_biases, num_layers, dropout, train, bidirectional, "
                    "batch_first) or (data, batch_sizes, hx, params, has_biases, num_layers, "
                    "dropout, train, bidirectional)")


def _layer_weights(params: Sequence[Tensor], has_biases: bool, num_layers: int,
                   directions: int, name: str) -> list[list[Tensor | None]]:
    """``params`` grouped per layer and direction as ``[w_ih, w_hh, b_ih, b_hh, w_hr]``."""
    groups = num_layers * directions
    per = len(params) // groups if groups else 0
    base = 4 if has_biases else 2
    if per * groups != len(params) or per not in (base, base + 1):
        raise RuntimeError(f"{name}: got {len(params)} params for {num_layers} layer(s) and "
                           f"{directions} direction(s) with has_biases={has_biases}")
    out = []
    for g in range(groups):
        w = list(params[g * per:(g + 1) * per])
        biases = (w[2], w[3]) if has_biases else (None, None)
        out.append([w[0], w[1], *biases, w[base] if per == base + 1 else None])
    return out


def _run(mode: str, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
    a = _bind(name, args, kwargs)
    states = tuple(a["hx"]) if mode == "LSTM" else (a["hx"],)
    directions = 2 if a["bidirectional"] else 1
    weights = _layer_weights(a["params"], a["has_biases"], a["num_layers"], directions, name)
    if "data" in a:  # packed: (data, batch_sizes)
        sizes = [int(b) for b in a["batch_sizes"].tolist()]
        out, finals = R.run_layers(mode, a["data"], sizes, states, weights, a["num_layers"],
                                   bool(a["bidirectional"]), float(a["dropout"]),
                                   bool(a["train"]))
        return (out, *finals)
    x = a["input"].transpose(0, 1) if a["batch_first"] else a["input"]
    out, finals = R.run_layers(mode, x, None, states, weights, a["num_layers"],
                               bool(a["bidirectional"]), float(a["dropout"]), bool(a["train"]))
    if a["batch_first"]:
        out = out.transpose(0, 1)
    return (out, *finals)


def lstm(*args: Any, **kwargs: Any) -> tuple[Tensor, Tensor, Tensor]:
    """``(output, h_n, c_n)`` of a stacked LSTM with flat weights; ``hx`` is ``[h_0, c_0]``
    (see the module docstring for the two overloads)."""
    out, h, c = _run("LSTM", "lstm", args, kwargs)
    return out, h, c


def gru(*args: Any, **kwargs: Any) -> tuple[Tensor, Tensor]:
    """``(output, h_n)`` of a stacked GRU with flat weights."""
    out, h = _run("GRU", "gru", args, kwargs)
    return out, h


def rnn_tanh(*args: Any, **kwargs: Any) -> tuple[Tensor, Tensor]:
    """``(output, h_n)`` of a stacked Elman RNN with tanh, flat weights."""
    out, h = _run("RNN_TANH", "rnn_tanh", args, kwargs)
    return out, h


def rnn_relu(*args: Any, **kwargs: Any) -> tuple[Tensor, Tensor]:
    """``(output, h_n)`` of a stacked Elman RNN with ReLU, flat weights."""
    out, h = _run("RNN_RELU", "rnn_relu", args, kwargs)
    return out, h


def lstm_cell(input: Tensor, hx: Sequence[Tensor], w_ih: Tensor, w_hh: Tensor,
              b_ih: Tensor | None = None, b_hh: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """One LSTM step: ``(h', c')`` from ``hx = [h, c]``."""
    h, c = hx
    return R.lstm_step(linear(input, w_ih, b_ih), h, c, w_hh, b_hh, None)


def gru_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
             b_hh: Tensor | None = None) -> Tensor:
    """One GRU step."""
    return R.gru_step(linear(input, w_ih, b_ih), hx, w_hh, b_hh)


def rnn_tanh_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor,
                  b_ih: Tensor | None = None, b_hh: Tensor | None = None) -> Tensor:
    """One Elman step with tanh."""
    return R.rnn_step(linear(input, w_ih, b_ih), hx, w_hh, b_hh, relu=False)


def rnn_relu_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor,
                  b_ih: Tensor | None = None, b_hh: Tensor | None = None) -> Tensor:
    """One Elman step with ReLU."""
    return R.rnn_step(linear(input, w_ih, b_ih), hx, w_hh, b_hh, relu=True)
