"""``arraygrad.compile`` training steps captured as CUDA graphs on the fake CuPy: live scalars
(lr, Adam's bias corrections) reach the graphs as 0-d device buffers filled before each
launch, and every value equals an eager twin's, bit for bit."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import arraygrad as ag
import arraygrad.nn.functional as F
from arraygrad import nn
from arraygrad.compiler import capture as capture_mod

STEPS = 50


def _setup(optimizer, scheduler=None):
    ag.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3)).to("cuda")
    opt = optimizer(model.parameters())
    sched = ag.optim.lr_scheduler.StepLR(opt, 7, gamma=0.5) if scheduler else None

    def step(x, y):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        if scheduler == "before":  # this call's update reads the lr the scheduler just set
            sched.step()
        opt.step()
        if scheduler == "after":  # the next call's update reads it
            sched.step()
        return loss
    return model, opt, step


def _host(backend, t):
    return np.asarray(backend.to_host(t.detach()._data))


def _train(fake, backend, optimizer, scheduler=None, steps=STEPS):
    """Train an eager twin and a compiled one on the same batches; check every step."""
    m1, o1, eager = _setup(optimizer, scheduler)
    m2, o2, step = _setup(optimizer, scheduler)
    compiled = ag.compile(step)
    rng = np.random.default_rng(1)
    for i in range(steps):
        x = rng.standard_normal((6, 4)).astype(np.float32)
        y = np.array([0, 1, 2, 0, 1, 2])  # every class: cross_entropy's guards hold
        want = eager(ag.tensor(x, device="cuda"), ag.tensor(y, device="cuda"))
        got = compiled(ag.tensor(x, device="cuda"), ag.tensor(y, device="cuda"))
        assert np.array_equal(_host(backend, want), _host(backend, got)), i
        for p, q in zip(m1.parameters(), m2.parameters()):
            assert np.array_equal(_host(backend, p), _host(backend, q)), i
        for p, q in zip(m1.parameters(), m2.parameters()):
            for key, value in o1.state[p].items():
                if isinstance(value, ag.Tensor):
                    assert np.array_equal(_host(backend, value),
                                          _host(backend, o2.state[q][key])), (i, key)
        assert o1.param_groups[0]["lr"] == o2.param_groups[0]["lr"], i
    return compiled, o2


def _captured(compiled):
    return [e.program for es in compiled._cache.values() for e in es
            if isinstance(e.program, capture_mod.CapturedProgram)
            and e.program.launches is not None and not e.program.off]


@pytest.mark.parametrize("optimizer, segments", [
    (lambda ps: ag.optim.SGD(ps, lr=0.1, momentum=0.9), 1),
    (lambda ps: ag.optim.Adam(ps, lr=0.01), 1),
    (lambda ps: ag.optim.AdamW(ps, lr=0.01, weight_decay=0.1), 1),
    (lambda ps: ag.optim.AdamW(ps, lr=0.01, amsgrad=True), 1),
    (lambda ps: ag.optim.Adamax(ps), 1),
    (lambda ps: ag.optim.RAdam(ps), 1),
    (lambda ps: ag.optim.Adagrad(ps, lr_decay=0.01), 1),
    (lambda ps: ag.optim.ASGD(ps, t0=10), 1),
    (lambda ps: ag.optim.RMSprop(ps, momentum=0.5, centered=True), 1),
    (lambda ps: ag.optim.Adadelta(ps, weight_decay=0.01), 1),
], ids=["sgd-momentum", "adam", "adamw", "adamw-amsgrad", "adamax", "radam", "adagrad", "asgd",
        "rmsprop", "adadelta"])
def test_training_steps_run_as_cuda_graphs_bit_for_bit(cupy_on_fake, optimizer, segments):
    fake, backend = cupy_on_fake
    compiled, _ = _train(fake, backend, optimizer)
    programs = _captured(compiled)
    assert programs and all(len(p.launches) == segments for p in programs)
    # Adam's bias corrections read ``step`` after the program increments it: the recorder
    # computes that count from the state before the step (``compiler.pre_reads``), so the
    # getters run before one launch of the whole step
    launches = [name for name, _ in fake.log].count("graph.launch")
    replays = compiled.stats["replays"]
    captures = [name for name, _ in fake.log].count("stream.end_capture")
    # each segment's first call is its warm-up (run as it is), every later call a launch
    assert launches == segments * replays - captures and launches >= segments * 40
    # (ASGD: the first call, then averaging starting, then ``max(1, step - t0)`` passing 1)
    assert compiled.stats["records"] <= 4


@pytest.mark.parametrize("order", ["after", "before"])
@pytest.mark.parametrize("optimizer", [
    lambda ps: ag.optim.SGD(ps, lr=0.02, momentum=0.9),
    lambda ps: ag.optim.AdamW(ps, lr=0.02),  # lr read before (decay) and after the split
], ids=["sgd", "adamw"])
def test_a_scheduler_changing_lr_is_seen_by_the_launches(cupy_on_fake, order, optimizer):
    fake, backend = cupy_on_fake
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "before": PyTorch's order warning
        compiled, opt = _train(fake, backend, optimizer, order)
    assert opt.param_groups[0]["lr"] == 0.02 * 0.5 ** (STEPS // 7)  # host calls ran each step
    if order == "before":
        # (PyTorch warns this order is wrong.) The update reads an lr the scheduler's host
        # call wrote in the same step: a branch on it cannot be checked before a replay, so
        # no recording is kept, and after three the step runs eagerly: exact (``_train``)
        assert compiled.stats["eager"] >= STEPS - 3 and not _captured(compiled)
        return
    assert _captured(compiled)
    assert [name for name, _ in fake.log].count("graph.launch") >= 40


def test_a_state_array_rebound_between_calls_drops_to_the_plain_replay(cupy_on_fake):
    fake, backend = cupy_on_fake
    m1, o1, eager = _setup(lambda ps: ag.optim.SGD(ps, lr=0.1, momentum=0.9))
    m2, o2, step = _setup(lambda ps: ag.optim.SGD(ps, lr=0.1, momentum=0.9))
    compiled = ag.compile(step)
    rng = np.random.default_rng(2)
    y = np.array([0, 1, 2, 0, 1, 2])
    for i in range(12):
        if i == 6:
            for m in (m1, m2):
                m[0].weight.data = m[0].weight.data * 1.0  # same tensor, a new array
        x = rng.standard_normal((6, 4)).astype(np.float32)
        want = eager(ag.tensor(x, device="cuda"), ag.tensor(y, device="cuda"))
        got = compiled(ag.tensor(x, device="cuda"), ag.tensor(y, device="cuda"))
        assert np.array_equal(_host(backend, want), _host(backend, got)), i
        for p, q in zip(m1.parameters(), m2.parameters()):
            assert np.array_equal(_host(backend, p), _host(backend, q)), i
    programs = [e.program for es in compiled._cache.values() for e in es
                if isinstance(e.program, capture_mod.CapturedProgram)]
    assert any(p.off and p.launches is not None for p in programs)


def test_a_fuller_training_step_runs_as_cuda_graphs_bit_for_bit(cupy_on_fake):
    """Parameter groups, BatchNorm's running statistics, gradients kept between steps,
    gradient clipping and a cosine schedule, all in the captured step."""
    fake, backend = cupy_on_fake

    def make():
        ag.manual_seed(0)
        model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(),
                              nn.Linear(8, 3)).to("cuda")
        params = list(model.parameters())
        opt = ag.optim.AdamW([{"params": params[:2], "lr": 0.02}, {"params": params[2:]}],
                             lr=0.01)
        sched = ag.optim.lr_scheduler.CosineAnnealingLR(opt, 10)

        def step(x, y):
            opt.zero_grad(set_to_none=False)
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            opt.step()
            sched.step()
            return loss
        return model, step

    m1, eager = make()
    m2, step = make()
    compiled = ag.compile(step)
    rng = np.random.default_rng(4)
    y = np.array([0, 1, 2, 0, 1, 2])
    for i in range(30):
        x = rng.standard_normal((6, 4)).astype(np.float32)
        want = eager(ag.tensor(x, device="cuda"), ag.tensor(y, device="cuda"))
        got = compiled(ag.tensor(x, device="cuda"), ag.tensor(y, device="cuda"))
        assert np.array_equal(_host(backend, want), _host(backend, got)), i
        for p, q in zip(list(m1.parameters()) + list(m1.buffers()),
                        list(m2.parameters()) + list(m2.buffers())):
            assert np.array_equal(_host(backend, p), _host(backend, q)), i
    assert _captured(compiled)
    # one graph per step; the cosine schedule reaching lr = 0 flips ops' own branches (an
    # ``alpha`` of exactly 1): those calls record again
    assert [name for name, _ in fake.log].count("graph.launch") >= 20
