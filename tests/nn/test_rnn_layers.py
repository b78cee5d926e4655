"""RNN, LSTM, GRU and the cells: PyTorch's parameters, state_dict keys, repr, initialisation,
errors, dropout; outputs and gradients equal to PyTorch's (where installed) for a PyTorch
state_dict loaded as it is."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import arraygrad as ag
from arraygrad import nn
from arraygrad.nn.utils import rnn as R

try:
    import torch
    import torch.nn.utils.rnn as TR
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def npy(t):
    return t.detach().numpy()


def build(lib, cls, *args, **kwargs):
    return getattr(lib.nn, cls)(*args, **kwargs)


# -- parameters, state_dict, repr, init --------------------------------------------------------
def test_parameter_names_and_shapes():
    lstm = nn.LSTM(3, 5, num_layers=2, bidirectional=True, proj_size=2)
    shapes = {n: tuple(p.shape) for n, p in lstm.named_parameters()}
    assert list(shapes) == [
        f"{kind}_l{layer}{sfx}" for layer in (0, 1) for sfx in ("", "_reverse")
        for kind in ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr")]
    assert shapes["weight_ih_l0"] == (20, 3) and shapes["weight_hh_l0"] == (20, 2)
    assert shapes["weight_ih_l1_reverse"] == (20, 4) and shapes["weight_hr_l1"] == (2, 5)
    assert shapes["bias_ih_l0"] == shapes["bias_hh_l1_reverse"] == (20,)
    gru = nn.GRU(3, 4, bias=False)
    assert list(gru.state_dict()) == ["weight_ih_l0", "weight_hh_l0"]
    assert tuple(gru.weight_ih_l0.shape) == (12, 3) and gru.bias is False
    assert nn.RNN(3, 4).weight_ih_l0.shape == (4, 3)
    assert list(nn.RNNCell(3, 4, bias=False).state_dict()) == ["weight_ih", "weight_hh"]
    assert [tuple(p.shape) for p in nn.LSTMCell(3, 4).parameters()] == [(16, 3), (16, 4), (16,),
                                                                        (16,)]
    assert nn.GRUCell(3, 4).bias_ih.shape == (12,) and nn.GRUCell(3, 4, bias=False).bias_hh is None


def test_all_weights_flat_weights_and_flatten_parameters():
    lstm = nn.LSTM(3, 4, num_layers=2, bias=False, proj_size=2)
    assert lstm._all_weights == [["weight_ih_l0", "weight_hh_l0", "weight_hr_l0"],
                                 ["weight_ih_l1", "weight_hh_l1", "weight_hr_l1"]]
    assert lstm.all_weights[1][2] is lstm.weight_hr_l1
    assert lstm._flat_weights_names == [n for ns in lstm._all_weights for n in ns]
    assert lstm.flatten_parameters() is None
    lstm.double()  # the flat weights are read live: the same parameters, now float64
    assert all(w is p for w, p in zip(lstm._flat_weights, lstm.parameters()))
    assert lstm._flat_weights[0].dtype == ag.float64
    out, _ = lstm(ag.randn(2, 1, 3, dtype=ag.float64))
    assert out.dtype == ag.float64


def test_default_initialisation_range():
    for module, hidden in ((nn.LSTM(3, 16, num_layers=2, proj_size=4), 16),
                           (nn.GRUCell(3, 25), 25), (nn.RNN(2, 9, bidirectional=True), 9)):
        bound = 1 / math.sqrt(hidden)
        values = np.concatenate([npy(p).ravel() for p in module.parameters()])
        assert np.abs(values).max() <= bound
        assert values.std() == pytest.approx(bound / math.sqrt(3), rel=0.15)  # U(-b, b)
    dt = nn.GRU(2, 3, dtype=ag.float64)
    assert all(p.dtype == ag.float64 for p in dt.parameters())


@needs_torch
@pytest.mark.parametrize("make", [
    lambda L: L.nn.LSTM(4, 3, 2, dropout=0.5, bidirectional=True, batch_first=True, bias=False),
    lambda L: L.nn.LSTM(4, 3, proj_size=2),
    lambda L: L.nn.RNN(4, 3, 2, "relu"),
    lambda L: L.nn.RNN(4, 3),
    lambda L: L.nn.GRU(4, 3, dropout=0.25, num_layers=3),
    lambda L: L.nn.RNNCell(4, 5, nonlinearity="relu"),
    lambda L: L.nn.RNNCell(4, 5, False),
    lambda L: L.nn.LSTMCell(4, 5),
    lambda L: L.nn.GRUCell(4, 5, bias=False),
])
def test_repr_matches_torch(make):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert repr(make(ag)) == repr(make(torch))


def test_repr_without_torch():
    assert repr(nn.LSTM(4, 3, 2, batch_first=True, proj_size=1)) == \
        "LSTM(4, 3, proj_size=1, num_layers=2, batch_first=True)"
    assert repr(nn.RNNCell(4, 5, nonlinearity="relu")) == "RNNCell(4, 5, nonlinearity=relu)"


# -- errors ---------------------------------------------------------------------------------
CONSTRUCTOR_ERRORS = [
    (lambda: nn.GRU(4, 5, proj_size=2), ValueError, "proj_size argument is only supported"),
    (lambda: nn.RNN(4, 5, proj_size=0), ValueError, "proj_size argument is only supported"),
    (lambda: nn.RNN(4, 5, nonlinearity="gelu"), ValueError, "Unknown nonlinearity 'gelu'"),
    (lambda: nn.LSTM(4, 5, proj_size=5), ValueError, "proj_size has to be smaller"),
    (lambda: nn.LSTM(4, 5, proj_size=-1), ValueError, "proj_size should be a positive"),
    (lambda: nn.LSTM(4, 0), ValueError, "hidden_size must be greater than zero"),
    (lambda: nn.LSTM(0, 3), ValueError, "input_size must be greater than zero"),
    (lambda: nn.LSTM(4, 3, 0), ValueError, "num_layers must be greater than zero"),
    (lambda: nn.LSTM(4, 3, dropout=1.5), ValueError, "dropout should be a number in range"),
    (lambda: nn.LSTM(4, 3, dropout=True), ValueError, "dropout should be a number in range"),
    (lambda: nn.LSTM(4, 3, bias=1), TypeError, "bias should be of type bool, got: int"),
    (lambda: nn.GRU(4, 3, batch_first=1), TypeError, "batch_first should be of type bool"),
    (lambda: nn.LSTM(4.0, 3), TypeError, "input_size should be of type int, got: float"),
    (lambda: nn.LSTM(4, 3.0), TypeError, "hidden_size should be of type int, got: float"),
    (lambda: nn.RNNBase("CELL", 4, 3), ValueError, "Unrecognized RNN mode: CELL"),
]


@pytest.mark.parametrize("make,error,message", CONSTRUCTOR_ERRORS)
def test_constructor_errors(make, error, message):
    with pytest.raises(error, match=message):
        make()


def test_dropout_with_one_layer_warns():
    with pytest.warns(UserWarning, match="dropout=0.5 and num_layers=1"):
        nn.LSTM(4, 3, dropout=0.5)


FORWARD_ERRORS = [
    (lambda: nn.RNN(4, 5, 2)(ag.randn(3, 2, 6)), RuntimeError,
     r"input.size\(-1\) must be equal to input_size. Expected 4, got 6"),
    (lambda: nn.RNN(4, 5, 2)(ag.randn(3, 2, 4), ag.randn(2, 3, 5)), RuntimeError,
     r"Expected hidden size \(2, 2, 5\), got \[2, 3, 5\]"),
    (lambda: nn.GRU(4, 5, 2)(ag.randn(3, 2, 4), ag.randn(2, 5)), RuntimeError,
     "For batched 3-D input, hx should also be 3-D but got 2-D tensor"),
    (lambda: nn.GRU(4, 5, 2)(ag.randn(3, 4), ag.randn(2, 1, 5)), RuntimeError,
     "For unbatched 2-D input, hx should also be 2-D but got 3-D tensor"),
    (lambda: nn.RNN(4, 5)(ag.randn(3, 4, 2, 1)), ValueError,
     "RNN: Expected input to be 2D or 3D, got 4D tensor instead"),
    (lambda: nn.GRU(4, 5)(ag.randn(4)), ValueError,
     "GRU: Expected input to be 2D or 3D, got 1D instead"),
    (lambda: nn.LSTM(4, 5)(ag.randn(3, 4, 2, 1)), ValueError,
     "LSTM: Expected input to be 2D or 3D, got 4D instead"),
    (lambda: nn.RNN(4, 5)(ag.randn(3, 2, 4, dtype=ag.float64)), ValueError,
     r"RNN input dtype \(arraygrad.float64\) does not match weight dtype \(arraygrad.float32\)"),
    (lambda: nn.LSTM(4, 5, 2, proj_size=3)(ag.randn(3, 2, 4), (ag.randn(4, 2, 3),
                                                                ag.randn(2, 2, 5))),
     RuntimeError, r"Expected hidden\[0\] size \(2, 2, 3\), got \[4, 2, 3\]"),
    (lambda: nn.LSTM(4, 5, 2, proj_size=3)(ag.randn(3, 2, 4), (ag.randn(2, 2, 3),
                                                                ag.randn(2, 2, 3))),
     RuntimeError, r"Expected hidden\[1\] size \(2, 2, 5\), got \[2, 2, 3\]"),
    (lambda: nn.LSTM(4, 5)(ag.randn(3, 2, 4), (ag.randn(1, 2, 5), ag.randn(2, 5))),
     RuntimeError, r"For batched 3-D input, hx and cx should also be 3-D but got \(3-D, 2-D\)"),
    (lambda: nn.LSTM(4, 5)(ag.randn(3, 4), (ag.randn(1, 2, 5), ag.randn(1, 5))),
     RuntimeError, r"For unbatched 2-D input, hx and cx should also be 2-D but got \(3-D, 2-D\)"),
    (lambda: nn.LSTM(4, 5)(ag.randn(0, 2, 4)), RuntimeError,
     "Expected sequence length to be larger than 0 in RNN"),
    (lambda: nn.GRU(4, 5)(R.pack_sequence([ag.randn(3, 4, 1)])), RuntimeError,
     "input must have 2 dimensions, got 3"),
    (lambda: nn.GRU(4, 5)(R.pack_sequence([ag.randn(3, 4), ag.randn(2, 4)]), ag.randn(1, 3, 5)),
     RuntimeError, r"Expected hidden size \(1, 2, 5\), got \[1, 3, 5\]"),
    (lambda: nn.LSTM(4, 5)(R.pack_sequence([ag.randn(3, 6)])), RuntimeError,
     "Expected 4, got 6"),
    (lambda: nn.RNNCell(4, 5)(ag.randn(3, 6)), RuntimeError,
     "input has inconsistent input_size: got 6 expected 4"),
    (lambda: nn.RNNCell(4, 5)(ag.randn(3, 4), ag.randn(2, 5)), RuntimeError,
     "Input batch size 3 doesn't match hidden0 batch size 2"),
    (lambda: nn.GRUCell(4, 5)(ag.randn(3, 4), ag.randn(3, 6)), RuntimeError,
     "hidden0 has inconsistent hidden_size: got 6, expected 5"),
    (lambda: nn.RNNCell(4, 5)(ag.randn(3, 4, 1)), ValueError,
     "RNNCell: Expected input to be 1D or 2D, got 3D instead"),
    (lambda: nn.GRUCell(4, 5)(ag.randn(3, 4), ag.randn(3, 5, 1)), ValueError,
     "GRUCell: Expected hidden to be 1D or 2D, got 3D instead"),
    (lambda: nn.LSTMCell(4, 5)(ag.randn(3, 4), (ag.randn(3, 5), ag.randn(3, 5, 1))), ValueError,
     r"LSTMCell: Expected hx\[1\] to be 1D or 2D, got 3D instead"),
    (lambda: nn.LSTMCell(4, 5)(ag.randn(3, 4), (ag.randn(3, 5), ag.randn(2, 5))), RuntimeError,
     "Input batch size 3 doesn't match hidden1 batch size 2"),
    (lambda: nn.LSTMCell(4, 5)(ag.randn(3, 4), (ag.randn(3, 5), ag.randn(3, 6))), RuntimeError,
     "hidden1 has inconsistent hidden_size: got 6, expected 5"),
    (lambda: nn.RNNCell(4, 5)(ag.randn(4), ag.randn(3, 5)), RuntimeError,
     "hidden0 has inconsistent hidden_size: got 3, expected 5"),
    (lambda: nn.RNNCell(4, 5, nonlinearity="sigmoid")(ag.randn(3, 4)), RuntimeError,
     "Unknown nonlinearity: sigmoid"),
]


@pytest.mark.parametrize("call,error,message", FORWARD_ERRORS)
def test_forward_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


# -- shapes and modes ---------------------------------------------------------------------------
def test_output_shapes_batch_first_bidirectional_proj():
    lstm = nn.LSTM(3, 5, num_layers=2, bidirectional=True, batch_first=True, proj_size=2)
    out, (h, c) = lstm(ag.randn(4, 6, 3))
    assert tuple(out.shape) == (4, 6, 4) and tuple(h.shape) == (4, 4, 2)
    assert tuple(c.shape) == (4, 4, 5)
    out, h = nn.GRU(3, 5)(ag.randn(6, 3))  # unbatched
    assert tuple(out.shape) == (6, 5) and tuple(h.shape) == (1, 5)
    out, h = nn.RNN(3, 5)(ag.randn(6, 0, 3))  # an empty batch
    assert tuple(out.shape) == (6, 0, 5) and tuple(h.shape) == (1, 0, 5)
    assert tuple(nn.GRUCell(3, 5)(ag.randn(3)).shape) == (5,)


def test_forward_direction_final_state_is_last_output():
    gru = nn.GRU(3, 4, bidirectional=True)
    out, h = gru(ag.randn(5, 2, 3))
    np.testing.assert_array_equal(npy(h[0]), npy(out[-1, :, :4]))  # forward: last step
    np.testing.assert_array_equal(npy(h[1]), npy(out[0, :, 4:]))  # reverse: first step


def test_dropout_between_layers_only_in_training():
    ag.manual_seed(0)
    deep = nn.LSTM(3, 4, num_layers=2, dropout=1.0)
    x = ag.randn(5, 2, 3)
    deep.eval()
    eval_out = deep(x)[0]
    np.testing.assert_array_equal(npy(deep(x)[0]), npy(eval_out))  # deterministic
    nodrop = nn.LSTM(3, 4, num_layers=2)
    nodrop.load_state_dict(deep.state_dict())
    np.testing.assert_array_equal(npy(nodrop(x)[0]), npy(eval_out))
    # training with p=1: layer 1 sees zeros, so its output is the second layer run on zeros
    deep.train()
    out, (h, c) = deep(x)
    top = nn.LSTM(4, 4)
    top.load_state_dict({k.replace("l1", "l0"): v for k, v in deep.state_dict().items()
                         if k.endswith("l1")})
    want, (h1, c1) = top(ag.zeros(5, 2, 4))
    np.testing.assert_allclose(npy(out), npy(want), atol=1e-7)
    np.testing.assert_allclose(npy(h[1]), npy(h1[0]), atol=1e-7)
    # but the last layer's output is never dropped
    half = nn.GRU(3, 4, num_layers=2, dropout=0.5)
    assert (npy(half(x)[0]) != 0).all()


def test_parameters_get_gradients_and_state_dict_round_trip():
    lstm = nn.LSTM(3, 4, num_layers=2, bidirectional=True, proj_size=2)
    out, (h, c) = lstm(ag.randn(5, 2, 3))
    (out.sum() + c.sum()).backward()
    assert all(p.grad is not None and p.grad.shape == p.shape for p in lstm.parameters())
    other = nn.LSTM(3, 4, num_layers=2, bidirectional=True, proj_size=2)
    other.load_state_dict(lstm.state_dict())
    x = ag.randn(3, 1, 3)
    np.testing.assert_array_equal(npy(other(x)[0]), npy(lstm(x)[0]))


# -- against PyTorch --------------------------------------------------------------------------
def load_from_torch(module, torch_module):
    module.load_state_dict({k: ag.tensor(v.numpy()) for k, v in
                            torch_module.state_dict().items()})


MODES = [("RNN", {}), ("RNN", {"nonlinearity": "relu"}), ("GRU", {}), ("LSTM", {}),
         ("LSTM", {"proj_size": 2})]
LAYOUTS = [{}, {"num_layers": 2}, {"bidirectional": True}, {"batch_first": True},
           {"bias": False}, {"num_layers": 2, "bidirectional": True, "batch_first": True}]


def make_pair(cls, kwargs):
    theirs = getattr(torch.nn, cls)(3, 4, **kwargs).double()
    ours = getattr(nn, cls)(3, 4, **kwargs).double()
    load_from_torch(ours, theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    return ours, theirs


def states(cls, kwargs, batch, rng, lib):
    D = 2 if kwargs.get("bidirectional") else 1
    n = kwargs.get("num_layers", 1) * D
    h = rng.standard_normal((n, batch, kwargs.get("proj_size") or 4))
    if cls != "LSTM":
        return lib.tensor(h, requires_grad=True)
    return (lib.tensor(h, requires_grad=True),
            lib.tensor(rng.standard_normal((n, batch, 4)), requires_grad=True))


def loss_of(out, final):
    finals = final if isinstance(final, tuple) else (final,)
    return (out ** 2).sum() + sum((f ** 3).sum() for f in finals)


def assert_same_grads(ours, theirs, pairs):
    for (name, p), (t_name, tp) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert name == t_name
        np.testing.assert_allclose(npy(p.grad), tp.grad.numpy(), atol=1e-10, err_msg=name)
    for a, b in pairs:
        np.testing.assert_allclose(npy(a.grad), b.grad.numpy(), atol=1e-10)


def leaves(hx):
    return () if hx is None else (hx if isinstance(hx, tuple) else (hx,))


@needs_torch
@pytest.mark.parametrize("cls,mode", MODES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_padded_input_matches_torch(cls, mode, layout):
    kwargs = {**mode, **layout}
    ours, theirs = make_pair(cls, kwargs)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 5, 3) if kwargs.get("batch_first") else (5, 2, 3))
    ax, tx = ag.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ah, th = states(cls, kwargs, 2, np.random.default_rng(1), ag), \
        states(cls, kwargs, 2, np.random.default_rng(1), torch)
    a_out, a_final = ours(ax, ah)
    t_out, t_final = theirs(tx, th)
    np.testing.assert_allclose(npy(a_out), t_out.detach().numpy(), atol=1e-12)
    for a, t in zip(leaves(a_final), leaves(t_final)):
        np.testing.assert_allclose(npy(a), t.detach().numpy(), atol=1e-12)
    loss_of(a_out, a_final).backward()
    loss_of(t_out, t_final).backward()
    assert_same_grads(ours, theirs, [(ax, tx), *zip(leaves(ah), leaves(th))])


@needs_torch
@pytest.mark.parametrize("cls,mode", MODES)
@pytest.mark.parametrize("layout,enforce_sorted,with_state", [
    ({}, True, False), ({"num_layers": 2, "bidirectional": True}, False, True),
    ({"batch_first": True, "bidirectional": True}, False, False)])
def test_packed_input_matches_torch(cls, mode, layout, enforce_sorted, with_state):
    kwargs = {**mode, **layout}
    ours, theirs = make_pair(cls, kwargs)
    bf = kwargs.get("batch_first", False)
    lengths = [5, 3, 3, 1] if enforce_sorted else [3, 5, 1, 4]
    x = np.random.default_rng(2).standard_normal((4, 5, 3) if bf else (5, 4, 3))
    ax, tx = ag.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ah = states(cls, kwargs, 4, np.random.default_rng(3), ag) if with_state else None
    th = states(cls, kwargs, 4, np.random.default_rng(3), torch) if with_state else None
    a_out, a_final = ours(R.pack_padded_sequence(ax, lengths, bf, enforce_sorted), ah)
    t_out, t_final = theirs(TR.pack_padded_sequence(tx, lengths, bf, enforce_sorted), th)
    assert isinstance(a_out, R.PackedSequence)
    assert a_out.batch_sizes.tolist() == t_out.batch_sizes.tolist()
    np.testing.assert_allclose(npy(a_out.data), t_out.data.detach().numpy(), atol=1e-12)
    for a, t in zip(leaves(a_final), leaves(t_final)):
        np.testing.assert_allclose(npy(a), t.detach().numpy(), atol=1e-12)
    a_pad = R.pad_packed_sequence(a_out, bf)[0]
    t_pad = TR.pad_packed_sequence(t_out, bf)[0]
    loss_of(a_pad, a_final).backward()
    loss_of(t_pad, t_final).backward()
    assert_same_grads(ours, theirs, [(ax, tx), *zip(leaves(ah), leaves(th))])


@needs_torch
@pytest.mark.parametrize("cls,mode", MODES)
@pytest.mark.parametrize("with_state", [False, True])
def test_unbatched_input_matches_torch(cls, mode, with_state):
    kwargs = {**mode, "num_layers": 2, "bidirectional": True}
    ours, theirs = make_pair(cls, kwargs)
    x = np.random.default_rng(4).standard_normal((5, 3))
    ax, tx = ag.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ah = th = None
    if with_state:
        ah = states(cls, kwargs, 1, np.random.default_rng(5), ag)
        th = states(cls, kwargs, 1, np.random.default_rng(5), torch)
        squeeze = lambda s: s.detach()[:, 0].requires_grad_(True)  # noqa: E731
        ah = tuple(map(squeeze, ah)) if cls == "LSTM" else squeeze(ah)
        th = tuple(map(squeeze, th)) if cls == "LSTM" else squeeze(th)
    a_out, a_final = ours(ax, ah)
    t_out, t_final = theirs(tx, th)
    assert tuple(a_out.shape) == tuple(t_out.shape)
    np.testing.assert_allclose(npy(a_out), t_out.detach().numpy(), atol=1e-12)
    for a, t in zip(leaves(a_final), leaves(t_final)):
        assert tuple(a.shape) == tuple(t.shape)
        np.testing.assert_allclose(npy(a), t.detach().numpy(), atol=1e-12)
    loss_of(a_out, a_final).backward()
    loss_of(t_out, t_final).backward()
    assert_same_grads(ours, theirs, [(ax, tx), *zip(leaves(ah), leaves(th))])


@needs_torch
@pytest.mark.parametrize("cls,kwargs", [("RNNCell", {}), ("RNNCell", {"nonlinearity": "relu"}),
                                        ("LSTMCell", {}), ("GRUCell", {"bias": False}),
                                        ("GRUCell", {})])
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("with_state", [True, False])
def test_cells_match_torch(cls, kwargs, batched, with_state):
    theirs = getattr(torch.nn, cls)(3, 4, **kwargs).double()
    ours = getattr(nn, cls)(3, 4, **kwargs).double()
    load_from_torch(ours, theirs)
    rng = np.random.default_rng(6)
    x = rng.standard_normal((2, 3) if batched else (3,))
    hs = [rng.standard_normal((2, 4) if batched else (4,)) for _ in range(2)]
    ax, tx = ag.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ah = [ag.tensor(h, requires_grad=True) for h in hs]
    th = [torch.tensor(h, requires_grad=True) for h in hs]
    if cls == "LSTMCell":
        a_args, t_args = ((tuple(ah),), (tuple(th),)) if with_state else ((), ())
    else:
        a_args, t_args = ((ah[0],), (th[0],)) if with_state else ((), ())
    a_res, t_res = ours(ax, *a_args), theirs(tx, *t_args)
    a_res = a_res if isinstance(a_res, tuple) else (a_res,)
    t_res = t_res if isinstance(t_res, tuple) else (t_res,)
    for a, t in zip(a_res, t_res):
        assert tuple(a.shape) == tuple(t.shape)
        np.testing.assert_allclose(npy(a), t.detach().numpy(), atol=1e-12)
    sum((r ** 2).sum() for r in a_res).backward()
    sum((r ** 2).sum() for r in t_res).backward()
    pairs = [(ax, tx)] + ([(a, t) for a, t in zip(ah, th)
                           if with_state and (cls == "LSTMCell" or a is ah[0])])
    assert_same_grads(ours, theirs, pairs)


def test_deepcopy_and_replaced_parameters_are_used():
    import copy

    gru = nn.GRU(3, 4, num_layers=2)
    x = ag.randn(4, 2, 3)
    twin = copy.deepcopy(gru)
    assert twin._flat_weights[0] is twin.weight_ih_l0 is not gru.weight_ih_l0
    np.testing.assert_array_equal(npy(twin(x)[0]), npy(gru(x)[0]))
    # a parameter assigned anew is the one the layer runs with (no stale flat-weight cache)
    twin.weight_hh_l1 = nn.Parameter(ag.zeros(12, 4))
    assert twin._flat_weights[twin._flat_weights_names.index("weight_hh_l1")] is \
        twin.weight_hh_l1
    assert not np.allclose(npy(twin(x)[0]), npy(gru(x)[0]))
