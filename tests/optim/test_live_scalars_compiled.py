"""Every optimizer under ``arraygrad.compile``: a compiled training step gives eager's parameters
and optimizer state bit for bit over 20 steps while a scheduler (or a hand edit) changes the
hyper-parameters between steps, and it replays (the live scalars are read afresh at replay,
not baked in, and a Python branch on one is a guard: the step records again when its outcome
changes)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import arraygrad as ag
from _live_scalar_configs import optimizer_configs
from arraygrad import optim
from arraygrad.optim import lr_scheduler

pytestmark = pytest.mark.skipif(not hasattr(ag, "compile"), reason="arraygrad.compile is absent")

CONFIGS = optimizer_configs(asgd_t0=8, sparse=False)
IDS = [f"{name}-{i}" for i, (name, _) in enumerate(CONFIGS)]
STEPS = 20


def _setup(name, kwargs, inside):
    """A float32 linear model, its optimizer, an ExponentialLR, and the step (the scheduler
    stepped inside it when ``inside``)."""
    rng = np.random.default_rng(0)
    w = ag.tensor(rng.standard_normal((3, 4)).astype(np.float32), requires_grad=True)
    b = ag.tensor(rng.standard_normal(4).astype(np.float32), requires_grad=True)
    x = ag.tensor(rng.standard_normal((5, 3)).astype(np.float32))
    opt = getattr(optim, name)([w, b], **kwargs)
    sched = lr_scheduler.ExponentialLR(opt, gamma=0.9)

    def step():
        opt.zero_grad()
        loss = ((x @ w + b).tanh() ** 2).sum()
        loss.backward()
        opt.step()
        if inside:
            sched.step()
        return loss
    return (w, b), opt, sched, step


def _state(params, opt):
    out = [p.detach().numpy().copy() for p in params]
    for st in opt.state.values():
        out += [v.detach().numpy().copy() if isinstance(v, ag.Tensor) else np.asarray(v)
                for v in st.values()]
    return out + [np.asarray([g["lr"] for g in opt.param_groups])]


def _same(a, b):
    return len(a) == len(b) and all(
        x.dtype == y.dtype and np.array_equal(x, y) for x, y in zip(a, b))


@pytest.mark.parametrize("inside", [False, True], ids=["scheduler-outside", "scheduler-inside"])
@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=IDS)
def test_compiled_step_equals_eager_while_hyper_parameters_change(name, kwargs, inside):
    eager = _setup(name, kwargs, inside)
    comp = _setup(name, kwargs, inside)
    compiled = ag.compile(comp[3])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a graph break or a recompile storm would warn
        for i in range(STEPS):
            want = eager[3]()
            got = compiled()
            assert np.array_equal(want.detach().numpy(), got.detach().numpy()), f"step {i}"
            assert _same(_state(*eager[:2]), _state(*comp[:2])), f"step {i}"
            if not inside:
                eager[2].step()
                comp[2].step()
            if i == 10:  # a hand edit of a number the update reads (its sign unchanged)
                for opt in (eager[1], comp[1]):
                    group = opt.param_groups[0]
                    if "betas" in group:
                        group["betas"] = (0.8, group["betas"][1])
                    elif "momentum" in group and group["momentum"]:
                        group["momentum"] = 0.5
    assert compiled.stats["replays"] >= STEPS - 6, compiled.stats


from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

_HYPER = {  # hyper-parameters a run may rewrite between steps, with values to draw from
    "SGD": dict(lr=(0.01, 0.5), momentum=(0.1, 0.95), dampening=(0.0, 0.5),
                weight_decay=(0.01, 0.1)),
    "Adam": dict(lr=(1e-3, 0.1), eps=(1e-8, 1e-3), weight_decay=(0.01, 0.1),
                 betas=((0.5, 0.95), (0.9, 0.999))),
    "Adadelta": dict(lr=(0.1, 1.5), rho=(0.5, 0.95), eps=(1e-6, 1e-3),
                     weight_decay=(0.01, 0.1)),
    "Adagrad": dict(lr=(1e-3, 0.1), lr_decay=(1e-3, 0.1), eps=(1e-10, 1e-3)),
    "Adamax": dict(lr=(1e-3, 0.1), betas=((0.5, 0.95), (0.9, 0.999)), eps=(1e-8, 1e-3)),
    "ASGD": dict(lr=(1e-3, 0.1), lambd=(1e-4, 1e-2), alpha=(0.5, 0.9)),
    "NAdam": dict(lr=(1e-3, 0.1), momentum_decay=(1e-3, 1e-2), betas=((0.5, 0.95), (0.9, 0.999))),
    "RAdam": dict(lr=(1e-3, 0.1), eps=(1e-8, 1e-3), betas=((0.5, 0.95), (0.9, 0.999))),
    "RMSprop": dict(lr=(1e-3, 0.1), alpha=(0.5, 0.99), momentum=(0.1, 0.9), eps=(1e-8, 1e-3)),
    "Rprop": dict(lr=(1e-3, 0.1), etas=((0.3, 0.7), (1.1, 1.5)),
                  step_sizes=((1e-6, 1e-4), (1.0, 50.0))),
}


def _structure(opt):
    """What of the hyper-parameters decides which operations a step makes (the branches an
    update and its ops take on them): each number's sign and whether it or its complement is
    exactly 1 (``add_`` skips multiplying by ``alpha=1``); the numbers themselves are live."""
    def of(v):
        if isinstance(v, (tuple, list)):
            return tuple(of(x) for x in v)
        if isinstance(v, float):
            return (v > 0) - (v < 0), v == 1, 1 - v == 1
        return v if isinstance(v, (bool, str, int, type(None))) else type(v).__name__
    branches = []  # the branches RAdam and ASGD take on their state: rectifying, averaging
    for g in opt.param_groups:
        for p in g["params"]:
            st = opt.state.get(p, {})
            if isinstance(opt, optim.RAdam):
                t, b2 = (st["step"].item() + 1 if "step" in st else 1), g["betas"][1]
                rho_inf = 2 / (1 - b2) - 1
                branches.append(rho_inf - 2 * t * b2 ** t / (1 - b2 ** t) > 5)
            if isinstance(opt, optim.ASGD):
                branches.append("mu" in st and st["mu"].item() != 1)
    return tuple((k, of(v)) for g in opt.param_groups for k, v in g.items()
                 if k != "params") + tuple(branches)


def _draw_value(data, r, label):
    if isinstance(r[0], tuple):  # a pair (betas, etas, step_sizes): each in its range
        return tuple(data.draw(st.floats(*ri), label=f"{label}[{i}]") for i, ri in enumerate(r))
    return data.draw(st.floats(*r), label=label)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(_HYPER)), data=st.data())
def test_random_hyper_parameter_edits_between_compiled_steps(name, data):
    """Random values written into ``param_groups`` before random steps: the compiled step
    follows eager's numbers exactly (all the values are read live)."""
    ranges = _HYPER[name]
    start = {k: _draw_value(data, r, k) for k, r in ranges.items()}
    eager = _setup(name, start, inside=False)
    comp = _setup(name, start, inside=False)
    compiled = ag.compile(comp[3])
    seen = set()  # the optimizer's structure keys the calls met
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for i in range(8):
            keys = data.draw(st.lists(st.sampled_from(sorted(ranges)), max_size=2,
                                      unique=True), label="edited")
            for k in keys:
                value = _draw_value(data, ranges[k], k)
                for opt in (eager[1], comp[1]):
                    opt.param_groups[0][k] = value
            seen.add(_structure(comp[1]))
            want, got = eager[3](), compiled()
            assert np.array_equal(want.detach().numpy(), got.detach().numpy()), f"step {i}"
            assert _same(_state(*eager[:2]), _state(*comp[:2])), f"step {i}"
    # a number edit is read live; only a change of structure (a new key) records again
    stats = compiled.stats
    # (+1: the first call, before any .grad exists, has a guard key of its own)
    assert stats["eager"] == 0 and stats["records"] <= len(seen) + 1, (stats, len(seen))
    assert stats["replays"] == 8 - stats["records"]
