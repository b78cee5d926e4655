"""Learning-rate schedulers: every scheduler's lr (and momentum) sequence over 30 steps against
the documented formulas written out here and against PyTorch where installed; state_dict keys
and round trips mid-schedule; errors and warnings."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import arraygrad as ag
from arraygrad import optim
from arraygrad.optim import lr_scheduler as S

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

N = 30


def _opt(lib, kind="sgd", lrs=(1.0, 0.5)):
    """An optimizer of library ``lib`` (arraygrad or torch) with one group per rate."""
    if lib is ag:
        params = [{"params": [ag.tensor([1.0], requires_grad=True)], "lr": lr} for lr in lrs]
        o = optim
    else:
        params = [{"params": [torch.tensor([1.0], requires_grad=True)], "lr": lr} for lr in lrs]
        o = torch.optim
    if kind == "adam":
        return o.Adam(params, lr=lrs[0])
    return o.SGD(params, lr=lrs[0], momentum=0.9)


def _record(opt):
    g = opt.param_groups
    return ([x["lr"] for x in g], [x["betas"][0] if "betas" in x else x["momentum"] for x in g])


def _sequence(sched, n=N, metrics=None):
    """lrs and momenta after construction and after each of ``n`` steps."""
    opt = sched.optimizer
    lrs, moms = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(n + 1):
            if i:
                opt.step()
                if metrics is None:
                    sched.step()
                else:
                    sched.step(metrics[i - 1])
            lr, mom = _record(opt)
            assert sched.get_last_lr() == pytest.approx(lr, rel=1e-12)
            lrs.append(lr)
            moms.append(mom)
    return np.array(lrs), np.array(moms)


def _chained(m, o):
    return m.ChainedScheduler([m.ConstantLR(o, factor=0.5, total_iters=4),
                               m.ExponentialLR(o, gamma=0.9)])


def _sequential(m, o):
    return m.SequentialLR(o, [m.LinearLR(o, start_factor=0.1, total_iters=5),
                              m.ExponentialLR(o, gamma=0.9),
                              m.CosineAnnealingLR(o, T_max=6, eta_min=0.01)],
                          milestones=[5, 12])


def _triangular_scale(x):
    return 1.0 / (1.0 + 0.1 * x)


MAKERS = {
    "multiplicative": (lambda m, o: m.MultiplicativeLR(o, lambda e: 0.95), "sgd"),
    "multiplicative_per_group": (lambda m, o: m.MultiplicativeLR(
        o, [lambda e: 0.9, lambda e: 1.0 if e % 2 else 0.8]), "sgd"),
    "linear": (lambda m, o: m.LinearLR(o), "sgd"),
    "linear_opts": (lambda m, o: m.LinearLR(o, start_factor=0.25, end_factor=0.5,
                                            total_iters=7), "sgd"),
    "constant": (lambda m, o: m.ConstantLR(o), "sgd"),
    "constant_opts": (lambda m, o: m.ConstantLR(o, factor=0.1, total_iters=9), "sgd"),
    "polynomial": (lambda m, o: m.PolynomialLR(o), "sgd"),
    "polynomial_power": (lambda m, o: m.PolynomialLR(o, total_iters=20, power=2.5), "sgd"),
    "step": (lambda m, o: m.StepLR(o, 4, gamma=0.5), "sgd"),
    "multistep": (lambda m, o: m.MultiStepLR(o, [3, 8, 8, 20], gamma=0.5), "sgd"),
    "exponential": (lambda m, o: m.ExponentialLR(o, 0.9), "sgd"),
    "cosine": (lambda m, o: m.CosineAnnealingLR(o, T_max=7, eta_min=0.05), "sgd"),
    "lambda": (lambda m, o: m.LambdaLR(o, lambda e: 1 / (1 + e)), "sgd"),
    "warm_restarts": (lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=5), "sgd"),
    "warm_restarts_mult": (lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2,
                                                                      eta_min=0.01), "sgd"),
    "one_cycle": (lambda m, o: m.OneCycleLR(o, max_lr=1.0, total_steps=N), "sgd"),
    "one_cycle_linear_adam": (lambda m, o: m.OneCycleLR(
        o, max_lr=[1.0, 0.3], epochs=3, steps_per_epoch=10, pct_start=0.25,
        anneal_strategy="linear", div_factor=10.0, final_div_factor=100.0,
        base_momentum=0.8, max_momentum=0.9), "adam"),
    "one_cycle_three_phase": (lambda m, o: m.OneCycleLR(
        o, max_lr=0.8, total_steps=N, three_phase=True, cycle_momentum=False), "sgd"),
    "cyclic_triangular": (lambda m, o: m.CyclicLR(o, base_lr=0.1, max_lr=1.0,
                                                  step_size_up=4), "sgd"),
    "cyclic_triangular2_adam": (lambda m, o: m.CyclicLR(
        o, base_lr=[0.1, 0.05], max_lr=[1.0, 0.5], step_size_up=3, step_size_down=5,
        mode="triangular2", base_momentum=0.7, max_momentum=0.95), "adam"),
    "cyclic_exp_range": (lambda m, o: m.CyclicLR(o, base_lr=0.1, max_lr=1.0, step_size_up=5,
                                                 mode="exp_range", gamma=0.95,
                                                 cycle_momentum=False), "sgd"),
    "cyclic_scale_fn_iterations": (lambda m, o: m.CyclicLR(
        o, base_lr=0.1, max_lr=1.0, step_size_up=4, scale_fn=_triangular_scale,
        scale_mode="iterations"), "sgd"),
    "sequential": (_sequential, "sgd"),
    "chained": (_chained, "sgd"),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(MAKERS))
def test_sequence_matches_torch(name):
    make, kind = MAKERS[name]
    ours = _sequence(make(S, _opt(ag, kind)))
    theirs = _sequence(make(torch.optim.lr_scheduler, _opt(torch, kind)))
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12, atol=1e-15)


# -- the documented schedules in closed form, written out here ------------------------------

def test_multiplicative_lr():
    lrs, _ = _sequence(S.MultiplicativeLR(_opt(ag), lambda e: 0.95))
    np.testing.assert_allclose(lrs[:, 0], [0.95 ** e for e in range(N + 1)], rtol=1e-12)


@pytest.mark.parametrize("start,end,total", [(1 / 3, 1.0, 5), (0.25, 0.5, 7)])
def test_linear_lr(start, end, total):
    lrs, _ = _sequence(S.LinearLR(_opt(ag), start_factor=start, end_factor=end,
                                  total_iters=total))
    expected = [start + (end - start) * min(e, total) / total for e in range(N + 1)]
    np.testing.assert_allclose(lrs[:, 0], expected, rtol=1e-12)
    np.testing.assert_allclose(lrs[:, 1], 0.5 * np.array(expected), rtol=1e-12)


def test_constant_lr():
    lrs, _ = _sequence(S.ConstantLR(_opt(ag), factor=0.1, total_iters=9))
    np.testing.assert_allclose(lrs[:, 0], [0.1 if e < 9 else 1.0 for e in range(N + 1)],
                               rtol=1e-12)


def test_polynomial_lr():
    lrs, _ = _sequence(S.PolynomialLR(_opt(ag), total_iters=20, power=2.5))
    np.testing.assert_allclose(lrs[:, 0], [(1 - min(e, 20) / 20) ** 2.5 for e in range(N + 1)],
                               rtol=1e-9, atol=1e-15)


def _cos_anneal(start, end, pct):
    return end + (start - end) / 2 * (math.cos(math.pi * pct) + 1)


def test_one_cycle_cos_with_momentum():
    lrs, moms = _sequence(S.OneCycleLR(_opt(ag), max_lr=1.0, total_steps=N))
    lo, hi = 1.0 / 25, 1.0
    up_end = 0.3 * N - 1  # the first phase ends at step 8
    for e in range(N):
        if e <= up_end:
            pct, lr = e / up_end, (lo, hi)
            mom = _cos_anneal(0.95, 0.85, pct)
        else:
            pct, lr = (e - up_end) / (N - 1 - up_end), (hi, lo / 1e4)
            mom = _cos_anneal(0.85, 0.95, pct)
        assert lrs[e, 0] == pytest.approx(_cos_anneal(*lr, pct), rel=1e-12)
        assert moms[e, 0] == pytest.approx(mom, rel=1e-12)
    assert lrs[:, 1] == pytest.approx(lrs[:, 0])  # max_lr is per group, not scaled by lr


def test_one_cycle_linear_three_phase():
    sched = S.OneCycleLR(_opt(ag), max_lr=0.8, total_steps=20, pct_start=0.25,
                         anneal_strategy="linear", three_phase=True, cycle_momentum=False)
    lrs, _ = _sequence(sched, n=19)
    lo = 0.8 / 25
    knots = [(0, lo), (4, 0.8), (8, lo), (19, lo / 1e4)]  # phases end at 4, 8, 19
    np.testing.assert_allclose(lrs[:, 0], np.interp(np.arange(20), *zip(*knots)), rtol=1e-12)
    sched.optimizer.step()
    sched.step()  # step 20 is still allowed (PyTorch checks step > total_steps)
    with pytest.raises(ValueError, match="Tried to step 21 times"):
        sched.step()


def test_cyclic_lr_modes():
    lrs, moms = _sequence(S.CyclicLR(_opt(ag), base_lr=0.1, max_lr=1.0, step_size_up=4))
    tri = [0.1 + 0.9 * (1 - abs(e % 8 - 4) / 4) for e in range(N + 1)]
    np.testing.assert_allclose(lrs[:, 0], tri, rtol=1e-12)
    np.testing.assert_allclose(moms[:, 0], [0.9 - 0.1 * (1 - abs(e % 8 - 4) / 4)
                                            for e in range(N + 1)], rtol=1e-12)
    lrs, _ = _sequence(S.CyclicLR(_opt(ag), base_lr=0.1, max_lr=1.0, step_size_up=4,
                                  mode="triangular2"))
    np.testing.assert_allclose(lrs[:, 0], [0.1 + 0.9 * (1 - abs(e % 8 - 4) / 4)
                                           / 2 ** (e // 8) for e in range(N + 1)], rtol=1e-12)
    lrs, _ = _sequence(S.CyclicLR(_opt(ag), base_lr=0.1, max_lr=1.0, step_size_up=4,
                                  mode="exp_range", gamma=0.9))
    np.testing.assert_allclose(lrs[:, 0], [0.1 + 0.9 * (1 - abs(e % 8 - 4) / 4) * 0.9 ** e
                                           for e in range(N + 1)], rtol=1e-12)
    # base_lr replaces the optimizer's lr at construction
    assert lrs[0].tolist() == [0.1, 0.1]


def test_cosine_annealing_warm_restarts():
    lrs, _ = _sequence(S.CosineAnnealingWarmRestarts(_opt(ag), T_0=3, T_mult=2, eta_min=0.01))
    expected, t_cur, t_i = [], 0, 3
    for _ in range(N + 1):
        expected.append(0.01 + 0.99 * (1 + math.cos(math.pi * t_cur / t_i)) / 2)
        t_cur += 1
        if t_cur >= t_i:
            t_cur, t_i = 0, t_i * 2
    np.testing.assert_allclose(lrs[:, 0], expected, rtol=1e-12)


def test_cosine_annealing_warm_restarts_fractional_epochs():
    sched = S.CosineAnnealingWarmRestarts(_opt(ag), T_0=2, T_mult=2)
    tsched = (torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(_opt(torch), T_0=2, T_mult=2)
              if torch is not None else None)
    for epoch in np.arange(0, 12, 0.25):
        sched.step(float(epoch))
        # epoch 2..6 is the second cycle (T_i = 4), 6..14 the third (T_i = 8)
        t_cur, t_i = ((epoch, 2) if epoch < 2 else (epoch - 2, 4) if epoch < 6
                      else (epoch - 6, 8))
        assert sched.get_last_lr()[0] == pytest.approx(
            (1 + math.cos(math.pi * t_cur / t_i)) / 2, rel=1e-12, abs=1e-15)
        assert sched.last_epoch == math.floor(epoch)
        if tsched is not None:
            tsched.step(float(epoch))
            assert sched.get_last_lr() == pytest.approx(tsched.get_last_lr(), rel=1e-12)
    with pytest.raises(ValueError, match="Expected non-negative epoch"):
        sched.step(-1)


def test_sequential_lr():
    lrs, _ = _sequence(_sequential(S, _opt(ag)))
    expected = []
    for e in range(N + 1):
        if e < 5:
            expected.append(0.1 + 0.9 * e / 5)
        elif e < 12:
            expected.append(0.9 ** (e - 5))
        else:
            t = e - 12
            expected.append(0.01 + 0.99 * (1 + math.cos(math.pi * t / 6)) / 2)
    np.testing.assert_allclose(lrs[:, 0], expected, rtol=1e-12)


def test_chained_scheduler():
    lrs, _ = _sequence(_chained(S, _opt(ag)))
    np.testing.assert_allclose(lrs[:, 0], [(0.5 if e < 4 else 1.0) * 0.9 ** e
                                           for e in range(N + 1)], rtol=1e-12)


# -- ReduceLROnPlateau ------------------------------------------------------------------------

METRICS = [1.0, 0.9, 0.95, 0.95, 0.94, 0.96, 0.97, 0.5, 0.5, 0.51, 0.52, 0.49, 0.6, 0.7, 0.7,
           0.7, 0.8, 0.9, 0.3, 0.3, 0.3, 0.3, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55]
PLATEAU = {
    "min_rel": dict(mode="min", patience=2),
    "min_abs_cooldown": dict(mode="min", threshold=0.02, threshold_mode="abs", patience=1,
                             cooldown=2, factor=0.5),
    "max_rel_min_lr_list": dict(mode="max", patience=1, factor=0.3, min_lr=[0.05, 0.2]),
    "max_abs_eps": dict(mode="max", threshold=0.05, threshold_mode="abs", patience=0,
                        factor=0.5, eps=0.2),
}


@pytest.mark.parametrize("name", sorted(PLATEAU))
def test_reduce_lr_on_plateau_modes(name):
    kwargs = PLATEAU[name]
    lrs, _ = _sequence(S.ReduceLROnPlateau(_opt(ag), **kwargs), metrics=METRICS)
    # the rule written out
    mode, factor = kwargs.get("mode"), kwargs.get("factor", 0.1)
    thr, rel = kwargs.get("threshold", 1e-4), kwargs.get("threshold_mode", "rel") == "rel"
    min_lrs = kwargs.get("min_lr", [0, 0])
    best, bad, cool, lr, expected = (math.inf if mode == "min" else -math.inf), 0, 0, \
        [1.0, 0.5], [[1.0, 0.5]]
    for m in METRICS:
        if mode == "min":
            better = m < (best * (1 - thr) if rel else best - thr)
        else:
            better = m > (best * (1 + thr) if rel else best + thr)
        best, bad = (m, 0) if better else (best, bad + 1)
        if cool > 0:
            cool, bad = cool - 1, 0
        if bad > kwargs.get("patience", 10):
            lr = [max(x * factor, lo) if x - max(x * factor, lo) > kwargs.get("eps", 1e-8)
                  else x for x, lo in zip(lr, min_lrs)]
            cool, bad = kwargs.get("cooldown", 0), 0
        expected.append(list(lr))
    np.testing.assert_allclose(lrs, expected, rtol=1e-12)
    if torch is not None:
        theirs, _ = _sequence(torch.optim.lr_scheduler.ReduceLROnPlateau(_opt(torch), **kwargs),
                              metrics=METRICS)
        np.testing.assert_allclose(lrs, theirs, rtol=1e-12)


def test_reduce_lr_on_plateau_added_group():
    opt = _opt(ag)
    sched = S.ReduceLROnPlateau(opt, patience=0, min_lr=[0.0, 0.0])
    opt.add_param_group({"params": [ag.tensor([2.0], requires_grad=True)], "lr": 0.3})
    sched.step(1.0)
    with pytest.raises(RuntimeError, match="differs from when `ReduceLROnPlateau` was"):
        sched.step(2.0)
    fine = S.ReduceLROnPlateau(_opt(ag), patience=0, min_lr=0.1)
    fine.optimizer.add_param_group({"params": [ag.tensor([2.0], requires_grad=True)], "lr": 1})
    fine.step(1.0)
    fine.step(2.0)
    assert fine.get_last_lr() == pytest.approx([0.1, 0.1, 0.1])


# -- state dicts ---------------------------------------------------------------------------------

def _run_resumable(name, split, n=N):
    """lrs of an uninterrupted run (split None), or of one rebuilt from state dicts at
    ``split``."""
    make, kind = MAKERS[name]
    opt = _opt(ag, kind)
    sched = make(S, opt)
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(n):
            if i == split:
                osd, ssd = opt.state_dict(), sched.state_dict()
                opt = _opt(ag, kind, lrs=(7.0, 3.0))
                sched = make(S, opt)
                opt.load_state_dict(osd)
                sched.load_state_dict(ssd)
            opt.step()
            sched.step()
            out.append(_record(opt))
    return out


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_state_dict_round_trip_mid_schedule(name):
    full = _run_resumable(name, split=None)
    resumed = _run_resumable(name, split=11)
    np.testing.assert_allclose(np.array(resumed), np.array(full), rtol=1e-12)


@needs_torch
@pytest.mark.parametrize("name", sorted(MAKERS))
def test_state_dict_keys_match_torch(name):
    make, kind = MAKERS[name]
    ours = make(S, _opt(ag, kind)).state_dict()
    theirs = make(torch.optim.lr_scheduler, _opt(torch, kind)).state_dict()
    assert sorted(ours) == sorted(theirs)
    for key in ("last_epoch", "base_lrs", "_last_lr", "_step_count"):
        if key in theirs:
            assert ours[key] == pytest.approx(theirs[key]), key
    if "_schedulers" in theirs:
        for a, b in zip(ours["_schedulers"], theirs["_schedulers"]):
            assert sorted(a) == sorted(b)


def test_reduce_lr_on_plateau_state_dict_round_trip():
    opt = _opt(ag)
    sched = S.ReduceLROnPlateau(opt, mode="max", patience=1, cooldown=1)
    for m in METRICS[:10]:
        sched.step(m)
    fresh = S.ReduceLROnPlateau(_opt(ag))
    fresh.optimizer.load_state_dict(opt.state_dict())
    fresh.load_state_dict(sched.state_dict())
    for m in METRICS[10:]:
        sched.step(m)
        fresh.step(m)
        assert fresh.get_last_lr() == sched.get_last_lr()
    assert fresh.mode == "max" and fresh.num_bad_epochs == sched.num_bad_epochs


def test_lambda_state_dict_saves_callable_objects():
    class Decay:
        def __init__(self, rate):
            self.rate = rate

        def __call__(self, epoch):
            return self.rate

    sched = S.MultiplicativeLR(_opt(ag), [Decay(0.5), lambda e: 0.9])
    sd = sched.state_dict()
    assert sd["lr_lambdas"] == [{"rate": 0.5}, None]
    other = S.MultiplicativeLR(_opt(ag), [Decay(0.1), lambda e: 0.9])
    other.load_state_dict(sd)
    assert other.lr_lambdas[0].rate == 0.5


# -- errors and warnings --------------------------------------------------------------------------

BAD = {
    "linear_start": lambda m, o: m.LinearLR(o, start_factor=0),
    "linear_end": lambda m, o: m.LinearLR(o, end_factor=1.5),
    "constant_factor": lambda m, o: m.ConstantLR(o, factor=1.5),
    "multiplicative_count": lambda m, o: m.MultiplicativeLR(o, [lambda e: 1.0]),
    "multiplicative_callable": lambda m, o: m.MultiplicativeLR(o, 0.5),
    "one_cycle_no_steps": lambda m, o: m.OneCycleLR(o, max_lr=1.0),
    "one_cycle_total": lambda m, o: m.OneCycleLR(o, max_lr=1.0, total_steps=0),
    "one_cycle_epochs": lambda m, o: m.OneCycleLR(o, max_lr=1.0, epochs=0, steps_per_epoch=3),
    "one_cycle_pct": lambda m, o: m.OneCycleLR(o, max_lr=1.0, total_steps=10, pct_start=1.5),
    "one_cycle_anneal": lambda m, o: m.OneCycleLR(o, max_lr=1.0, total_steps=10,
                                                  anneal_strategy="cubic"),
    "one_cycle_max_lr": lambda m, o: m.OneCycleLR(o, max_lr=[1.0], total_steps=10),
    "cyclic_mode": lambda m, o: m.CyclicLR(o, 0.1, 1.0, mode="square"),
    "warm_t0": lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=0),
    "warm_tmult": lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=0),
    "warm_eta": lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=2, eta_min="x"),
    "sequential_empty": lambda m, o: m.SequentialLR(o, [], milestones=[]),
    "sequential_milestones": lambda m, o: m.SequentialLR(o, [m.ExponentialLR(o, 0.9)], [3]),
    "sequential_plateau": lambda m, o: m.SequentialLR(o, [m.ReduceLROnPlateau(o),
                                                          m.ExponentialLR(o, 0.9)], [3]),
    "chained_empty": lambda m, o: m.ChainedScheduler([]),
    "plateau_factor": lambda m, o: m.ReduceLROnPlateau(o, factor=1.0),
    "plateau_mode": lambda m, o: m.ReduceLROnPlateau(o, mode="up"),
    "plateau_threshold_mode": lambda m, o: m.ReduceLROnPlateau(o, threshold_mode="pct"),
    "plateau_min_lrs": lambda m, o: m.ReduceLROnPlateau(o, min_lr=[0.1]),
    "not_an_optimizer": lambda m, o: m.StepLR(object(), 3),
    "resume_without_initial_lr": lambda m, o: m.LinearLR(o, last_epoch=4),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_errors_are_pytorchs(name):
    opt = _opt(ag)
    before = [dict(g) for g in opt.param_groups]
    with pytest.raises((ValueError, TypeError, KeyError)) as ours:
        BAD[name](S, opt)
    assert [dict(g) for g in opt.param_groups] == before or name.startswith("sequential")
    if torch is not None:
        with pytest.raises((ValueError, TypeError, KeyError)) as theirs:
            BAD[name](torch.optim.lr_scheduler, _opt(torch))
        assert ours.type is theirs.type and str(ours.value) == str(theirs.value)


def test_cycle_momentum_needs_a_momentum():
    opt = optim.Adagrad([ag.tensor([1.0], requires_grad=True)], lr=0.1)
    with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
        S.CyclicLR(opt, 0.1, 1.0)
    with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
        S.OneCycleLR(opt, 1.0, total_steps=10)
    assert opt.param_groups[0]["lr"] == 0.1 and "initial_lr" not in opt.param_groups[0]
    S.CyclicLR(opt, 0.1, 1.0, cycle_momentum=False)  # fine without cycling


def test_warnings():
    opt = _opt(ag)
    sched = S.LinearLR(opt)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        sched.step()
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        sched.get_lr()
    with pytest.warns(UserWarning, match="The epoch parameter"):
        sched.step(3)
    assert sched.get_last_lr()[0] == pytest.approx(1 / 3 + 2 / 3 * 3 / 5)
    # an optimizer.step replaced after the scheduler was made
    opt3 = _opt(ag)
    sched3 = S.StepLR(opt3, 2)
    opt3.step = lambda closure=None: None
    with pytest.warns(UserWarning, match="has been overridden after learning rate scheduler"):
        sched3.step()
    assert S.EPOCH_DEPRECATION_WARNING.startswith("The epoch parameter")
    # no warning in the right order
    opt2 = _opt(ag)
    sched2 = S.PolynomialLR(opt2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt2.step()
        sched2.step()


def test_tensor_lr_is_updated_in_place():
    lr = ag.tensor(0.5)
    opt = optim.SGD([ag.tensor([1.0], requires_grad=True)], lr=lr)
    sched = S.ExponentialLR(opt, gamma=0.5)
    opt.step()
    sched.step()
    assert opt.param_groups[0]["lr"] is lr and lr.item() == 0.25
    assert isinstance(sched.get_last_lr()[0], ag.Tensor)


RESUMED = {
    "step": lambda m, o: m.StepLR(o, 4, gamma=0.5, last_epoch=3),
    "multistep": lambda m, o: m.MultiStepLR(o, [4, 6], gamma=0.5, last_epoch=3),
    "exponential": lambda m, o: m.ExponentialLR(o, 0.9, last_epoch=3),
    "cosine": lambda m, o: m.CosineAnnealingLR(o, T_max=7, last_epoch=3),
    "linear": lambda m, o: m.LinearLR(o, last_epoch=2),
    "polynomial": lambda m, o: m.PolynomialLR(o, total_iters=8, last_epoch=2),
    "warm_restarts": lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=3, last_epoch=4),
}


@pytest.mark.parametrize("name", sorted(RESUMED))
def test_resuming_with_last_epoch_matches_torch(name):
    """A scheduler built with ``last_epoch >= 0`` (groups holding ``initial_lr``) takes
    PyTorch's first step: e.g. StepLR resumed at epoch 3 with step_size 4 decays at once
    (before the fix it kept the rate)."""
    def run(lib, module):
        opt = _opt(lib)
        for group in opt.param_groups:
            group["initial_lr"] = group["lr"]
        return _sequence(RESUMED[name](module, opt), n=10)[0]
    ours = run(ag, S)
    if name == "step":
        assert ours[0].tolist() == [0.5, 0.25]
    if torch is not None:
        np.testing.assert_allclose(ours, run(torch, torch.optim.lr_scheduler), rtol=1e-12)
