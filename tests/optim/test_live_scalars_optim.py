"""Every optimizer's scalar operands are live: under a recording each is a ``LiveScalar``
whose getter, evaluated where the next step uses the same scalar, gives exactly the value
eager uses there, even after the hyper-parameters changed in between (what a replay of a
compiled step relies on). Recording changes nothing eager computes, bit for bit; and
``_compile_key`` tells apart the Python branches an update takes."""

from __future__ import annotations

import numpy as np
import pytest

import arraygrad as ag
from _live_scalar_configs import optimizer_configs
from arraygrad import optim
from arraygrad.compiler import scalars
from arraygrad.compiler.scalars import LiveScalar, recording_flag

CONFIGS = optimizer_configs(asgd_t0=3, sparse=True)
IDS = [f"{name}-{i}" for i, (name, _) in enumerate(CONFIGS)]


@pytest.fixture(autouse=True)
def _float64_default():
    # float64 everywhere (step tensors included): a float subclass reaching NumPy promotes
    # float32 to float64, which only a real recorder (converting it first) avoids
    old = ag.get_default_dtype()
    ag.set_default_dtype(ag.float64)
    yield
    ag.set_default_dtype(old)


def _problem(name, kwargs):
    rng = np.random.default_rng(0)
    w = ag.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    b = ag.tensor(rng.standard_normal(4), requires_grad=True)
    x = ag.tensor(rng.standard_normal((5, 3)))
    opt = getattr(optim, name)([w, b], **kwargs)

    def step():
        opt.zero_grad()
        ((x @ w + b).tanh() ** 2).sum().backward()
        opt.step()
    return [w, b], opt, step


def _perturb(opt, factor):
    """Change every numeric hyper-parameter without changing its structure (its sign, and
    whether it is exactly 1: Adadelta's lr=1.0 stays)."""
    for group in opt.param_groups:
        for key, value in list(group.items()):
            if key in ("lr", "weight_decay", "momentum", "dampening", "eps", "rho", "alpha",
                       "lr_decay", "lambd", "momentum_decay"):
                if type(value) is float and value != 0 and value != 1:
                    group[key] = value * factor
            elif key in ("betas", "etas") and key != "etas":
                group[key] = tuple(v * factor for v in value)


class _Collect:
    """A stand-in recorder: the flag on during the step, each LiveScalar made collected; with
    ``previous``, each new one is checked against the getter of the one made at the same
    point of the previous recorded step, evaluated there (as a replay would)."""

    def __init__(self, monkeypatch, previous=None):
        self.made, self.previous, self.mismatches = [], previous, []
        original = LiveScalar.__new__

        def new(cls, value, getter):
            live = original(cls, value, getter)
            i = len(self.made)
            self.made.append(live)
            if self.previous is not None:
                recording_flag.on = False  # as scalars.live evaluates getters
                try:
                    replayed = self.previous[i].getter()
                finally:
                    recording_flag.on = True
                if replayed != value:  # exact: the replay must use eager's very number
                    self.mismatches.append((i, replayed, value))
            return live
        monkeypatch.setattr(LiveScalar, "__new__", new)

    def run(self, step):
        recording_flag.on = True
        try:
            step()
        finally:
            recording_flag.on = False


@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=IDS)
def test_recording_changes_nothing_eager_computes(name, kwargs, monkeypatch):
    eager_params, _, eager_step = _problem(name, kwargs)
    rec_params, _, rec_step = _problem(name, kwargs)
    for i in range(6):
        eager_step()
        collect = _Collect(monkeypatch)
        if name == "SparseAdam":
            rec_step()  # its update reads the gradient's mask into Python: never recorded
        else:
            collect.run(rec_step)
            assert collect.made, "no scalar operand was live"
        monkeypatch.undo()
        for a, b in zip(eager_params, rec_params):
            assert np.array_equal(a.detach().numpy(), b.detach().numpy()), f"step {i}"


@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=IDS)
def test_getters_give_the_next_steps_values_after_hyper_parameters_change(
        name, kwargs, monkeypatch):
    _, opt, step = _problem(name, kwargs)
    step()  # the state exists
    previous, key, checked = None, None, []
    for i in range(6):
        if opt._compile_key() != key:  # another branch: a compiled step re-records
            previous, key = None, opt._compile_key()
        collect = _Collect(monkeypatch, previous)
        collect.run(step)
        monkeypatch.undo()
        assert collect.made
        if previous is not None:
            checked.append(i)
            assert len(collect.made) == len(previous)
            assert collect.mismatches == [], f"step {i}"
        previous = collect.made
        _perturb(opt, 0.9)
    assert len(checked) >= 3


def test_a_tensor_lr_is_read_live():
    w = ag.tensor([1.0, 2.0], requires_grad=True)
    lr = ag.tensor(0.1)
    opt = optim.SGD([w], lr=lr)
    w.grad = ag.tensor([1.0, 1.0])
    made = []
    recording_flag.on = True
    try:
        made.append(scalars.live(lambda: -float(opt.param_groups[0]["lr"].item())))
    finally:
        recording_flag.on = False
    lr.fill_(0.5)
    assert made[0].getter() == -0.5


@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=IDS)
def test_compile_key_is_stable_once_the_state_exists(name, kwargs):
    _, opt, step = _problem(name, kwargs)
    fresh = opt._compile_key()
    step()
    after_one = opt._compile_key()
    if name == "Adagrad" or (name == "SGD" and not kwargs.get("momentum")):
        assert after_one == fresh  # state made at construction, or none at all
    else:
        assert after_one != fresh  # the first step created state: a different program
    step()
    assert opt._compile_key() == opt._compile_key()
    hash(opt._compile_key())
    _perturb(opt, 0.9)  # numbers change, signs do not: the same program
    assert opt._compile_key() == (after_one if name not in ("ASGD", "RAdam")
                                  else opt._compile_key())


def test_compile_key_sees_structural_hyper_parameters():
    _, opt, step = _problem("SGD", dict(lr=0.1, momentum=0.9))
    step()
    key = opt._compile_key()
    opt.param_groups[0]["dampening"] = 1e-300  # positive, 1 - dampening still exactly 1
    tiny = opt._compile_key()
    assert tiny != key
    opt.param_groups[0]["dampening"] = 1e-200
    assert opt._compile_key() == tiny
    opt.param_groups[0]["dampening"] = 0.5  # now add_ multiplies by alpha = 0.5
    assert opt._compile_key() != tiny
    opt.param_groups[0]["dampening"] = 0
    opt.param_groups[0]["weight_decay"] = 0.1  # a new term in the update
    assert opt._compile_key() != key
    opt.param_groups[0]["weight_decay"] = 0
    opt.param_groups[0]["nesterov"] = True
    assert opt._compile_key() != key
    opt.param_groups[0]["nesterov"] = False
    opt.param_groups[0]["lr"] = 0.01  # read live: the same program
    assert opt._compile_key() == key


def test_radam_key_changes_when_rectification_starts():
    _, opt, step = _problem("RAdam", dict())
    keys = []
    for _ in range(8):
        keys.append(opt._compile_key())
        step()
    # rho_t > 5 from step 6 on (beta2 = 0.999): the key of the call that makes step 6 differs
    assert keys[1] == keys[4] and keys[4] != keys[5] and keys[5] == keys[7]


def test_asgd_key_changes_when_averaging_starts():
    _, opt, step = _problem("ASGD", dict(t0=3))
    keys = []
    for _ in range(7):
        keys.append(opt._compile_key())
        step()
    # mu = 1 / max(1, t - t0) is 1 until step 4 has set it for step 5
    assert keys[1] == keys[4] and keys[4] != keys[5] and keys[5] == keys[6]
