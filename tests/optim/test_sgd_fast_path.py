"""SGD's update on the arrays (``ops.fast_optim.sgd_step``) is the Tensor form's bit for bit,
bumps the same version counters, and leaves to the Tensor form what it does not compute
exactly (float16, sparse gradients, recording steps, a tensor learning rate) and the first
momentum step (which makes the buffer)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag
from arraygrad.ops import fast_optim
from arraygrad.ops.rule import fast_paths, reference_mode

from _fast_path_runs import assert_same as _same, beside_pytorch, train


@settings(max_examples=30, deadline=None)
@given(momentum=st.sampled_from([0.0, 0.9]), dampening=st.sampled_from([0.0, 0.3]),
       nesterov=st.booleans(), maximize=st.booleans(), wd=st.sampled_from([0.0, 0.05]),
       lr=st.sampled_from([1e-3, 0.05]), dtype=st.sampled_from(["float32", "float64"]))
def test_the_same_values_and_versions_as_the_tensor_form(momentum, dampening, nesterov,
                                                         maximize, wd, lr, dtype):
    if nesterov and (momentum == 0 or dampening != 0):
        nesterov = False  # SGD refuses it (its own test)
    kw = dict(lr=lr, momentum=momentum, dampening=dampening, nesterov=nesterov,
              maximize=maximize, weight_decay=wd)
    got = train(ag.optim.SGD, getattr(ag, dtype), **kw)
    with reference_mode():
        ref = train(ag.optim.SGD, getattr(ag, dtype), **kw)
    _same(got, ref)


def test_a_tensor_learning_rate_and_float16_take_the_tensor_form():
    for kw, dtype in ((dict(lr=ag.tensor(0.01), momentum=0.5), ag.float32),
                      (dict(lr=0.01, momentum=0.5), ag.float16)):
        got = train(ag.optim.SGD, dtype, **kw)
        with reference_mode():
            ref = train(ag.optim.SGD, dtype, **kw)
        _same(got, ref)


def test_taken_where_exact_and_declined_elsewhere():
    if not fast_paths.on:
        pytest.skip("reference mode: no fast path")
    group = dict(momentum=0.0, dampening=0.0, nesterov=False, maximize=False, weight_decay=0.0)
    p = ag.nn.Parameter(ag.tensor([1.0, 2.0]))
    p.grad = ag.ones(2)
    with ag.no_grad():
        assert fast_optim.sgd_step(p, None, group, -0.5)
        assert p.tolist() == [0.5, 1.5] and p._version == 1
        half = ag.nn.Parameter(ag.ones(2, dtype=ag.float16))
        half.grad = ag.ones(2, dtype=ag.float16)
        assert not fast_optim.sgd_step(half, None, group, -0.5)  # float32 opmath
        sparse = ag.nn.Parameter(ag.ones(2))
        sparse.grad = ag.ones(2).to_sparse()
        assert not fast_optim.sgd_step(sparse, None, group, -0.5)
        with_momentum = dict(group, momentum=0.9)
        assert not fast_optim.sgd_step(p, {}, with_momentum, -0.5)  # no buffer yet
        buf = ag.zeros(2, dtype=ag.float64)  # a buffer of another dtype: nothing written
        assert not fast_optim.sgd_step(p, {"momentum_buffer": buf}, with_momentum, -0.5)
        assert p.tolist() == [0.5, 1.5] and buf.tolist() == [0.0, 0.0]
    assert not fast_optim.sgd_step(p, None, group, -0.5)  # grad mode on: the Tensor form


def test_an_inference_parameter_is_refused_before_anything_changes():
    with ag.inference_mode():
        p = ag.randn(3)
    p.grad = ag.ones(3)
    for kw in ({}, {"momentum": 0.9}):
        with pytest.raises(RuntimeError, match="[Ii]nference"):
            ag.optim.SGD([p], lr=0.1, **kw).step()


def test_matches_pytorch():
    torch = pytest.importorskip("torch")
    for kw in (dict(lr=0.05), dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.1),
               dict(lr=0.05, momentum=0.8, dampening=0.2, maximize=True)):
        p, tp, opt, topt = beside_pytorch(torch, ag.optim.SGD, torch.optim.SGD, kw)
        b, tb = opt.state[p].get("momentum_buffer"), topt.state[tp].get("momentum_buffer")
        if tb is not None:
            assert b.flatten().tolist() == pytest.approx(tb.flatten().tolist(), rel=1e-6)
            assert b._version == tb._version


@pytest.mark.parametrize("make", [lambda ps: ag.optim.SGD(ps, lr=0.1, differentiable=True),
                                  lambda ps: ag.optim.Adam(ps, lr=0.1, differentiable=True)])
def test_a_non_leaf_parameter_without_a_gradient_still_warns_and_is_skipped(make):
    """The optimizers read the gradient's slot and call the ``.grad`` property only where the
    slot is empty: a differentiable optimizer's non-leaf parameter with no gradient still
    gets PyTorch's non-leaf warning, and is left as it was."""
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2.0
    opt = make([y])
    with pytest.warns(UserWarning, match="not a leaf"):
        opt.step()
    assert y.tolist() == [2.0, 4.0]
