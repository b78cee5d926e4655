"""Adam's and AdamW's update on the arrays (``ops.fast_optim``) is the Tensor form's bit for
bit, bumps the same version counters, and leaves to the Tensor form everything it does not
compute exactly (float16, sparse gradients, recording steps) or that must be refused."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag
from arraygrad.ops import fast_optim
from arraygrad.ops.rule import fast_paths, reference_mode

from _fast_path_runs import assert_same as _same, beside_pytorch, train


@settings(max_examples=25, deadline=None)
@given(adamw=st.booleans(), amsgrad=st.booleans(), maximize=st.booleans(),
       wd=st.sampled_from([0.0, 0.05]), lr=st.sampled_from([1e-3, 0.05]),
       dtype=st.sampled_from(["float32", "float64"]))
def test_the_same_values_and_versions_as_the_tensor_form(adamw, amsgrad, maximize, wd, lr,
                                                         dtype):
    cls = ag.optim.AdamW if adamw else ag.optim.Adam
    kw = dict(lr=lr, amsgrad=amsgrad, maximize=maximize, weight_decay=wd)
    got = train(cls, getattr(ag, dtype), **kw)
    with reference_mode():
        ref = train(cls, getattr(ag, dtype), **kw)
    _same(got, ref)


def test_a_tensor_learning_rate_and_a_loaded_state():
    kw = dict(lr=ag.tensor(0.01), betas=(0.8, 0.9))
    got = train(ag.optim.Adam, ag.float32, **kw)
    with reference_mode():
        ref = train(ag.optim.Adam, ag.float32, **kw)
    _same(got, ref)


def test_taken_where_exact_and_declined_elsewhere():
    if not fast_paths.on:
        pytest.skip("reference mode: no fast path")

    def step(p, **kw):
        opt = ag.optim.Adam([p], **kw)
        state = opt._init_state(p, False)
        with ag.no_grad():
            return fast_optim.adam_step(p, state, opt.param_groups[0], 0.01, False)

    p = ag.nn.Parameter(ag.randn(3))
    p.grad = ag.ones(3)
    assert step(p)
    half = ag.nn.Parameter(ag.randn(3, dtype=ag.float16))
    half.grad = ag.ones(3, dtype=ag.float16)
    assert not step(half)  # PyTorch's float32 opmath: the Tensor form
    sparse = ag.nn.Parameter(ag.randn(3))
    sparse.grad = ag.ones(3).to_sparse()
    assert not step(sparse)
    mixed = ag.nn.Parameter(ag.randn(3))
    mixed.grad = ag.ones(3)
    opt = ag.optim.Adam([mixed])
    state = opt._init_state(mixed, False)
    state["exp_avg_sq"] = ag.zeros(3, dtype=ag.float64)  # a state of another dtype
    before = mixed.detach().clone()
    with ag.no_grad():
        assert not fast_optim.adam_step(mixed, state, opt.param_groups[0], 0.01, False)
    assert mixed.tolist() == before.tolist() and state["step"].item() == 0  # nothing written
    opt = ag.optim.Adam([p])
    state = opt._init_state(p, False)
    assert not fast_optim.adam_step(p, state, opt.param_groups[0], 0.01, False)  # grad mode on


def test_an_inference_parameter_is_refused_before_anything_changes():
    with ag.inference_mode():
        p = ag.randn(3)
    p.grad = ag.ones(3)
    opt = ag.optim.Adam([p])
    with pytest.raises(RuntimeError, match="[Ii]nference"):
        opt.step()
    with reference_mode(), pytest.raises(RuntimeError, match="[Ii]nference"):
        ag.optim.Adam([p]).step()


def test_matches_pytorch():
    torch = pytest.importorskip("torch")
    for cls, tcls, kw in [(ag.optim.Adam, torch.optim.Adam, dict(lr=0.05, amsgrad=True)),
                          (ag.optim.AdamW, torch.optim.AdamW, dict(lr=0.05, weight_decay=0.1))]:
        beside_pytorch(torch, cls, tcls, kw)


def test_a_state_step_kept_as_a_number_takes_the_tensor_form():
    p = ag.nn.Parameter(ag.tensor([1.0, -2.0]))
    opt = ag.optim.Adam([p], lr=0.1)
    p.grad = ag.tensor([0.5, 0.5])
    opt.step()
    opt.state[p]["step"] = 1.0  # an old checkpoint's number, not a tensor
    p.grad = ag.tensor([0.5, 0.5])
    before = p.tolist()
    opt.step()  # no AttributeError: the Tensor form runs with the number
    assert p.tolist() != before
