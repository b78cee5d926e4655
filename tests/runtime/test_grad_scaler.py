"""``arraygrad.amp.GradScaler`` against ``torch.amp.GradScaler("cpu")``: the same scale,
growth tracker, skipped steps and parameters over a few iterations (with an injected
inf), its errors, its state dict, and the disabled pass-through."""

from __future__ import annotations

import math
import pickle

import pytest

import arraygrad as ag

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

W0 = [[0.5, -0.25], [0.125, 1.0]]
X = [[1.0, 2.0], [-1.0, 0.5]]


def _run(m, steps, bad_steps, **scaler_kwargs):
    """Train ``W0`` for ``steps`` SGD steps under a CPU GradScaler; gradients of the steps in
    ``bad_steps`` are made inf. Returns (scales, trackers, stepped flags, final weights)."""
    w = m.tensor(W0, requires_grad=True)
    opt = (torch.optim.SGD if m is torch else ag.optim.SGD)([w], lr=0.1)
    scaler = m.amp.GradScaler("cpu", **scaler_kwargs)
    scales, trackers, stepped = [], [], []
    for i in range(steps):
        opt.zero_grad()
        loss = (m.tensor(X) @ w).pow(2).sum()
        scaler.scale(loss).backward()
        if i in bad_steps:
            w.grad.fill_(math.inf)
        before = w.detach().clone()
        scaler.step(opt)
        stepped.append(not bool((w.detach() == before).all()))
        scaler.update()
        scales.append(scaler.get_scale())
        trackers.append(scaler._get_growth_tracker())
    return scales, trackers, stepped, w.detach().tolist()


@needs_torch
@pytest.mark.parametrize("bad", [(), (1,), (0, 2)])
def test_training_iterations_as_pytorch(bad):
    kwargs = {"init_scale": 2.0 ** 4, "growth_interval": 2}
    theirs = _run(torch, 5, bad, **kwargs)
    ours = _run(ag, 5, bad, **kwargs)
    assert ours[0] == theirs[0] and ours[1] == theirs[1] and ours[2] == theirs[2]
    for a, b in zip(sum(ours[3], []), sum(theirs[3], [])):
        assert a == pytest.approx(b, rel=1e-6)


@needs_torch
def test_unscale_then_clip_as_pytorch():
    results = []
    for m in (torch, ag):
        w = m.tensor(W0, requires_grad=True)
        opt = (torch.optim.SGD if m is torch else ag.optim.SGD)([w], lr=0.1)
        scaler = m.amp.GradScaler("cpu", init_scale=1024.0)
        scaler.scale((m.tensor(X) @ w).sum()).backward()
        scaler.unscale_(opt)
        grads = w.grad.tolist()
        with pytest.raises(RuntimeError, match="already been called"):
            scaler.unscale_(opt)
        scaler.step(opt)
        with pytest.raises(RuntimeError, match="already been called since the last update"):
            scaler.step(opt)
        scaler.update()
        results.append((grads, w.detach().tolist(), scaler.state_dict()))
    assert results[0] == results[1]


def test_state_dict_round_trip_and_pickle():
    scaler = ag.amp.GradScaler("cpu", init_scale=8.0, growth_factor=4.0, backoff_factor=0.25,
                               growth_interval=3)
    state = scaler.state_dict()
    assert state == {"scale": 8.0, "growth_factor": 4.0, "backoff_factor": 0.25,
                     "growth_interval": 3, "_growth_tracker": 0}
    other = ag.amp.GradScaler("cpu")
    other.load_state_dict(state)
    assert other.state_dict() == state
    again = pickle.loads(pickle.dumps(scaler))
    assert again.state_dict() == state
    with pytest.raises(RuntimeError, match="source state dict is empty"):
        other.load_state_dict({})


def test_errors_as_pytorch():
    with pytest.raises(AssertionError, match="growth factor must be > 1.0"):
        ag.amp.GradScaler("cpu", growth_factor=1.0)
    with pytest.raises(AssertionError, match="backoff factor must be < 1.0"):
        ag.amp.GradScaler("cpu", backoff_factor=1.0)
    scaler = ag.amp.GradScaler("cpu")
    with pytest.raises(AssertionError, match="_scale is None"):
        scaler.update()
    w = ag.ones(2, requires_grad=True)
    opt = ag.optim.SGD([w], lr=0.1)
    scaler.scale(w.sum()).backward()
    with pytest.raises(RuntimeError, match="Closure use is not currently supported"):
        scaler.step(opt, closure=lambda: 0)
    h = ag.ones(2, dtype=ag.float16, requires_grad=True)  # float16 parameters: refused
    (h.float() * 2).sum().backward()
    with pytest.raises(ValueError, match="Attempting to unscale FP16 gradients"):
        scaler.unscale_(ag.optim.SGD([h], lr=0.1))
    with pytest.raises(ValueError, match="outputs must be a Tensor"):
        scaler.scale(3)


def test_scale_lists_and_update_with_new_scale():
    scaler = ag.amp.GradScaler("cpu", init_scale=4.0)
    a, b = scaler.scale([ag.tensor(1.0), (ag.tensor(2.0),)])
    assert a.item() == 4.0 and b[0].item() == 8.0
    assert scaler.scale(ag.ones(2).half()).dtype is ag.float16  # the 0-d scale keeps fp16
    scaler.update(new_scale=2.0)
    assert scaler.get_scale() == 2.0
    scaler.update(new_scale=ag.tensor(16.0))
    assert scaler.get_scale() == 16.0
    with pytest.raises(AssertionError, match="new_scale should be a float"):
        scaler.update(new_scale=ag.tensor([1.0, 2.0]))


def test_disabled_scaler_is_a_pass_through():
    scaler = ag.amp.GradScaler("cpu", enabled=False)
    loss = ag.tensor(3.0)
    assert scaler.scale(loss) is loss and scaler.get_scale() == 1.0
    assert scaler.state_dict() == {} and not scaler.is_enabled()
    w = ag.ones(2, requires_grad=True)
    opt = ag.optim.SGD([w], lr=0.5)
    (w * 2).sum().backward()
    scaler.unscale_(opt)  # nothing
    assert w.grad.tolist() == [2.0, 2.0]
    scaler.step(opt)
    scaler.update()
    assert w.detach().tolist() == [0.0, 0.0]


@pytest.mark.skipif(ag.cuda.is_available(), reason="a CUDA backend is usable here")
def test_cuda_scaler_without_cuda_disables_with_pytorchs_warning():
    with pytest.warns(UserWarning, match="CUDA is not available.  Disabling"):
        scaler = ag.amp.GradScaler()
    assert not scaler.is_enabled()
    with pytest.warns(FutureWarning, match="deprecated"):
        ag.cuda.amp.GradScaler(enabled=False)
    assert ag.GradScaler is ag.amp.GradScaler
