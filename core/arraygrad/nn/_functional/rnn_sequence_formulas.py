"""Whole-sequence recurrences, forward and backward, written once for arrays and for Tensors.

One layer and direction of an LSTM, GRU or Elman RNN over every time step: the forward walks
the steps, the backward walks them in reverse (backpropagation through time), each step a
handful of operations on the running rows; the hidden weights' gradients are ONE product
each over all steps at the end. The formulas take a *kit* (``rnn_cell_formulas.Kit``): native
arrays for the fused sequence rules' forward and first-order backward (``rnn_sequences``),
Tensors for their recorded backward (``create_graph=True``).

Layout: *packed rows*. The input projection ``gi`` (``W_ih x + b_ih`` of every step: (T, B, G)
dense, taken as (T*B, G), or (N, G)) holds the steps' rows one after the other, ``sizes[t]``
rows for step ``t`` (non-increasing: a ``PackedSequence``'s ``batch_sizes``; a dense input
has ``sizes = (B,) * T``). Every per-step value kept for the backward is gathered the same way
(``Kit.rows``: into one buffer for NumPy arrays), so step ``t``'s rows are ``[starts[t],
starts[t] + sizes[t])`` of each; the output has ``gi``'s leading dims. Forward, rows that stop
are set aside with their last state as their final state; in reverse the rows that start
join with their initial state.

Gate layouts are PyTorch's: LSTM (i, f, g, o); GRU (r, z, n) with ``b_hn`` inside the reset
product. A sigmoid is ``tanh(x / 2) / 2 + 1 / 2`` (no overflow); the sigmoid gates' rows of
the weights and input projection are halved once (exact: a power of two), so ONE ``tanh`` per
step activates all the gates.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple, Sequence

from arraygrad.nn._functional.rnn_cell_formulas import Kit

State = tuple[Any, ...]


class Plan(NamedTuple):
    """The time steps of one direction: rows per step, where each step's rows start, and
    whether the direction runs backwards in time."""

    sizes: tuple[int, ...]
    starts: tuple[int, ...]
    reverse: bool

    @classmethod
    def of(cls, sizes: Sequence[int], reverse: bool) -> Plan:
        """The plan of steps with ``sizes`` rows each."""
        starts, at = [], 0
        for b in sizes:
            starts.append(at)
            at += b
        return cls(tuple(sizes), tuple(starts), reverse)


def _cat0(k: Kit, parts: list[Any]) -> Any:
    return parts[0] if len(parts) == 1 else k.cat0(parts)


def _rows(k: Kit, a: Any) -> Any:
    """``a`` (..., F) as rows (N, F): a dense (T, B, F) input is packed rows already."""
    return a if len(a.shape) == 2 else k.reshape(a, (-1, a.shape[-1]))


def _shaped(k: Kit, rows: Any, lead: tuple[int, ...]) -> Any:
    """Rows (N, F) back to the caller's leading dims ``lead`` (``rows`` itself for (N,))."""
    return rows if len(lead) == 1 else k.reshape(rows, (*lead, rows.shape[-1]))


class _Collected:
    """Per-step values gathered into packed rows (``Kit.rows`` collectors), one per value a
    step hands over, made at the first step."""

    __slots__ = ("k", "total", "rows")

    def __init__(self, k: Kit, total: int) -> None:
        self.k, self.total = k, total
        self.rows: list[Any] | None = None

    def put(self, start: int, values: tuple[Any, ...]) -> None:
        rows = self.rows
        if rows is None:
            rows = self.rows = [self.k.rows(self.total, v) for v in values]
        for r, v in zip(rows, values):
            r.put(start, v)

    def results(self) -> list[Any]:
        return [] if self.rows is None else [r.result() for r in self.rows]


def walk_forward(k: Kit, p: Plan, state0: State,
                 step: Callable[[int, int, int, State], tuple[State, tuple[Any, ...]]],
                 keep: bool) -> tuple[State, list[Any], list[Any]]:
    """Run ``step(t, start, rows, state) -> (state', values)`` over the steps; the final state,
    each of the steps' values in packed rows, and (only with ``keep``) the steps' input ``h``
    (the state's first component) in packed rows."""
    n = len(p.sizes)
    total = p.starts[-1] + p.sizes[-1]
    inputs, kept = _Collected(k, total), _Collected(k, total)
    state = state0
    if not p.reverse:
        stopped: list[State] = []
        for t in range(n):
            b, start = p.sizes[t], p.starts[t]
            if b < state[0].shape[0]:
                stopped.append(tuple(s[b:, ...] for s in state))
                state = tuple(s[:b, ...] for s in state)
            if keep:
                inputs.put(start, state[:1])
            state, values = step(t, start, b, state)
            kept.put(start, values)
        if stopped:
            # rows were set aside last-first; the final state lists rows 0..B-1
            pieces = [state, *reversed(stopped)]
            state = tuple(k.cat0([q[j] for q in pieces]) for j in range(len(state)))
        return state, kept.results(), inputs.results()
    last = p.sizes[-1]
    if last < state0[0].shape[0]:
        state = tuple(s[:last, ...] for s in state0)
    for t in range(n - 1, -1, -1):
        b, start = p.sizes[t], p.starts[t]
        running = state[0].shape[0]
        if b > running:
            state = tuple(k.cat0([s, s0[running:b, ...]]) for s, s0 in zip(state, state0))
        if keep:
            inputs.put(start, state[:1])
        state, values = step(t, start, b, state)
        kept.put(start, values)
    return state, kept.results(), inputs.results()


def walk_backward(k: Kit, p: Plan, g_out: Any, g_final: State,
                  step: Callable[[int, int, int, State], tuple[State, tuple[Any, ...]]]
                  ) -> tuple[State, list[Any]]:
    """The reverse of ``walk_forward``: ``step(t, start, rows, d_state) -> (d_prev_state,
    values)`` gets the gradient of step ``t``'s output state, its output's gradient (rows of
    ``g_out``) added to the first component; returns the initial state's gradient and each
    of the steps' values in packed rows."""
    n = len(p.sizes)
    kept = _Collected(k, p.starts[-1] + p.sizes[-1])
    if not p.reverse:
        # backward from the last step; rows whose sequence ended earlier join where it ended
        b_last = p.sizes[-1]
        d = tuple(g[:b_last, ...] for g in g_final)
        for t in range(n - 1, -1, -1):
            b, start = p.sizes[t], p.starts[t]
            running = d[0].shape[0]
            if b > running:
                d = tuple(k.cat0([dd, g[running:b, ...]]) for dd, g in zip(d, g_final))
            d = (g_out[start:start + b, ...] + d[0], *d[1:])
            d, values = step(t, start, b, d)
            kept.put(start, values)
        return d, kept.results()
    # the forward ran from the last step to the first: backward runs from the first
    d, joined = g_final, []
    for t in range(n):
        b, start = p.sizes[t], p.starts[t]
        d = (g_out[start:start + b, ...] + d[0], *d[1:])
        d, values = step(t, start, b, d)
        kept.put(start, values)
        after = p.sizes[t + 1] if t + 1 < n else 0
        if after < b:  # rows [after, b) joined from the initial state at step t
            joined.append(tuple(dd[after:, ...] for dd in d))
            d = tuple(dd[:after, ...] for dd in d)
    pieces = list(reversed(joined))  # lowest rows first
    return tuple(_cat0(k, [q[j] for q in pieces]) for j in range(len(g_final))), kept.results()


def gate_scale(k: Kit, hidden: int, gates: str, factor: float, like: Any) -> Any:
    """A (1, G*H) row: ``factor`` over the columns of the sigmoid gates (``"s"`` in ``gates``,
    one letter per gate), 1 elsewhere. Scaling by it is exact (a power of two): the product of
    scaled rows is the scaled product. (``Kit.gate_scale`` is this, cached for arrays.)"""
    return k.cat([k.full((1, hidden), factor if kind == "s" else 1.0, like) for kind in gates])


def _rows_scaled(k: Kit, w: Any, scale: Any) -> Any:
    """``w`` (G*H, H_in) with its rows multiplied by the (1, G*H) row ``scale``."""
    return w * k.reshape(scale, (w.shape[0], 1))


def _weight_grads(k: Kit, d_hidden: Any, h_prev: Any, need: Sequence[bool]
                  ) -> tuple[Any, Any]:
    """``W_hh``'s and ``b_hh``'s gradients from every step's hidden-gate gradient at once."""
    return (k.matmul(k.t(d_hidden), h_prev) if need[0] else None,
            k.sum0(d_hidden) if need[1] else None)


# -- LSTM ------------------------------------------------------------------------------------

def lstm_forward(k: Kit, p: Plan, gi: Any, h0: Any, c0: Any, w_hh: Any, b_hh: Any,
                 w_hr: Any, keep: bool) -> tuple[Any, Any, Any, tuple[Any, ...]]:
    """``(output rows, h_n, c_n, kept)``; ``kept`` (empty unless ``keep``) is what
    ``lstm_backward`` reads, in packed rows: the steps' input ``h``; each step's factors of
    its gates' gradient (``[g, c, i, tanh c'] * (1 - a^2)``, times ``d c'`` for i, f, g and
    ``d h'`` for o, and by ``quarter``), of ``d c'`` from ``d h'`` (``o (1 - tanh^2 c')``)
    and ``f``; with a projection, the unprojected ``h'``."""
    hidden = w_hh.shape[0] // 4
    two, three = 2 * hidden, 3 * hidden
    # the sigmoid gates' rows halved once: tanh of a step's pre-activations is then
    # a = tanh(z / 2) for i, f, o and tanh(z) for g, in ONE call
    halve = k.gate_scale(hidden, "ssts", 0.5, gi)
    w_t = k.t_dense(_rows_scaled(k, w_hh, halve))
    w_hr_t = None if w_hr is None else k.t_dense(w_hr)
    lead = tuple(gi.shape[:-1])
    # the hidden bias once, for all steps
    gates_in = _rows(k, gi) * halve
    if b_hh is not None:
        gates_in = gates_in + b_hh * halve
    half, one = k.scalar(0.5, gates_in), k.scalar(1.0, gates_in)

    def step(t: int, start: int, b: int, state: State) -> tuple[State, tuple[Any, ...]]:
        h, c = state
        a = k.tanh(gates_in[start:start + b, ...] + h @ w_t)
        s = a * half + half  # sigmoid(z) = tanh(z / 2) / 2 + 1 / 2: i, f, o (g's unused)
        g = a[:, two:three]
        c2 = s[:, hidden:two] * c + s[:, :hidden] * g
        tc = k.tanh(c2)
        cell = s[:, three:] * tc
        h2 = cell if w_hr_t is None else cell @ w_hr_t
        if not keep:
            return (h2, c2), (h2,)
        # the backward's factors now, on this step's rows (hot in cache): what is kept is
        # written into buffers, and the backward's loop is a few products per step.
        # sigmoid' = (1 - a^2) / 4 for i, f, o (the quarter: ``lstm_backward``); tanh' for g
        scale = k.cat([g, c, s[:, :hidden], tc]) * (one - a * a)
        kept = (h2, scale, s[:, three:] - cell * tc, s[:, hidden:two])
        return (h2, c2), kept if w_hr_t is None else (*kept, cell)

    (h_n, c_n), kept, inputs = walk_forward(k, p, (h0, c0), step, keep)
    out = _shaped(k, kept[0], lead)
    if not keep:
        return out, h_n, c_n, ()
    return out, h_n, c_n, (*inputs, *kept[1:4], kept[4] if w_hr is not None else None)


def lstm_backward(k: Kit, p: Plan, g_out: Any, g_h: Any, g_c: Any, w_hh: Any, w_hr: Any,
                  saved: tuple[Any, ...], need: Sequence[bool]) -> tuple[Any, ...]:
    """The gradients of ``(gi, h0, c0, w_hh, b_hh, w_hr)`` (None where ``need`` says not
    wanted) from those of the output rows, ``h_n`` and ``c_n``."""
    h_prev, scale, through_tanh, f, cell = saved
    hidden = w_hh.shape[0] // 4
    # the step's factors leave out sigmoid's quarter for i, f, o: the hidden product takes it
    # in its weight's rows, the gates' gradient once at the end (halving twice: exact)
    quarter = k.gate_scale(hidden, "ssts", 0.25, scale)
    w_q = _rows_scaled(k, w_hh, quarter)

    def step(t: int, start: int, b: int, d: State) -> tuple[State, tuple[Any, ...]]:
        dh, dc = d
        rows = slice(start, start + b)
        dh_cell = dh if w_hr is None else dh @ w_hr
        dc = dc + dh_cell * through_tanh[rows, ...]
        dz = k.cat([dc, dc, dc, dh_cell]) * scale[rows, ...]
        return (dz @ w_q, dc * f[rows, ...]), ((dz,) if w_hr is None else (dz, dh))

    (dh0, dc0), kept = walk_backward(k, p, _rows(k, g_out), (g_h, g_c), step)
    dz = kept[0] * quarter
    d_w, d_b = _weight_grads(k, dz, h_prev, (need[3], need[4]))
    d_w_hr = None
    if w_hr is not None and need[5]:
        d_w_hr = k.matmul(k.t(kept[1]), cell)
    d_gi = _shaped(k, dz, tuple(g_out.shape[:-1])) if need[0] else None
    return d_gi, dh0, dc0, d_w, d_b, d_w_hr


# -- GRU -------------------------------------------------------------------------------------

def gru_forward(k: Kit, p: Plan, gi: Any, h0: Any, w_hh: Any, b_hh: Any, keep: bool
                ) -> tuple[Any, Any, tuple[Any, ...]]:
    """``(output rows, h_n, kept)``: kept (empty unless ``keep``) the steps' input states,
    the sigmoid gates ``(r, z)``, ``n`` and the hidden ``W_hn h + b_hn``, in packed rows."""
    hidden = w_hh.shape[0] // 3
    two, three = 2 * hidden, 3 * hidden
    # r's and z's rows halved once (as the LSTM's): one tanh gives both sigmoids
    halve = k.gate_scale(hidden, "sst", 0.5, gi)
    w_t = k.t_dense(_rows_scaled(k, w_hh, halve))
    b_t = None if b_hh is None else b_hh * halve
    lead = tuple(gi.shape[:-1])
    gi = _rows(k, gi) * halve
    half = k.scalar(0.5, gi)

    def step(t: int, start: int, b: int, state: State) -> tuple[State, tuple[Any, ...]]:
        h = state[0]
        gi_t = gi[start:start + b, ...]
        gh = h @ w_t if b_t is None else h @ w_t + b_t
        rz = k.tanh(gi_t[:, :two] + gh[:, :two]) * half + half
        h_n = gh[:, two:]
        n = k.tanh(gi_t[:, two:] + rz[:, :hidden] * h_n)
        h2 = n + rz[:, hidden:] * (h - n)
        return (h2,), ((h2, rz, n, h_n) if keep else (h2,))

    (h_n,), kept, inputs = walk_forward(k, p, (h0,), step, keep)
    return _shaped(k, kept[0], lead), h_n, (*inputs, *kept[1:]) if keep else ()


def gru_backward(k: Kit, p: Plan, g_out: Any, g_h: Any, w_hh: Any, saved: tuple[Any, ...],
                 need: Sequence[bool]) -> tuple[Any, ...]:
    """The gradients of ``(gi, h0, w_hh, b_hh)`` (None where not wanted)."""
    h_prev, rz, n, h_n = saved
    hidden = w_hh.shape[0] // 3
    r, z = rz[:, :hidden], rz[:, hidden:]
    to_n = (1 - z) * (1 - n * n)
    to_z = (h_prev - n) * z * (1 - z)
    to_r = h_n * r * (1 - r)

    def step(t: int, start: int, b: int, d: State) -> tuple[State, tuple[Any, ...]]:
        gy = d[0]
        rows = slice(start, start + b)
        d_n = gy * to_n[rows, ...]
        d_r = d_n * to_r[rows, ...]
        d_z = gy * to_z[rows, ...]
        d_hidden = k.cat([d_r, d_z, d_n * r[rows, ...]])
        return (d_hidden @ w_hh + gy * z[rows, ...],), (d_hidden, d_n)

    (dh0,), (d_hidden, d_n) = walk_backward(k, p, _rows(k, g_out), (g_h,), step)
    d_w, d_b = _weight_grads(k, d_hidden, h_prev, need[2:])
    d_gi = None
    if need[0]:  # the hidden gates' gradient for r and z, d_n for the input's n
        d_gi = _shaped(k, k.cat([d_hidden[:, :2 * hidden], d_n]), tuple(g_out.shape[:-1]))
    return d_gi, dh0, d_w, d_b


# -- Elman -----------------------------------------------------------------------------------

def rnn_forward(k: Kit, p: Plan, gi: Any, h0: Any, w_hh: Any, b_hh: Any, relu: bool,
                keep: bool) -> tuple[Any, Any, tuple[Any, ...]]:
    """``(output rows, h_n, kept)``: kept (empty unless ``keep``) the steps' input
    states."""
    w_t = k.t_dense(w_hh)
    lead = tuple(gi.shape[:-1])
    gi = _rows(k, gi)
    pre = gi if b_hh is None else gi + b_hh
    act = k.relu if relu else k.tanh

    def step(t: int, start: int, b: int, state: State) -> tuple[State, tuple[Any, ...]]:
        y = act(pre[start:start + b, ...] + state[0] @ w_t)
        return (y,), (y,)

    (h_n,), kept, inputs = walk_forward(k, p, (h0,), step, keep)
    return _shaped(k, kept[0], lead), h_n, tuple(inputs)


def rnn_backward(k: Kit, p: Plan, g_out: Any, g_h: Any, w_hh: Any, out: Any,
                 saved: tuple[Any, ...], relu: bool, need: Sequence[bool]) -> tuple[Any, ...]:
    """The gradients of ``(gi, h0, w_hh, b_hh)`` (None where not wanted); ``out`` the
    output rows."""
    out = _rows(k, out)
    through: Any = None if relu else 1 - out * out

    def step(t: int, start: int, b: int, d: State) -> tuple[State, tuple[Any, ...]]:
        rows = slice(start, start + b)
        d_pre = k.relu_grad(d[0], out[rows, ...]) if relu else d[0] * through[rows, ...]
        return (d_pre @ w_hh,), (d_pre,)

    (dh0,), (d_pre,) = walk_backward(k, p, _rows(k, g_out), (g_h,), step)
    d_w, d_b = _weight_grads(k, d_pre, saved[0], need[2:])
    return _shaped(k, d_pre, tuple(g_out.shape[:-1])) if need[0] else None, dh0, d_w, d_b
