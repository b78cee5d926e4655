"""The recurrences behind ``nn.RNN``/``LSTM``/``GRU`` and their cells, from differentiable ops.

A layer projects its input for all time steps with ONE ``linear`` (per layer and direction);
the time steps are then ONE node for the whole sequence (``nn._functional.rnn_sequences``: the
steps walked on arrays forward, and in reverse for the first-order backward, each weight's
gradient one product over all steps). Where the sequence rules do not run (fast paths off:
``ARRAYGRAD_REFERENCE=1`` or forward-mode AD; half precision; autocast) each time step is ONE
node, a fused cell rule (``nn._functional.rnn_cells``), and the time loop stacks the steps'
outputs: the reference the sequence rules are tested against, and what a cell module
(``nn.LSTMCell``...) records for its one step.

Gate layouts are PyTorch's: LSTM rows (i, f, g, o); GRU rows (r, z, n), with ``b_hn`` inside the
reset product: ``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from arraygrad.nn import functional as F
from arraygrad.nn._functional.rnn_cells import gru_cell, lstm_cell, rnn_cell
from arraygrad.nn._functional.rnn_sequences import (
    fusable, gru_sequence, lstm_sequence, rnn_sequence,
)
from arraygrad.ops.shape import cat, stack

if TYPE_CHECKING:
    from arraygrad.tensor import Tensor

# the recurrent state of one layer and direction: (h,) or, for an LSTM, (h, c)
State = tuple["Tensor", ...]
# one time step: (input projection W_ih x + b_ih of this step, state) -> new state
Step = Callable[["Tensor", State], State]


def rnn_step(gi: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor | None, relu: bool) -> Tensor:
    """Elman step ``act(gi + W_hh h + b_hh)``: one node."""
    return rnn_cell(gi, h, w_hh, b_hh, relu)


def lstm_step(gi: Tensor, h: Tensor, c: Tensor, w_hh: Tensor, b_hh: Tensor | None,
              w_hr: Tensor | None) -> tuple[Tensor, Tensor]:
    """LSTM step: gates (i, f, g, o); ``c' = f c + i g``, ``h' = o tanh(c')`` (one node; then
    ``W_hr h'`` with a projection)."""
    h, c = lstm_cell(gi, h, c, w_hh, b_hh)
    if w_hr is not None:
        h = F.linear(h, w_hr)
    return h, c


def gru_step(gi: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor | None) -> Tensor:
    """GRU step: ``r, z = sigmoid(...)``, ``n = tanh(gi_n + r (W_hn h + b_hn))``,
    ``h' = n + z (h - n)`` (PyTorch's form of ``(1 - z) n + z h``): one node."""
    return gru_cell(gi, h, w_hh, b_hh)


def make_step(mode: str, w_hh: Tensor, b_hh: Tensor | None, w_hr: Tensor | None) -> Step:
    """The step function of one layer and direction of an ``RNNBase`` of ``mode``."""
    if mode == "LSTM":
        return lambda gi, s: lstm_step(gi, s[0], s[1], w_hh, b_hh, w_hr)
    if mode == "GRU":
        return lambda gi, s: (gru_step(gi, s[0], w_hh, b_hh),)
    relu = mode == "RNN_RELU"
    return lambda gi, s: (rnn_step(gi, s[0], w_hh, b_hh, relu),)


def run_direction(step: Step, gi_steps: Sequence[Tensor], state0: State,
                  batch_sizes: Sequence[int], reverse: bool) -> tuple[list[Tensor], State]:
    """Run one direction over the time steps; the per-step outputs and the final state.

    ``batch_sizes[t]`` rows run at step ``t`` (non-increasing: a packed batch). Forward, the
    rows that stop are set aside and their last state is their final state; in reverse the
    rows that start join with their initial state from ``state0``.
    """
    outs: list[Tensor] = []
    if not reverse:
        state = state0
        stopped: list[State] = []
        for gi, b in zip(gi_steps, batch_sizes):
            if b < state[0].shape[0]:
                stopped.append(tuple(s[b:] for s in state))
                state = tuple(s[:b] for s in state)
            state = step(gi, state)
            outs.append(state[0])
        if stopped:
            # rows were set aside last-first; the final state lists rows 0..B-1
            pieces = [state, *reversed(stopped)]
            state = tuple(cat([p[k] for p in pieces], 0) for k in range(len(state)))
        return outs, state
    last = batch_sizes[-1] if batch_sizes else 0
    state = tuple(s[:last] for s in state0) if last < state0[0].shape[0] else state0
    for gi, b in zip(reversed(gi_steps), reversed(batch_sizes)):
        running = state[0].shape[0]
        if b > running:
            state = tuple(cat([s, s0[running:b]], 0) for s, s0 in zip(state, state0))
        state = step(gi, state)
        outs.append(state[0])
    outs.reverse()
    return outs, state


def run_sequence(mode: str, gi: Tensor, state0: State, w_hh: Tensor, b_hh: Tensor | None,
                 w_hr: Tensor | None, sizes: Sequence[int], reverse: bool
                 ) -> tuple[Tensor, State]:
    """One layer and direction as one sequence node: ``gi`` the input projection of every step,
    (T, B, G*H) or packed rows (N, G*H); the output ((T, B, H_out) or (N, H_out)) and the
    final state."""
    if mode == "LSTM":
        out, h, c = lstm_sequence(gi, state0[0], state0[1], w_hh, b_hh, w_hr, sizes, reverse)
        return out, (h, c)
    if mode == "GRU":
        out, h = gru_sequence(gi, state0[0], w_hh, b_hh, sizes, reverse)
    else:
        out, h = rnn_sequence(gi, state0[0], w_hh, b_hh, sizes, reverse, mode == "RNN_RELU")
    return out, (h,)


def run_layers(mode: str, input: Tensor, batch_sizes: list[int] | None, hx: State,
               weights: Sequence[Sequence[Tensor | None]], num_layers: int,
               bidirectional: bool, dropout: float, training: bool) -> tuple[Tensor, State]:
    """A stacked (bi)directional recurrence; ``(output, final states)``.

    ``input`` is time-major (T, B, I), or packed (N, I) when ``batch_sizes`` is given;
    ``hx`` holds (L*D, B, H) initial states; ``weights[l*D + d]`` is
    ``(w_ih, w_hh, b_ih, b_hh, w_hr)`` (absent ones None). The output has the layout of the
    input; each final state is (L*D, B, H). Dropout acts on every layer's output but the last.
    """
    directions = 2 if bidirectional else 1
    packed = batch_sizes is not None
    sizes = batch_sizes if batch_sizes is not None else [input.shape[1]] * input.shape[0]
    finals: list[State] = []
    layer_input = input
    fused = fusable(input, *hx, *(w for ws in weights for w in ws))
    # every layer and direction's initial states, one op per state (not an index op each)
    initial = [h.unbind(0) for h in hx]
    for layer in range(num_layers):
        outputs = []
        for d in range(directions):
            w_ih, w_hh, b_ih, b_hh, w_hr = weights[layer * directions + d]
            assert w_ih is not None and w_hh is not None
            gi = F.linear(layer_input, w_ih, b_ih)  # every time step at once
            state0 = tuple(h[layer * directions + d] for h in initial)
            if fused:
                out, final = run_sequence(mode, gi, state0, w_hh, b_hh, w_hr, sizes, d == 1)
                outputs.append(out)
            else:
                gi_steps = gi.split(sizes, 0) if packed else gi.unbind(0)
                outs, final = run_direction(make_step(mode, w_hh, b_hh, w_hr), gi_steps,
                                            state0, sizes, reverse=d == 1)
                outputs.append(cat(outs, 0) if packed else stack(outs, 0))
            finals.append(final)
        layer_input = outputs[0] if directions == 1 else cat(outputs, -1)
        if dropout > 0 and training and layer < num_layers - 1:
            layer_input = F.dropout(layer_input, dropout, True)
    if len(finals) == 1:
        return layer_input, tuple(f.unsqueeze(0) for f in finals[0])
    return layer_input, tuple(stack([f[k] for f in finals], 0) for k in range(len(hx)))
