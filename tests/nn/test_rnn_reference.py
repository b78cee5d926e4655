"""Recurrent layers without PyTorch: hand-computed steps, an independent NumPy recurrence over
every sequence of a packed batch, gradcheck and gradgradcheck in float64."""

from __future__ import annotations

import math

import numpy as np
import pytest

import arraygrad as ag
from arraygrad import nn
from arraygrad.autograd import gradcheck, gradgradcheck
from arraygrad.nn.utils.rnn import pack_padded_sequence, pack_sequence, pad_packed_sequence

from nn_helpers import gradcheck_module


def sig(v: float) -> float:
    return 1.0 / (1.0 + math.exp(-v))


def set_params(module, **values):
    """Overwrite parameters by name with nested lists (float64)."""
    module.double()
    with ag.no_grad():
        for name, value in values.items():
            getattr(module, name).copy_(ag.tensor(value, dtype=ag.float64))


# -- one-unit layers, every number written out ---------------------------------------------
def test_rnn_tanh_and_relu_two_steps_by_hand():
    for nonlinearity, act in (("tanh", math.tanh), ("relu", lambda v: max(v, 0.0))):
        rnn = nn.RNN(1, 1, nonlinearity=nonlinearity)
        set_params(rnn, weight_ih_l0=[[0.5]], weight_hh_l0=[[-0.8]], bias_ih_l0=[0.1],
                   bias_hh_l0=[0.2])
        x, h0 = [1.5, -0.25], 0.3
        h1 = act(0.5 * x[0] + 0.1 - 0.8 * h0 + 0.2)
        h2 = act(0.5 * x[1] + 0.1 - 0.8 * h1 + 0.2)
        out, h_n = rnn(ag.tensor([[[x[0]]], [[x[1]]]], dtype=ag.float64),
                       ag.tensor([[[h0]]], dtype=ag.float64))
        assert out.reshape(-1).tolist() == pytest.approx([h1, h2], abs=1e-15)
        assert h_n.item() == pytest.approx(h2, abs=1e-15)


def lstm_by_hand(x, h, c, wi, wh, bi, bh, wr=None):
    """One LSTM step of a one-unit cell; gate order (i, f, g, o)."""
    pre = [wi[k] * x + bi[k] + wh[k] * h + bh[k] for k in range(4)]
    i, f, g, o = sig(pre[0]), sig(pre[1]), math.tanh(pre[2]), sig(pre[3])
    c = f * c + i * g
    h = o * math.tanh(c)
    return (h if wr is None else wr * h), c


def test_lstm_step_by_hand_gate_order():
    wi, wh = [0.3, -0.2, 0.7, 0.1], [0.5, 0.4, -0.6, 0.9]
    bi, bh = [0.05, 1.0, -0.1, 0.2], [0.0, 0.3, 0.2, -0.4]
    lstm = nn.LSTM(1, 1)
    set_params(lstm, weight_ih_l0=[[v] for v in wi], weight_hh_l0=[[v] for v in wh],
               bias_ih_l0=bi, bias_hh_l0=bh)
    h, c = lstm_by_hand(0.8, 0.1, -0.5, wi, wh, bi, bh)
    h2, c2 = lstm_by_hand(-1.2, h, c, wi, wh, bi, bh)
    out, (h_n, c_n) = lstm(ag.tensor([[[0.8]], [[-1.2]]], dtype=ag.float64),
                           (ag.tensor([[[0.1]]], dtype=ag.float64),
                            ag.tensor([[[-0.5]]], dtype=ag.float64)))
    assert out.reshape(-1).tolist() == pytest.approx([h, h2], abs=1e-15)
    assert (h_n.item(), c_n.item()) == pytest.approx((h2, c2), abs=1e-15)


def test_lstm_projection_by_hand():
    # hidden 2, proj 1: h' = W_hr (o * tanh(c')), and W_hh reads the projected h
    lstm = nn.LSTM(1, 2, proj_size=1, bias=False)
    assert tuple(lstm.weight_hh_l0.shape) == (8, 1) and tuple(lstm.weight_hr_l0.shape) == (1, 2)
    wi = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]
    wh = [-0.1, 0.2, -0.3, 0.4, -0.5, 0.6, -0.7, 0.8]
    wr = [0.9, -1.1]
    set_params(lstm, weight_ih_l0=[[v] for v in wi], weight_hh_l0=[[v] for v in wh],
               weight_hr_l0=[wr])
    x, h, c = 0.7, 0.25, [0.2, -0.3]
    pre = [wi[k] * x + wh[k] * h for k in range(8)]
    cells, hidden = [], []
    for u in range(2):  # unit u reads rows u, 2+u, 4+u, 6+u
        i, f, g, o = sig(pre[u]), sig(pre[2 + u]), math.tanh(pre[4 + u]), sig(pre[6 + u])
        cells.append(f * c[u] + i * g)
        hidden.append(o * math.tanh(cells[-1]))
    projected = wr[0] * hidden[0] + wr[1] * hidden[1]
    out, (h_n, c_n) = lstm(ag.tensor([[x]], dtype=ag.float64),
                           (ag.tensor([[h]], dtype=ag.float64), ag.tensor([c], dtype=ag.float64)))
    assert out.item() == pytest.approx(projected, abs=1e-15)
    assert tuple(h_n.shape) == (1, 1) and tuple(c_n.shape) == (1, 2)
    assert c_n.reshape(-1).tolist() == pytest.approx(cells, abs=1e-15)


def test_gru_step_by_hand_reset_gate_wraps_b_hn():
    wi, wh = [0.4, -0.3, 0.6], [0.7, 0.2, -0.9]
    bi, bh = [0.1, -0.2, 0.3], [0.5, 0.25, 0.8]  # b_hn = 0.8 sits inside r * (...)
    gru = nn.GRU(1, 1)
    set_params(gru, weight_ih_l0=[[v] for v in wi], weight_hh_l0=[[v] for v in wh],
               bias_ih_l0=bi, bias_hh_l0=bh)
    x, h = -0.6, 0.4
    r = sig(wi[0] * x + bi[0] + wh[0] * h + bh[0])
    z = sig(wi[1] * x + bi[1] + wh[1] * h + bh[1])
    n = math.tanh(wi[2] * x + bi[2] + r * (wh[2] * h + bh[2]))
    expected = (1 - z) * n + z * h
    out, h_n = gru(ag.tensor([[[x]]], dtype=ag.float64), ag.tensor([[[h]]], dtype=ag.float64))
    assert out.item() == pytest.approx(expected, abs=1e-15) and h_n.item() == out.item()
    # the cell computes the same step
    cell = nn.GRUCell(1, 1)
    set_params(cell, weight_ih=[[v] for v in wi], weight_hh=[[v] for v in wh], bias_ih=bi,
               bias_hh=bh)
    assert cell(ag.tensor([x], dtype=ag.float64), ag.tensor([h], dtype=ag.float64)).item() == \
        pytest.approx(expected, abs=1e-15)


def test_cells_by_hand():
    rnn = nn.RNNCell(1, 1, nonlinearity="relu")
    set_params(rnn, weight_ih=[[2.0]], weight_hh=[[-1.0]], bias_ih=[0.5], bias_hh=[0.25])
    h = rnn(ag.tensor([[1.0], [-3.0]], dtype=ag.float64), ag.tensor([[0.5], [0.0]],
                                                                    dtype=ag.float64))
    assert h.reshape(-1).tolist() == [2.0 - 0.5 + 0.75, 0.0]
    lstm = nn.LSTMCell(1, 1, bias=False)
    wi, wh = [0.3, -0.2, 0.7, 0.1], [0.5, 0.4, -0.6, 0.9]
    set_params(lstm, weight_ih=[[v] for v in wi], weight_hh=[[v] for v in wh])
    h1, c1 = lstm(ag.tensor([0.8], dtype=ag.float64))  # unbatched, zero state
    assert (h1.item(), c1.item()) == pytest.approx(
        lstm_by_hand(0.8, 0.0, 0.0, wi, wh, [0] * 4, [0] * 4), abs=1e-15)


# -- an independent NumPy recurrence, one sequence at a time ---------------------------------
def np_step(mode, x, state, p):
    """One step of ``mode`` on 1-D arrays; ``p`` holds w_ih, w_hh, b_ih, b_hh, w_hr."""
    gi = p["w_ih"] @ x + p["b_ih"]
    gh = p["w_hh"] @ state[0] + p["b_hh"]
    if mode in ("tanh", "relu"):
        pre = gi + gh
        return (np.tanh(pre) if mode == "tanh" else np.maximum(pre, 0),)
    s = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    if mode == "GRU":
        H = state[0].shape[0]
        r, z = s(gi[:H] + gh[:H]), s(gi[H:2 * H] + gh[H:2 * H])
        n = np.tanh(gi[2 * H:] + r * gh[2 * H:])
        return ((1 - z) * n + z * state[0],)
    i, f, g, o = np.split(gi + gh, 4)
    c = s(f) * state[1] + s(i) * np.tanh(g)
    h = s(o) * np.tanh(c)
    return (h if p["w_hr"] is None else p["w_hr"] @ h), c


def np_reference(module, mode, sequence, init):
    """Run ``module``'s recurrence on ONE unbatched sequence (L, I) with NumPy; ``init`` is a
    tuple of (L*D, H) initial states. Returns the (L, D*H) output and the final states."""
    sd = {k: v.detach().numpy() for k, v in module.state_dict().items()}
    D = 2 if module.bidirectional else 1
    layer_in, finals = sequence, [[] for _ in init]
    for layer in range(module.num_layers):
        outs = []
        for d in range(D):
            sfx = f"_l{layer}" + ("_reverse" if d else "")
            G = sd["weight_ih" + sfx].shape[0]
            p = {"w_ih": sd["weight_ih" + sfx], "w_hh": sd["weight_hh" + sfx],
                 "b_ih": sd.get("bias_ih" + sfx, np.zeros(G)),
                 "b_hh": sd.get("bias_hh" + sfx, np.zeros(G)), "w_hr": sd.get("weight_hr" + sfx)}
            state = tuple(s[layer * D + d] for s in init)
            order = range(len(layer_in) - 1, -1, -1) if d else range(len(layer_in))
            out = [None] * len(layer_in)
            for t in order:
                state = np_step(mode, layer_in[t], state, p)
                out[t] = state[0]
            outs.append(np.stack(out))
            for k, s in enumerate(state):
                finals[k].append(s)
        layer_in = np.concatenate(outs, -1)
    return layer_in, [np.stack(f) for f in finals]


CONFIGS = [
    ("tanh", dict(num_layers=2, bidirectional=True)),
    ("relu", dict(bias=False)),
    ("GRU", dict(num_layers=2, bidirectional=True, batch_first=True)),
    ("LSTM", dict(num_layers=2, bidirectional=True, proj_size=2)),
    ("LSTM", dict(bias=False, batch_first=True)),
]


def make(mode, kwargs, input_size=3, hidden_size=4):
    if mode in ("tanh", "relu"):
        return nn.RNN(input_size, hidden_size, nonlinearity=mode, **kwargs).double()
    return getattr(nn, mode)(input_size, hidden_size, **kwargs).double()


def initial_states(mode, module, batch, rng):
    D = 2 if module.bidirectional else 1
    out_size = module.proj_size or module.hidden_size
    shapes = [(module.num_layers * D, batch, out_size)]
    if mode == "LSTM":
        shapes.append((module.num_layers * D, batch, module.hidden_size))
    return [rng.standard_normal(s) for s in shapes]


@pytest.mark.parametrize("mode,kwargs", CONFIGS)
def test_packed_batch_matches_per_sequence_numpy(mode, kwargs):
    """Every sequence of an unsorted packed batch gives what it gives alone: outputs up to its
    length, h_n (and c_n) from its last valid step, its own initial state."""
    rng = np.random.default_rng(3)
    module = make(mode, kwargs)
    lengths = [2, 5, 1, 4]
    seqs = [rng.standard_normal((n, 3)) for n in lengths]
    states = initial_states(mode, module, len(seqs), rng)
    hx = [ag.tensor(s) for s in states]
    packed = pack_sequence([ag.tensor(s) for s in seqs], enforce_sorted=False)
    out, final = module(packed, hx[0] if mode != "LSTM" else tuple(hx))
    final = final if mode == "LSTM" else (final,)
    padded, out_lengths = pad_packed_sequence(out, batch_first=True)
    assert out_lengths.tolist() == lengths
    for b, seq in enumerate(seqs):
        want_out, want_final = np_reference(module, mode, seq, tuple(s[:, b] for s in states))
        np.testing.assert_allclose(padded[b, :lengths[b]].detach().numpy(), want_out, atol=1e-12)
        assert not padded[b, lengths[b]:].detach().numpy().any()
        for got, want in zip(final, want_final):
            np.testing.assert_allclose(got[:, b].detach().numpy(), want, atol=1e-12)


@pytest.mark.parametrize("mode,kwargs", CONFIGS)
def test_padded_and_unbatched_match_numpy(mode, kwargs):
    rng = np.random.default_rng(4)
    module = make(mode, kwargs)
    x = rng.standard_normal((2, 4, 3))  # two sequences of length 4
    states = initial_states(mode, module, 2, rng)
    xin = ag.tensor(x if module.batch_first else x.transpose(1, 0, 2).copy())
    hx = [ag.tensor(s) for s in states]
    out, final = module(xin, hx[0] if mode != "LSTM" else tuple(hx))
    final = final if mode == "LSTM" else (final,)
    out = out.detach().numpy() if module.batch_first else out.detach().numpy().transpose(1, 0, 2)
    for b in range(2):
        want_out, want_final = np_reference(module, mode, x[b], tuple(s[:, b] for s in states))
        np.testing.assert_allclose(out[b], want_out, atol=1e-12)
        for got, want in zip(final, want_final):
            np.testing.assert_allclose(got[:, b].detach().numpy(), want, atol=1e-12)
    # unbatched (L, I) input with (L*D, H) states: the same as batch element 0
    single = module(ag.tensor(x[0]), hx[0][:, 0] if mode != "LSTM"
                    else (hx[0][:, 0], hx[1][:, 0]))
    np.testing.assert_allclose(single[0].detach().numpy(), out[0], atol=1e-12)
    for got, want in zip(single[1] if mode == "LSTM" else (single[1],), final):
        np.testing.assert_allclose(got.detach().numpy(), want[:, 0].detach().numpy(), atol=1e-12)


# -- gradients --------------------------------------------------------------------------------
@pytest.mark.parametrize("mode,kwargs", [
    ("tanh", dict(bidirectional=True)),
    ("GRU", dict(num_layers=2)),
    ("LSTM", dict(proj_size=1, bidirectional=True)),
])
def test_gradcheck_parameters_and_input(mode, kwargs):
    module = make(mode, kwargs, input_size=2, hidden_size=2)
    x = ag.randn(3, 2, 2, dtype=ag.float64)
    gradcheck_module(module, x)


@pytest.mark.parametrize("mode,kwargs", [
    ("relu", dict(num_layers=2)),
    ("GRU", dict(bidirectional=True)),
    ("LSTM", dict(proj_size=1, bidirectional=True)),
])
def test_gradgradcheck_through_packing_and_initial_state(mode, kwargs):
    module = make(mode, kwargs, input_size=2, hidden_size=2)
    rng = np.random.default_rng(5)
    x = ag.tensor(rng.standard_normal((3, 2, 2)), requires_grad=True)
    states = [ag.tensor(s, requires_grad=True) for s in initial_states(mode, module, 2, rng)]
    if mode == "relu":  # keep away from relu's kink
        x = ag.tensor(np.abs(rng.standard_normal((3, 2, 2))) + 0.5, requires_grad=True)
        with ag.no_grad():
            for p in module.parameters():
                p.abs_()

    def f(x, *hx):
        packed = pack_padded_sequence(x, [1, 3], enforce_sorted=False)
        out, final = module(packed, tuple(hx) if mode == "LSTM" else hx[0])
        final = final if mode == "LSTM" else (final,)
        return (pad_packed_sequence(out)[0], *final)

    assert gradcheck(f, (x, *states))
    assert gradgradcheck(f, (x, *states))


def test_cells_gradgradcheck():
    for cell in (nn.RNNCell(2, 3), nn.LSTMCell(2, 3), nn.GRUCell(2, 3)):
        cell.double()
        x = ag.randn(2, 2, dtype=ag.float64, requires_grad=True)
        h = ag.randn(2, 3, dtype=ag.float64, requires_grad=True)
        c = ag.randn(2, 3, dtype=ag.float64, requires_grad=True)
        if isinstance(cell, nn.LSTMCell):
            f = lambda x, h, c, cell=cell: cell(x, (h, c))  # noqa: E731
            args = (x, h, c)
        else:
            f = lambda x, h, cell=cell: cell(x, h)  # noqa: E731
            args = (x, h)
        assert gradcheck(f, args) and gradgradcheck(f, args)
