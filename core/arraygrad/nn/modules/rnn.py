"""Recurrent layers: ``RNN``, ``LSTM``, ``GRU`` and the cells ``RNNCell``, ``LSTMCell``,
``GRUCell``, with PyTorch's parameters, initialisation, inputs, outputs and errors.

Parameters are named as PyTorch names them (``weight_ih_l0``, ``bias_hh_l1_reverse``,
``weight_hr_l0``, ...), so a PyTorch ``state_dict`` loads as it is. The recurrences are built from
differentiable ops (``arraygrad.nn.modules._recurrence``).

>>> lstm = nn.LSTM(10, 20, num_layers=2)
>>> output, (h_n, c_n) = lstm(arraygrad.randn(5, 3, 10))
>>> output.shape, h_n.shape
(arraygrad.Size([5, 3, 20]), arraygrad.Size([2, 3, 20]))
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import TYPE_CHECKING, Any

from arraygrad.creation import empty, zeros
from arraygrad.nn import init
from arraygrad.nn.modules import _recurrence
from arraygrad.nn.modules.module import Module
from arraygrad.nn.parameter import Parameter
from arraygrad.nn.utils.rnn import PackedSequence
from arraygrad.tensor import Tensor

if TYPE_CHECKING:
    from arraygrad.device import DeviceLike
    from arraygrad.dtypes import dtype as _dtype

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _check_options(input_size: Any, hidden_size: Any, num_layers: int, bias: Any,
                   batch_first: Any, dropout: Any, proj_size: int) -> None:
    """PyTorch's constructor checks of ``RNNBase``, in its order."""
    if (not isinstance(dropout, numbers.Number) or isinstance(dropout, bool)
            or not 0 <= dropout <= 1):  # type: ignore[operator]
        raise ValueError("dropout should be a number in range [0, 1] representing the "
                         "probability of an element being zeroed")
    if dropout > 0 and num_layers == 1:  # type: ignore[operator]
        warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                      "non-zero dropout expects num_layers greater than 1, but got "
                      f"dropout={dropout} and num_layers={num_layers}", stacklevel=4)
    for name, value, kind in (("bias", bias, bool), ("batch_first", batch_first, bool),
                              ("input_size", input_size, int)):
        if not isinstance(value, kind):
            raise TypeError(f"{name} should be of type {kind.__name__}, got: "
                            f"{type(value).__name__}")
    if input_size <= 0:
        raise ValueError("input_size must be greater than zero")
    if not isinstance(hidden_size, int):
        raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
    if hidden_size <= 0:
        raise ValueError("hidden_size must be greater than zero")
    if num_layers <= 0:
        raise ValueError("num_layers must be greater than zero")
    if proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable projections")
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")


class RNNBase(Module):
    """The multi-layer recurrent network shared by :class:`RNN`, :class:`LSTM` and :class:`GRU`.

    ``mode`` is ``'RNN_TANH'``, ``'RNN_RELU'``, ``'LSTM'`` or ``'GRU'``. For every layer ``k``
    (and, bidirectional, its ``_reverse`` twin) it holds ``weight_ih_lk`` (G*H, in),
    ``weight_hh_lk`` (G*H, H_out), with ``bias`` ``bias_ih_lk`` and ``bias_hh_lk`` (G*H), and with
    ``proj_size`` ``weight_hr_lk`` (proj_size, H), G being the number of gates; all drawn from
    U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)).
    """

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0,
                 device: DeviceLike | None = None, dtype: _dtype | None = None) -> None:
        super().__init__()
        _check_options(input_size, hidden_size, num_layers, bias, batch_first, dropout,
                       proj_size)
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        directions = 2 if bidirectional else 1
        gate_size = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names: list[str] = []
        self._all_weights: list[list[str]] = []
        for layer in range(num_layers):
            layer_input = input_size if layer == 0 else real_hidden * directions
            for direction in range(directions):
                suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
                shapes: dict[str, tuple[int, ...]] = {
                    "weight_ih": (gate_size, layer_input), "weight_hh": (gate_size, real_hidden)}
                if bias:
                    shapes.update(bias_ih=(gate_size,), bias_hh=(gate_size,))
                if proj_size > 0:
                    shapes["weight_hr"] = (proj_size, hidden_size)
                names = [kind + suffix for kind in shapes]
                for name, shape in zip(names, shapes.values()):
                    setattr(self, name, Parameter(empty(*shape, dtype=dtype, device=device)))
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self) -> list[Tensor | None]:
        """The parameters in PyTorch's flat order (read live, so ``.to()`` or replacing a
        parameter needs no refresh)."""
        return [getattr(self, name, None) for name in self._flat_weights_names]

    @property
    def all_weights(self) -> list[list[Parameter]]:
        """The parameters grouped per layer and direction, as PyTorch lists them."""
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self) -> None:
        """A no-op: there is no cuDNN weight buffer to compact (kept for PyTorch code)."""

    def reset_parameters(self) -> None:
        """Draw every parameter from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    # -- checks (PyTorch's method names and messages) --------------------------------------
    def check_input(self, input: Tensor, batch_sizes: Tensor | None) -> None:
        """ValueError for a dtype other than the weights'; RuntimeError for a wrong rank or
        feature size."""
        weight_dtype = self._flat_weights[0].dtype  # type: ignore[union-attr]
        if input.dtype != weight_dtype:
            raise ValueError(
                f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight_dtype}). "
                f"Convert input: input.to({weight_dtype}), or convert model: "
                f"model.to({input.dtype})")
        expected_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_dim:
            raise RuntimeError(f"input must have {expected_dim} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.size(-1)}")

    def get_expected_hidden_size(self, input: Tensor, batch_sizes: Tensor | None
                                 ) -> tuple[int, int, int]:
        """(num_layers * directions, batch, proj_size or hidden_size)."""
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0].item())
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        directions = 2 if self.bidirectional else 1
        return (self.num_layers * directions, mini_batch,
                self.proj_size if self.proj_size > 0 else self.hidden_size)

    def check_hidden_size(self, hx: Tensor, expected_hidden_size: tuple[int, int, int],
                          msg: str = "Expected hidden size {}, got {}") -> None:
        """RuntimeError naming both shapes when ``hx`` is not ``expected_hidden_size``."""
        if tuple(hx.size()) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input: Tensor, hidden: Any,
                           batch_sizes: Tensor | None) -> None:
        """Check the input and the initial hidden state."""
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx: Any, permutation: Tensor | None) -> Any:
        """``hx`` with its batch (dim 1) reordered by ``permutation`` (None: unchanged)."""
        if permutation is None:
            return hx
        return hx.index_select(1, permutation)

    def _zeros(self, input: Tensor, batch: int, size: int) -> Tensor:
        directions = 2 if self.bidirectional else 1
        return zeros(self.num_layers * directions, batch, size, dtype=input.dtype,
                     device=input.device)

    def _weights(self) -> list[list[Tensor | None]]:
        """Per layer and direction ``[w_ih, w_hh, b_ih, b_hh, w_hr]``, absent ones None."""
        out = []
        for names in self._all_weights:
            found = {name.split("_l")[0]: getattr(self, name) for name in names}
            out.append([found.get(k) for k in
                        ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr")])
        return out

    def _run(self, input: Tensor, batch_sizes: Tensor | None, hx: tuple[Tensor, ...]
             ) -> tuple[Tensor, tuple[Tensor, ...]]:
        """The recurrence on a checked (T, B, I)/(B, T, I) or packed (N, I) input."""
        sizes = None if batch_sizes is None else [int(b) for b in batch_sizes.tolist()]
        if sizes is None:
            if input.size(0 if not self.batch_first else 1) == 0:
                raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
            if self.batch_first:
                input = input.transpose(0, 1)
        output, finals = _recurrence.run_layers(
            self.mode, input, sizes, hx, self._weights(), self.num_layers, self.bidirectional,
            self.dropout, self.training)
        if sizes is None and self.batch_first:
            output = output.transpose(0, 1)
        return output, finals

    def _prepare(self, input: Any, hx: Any, name: str, tensor_word: str
                 ) -> tuple[Tensor, Tensor | None, Any, PackedSequence | None, bool]:
        """Unpack or unsqueeze the input and check the state's rank (RNN and GRU):
        ``(input, batch_sizes, hx, packed input or None, batched)``."""
        if isinstance(input, PackedSequence):
            return input.data, input.batch_sizes, hx, input, True
        if input.dim() not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D"
                             f"{tensor_word} instead")
        batched = input.dim() == 3
        if not batched:
            if hx is not None and hx.dim() != 2:
                raise RuntimeError("For unbatched 2-D input, hx should also be 2-D but got "
                                   f"{hx.dim()}-D tensor")
            input = input.unsqueeze(0 if self.batch_first else 1)
            hx = None if hx is None else hx.unsqueeze(1)
        elif hx is not None and hx.dim() != 3:
            raise RuntimeError("For batched 3-D input, hx should also be 3-D but got "
                               f"{hx.dim()}-D tensor")
        return input, None, hx, None, batched

    def _finish(self, output: Tensor, hidden: Any, packed: PackedSequence | None,
                batched: bool) -> tuple[Any, Any]:
        """Re-pack the output or squeeze an unbatched one; the state back in input order."""
        if packed is not None:
            return (PackedSequence(output, packed.batch_sizes, packed.sorted_indices,
                                   packed.unsorted_indices),
                    self.permute_hidden(hidden, packed.unsorted_indices))
        if not batched:
            output = output.squeeze(0 if self.batch_first else 1)
            hidden = (tuple(h.squeeze(1) for h in hidden) if isinstance(hidden, tuple)
                      else hidden.squeeze(1))
        return output, hidden

    def _forward_single_state(self, input: Any, hx: Tensor | None, name: str,
                              tensor_word: str) -> tuple[Any, Tensor]:
        """``forward`` of RNN and GRU (one state tensor)."""
        data, batch_sizes, hx, packed, batched = self._prepare(input, hx, name, tensor_word)
        if batch_sizes is not None:
            batch = int(batch_sizes[0].item())
        else:
            batch = data.size(0) if self.batch_first else data.size(1)
        if hx is None:
            hx = self._zeros(data, batch, self.hidden_size)
        # checked before the permutation, so a wrong shape is reported as such
        self.check_forward_args(data, hx, batch_sizes)
        if packed is not None:
            hx = self.permute_hidden(hx, packed.sorted_indices)
        output, (h_n,) = self._run(data, batch_sizes, (hx,))
        return self._finish(output, h_n, packed, batched)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s


def _no_proj_size(cls: str, kwargs: dict[str, Any]) -> None:
    if "proj_size" in kwargs:
        raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
    if kwargs:
        raise TypeError(f"{cls}.__init__() got an unexpected keyword argument "
                        f"'{next(iter(kwargs))}'")


class RNN(RNNBase):
    """Elman RNN: ``h_t = act(W_ih x_t + b_ih + W_hh h_(t-1) + b_hh)``, ``act`` being tanh or
    relu (``nonlinearity``).

    ``forward(input, hx=None)`` takes (T, B, input_size) (``batch_first``: (B, T, ...)), an
    unbatched (T, input_size) or a :class:`PackedSequence`, and ``hx`` (L*D, B, H); returns
    ``(output, h_n)``: output (T, B, D*H) (packed in, packed out) and h_n (L*D, B, H).
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 nonlinearity: str = "tanh", bias: bool = True, batch_first: bool = False,
                 dropout: float = 0.0, bidirectional: bool = False,
                 device: DeviceLike | None = None, dtype: _dtype | None = None,
                 **kwargs: Any) -> None:
        _no_proj_size("RNN", kwargs)
        self.nonlinearity = nonlinearity
        if nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(
                f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, 0, device, dtype)

    def forward(self, input: Any, hx: Tensor | None = None) -> tuple[Any, Tensor]:
        """``(output, h_n)``; see the class docstring."""
        return self._forward_single_state(input, hx, "RNN", " tensor")


class GRU(RNNBase):
    """Gated recurrent unit: ``r, z = sigmoid(W_i{r,z} x + b_i{r,z} + W_h{r,z} h + b_h{r,z})``,
    ``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))``, ``h' = (1 - z) * n + z * h``.

    Inputs and outputs as :class:`RNN`.
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, device: DeviceLike | None = None,
                 dtype: _dtype | None = None, **kwargs: Any) -> None:
        _no_proj_size("GRU", kwargs)
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, 0, device, dtype)

    def forward(self, input: Any, hx: Tensor | None = None) -> tuple[Any, Tensor]:
        """``(output, h_n)``; see :class:`RNN`."""
        return self._forward_single_state(input, hx, "GRU", "")


class LSTM(RNNBase):
    """Long short-term memory: gates ``i, f, o = sigmoid(...)``, ``g = tanh(...)``,
    ``c' = f * c + i * g``, ``h' = o * tanh(c')``; with ``proj_size > 0``, ``h' = W_hr h'``.

    ``forward(input, (h_0, c_0)=None)`` returns ``(output, (h_n, c_n))``: output
    (T, B, D*H_out), h_n (L*D, B, H_out), c_n (L*D, B, hidden_size), H_out being proj_size when
    set, else hidden_size.
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0,
                 device: DeviceLike | None = None, dtype: _dtype | None = None) -> None:
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, proj_size, device, dtype)

    def get_expected_cell_size(self, input: Tensor, batch_sizes: Tensor | None
                               ) -> tuple[int, int, int]:
        """(num_layers * directions, batch, hidden_size)."""
        layers, batch, _ = self.get_expected_hidden_size(input, batch_sizes)
        return layers, batch, self.hidden_size

    def check_forward_args(self, input: Tensor, hidden: Any,
                           batch_sizes: Tensor | None) -> None:
        """Check the input, ``h_0`` and ``c_0``."""
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx: Any, permutation: Tensor | None) -> Any:
        """``(h, c)`` with their batch reordered by ``permutation``."""
        if permutation is None:
            return hx
        return hx[0].index_select(1, permutation), hx[1].index_select(1, permutation)

    def forward(self, input: Any, hx: tuple[Tensor, Tensor] | None = None
                ) -> tuple[Any, tuple[Tensor, Tensor]]:
        """``(output, (h_n, c_n))``; see the class docstring."""
        packed = input if isinstance(input, PackedSequence) else None
        batched = True
        if packed is not None:
            data, batch_sizes = packed.data, packed.batch_sizes
            batch = int(batch_sizes[0].item())
        else:
            if input.dim() not in (2, 3):
                raise ValueError(
                    f"LSTM: Expected input to be 2D or 3D, got {input.dim()}D instead")
            batched = input.dim() == 3
            data, batch_sizes = input, None
            if not batched:
                data = input.unsqueeze(0 if self.batch_first else 1)
            batch = data.size(0) if self.batch_first else data.size(1)
        if hx is None:
            real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
            hx = (self._zeros(data, batch, real_hidden), self._zeros(data, batch, self.hidden_size))
        elif packed is None:
            want = 3 if batched else 2
            if hx[0].dim() != want or hx[1].dim() != want:
                raise RuntimeError(
                    f"For {'batched 3-D' if batched else 'unbatched 2-D'} input, hx and cx "
                    f"should also be {want}-D but got ({hx[0].dim()}-D, {hx[1].dim()}-D) "
                    "tensors")
            if not batched:
                hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        self.check_forward_args(data, hx, batch_sizes)
        if packed is not None:
            hx = self.permute_hidden(hx, packed.sorted_indices)
        output, (h_n, c_n) = self._run(data, batch_sizes, tuple(hx))
        return self._finish(output, (h_n, c_n), packed, batched)


class RNNCellBase(Module):
    """The parameters shared by the cells: ``weight_ih`` (G*H, input_size), ``weight_hh``
    (G*H, H) and, with ``bias``, ``bias_ih``/``bias_hh`` (G*H), all from
    U(-1/sqrt(H), 1/sqrt(H)); G = ``num_chunks``."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int,
                 device: DeviceLike | None = None, dtype: _dtype | None = None) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        rows = num_chunks * hidden_size
        self.weight_ih = Parameter(empty(rows, input_size, dtype=dtype, device=device))
        self.weight_hh = Parameter(empty(rows, hidden_size, dtype=dtype, device=device))
        if bias:
            self.bias_ih = Parameter(empty(rows, dtype=dtype, device=device))
            self.bias_hh = Parameter(empty(rows, dtype=dtype, device=device))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw every parameter from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        nonlinearity = self.__dict__.get("nonlinearity", "tanh")
        if nonlinearity != "tanh":
            s += f", nonlinearity={nonlinearity}"
        return s

    def _batch(self, name: str, input: Tensor, states: tuple[Tensor, ...] | None,
               state_word: str) -> tuple[Tensor, tuple[Tensor, ...], bool]:
        """Check ranks and sizes (PyTorch's messages); the 2-D input, 2-D states (zeros when
        absent) and whether the input was batched."""
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if states is not None:
            for idx, value in enumerate(states):
                if value.dim() not in (1, 2):
                    what = state_word if len(states) == 1 else f"hx[{idx}]"
                    raise ValueError(f"{name}: Expected {what} to be 1D or 2D, got "
                                     f"{value.dim()}D instead")
        batched = input.dim() == 2
        x = input if batched else input.unsqueeze(0)
        if x.size(1) != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {x.size(1)} expected "
                               f"{self.input_size}")
        if states is None:
            zero = zeros(x.size(0), self.hidden_size, dtype=x.dtype, device=x.device)
            return x, (zero, zero), batched
        states = states if batched else tuple(s.unsqueeze(0) for s in states)
        for idx, s in enumerate(states):
            if s.size(0) != x.size(0):
                raise RuntimeError(f"Input batch size {x.size(0)} doesn't match hidden{idx} "
                                   f"batch size {s.size(0)}")
            if s.dim() != 2 or s.size(1) != self.hidden_size:
                got = s.size(1) if s.dim() > 1 else 1
                raise RuntimeError(f"hidden{idx} has inconsistent hidden_size: got {got}, "
                                   f"expected {self.hidden_size}")
        return x, states, batched

    def _gi(self, x: Tensor) -> Tensor:
        from arraygrad.nn import functional as F

        return F.linear(x, self.weight_ih, self.bias_ih)


class RNNCell(RNNCellBase):
    """One Elman step ``h' = act(W_ih x + b_ih + W_hh h + b_hh)`` (``nonlinearity`` tanh or
    relu). ``forward(input, hx=None)``: input (B, input_size) or (input_size,), hx (B, H) or
    (H,) (zeros by default); returns h'."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device: DeviceLike | None = None,
                 dtype: _dtype | None = None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device,
                         dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        """The next hidden state."""
        x, (h, *_), batched = self._batch("RNNCell", input, None if hx is None else (hx,),
                                          "hidden")
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        out = _recurrence.rnn_step(self._gi(x), h, self.weight_hh, self.bias_hh,
                                   self.nonlinearity == "relu")
        return out if batched else out.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step (gates i, f, g, o as :class:`LSTM`). ``forward(input, (h, c)=None)``
    returns ``(h', c')``; batched (B, ...) or unbatched (1-D) tensors."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 device: DeviceLike | None = None, dtype: _dtype | None = None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device,
                         dtype=dtype)

    def forward(self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None
                ) -> tuple[Tensor, Tensor]:
        """``(h', c')``."""
        x, (h, c), batched = self._batch("LSTMCell", input, None if hx is None else tuple(hx),
                                         "hidden")
        h, c = _recurrence.lstm_step(self._gi(x), h, c, self.weight_hh, self.bias_hh, None)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step (gates r, z, n as :class:`GRU`). ``forward(input, hx=None)`` returns h';
    batched (B, ...) or unbatched (1-D) tensors."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 device: DeviceLike | None = None, dtype: _dtype | None = None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device,
                         dtype=dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        """The next hidden state."""
        x, (h, *_), batched = self._batch("GRUCell", input, None if hx is None else (hx,),
                                          "hidden")
        out = _recurrence.gru_step(self._gi(x), h, self.weight_hh, self.bias_hh)
        return out if batched else out.squeeze(0)
