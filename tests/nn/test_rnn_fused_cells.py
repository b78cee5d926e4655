"""The fused recurrent cells (``nn._functional.rnn_cells``): one node per time step (per layer
and direction in reference mode; a cell module's step), first-order array backward equal to the
recorded Tensor backward, float64 gradcheck and gradgradcheck of each cell (with and without
bias), float32 values and gradients against PyTorch, forward mode and vmap through a cell."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from nn_helpers import node_names

import arraygrad as ag
from arraygrad import nn
from arraygrad.autograd import gradcheck, gradgradcheck
from arraygrad.nn._functional.rnn_cells import gru_cell, lstm_cell, rnn_cell
from arraygrad.ops.rule import reference_mode

CELL_NODES = {"LSTM": "ThnnFusedLstmCellBackward0", "GRU": "ThnnFusedGruCellBackward0",
              "RNN": "RnnCellBackward0"}


@pytest.mark.parametrize("cls", ["LSTM", "GRU", "RNN"])
def test_one_node_per_step_layer_and_direction(cls):
    """The per-step path (reference mode; a layer otherwise records one node per layer and
    direction: test_rnn_sequences)."""
    ag.manual_seed(0)
    module = getattr(nn, cls)(3, 4, num_layers=2, bidirectional=True, dtype=ag.float64)
    with reference_mode():
        out, _ = module(ag.randn(5, 2, 3, dtype=ag.float64, requires_grad=True))
    names = node_names(out.grad_fn)
    assert names.count(CELL_NODES[cls]) == 5 * 2 * 2
    # no per-step gate nodes are left: the steps' activations are inside the cell nodes
    assert "SigmoidBackward0" not in names and "TanhBackward0" not in names


def cell_args(kind, batch, hidden, bias, seed, dtype=ag.float64):
    """(gi, h, [c,] w_hh, b_hh) leaves for one cell step."""
    gates = {"lstm": 4, "gru": 3, "rnn": 1}[kind] * hidden
    rng = np.random.default_rng(seed)

    def leaf(*shape):
        return ag.tensor(rng.standard_normal(shape) * 0.7, dtype=dtype, requires_grad=True)

    state = (leaf(batch, hidden), leaf(batch, hidden)) if kind == "lstm" else (leaf(batch, hidden),)
    return (leaf(batch, gates), *state, leaf(gates, hidden), leaf(gates) if bias else None)


def call_cell(kind, args, relu=False):
    if kind == "lstm":
        return lstm_cell(*args)
    if kind == "gru":
        return (gru_cell(*args),)
    return (rnn_cell(*args, relu),)


KINDS = [("lstm", False), ("gru", False), ("rnn", False), ("rnn", True)]


@pytest.mark.parametrize("kind,relu", KINDS)
@pytest.mark.parametrize("bias", [True, False])
def test_cell_gradcheck_and_gradgradcheck(kind, relu, bias):
    args = cell_args(kind, 3, 4, bias, seed=1)
    leaves = tuple(a for a in args if a is not None)

    def f(*xs):
        it = iter(xs)
        return call_cell(kind, tuple(None if a is None else next(it) for a in args), relu)

    assert gradcheck(f, leaves)
    assert gradgradcheck(f, leaves)


@settings(max_examples=25, deadline=None)
@given(kind=st.sampled_from(KINDS), batch=st.integers(1, 4), hidden=st.integers(1, 5),
       bias=st.booleans(), seed=st.integers(0, 2**16), need=st.lists(st.booleans(), min_size=5,
                                                                        max_size=5))
def test_first_order_arrays_equal_recorded_backward(kind, batch, hidden, bias, seed, need):
    """The array formulas (plain backward) and the Tensor formulas (reference mode) agree, for
    any subset of the inputs needing a gradient."""
    kind, relu = kind
    results = []
    for reference in (False, True):
        args = cell_args(kind, batch, hidden, bias, seed)
        wanted = [a for a, n in zip(args, need) if a is not None and n]
        if not wanted:
            return
        for a, n in zip(args, need):
            if a is not None and not n:
                a.requires_grad_(False)
        with reference_mode(reference):
            outs = call_cell(kind, args, relu)
            loss = sum(((o ** 2) * (k + 1)).sum() for k, o in enumerate(outs))
            results.append([g.numpy() for g in ag.autograd.grad(loss, wanted)])
    for fast, ref in zip(*results):
        np.testing.assert_allclose(fast, ref, rtol=1e-12, atol=1e-12)


def test_only_one_output_used_gets_zeros_for_the_other():
    """An LSTM step whose c' is unused: its gradient is taken as zeros (PyTorch's
    materialisation), in both backward modes."""
    grads = []
    for reference in (False, True):
        args = cell_args("lstm", 2, 3, True, seed=3)
        with reference_mode(reference):
            h, _ = lstm_cell(*args)
            grads.append(ag.autograd.grad(h.sum(), args[1])[0].numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)


@pytest.mark.parametrize("cls,kwargs", [
    ("LSTM", {"num_layers": 2}), ("LSTM", {"proj_size": 3, "bidirectional": True}),
    ("GRU", {"num_layers": 2, "batch_first": True}), ("RNN", {"nonlinearity": "relu"})])
def test_float32_values_and_gradients_match_torch(cls, kwargs):
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    theirs = getattr(torch.nn, cls)(6, 8, **kwargs)
    ours = getattr(nn, cls)(6, 8, **kwargs)
    ours.load_state_dict({k: ag.tensor(v.detach().numpy()) for k, v in
                          theirs.state_dict().items()})
    x = np.random.default_rng(4).standard_normal((7, 5, 6)).astype(np.float32)
    ax, tx = ag.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    a_out, _ = ours(ax)
    t_out, _ = theirs(tx)
    np.testing.assert_allclose(a_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-5,
                               atol=1e-5)
    (a_out ** 2).sum().backward()
    (t_out ** 2).sum().backward()
    np.testing.assert_allclose(ax.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)
    for (name, p), (_, tp) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=1e-4, atol=1e-4,
                                   err_msg=name)


def test_forward_mode_through_a_cell_matches_torch():
    torch = pytest.importorskip("torch")
    args = cell_args("lstm", 2, 3, True, seed=5)
    tangents = cell_args("lstm", 2, 3, True, seed=6)
    primals = tuple(a.detach() for a in args)
    _, ours = ag.func.jvp(lambda *xs: lstm_cell(*xs), primals,
                          tuple(t.detach() for t in tangents))

    def theirs(gi, h, c, w, b):
        i, f, g, o = (gi + h @ w.T + b).chunk(4, -1)
        c2 = f.sigmoid() * c + i.sigmoid() * g.tanh()
        return o.sigmoid() * c2.tanh(), c2

    _, expected = torch.func.jvp(theirs, tuple(torch.tensor(a.numpy()) for a in primals),
                                 tuple(torch.tensor(t.detach().numpy()) for t in tangents))
    for a, t in zip(ours, expected):
        np.testing.assert_allclose(a.numpy(), t.numpy(), rtol=1e-12, atol=1e-12)


def test_vmap_of_a_cell_equals_the_loop():
    ag.manual_seed(0)
    cell = nn.GRUCell(3, 4, dtype=ag.float64)
    xs, hs = ag.randn(5, 2, 3, dtype=ag.float64), ag.randn(5, 2, 4, dtype=ag.float64)
    batched = ag.func.vmap(cell)(xs, hs)
    looped = ag.stack([cell(x, h) for x, h in zip(xs, hs)])
    np.testing.assert_allclose(batched.detach().numpy(), looped.detach().numpy(), rtol=1e-12)


def test_half_precision_runs_the_same_formulas_op_by_op():
    """bfloat16 is not fused (its products round once in float32, as ``linear``); the step is
    the composite of ops, still one set of formulas."""
    ag.manual_seed(0)
    cell = nn.LSTMCell(3, 4, dtype=ag.bfloat16)
    h, c = cell(ag.randn(2, 3, dtype=ag.bfloat16))
    assert "ThnnFusedLstmCellBackward0" not in node_names(h.grad_fn)
    (h.float().sum() + c.float().sum()).backward()
    assert cell.weight_hh.grad is not None
