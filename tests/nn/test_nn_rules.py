"""The ops ``nn`` records are rules: node names, edges, saved values, and the first-order
(array) formulas agreeing with the recorded vjps, both as shipped and in reference mode."""

import numpy as np
import pytest

import arraygrad as ag
import arraygrad.nn.functional as F
from arraygrad.ops.rule import reference_mode, rules

try:  # the comparisons with PyTorch skip without it; the other checks here always run
    import torch
except ImportError:
    torch = None
tF = None if torch is None else torch.nn.functional
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


MODES = [False, True]  # reference_mode(on): fast paths as shipped, then the general path


def _pair(*shape, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    return (ag.tensor(a.tolist(), dtype=ag.float64, requires_grad=True),
            torch.tensor(a, dtype=torch.float64, requires_grad=True))


def _close(a, t):
    np.testing.assert_allclose(np.asarray(a.tolist()), t.detach().numpy(), rtol=1e-10, atol=1e-12)


def test_nn_node_names_are_rules():
    table = rules()
    for key, name in (("AddmmBackward0",) * 2, ("LinearMmBackward0", "MmBackward0"),
                      ("LinearBackwardBackward0",) * 2, ("NllLossBackward0",) * 2,
                      ("ErfBackward0",) * 2, ("LogSigmoidBackward0",) * 2,
                      ("Im2ColBackward0",) * 2, ("Col2ImBackward0",) * 2):
        assert key in table and table[key].node.__name__ == name


@needs_torch
@pytest.mark.parametrize("reference", MODES)
@pytest.mark.parametrize("shape", [(5, 3), (2, 4, 3), (3,)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_one_node_and_grads(reference, shape, bias):
    x, tx = _pair(*shape, seed=1)
    w, tw = _pair(2, 3, seed=2)
    b, tb = _pair(2, seed=3) if bias else (None, None)
    with reference_mode(reference):
        y = F.linear(x, w, b)
        assert type(y.grad_fn).__name__ == ("AddmmBackward0" if bias else "MmBackward0")
        # one node: every edge goes straight to a leaf's AccumulateGrad
        assert [type(fn).__name__ for fn, _ in y.grad_fn.next_functions] == \
            ["AccumulateGrad"] * (3 if bias else 2)
        (y * y).sum().backward()
    (tF.linear(tx, tw, tb) ** 2).sum().backward()
    for a, t in ((x, tx), (w, tw)) + (((b, tb),) if bias else ()):
        _close(a.grad, t.grad)


@needs_torch
@pytest.mark.parametrize("reference", MODES)
def test_linear_scalar_bias_gets_a_scalar_gradient(reference):
    # the bias's gradient was left (out_features,)-shaped for a 0-d bias
    x, tx = _pair(4, 3, seed=4)
    w, tw = _pair(2, 3, seed=5)
    b = ag.tensor(0.5, dtype=ag.float64, requires_grad=True)
    tb = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
    with reference_mode(reference):
        F.linear(x, w, b).sum().backward()
    tF.linear(tx, tw, tb).sum().backward()
    assert tuple(b.grad.shape) == () == tuple(tb.grad.shape)
    _close(b.grad, tb.grad)


@needs_torch
def test_linear_saves_the_input_only_for_the_weight_gradient():
    x, _ = _pair(4, 3, seed=6)
    w = ag.randn(2, 3, dtype=ag.float64)
    node = F.linear(x, w).grad_fn
    assert node._saved_input is None and node._saved_weight is w
    w.requires_grad_()
    node = F.linear(x, w).grad_fn
    assert node._saved_input is x and node._saved_weight is w


@needs_torch
@pytest.mark.parametrize("reference", MODES)
@pytest.mark.parametrize("need", ["x", "w", "xw"])
def test_linear_double_backward_is_one_node(reference, need):
    x, tx = _pair(4, 3, seed=7)
    w, tw = _pair(2, 3, seed=8)
    b, tb = _pair(2, seed=9)
    wrt = [t for k, t in (("x", x), ("w", w)) if k in need]
    twrt = [t for k, t in (("x", tx), ("w", tw)) if k in need]
    with reference_mode(reference):
        y = ag.tanh(F.linear(x, w, b))
        grads = ag.autograd.grad(y.sum(), wrt, create_graph=True)
        assert type(grads[0].grad_fn).__name__ == "LinearBackwardBackward0"
        sum((g * g).sum() for g in grads).backward()
    ty = torch.tanh(tF.linear(tx, tw, tb))
    tgrads = torch.autograd.grad(ty.sum(), twrt, create_graph=True)
    sum((g * g).sum() for g in tgrads).backward()
    for a, t in ((x, tx), (w, tw), (b, tb)):
        _close(a.grad, t.grad)


@needs_torch
@pytest.mark.parametrize("reference", MODES)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("ignore_index", [-100, 1])
def test_nll_one_node_both_ways(reference, reduction, ignore_index):
    x, tx = _pair(6, 4, seed=10)
    target = [0, 1, 3, 2, 1, 0]
    with reference_mode(reference):
        loss = F.cross_entropy(x, ag.tensor(target), reduction=reduction,
                               ignore_index=ignore_index)
        assert type(loss.grad_fn).__name__ == "NllLossBackward0"
        (loss * loss).sum().backward()
    tloss = tF.cross_entropy(tx, torch.tensor(target), reduction=reduction,
                             ignore_index=ignore_index)
    (tloss * tloss).sum().backward()
    _close(loss, tloss)
    _close(x.grad, tx.grad)


@needs_torch
@pytest.mark.parametrize("reference", MODES)
def test_nll_second_order(reference):
    x, tx = _pair(5, 3, seed=11)
    target = [0, 2, 1, 1, 0]
    with reference_mode(reference):
        loss = F.cross_entropy(x, ag.tensor(target))
        (g,) = ag.autograd.grad(loss, x, create_graph=True)
        (g * g).sum().backward()
    (tg,) = torch.autograd.grad(tF.cross_entropy(tx, torch.tensor(target)), tx,
                                create_graph=True)
    (tg * tg).sum().backward()
    _close(x.grad, tx.grad)


@needs_torch
@pytest.mark.parametrize("op, name", [("erf", "ErfBackward0"),
                                      ("log_sigmoid", "LogSigmoidBackward0")])
def test_erf_and_log_sigmoid_first_and_second_order(op, name):
    from arraygrad.nn import _ops

    x, tx = _pair(7, seed=12)
    fn = getattr(_ops, op)
    tfn = {"erf": torch.erf, "log_sigmoid": tF.logsigmoid}[op]
    y = fn(x)
    assert type(y.grad_fn).__name__ == name
    assert y.grad_fn._saved_self is x
    (g,) = ag.autograd.grad(y.sum(), x, create_graph=True)
    (g * g).sum().backward()
    (tg,) = torch.autograd.grad(tfn(tx).sum(), tx, create_graph=True)
    (tg * tg).sum().backward()
    _close(g, tg)
    _close(x.grad, tx.grad)


@needs_torch
@pytest.mark.parametrize("reference", MODES)
def test_im2col_col2im_nodes_and_double_backward(reference):
    x, tx = _pair(2, 3, 5, 5, seed=13)
    w, tw = _pair(4, 3, 3, 3, seed=14)
    with reference_mode(reference):
        cols = F.unfold(x, 3, padding=1)
        names = set()
        fn = cols.grad_fn
        while fn is not None:  # down the chain of view nodes to the recorded op
            names.add(type(fn).__name__)
            nxt = [f for f, _ in fn.next_functions if f is not None]
            fn = nxt[0] if nxt and type(nxt[0]).__name__ != "AccumulateGrad" else None
        assert "Im2ColBackward0" in names
        img = F.fold(cols, (5, 5), 3, padding=1)
        assert type(img.grad_fn).__name__ == "Col2ImBackward0"
        y = F.conv2d(x, w, padding=1)
        (g,) = ag.autograd.grad((y * y).sum(), x, create_graph=True)
        (g * g).sum().backward()
    ty = tF.conv2d(tx, tw, padding=1)
    (tg,) = torch.autograd.grad((ty * ty).sum(), tx, create_graph=True)
    (tg * tg).sum().backward()
    _close(g, tg)
    _close(w.grad, tw.grad)
