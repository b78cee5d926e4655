"""Learning-rate schedulers: lr sequences written out from the documented rules, state dicts,
ReduceLROnPlateau's patience/cooldown/threshold/min_lr, and PyTorch agreement if installed."""

from __future__ import annotations

import math
import warnings

import pytest

import arraygrad as ag
from arraygrad import optim
from arraygrad.optim import lr_scheduler as S


def _opt(lr=1.0, groups=1):
    params = [{"params": [ag.tensor([1.0], requires_grad=True)], "lr": lr * (i + 1)}
              for i in range(groups)]
    return optim.SGD(params, lr=lr)


def _sequence(sched, n=8):
    opt = sched.optimizer
    out = [sched.get_last_lr()[0]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(n):
            opt.step()
            sched.step()
            out.append(sched.get_last_lr()[0])
    return out


def test_step_lr():
    assert _sequence(S.StepLR(_opt(), step_size=3, gamma=0.5)) == pytest.approx(
        [1, 1, 1, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25])


def test_multistep_lr_with_repeated_milestone():
    assert _sequence(S.MultiStepLR(_opt(), milestones=[2, 5, 5], gamma=0.1)) == pytest.approx(
        [1, 1, 0.1, 0.1, 0.1, 1e-3, 1e-3, 1e-3, 1e-3])


def test_exponential_lr():
    assert _sequence(S.ExponentialLR(_opt(), gamma=0.9)) == pytest.approx(
        [0.9 ** e for e in range(9)])


def test_cosine_annealing_lr_follows_closed_form_and_restarts():
    eta_min, t_max = 0.1, 4
    seq = _sequence(S.CosineAnnealingLR(_opt(), T_max=t_max, eta_min=eta_min), n=12)
    # the closed form (periodic with period 2 * T_max)
    expected = [eta_min + (1 - eta_min) * (1 + math.cos(math.pi * e / t_max)) / 2
                for e in range(13)]
    assert seq == pytest.approx(expected)


def test_lambda_lr_per_group_and_state_dict():
    opt = _opt(groups=2)
    sched = S.LambdaLR(opt, [lambda e: 0.5 ** e, lambda e: 1.0 / (e + 1)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(3):
            opt.step()
            sched.step()
    assert sched.get_last_lr() == pytest.approx([0.125, 2.0 / 4])
    sd = sched.state_dict()
    assert sd["last_epoch"] == 3 and sd["lr_lambdas"] == [None, None] and "optimizer" not in sd


def test_scheduler_state_dict_round_trip():
    opt = _opt()
    sched = S.StepLR(opt, step_size=2, gamma=0.1)
    _sequence(sched, n=3)
    opt2 = _opt()
    opt2.load_state_dict(opt.state_dict())
    sched2 = S.StepLR(opt2, step_size=100)
    sched2.load_state_dict(sched.state_dict())
    assert _sequence(sched2, n=3)[1:] == _sequence(sched, n=3)[1:]


def test_warning_when_scheduler_steps_before_optimizer():
    sched = S.StepLR(_opt(), step_size=1)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        sched.step()


def test_resuming_without_initial_lr_raises():
    with pytest.raises(KeyError, match="initial_lr"):
        S.StepLR(_opt(), step_size=1, last_epoch=3)


def test_reduce_lr_on_plateau_patience_cooldown_min_lr():
    opt = _opt()
    sched = S.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=1, cooldown=1,
                                min_lr=0.2, threshold=0.1, threshold_mode="abs")
    metrics = [1.0, 0.95, 0.95, 0.95, 0.95, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5]
    lrs = []
    for m in metrics:
        sched.step(m)
        lrs.append(sched.get_last_lr()[0])
    # 0.95 is not 0.1 better than 1.0: two bad epochs (> patience 1) -> halve; the next bad
    # epoch is forgiven by the cooldown; 0.5 improves; then the same again, floored at min_lr
    assert lrs == pytest.approx([1, 1, 0.5, 0.5, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.2])


def test_reduce_lr_on_plateau_max_rel_and_errors():
    opt = _opt()
    sched = S.ReduceLROnPlateau(opt, mode="max", factor=0.1, patience=0)
    sched.step(1.0)
    sched.step(1.00001)  # not 1e-4 relatively better
    assert sched.get_last_lr() == pytest.approx([0.1])
    with pytest.raises(ValueError, match="Factor should be < 1.0"):
        S.ReduceLROnPlateau(opt, factor=1.0)
    with pytest.raises(ValueError, match="expected 1 min_lrs, got 2"):
        S.ReduceLROnPlateau(opt, min_lr=[0, 0])
    with pytest.raises(ValueError, match="mode sideways is unknown"):
        S.ReduceLROnPlateau(opt, mode="sideways")
    sd = sched.state_dict()
    fresh = S.ReduceLROnPlateau(_opt())
    fresh.load_state_dict(sd)
    assert fresh.mode == "max" and fresh.best == sched.best


def test_sequences_match_torch():
    torch = pytest.importorskip("torch")

    def torch_seq(make, n=12):
        p = torch.zeros(1, requires_grad=True)
        opt = torch.optim.SGD([p], lr=1.0)
        sched = make(torch.optim.lr_scheduler, opt)
        out = [sched.get_last_lr()[0]]
        for _ in range(n):
            opt.step()
            sched.step()
            out.append(sched.get_last_lr()[0])
        return out

    makers = [
        lambda m, o: m.StepLR(o, 3, gamma=0.3),
        lambda m, o: m.MultiStepLR(o, [1, 4, 4, 9], gamma=0.5),
        lambda m, o: m.ExponentialLR(o, 0.8),
        lambda m, o: m.CosineAnnealingLR(o, T_max=5, eta_min=0.05),
        lambda m, o: m.LambdaLR(o, lambda e: 1 / (1 + e)),
    ]
    for make in makers:
        ours = _sequence(make(S, _opt()), n=12)
        assert ours == pytest.approx(torch_seq(make), rel=1e-12)
