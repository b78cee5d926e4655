"""The fused recurrent layers (``nn._functional.rnn_sequences``): one node per layer and
direction for the whole sequence. Values and gradients equal the per-step reference (the fused
cells, which reference mode runs) for every layer option, float64 gradcheck and gradgradcheck
through the sequence nodes (double backward takes their recorded Tensor backward), float32
against PyTorch, forward mode, vmap and compile."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from nn_helpers import node_names

import arraygrad as ag
from arraygrad import nn
from arraygrad.autograd import gradcheck, gradgradcheck
from arraygrad.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
from arraygrad.ops.rule import fast_paths, reference_mode

SEQUENCE_NODES = {"LSTM": "LstmSequenceBackward0", "GRU": "GruSequenceBackward0",
                  "RNN": "RnnSequenceBackward0"}
CELL_NODES = {"LSTM": "ThnnFusedLstmCellBackward0", "GRU": "ThnnFusedGruCellBackward0",
              "RNN": "RnnCellBackward0"}
needs_fast_paths = pytest.mark.skipif(not fast_paths.on,
                                      reason="ARRAYGRAD_REFERENCE=1 runs the per-step cells")


@needs_fast_paths
@pytest.mark.parametrize("cls", ["LSTM", "GRU", "RNN"])
def test_one_node_per_layer_and_direction(cls):
    ag.manual_seed(0)
    module = getattr(nn, cls)(3, 4, num_layers=2, bidirectional=True, dtype=ag.float64)
    out, _ = module(ag.randn(5, 2, 3, dtype=ag.float64, requires_grad=True))
    names = node_names(out.grad_fn)
    assert names.count(SEQUENCE_NODES[cls]) == 2 * 2
    # no per-step node is left: the steps are inside the sequence nodes
    assert CELL_NODES[cls] not in names and "UnbindBackward0" not in names
    assert len(names) < 40


@pytest.mark.parametrize("cls", ["LSTM", "GRU", "RNN"])
def test_reference_mode_records_the_per_step_cells(cls):
    ag.manual_seed(0)
    module = getattr(nn, cls)(3, 4, dtype=ag.float64)
    with reference_mode():
        out, _ = module(ag.randn(5, 2, 3, dtype=ag.float64))
    names = node_names(out.grad_fn)
    assert names.count(CELL_NODES[cls]) == 5 and SEQUENCE_NODES[cls] not in names


MODES = [("LSTM", {}), ("GRU", {}), ("RNN", {"nonlinearity": "tanh"}),
         ("RNN", {"nonlinearity": "relu"})]


def run_layer(cls, kwargs, options, seed, dtype=ag.float64):
    """A layer's outputs and the gradients of every leaf, the input fed dense or packed."""
    layers, bidirectional, bias, batch_first, packed, given_state, proj, dropout = options
    ag.manual_seed(seed)
    extra = dict(kwargs)
    if cls == "LSTM" and proj:
        extra["proj_size"] = 2
    module = getattr(nn, cls)(3, 5, num_layers=layers, bidirectional=bidirectional, bias=bias,
                              batch_first=batch_first, dropout=dropout if layers > 1 else 0.0,
                              dtype=dtype, **extra)
    rng = np.random.default_rng(seed)
    steps, batch = 6, 4
    shape = (batch, steps, 3) if batch_first else (steps, batch, 3)
    x = ag.tensor(rng.standard_normal(shape), dtype=dtype, requires_grad=True)
    leaves = [x, *module.parameters()]
    directions = 2 if bidirectional else 1
    out_size = 2 if cls == "LSTM" and proj else 5
    state = None
    if given_state:
        h0 = ag.tensor(rng.standard_normal((layers * directions, batch, out_size)), dtype=dtype,
                       requires_grad=True)
        state = h0
        leaves.append(h0)
        if cls == "LSTM":
            c0 = ag.tensor(rng.standard_normal((layers * directions, batch, 5)), dtype=dtype,
                           requires_grad=True)
            state = (h0, c0)
            leaves.append(c0)
    inp = x
    lengths = [6, 3, 5, 1]
    if packed:
        inp = pack_padded_sequence(x, lengths, batch_first=batch_first, enforce_sorted=False)
    ag.manual_seed(seed + 1)  # the dropout masks: the same draws on both paths
    out, final = module(inp, state)
    if packed:
        out, _ = pad_packed_sequence(out, batch_first=batch_first)
    finals = final if isinstance(final, tuple) else (final,)
    weights = ag.tensor(rng.standard_normal(tuple(out.shape)), dtype=dtype)
    loss = (out * weights).sum() + sum((f * f * (k + 2)).sum() for k, f in enumerate(finals))
    grads = ag.autograd.grad(loss, leaves)
    return [t.detach().numpy() for t in (out, *finals)], [g.numpy() for g in grads]


options = st.tuples(st.integers(1, 2), st.booleans(), st.booleans(), st.booleans(),
                    st.booleans(), st.booleans(), st.booleans(), st.sampled_from([0.0, 0.4]))


@settings(max_examples=25, deadline=None)
@given(mode=st.sampled_from(MODES), options=options, seed=st.integers(0, 2**16))
def test_sequence_nodes_equal_the_per_step_reference(mode, options, seed):
    """Multi-layer, bidirectional, bias or not, batch_first, packed with unequal lengths,
    initial states given or not, proj_size, dropout between layers: the sequence nodes'
    outputs and gradients are the per-step cells' (reference mode)."""
    cls, kwargs = mode
    fast = run_layer(cls, kwargs, options, seed)
    with reference_mode():
        ref = run_layer(cls, kwargs, options, seed)
    for a, b in zip(fast[0] + fast[1], ref[0] + ref[1]):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("cls,kwargs", MODES + [("LSTM", {"proj_size": 2})])
@pytest.mark.parametrize("packed", [False, True])
def test_gradcheck_and_gradgradcheck_through_a_layer(cls, kwargs, packed):
    """float64 finite differences of a bidirectional layer, first and second order (second
    order runs the sequence nodes' recorded Tensor backward)."""
    ag.manual_seed(3)
    module = getattr(nn, cls)(2, 3, bidirectional=True, dtype=ag.float64, **kwargs)
    params = list(module.parameters())
    names = [n for n, _ in module.named_parameters()]
    x = ag.randn(3, 2, 2, dtype=ag.float64, requires_grad=True)

    def f(x, *ps):
        out, final = ag.func.functional_call(module, dict(zip(names, ps)), (
            pack_padded_sequence(x, [1, 3], enforce_sorted=False) if packed else x,))
        if packed:
            out = out.data
        return (out, *(final if isinstance(final, tuple) else (final,)))

    leaves = (x, *[p.detach().requires_grad_() for p in params])
    assert gradcheck(f, leaves)
    assert gradgradcheck(f, leaves)


@pytest.mark.parametrize("cls,kwargs", [
    ("LSTM", {"num_layers": 2, "bidirectional": True}), ("LSTM", {"proj_size": 3}),
    ("GRU", {"num_layers": 2, "bidirectional": True}),
    ("RNN", {"nonlinearity": "relu", "bidirectional": True})])
def test_packed_float32_with_states_matches_torch(cls, kwargs):
    torch = pytest.importorskip("torch")
    from torch.nn.utils.rnn import pack_padded_sequence as t_pack, pad_packed_sequence as t_pad
    torch.manual_seed(0)
    theirs = getattr(torch.nn, cls)(6, 8, batch_first=True, **kwargs)
    ours = getattr(nn, cls)(6, 8, batch_first=True, **kwargs)
    ours.load_state_dict({k: ag.tensor(v.detach().numpy()) for k, v in
                          theirs.state_dict().items()})
    rng = np.random.default_rng(5)
    x = rng.standard_normal((4, 7, 6)).astype(np.float32)
    layers = kwargs.get("num_layers", 1) * (2 if kwargs.get("bidirectional") else 1)
    h = rng.standard_normal((layers, 4, kwargs.get("proj_size") or 8)).astype(np.float32)
    c = rng.standard_normal((layers, 4, 8)).astype(np.float32)
    lengths = [3, 7, 1, 5]
    results = []
    for lib, pack, pad, tensor in ((ag, pack_padded_sequence, pad_packed_sequence, ag.tensor),
                                   (torch, t_pack, t_pad, torch.tensor)):
        module = ours if lib is ag else theirs
        leaves = [tensor(a, requires_grad=True) for a in (x, h, c)]
        state = (leaves[1], leaves[2]) if cls == "LSTM" else leaves[1]
        out, final = module(pack(leaves[0], lengths, batch_first=True, enforce_sorted=False),
                            state)
        out, _ = pad(out, batch_first=True)
        finals = final if isinstance(final, tuple) else (final,)
        loss = (out ** 2).sum() + sum((f ** 3).sum() for f in finals)
        loss.backward()
        results.append([out.detach().numpy(), *(f.detach().numpy() for f in finals),
                        *(t.grad.numpy() for t in leaves[:2 if cls != "LSTM" else 3]),
                        *(p.grad.numpy() for p in module.parameters())])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-4)


def test_no_grad_forward_keeps_nothing_and_equals_the_recorded_one():
    ag.manual_seed(0)
    lstm = nn.LSTM(3, 4, num_layers=2)
    x = ag.randn(5, 2, 3)
    out, (h, c) = lstm(x)
    with ag.no_grad():
        out2, (h2, c2) = lstm(x)
    assert out2.grad_fn is None and not out2.requires_grad
    for a, b in ((out, out2), (h, h2), (c, c2)):
        np.testing.assert_array_equal(a.detach().numpy(), b.numpy())


def test_only_some_outputs_used():
    """Gradients through ``h_n`` alone (the output and ``c_n`` unused) equal the reference's."""
    grads = []
    for reference in (False, True):
        ag.manual_seed(1)
        lstm = nn.LSTM(3, 4, num_layers=2, bidirectional=True, dtype=ag.float64)
        x = ag.randn(5, 2, 3, dtype=ag.float64, requires_grad=True)
        with reference_mode(reference):
            _, (h, _) = lstm(x)
            grads.append(ag.autograd.grad(h.sum(), [x, lstm.weight_hh_l0])[0].numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)


def test_forward_mode_through_a_layer_matches_torch():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    theirs = torch.nn.GRU(3, 4, num_layers=2, dtype=torch.float64)
    ours = nn.GRU(3, 4, num_layers=2, dtype=ag.float64)
    ours.load_state_dict({k: ag.tensor(v.detach().numpy()) for k, v in
                          theirs.state_dict().items()})
    rng = np.random.default_rng(2)
    x, t = rng.standard_normal((5, 2, 3)), rng.standard_normal((5, 2, 3))
    _, a = ag.func.jvp(lambda v: ours(v)[0], (ag.tensor(x),), (ag.tensor(t),))
    _, b = torch.func.jvp(lambda v: theirs(v)[0], (torch.tensor(x),), (torch.tensor(t),))
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("cls", ["LSTM", "GRU", "RNN"])
def test_vmap_of_a_layer_equals_the_loop(cls):
    ag.manual_seed(0)
    module = getattr(nn, cls)(3, 4, bidirectional=True, dtype=ag.float64)
    xs = ag.randn(3, 5, 2, 3, dtype=ag.float64)
    batched = ag.func.vmap(lambda x: module(x)[0])(xs)
    looped = ag.stack([module(x)[0] for x in xs])
    np.testing.assert_allclose(batched.detach().numpy(), looped.detach().numpy(), rtol=1e-12)


def test_compiled_training_step_equals_eager():
    def make():
        ag.manual_seed(0)
        return nn.LSTM(3, 4, num_layers=2, dtype=ag.float64)

    x = ag.randn(5, 2, 3, dtype=ag.float64)
    grads = []
    for compiled in (False, True):
        lstm = make()

        def step(x):
            out, _ = lstm(x)
            loss = (out ** 2).sum()
            loss.backward()
            return loss

        run = ag.compile(step) if compiled else step
        for _ in range(3):  # record, then replay
            lstm.zero_grad()
            loss = run(x)
        grads.append([loss.item(), *(p.grad.numpy().copy() for p in lstm.parameters())])
    for a, b in zip(*grads):
        np.testing.assert_allclose(a, b, rtol=1e-12)
