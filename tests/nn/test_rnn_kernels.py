"""The NumPy backend's LSTM sequence kernels (``arraygrad_numpy.rnn_kernels``), forward and
backward: the portable formulas' values bit for bit (they are the kernels' reference twins),
what they decline, and that layers take them while fast paths are on and not in reference
mode."""

from __future__ import annotations

import functools
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag
from arraygrad import nn
from arraygrad.nn._functional import rnn_sequences
from arraygrad.ops.rule import fast_paths, reference_mode

kernels = pytest.importorskip("arraygrad_numpy.rnn_kernels")
numpy_backend = pytest.importorskip("arraygrad_numpy.backend")

BACKEND = ag.tensor([0.0])._backend


def _operands(rng, dtype, batch, hidden, steps, features, bias):
    gi = rng.standard_normal((steps, batch, 4 * hidden) if features == 3
                             else (steps * batch, 4 * hidden)).astype(dtype) * 2
    h0, c0 = (rng.standard_normal((batch, hidden)).astype(dtype) for _ in range(2))
    w = rng.standard_normal((4 * hidden, hidden)).astype(dtype)
    b = rng.standard_normal(4 * hidden).astype(dtype) if bias else None
    return gi, h0, c0, w, b


def _portable(*args):
    return rnn_sequences._lstm_forward_portable(BACKEND, *args)


def _backward_kernel(*args):
    return BACKEND.kernel("lstm_sequence_backward")(*args)


def _backward_portable(*args):
    return rnn_sequences._lstm_backward_portable(BACKEND, *args)


def _same(found, expected):
    assert len(found) == len(expected)
    for f, e in zip(found, expected):
        if e is None:
            assert f is None
        else:
            assert f.dtype == e.dtype and f.shape == e.shape
            assert np.array_equal(f.view(np.uint8), np.ascontiguousarray(e).view(np.uint8))


@settings(max_examples=60, deadline=None)
@given(dtype=st.sampled_from([np.float32, np.float64]), batch=st.integers(1, 5),
       hidden=st.integers(1, 6), steps=st.integers(1, 5), features=st.sampled_from([2, 3]),
       bias=st.booleans(), reverse=st.booleans(), keep=st.booleans(),
       seed=st.integers(0, 2**16))
def test_the_kernel_is_the_portable_formula_bit_for_bit(dtype, batch, hidden, steps, features,
                                                         bias, reverse, keep, seed):
    gi, h0, c0, w, b = _operands(np.random.default_rng(seed), dtype, batch, hidden, steps,
                                 features, bias)
    args = (gi, h0, c0, w, b, None, (batch,) * steps, reverse, keep)
    before = [a.copy() for a in (gi, h0, c0, w)]
    _same(kernels.lstm_sequence_forward(*args), _portable(*args))
    for a, kept in zip((gi, h0, c0, w), before):  # the operands are read only
        assert np.array_equal(a, kept)


@settings(max_examples=60, deadline=None)
@given(dtype=st.sampled_from([np.float32, np.float64]), batch=st.integers(1, 5),
       hidden=st.integers(1, 6), steps=st.integers(1, 5), features=st.sampled_from([2, 3]),
       reverse=st.booleans(), need=st.lists(st.booleans(), min_size=3, max_size=3),
       seed=st.integers(0, 2**16))
def test_the_backward_kernel_is_the_portable_formula_bit_for_bit(dtype, batch, hidden, steps,
                                                                  features, reverse, need, seed):
    rng = np.random.default_rng(seed)
    gi, h0, c0, w, b = _operands(rng, dtype, batch, hidden, steps, features, True)
    sizes = (batch,) * steps
    *_, h_prev, scale, through, forget, cell = kernels.lstm_sequence_forward(
        gi, h0, c0, w, b, None, sizes, reverse, True)
    g_out = rng.standard_normal(gi.shape[:-1] + (hidden,)).astype(dtype)
    g_h, g_c = (rng.standard_normal((batch, hidden)).astype(dtype) for _ in range(2))
    needs = (need[0], True, True, need[1], need[2], False)
    args = (g_out, g_h, g_c, w, None, h_prev, scale, through, forget, cell, sizes, reverse,
            needs)
    before = [a.copy() for a in (g_out, g_h, g_c, w, scale)]
    _same(_backward_kernel(*args), _backward_portable(*args))
    for a, kept in zip((g_out, g_h, g_c, w, scale), before):  # the operands are read only
        assert np.array_equal(a, kept)


def test_the_final_state_is_not_a_view_of_the_output():
    gi, h0, c0, w, b = _operands(np.random.default_rng(0), np.float32, 2, 3, 4, 2, True)
    out, h_n, c_n, *_ = kernels.lstm_sequence_forward(gi, h0, c0, w, b, None, (2,) * 4,
                                                      False, True)
    assert not np.shares_memory(out, h_n) and np.array_equal(out[-2:], h_n)


def test_it_declines_what_it_does_not_serve():
    gi, h0, c0, w, b = _operands(np.random.default_rng(0), np.float32, 3, 2, 3, 2, True)
    decline = kernels.lstm_sequence_forward
    # packed steps of fewer rows, a projection, no steps, mixed or half dtypes, other arrays
    gi_packed = gi[:8]
    assert decline(gi_packed, h0, c0, w, b, None, (3, 3, 2), False, True) is NotImplemented
    w_hr = np.ones((1, 2), np.float32)
    assert decline(gi, h0[:, :1], c0, w, b, w_hr, (3,) * 3, False, True) is NotImplemented
    assert decline(gi[:0], h0, c0, w, b, None, (), False, True) is NotImplemented
    assert decline(gi, h0.astype(np.float64), c0, w, b, None, (3,) * 3, False,
                   True) is NotImplemented
    half = [a.astype(np.float16) for a in (gi, h0, c0, w, b)]
    assert decline(*half, None, (3,) * 3, False, True) is NotImplemented
    assert decline(gi.tolist(), h0, c0, w, b, None, (3,) * 3, False, True) is NotImplemented
    kept = decline(gi, h0, c0, w, b, None, (3,) * 3, False, True)[3:]
    g = np.ones((9, 2), np.float32)
    needs = (True,) * 6
    assert _backward_kernel(g[:8], h0, c0, w, w_hr, *kept[:4], None, (3, 3, 2), False,
                            needs) is NotImplemented
    assert _backward_kernel(g, h0, c0, w, None, *kept[:4], g, (3,) * 3, False,
                            needs) is NotImplemented  # a projection's kept cells
    assert _backward_kernel(g.astype(np.float64), h0, c0, w, None, *kept, (3,) * 3, False,
                            needs) is NotImplemented


def _layer_step(bidirectional):
    ag.manual_seed(0)
    layer = nn.LSTM(3, 4, num_layers=2, bidirectional=bidirectional)
    x = ag.randn(5, 2, 3, requires_grad=True)
    out, (h, c) = layer(x)
    ((out * out).sum() + h.sum() + c.sum()).backward()
    return [t.detach().numpy() for t in (out, h, c, x.grad,
                                         *(p.grad for p in layer.parameters()))]


@pytest.mark.skipif(not fast_paths.on, reason="ARRAYGRAD_REFERENCE=1 runs the per-step cells")
@pytest.mark.parametrize("bidirectional", [False, True])
def test_layers_take_the_kernel_and_equal_the_portable_formula(monkeypatch, bidirectional):
    calls, backward_calls = [], []

    def counted(*args):
        calls.append(args[-1])
        return kernels.lstm_sequence_forward(*args)

    def counted_backward(*args):
        backward_calls.append(args[-1])
        return kernels.lstm_sequence_backward(*args)

    monkeypatch.setitem(numpy_backend._KERNELS, "lstm_sequence_forward", counted)
    monkeypatch.setitem(BACKEND._namespace_kernels, "lstm_sequence_backward",
                        functools.partial(counted_backward, BACKEND.xp))
    with_kernel = _layer_step(bidirectional)
    layers = 2 * (2 if bidirectional else 1)
    assert len(calls) == layers and all(calls)  # keep: recorded
    assert len(backward_calls) == layers
    monkeypatch.delitem(numpy_backend._KERNELS, "lstm_sequence_forward")
    monkeypatch.delitem(BACKEND._namespace_kernels, "lstm_sequence_backward")
    for found, expected in zip(with_kernel, _layer_step(bidirectional)):
        assert np.array_equal(found, expected)


def test_reference_mode_never_calls_the_kernel(monkeypatch):
    def refuse(*args):
        raise AssertionError("the kernel ran in reference mode")

    monkeypatch.setitem(numpy_backend._KERNELS, "lstm_sequence_forward", refuse)
    monkeypatch.setitem(BACKEND._namespace_kernels, "lstm_sequence_backward", refuse)
    gi, h0, c0, w, b = _operands(np.random.default_rng(0), np.float32, 2, 3, 4, 2, True)
    args = (gi, h0, c0, w, b, None, (2,) * 4, False, True)
    with reference_mode():
        found = rnn_sequences.lstm_sequence_data(BACKEND, *args)
        _same(found, _portable(*args))
        g = np.ones((8, 3), np.float32)
        grad_args = (g, h0, c0, w, None, *found[3:], (2,) * 4, False, (True,) * 6)
        _same(rnn_sequences.lstm_sequence_grad_data(BACKEND, *grad_args),
              _backward_portable(*grad_args))
