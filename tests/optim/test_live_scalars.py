"""``arraygrad.compiler.scalars``: ``live`` is the plain value outside a recording and a
``LiveScalar`` carrying its getter inside one; ``host_effect`` asks the recorder to redo a
Python-only call at replay (or to break the graph when it cannot)."""

from __future__ import annotations

import copy
import pickle
from contextlib import contextmanager

import pytest

from arraygrad.compiler.scalars import (LiveScalar, host_effect, is_recording, live,
                                        recording_flag)
from arraygrad.compiler.schedulers import replay_steps, restore_steps


@contextmanager
def recording(host_calls=None, breaks=None):
    """What the recorder does around a recording call: the flag on, its hooks installed
    (the recorder's views of creation and draws registered: its modules loaded)."""
    import arraygrad.compiler.recording_backend  # noqa: F401
    recording_flag.on = True
    recording_flag.host_call = None if host_calls is None else host_calls.append
    recording_flag.graph_break = None if breaks is None else breaks.append
    try:
        yield
    finally:
        recording_flag.on = False
        recording_flag.host_call = recording_flag.graph_break = None


def test_outside_a_recording_live_is_the_getters_own_value():
    lr = [0.25]
    value = live(lambda: lr[0] * 2)
    assert type(value) is float and value == 0.5
    assert type(live(lambda: 3)) is int  # the type eager computed is kept (bit-exactness)
    sentinel = object()
    assert live(lambda: sentinel) is sentinel
    assert not is_recording()


def test_inside_a_recording_live_carries_a_getter_that_tracks_later_state():
    state = {"lr": 0.1, "step": 1}
    with recording():
        assert is_recording()
        value = live(lambda: state["lr"] / (1 - 0.9 ** state["step"]))
    assert isinstance(value, LiveScalar) and isinstance(value, float)
    assert value == 0.1 / (1 - 0.9 ** 1)  # exactly the eager expression's value
    state["lr"], state["step"] = 0.05, 7
    assert value.getter() == 0.05 / (1 - 0.9 ** 7)
    assert value == 0.1 / (1 - 0.9 ** 1)  # the recorded number itself does not change


def test_the_getter_runs_with_the_recording_flag_off():
    seen = []
    with recording():
        live(lambda: seen.append(is_recording()) or 1.0)
        assert is_recording()  # restored after the getter
    assert seen == [False]


def test_a_getter_that_raises_leaves_the_flag_as_it_was():
    with recording():
        with pytest.raises(ZeroDivisionError):
            live(lambda: 1 / 0)
        assert is_recording()


def test_non_numbers_and_bools_are_not_wrapped_while_recording():
    with recording():
        assert live(lambda: True) is True
        assert live(lambda: None) is None
        assert type(live(lambda: 2)) is LiveScalar


def test_arithmetic_on_a_live_scalar_stays_live_and_exact():
    state = {"w": 0.1, "lr": 0.3}
    with recording():
        w = live(lambda: state["w"])
        lr = live(lambda: state["lr"])
    derived = {"1 - w": (1 - w, lambda: 1 - state["w"]),
               "-lr": (-lr, lambda: -state["lr"]),
               "w * lr / 3": (w * lr / 3, lambda: state["w"] * state["lr"] / 3),
               "2 ** w + abs(-w)": (2 ** w + abs(-w), lambda: 2 ** state["w"] + abs(-state["w"])),
               "lr - w ** 2": (lr - w ** 2, lambda: state["lr"] - state["w"] ** 2)}
    for name, (value, expected) in derived.items():
        assert type(value) is LiveScalar, name
        assert value == expected(), name  # the same float operations: bit for bit
    state.update(w=0.7, lr=0.05)
    for name, (value, expected) in derived.items():
        assert value.getter() == expected(), name  # and they follow the state
    assert type(w < lr) is bool and type(float(w)) is float
    assert w.__add__([1]) is NotImplemented  # not a number: the other operand decides


def test_copies_and_pickles_of_a_live_scalar_are_plain_floats():
    with recording():
        value = live(lambda: 0.5)
    assert type(copy.deepcopy(value)) is float and copy.deepcopy(value) == 0.5
    assert type(pickle.loads(pickle.dumps(value))) is float
    assert repr(value) == "LiveScalar(0.5)"


class Counter:
    """A Python-only side effect, like an LR scheduler's ``step``."""

    def __init__(self):
        self.n = 0
        self.flags = []

    def step(self, by=1):
        """Advance by ``by``."""
        if recording_flag.on:
            return host_effect(self.step, by=by)
        self.flags.append(is_recording())
        self.n += by
        return self.n


def test_host_effect_outside_a_recording_is_the_plain_call():
    c = Counter()
    assert c.step() == 1 and c.step(by=2) == 3 and c.flags == [False, False]


def test_host_effect_while_recording_runs_once_and_hands_the_recorder_a_replay():
    c, calls = Counter(), []
    with recording(host_calls=calls):
        assert c.step(by=5) == 5
    assert c.flags == [False] and len(calls) == 1  # ran with the recording flag off
    calls[0]()  # the replay redoes the same call
    calls[0]()
    assert c.n == 15


def test_host_effect_without_a_host_hook_is_a_graph_break():
    c, breaks = Counter(), []
    with recording(breaks=breaks):
        assert c.step() == 1  # the call still finishes (eagerly)
    assert len(breaks) == 1 and "Counter.step" in breaks[0]


def _schedulers():
    from arraygrad import optim
    from arraygrad.optim import lr_scheduler as S
    import arraygrad as ag

    def make(kind):
        w = ag.tensor([1.0], requires_grad=True)
        opt = optim.SGD([w], lr=0.1, momentum=0.9)
        opt._opt_called = True  # as after an optimizer step (no order warning)
        if kind == "step":
            return S.StepLR(opt, 2, gamma=0.5), ()
        if kind == "sequential":
            return S.SequentialLR(opt, [S.ConstantLR(opt, factor=0.5, total_iters=2),
                                        S.ExponentialLR(opt, gamma=0.9)], milestones=[3]), ()
        if kind == "chained":
            return S.ChainedScheduler([S.ExponentialLR(opt, 0.9), S.StepLR(opt, 2)]), ()
        if kind == "warm_restarts":
            return S.CosineAnnealingWarmRestarts(opt, T_0=3), ()
        if kind == "one_cycle":  # also cycles the momentum
            return S.OneCycleLR(opt, max_lr=1.0, total_steps=20), ()
        return S.ReduceLROnPlateau(opt, patience=0), (1.0,)
    return make


@pytest.mark.parametrize("kind", ["step", "sequential", "chained", "warm_restarts",
                                  "one_cycle", "plateau"])
def test_a_scheduler_step_while_recording_is_redone_by_each_replay(kind):
    make = _schedulers()
    eager, args = make(kind)
    recorded, _ = make(kind)
    calls = []
    stepped = replay_steps([recorded])  # what the recorder does to the schedulers it finds
    with recording(host_calls=calls):
        recorded.step(*args)
    restore_steps(stepped)
    assert "step" not in vars(recorded)
    assert len(calls) == 1  # one host call, however many schedulers it steps inside
    eager.step(*args)
    for _ in range(8):  # the replays
        calls[0]()
        eager.step(*args)
        assert recorded.optimizer.param_groups[0]["lr"] == eager.optimizer.param_groups[0]["lr"]
        assert (recorded.optimizer.param_groups[0]["momentum"]
                == eager.optimizer.param_groups[0]["momentum"])
        assert recorded.get_last_lr() == eager.get_last_lr()
        assert getattr(recorded, "last_epoch", None) == getattr(eager, "last_epoch", None)


def test_plateau_with_a_tensor_metric_is_read_as_the_recorder_sees_it():
    import arraygrad as ag

    sched, _ = _schedulers()("plateau")
    calls = []
    stepped = replay_steps([sched])
    with recording(host_calls=calls):
        sched.step(ag.tensor(1.0))  # the read itself is the recorder's (a graph break)
    restore_steps(stepped)
    assert calls == [] and sched.best == 1.0


def test_read_guarded_reads_with_the_recording_off_and_returns_the_plain_value():
    from arraygrad.compiler.scalars import read_guarded

    seen = []
    assert read_guarded(lambda: 7) == 7  # outside: the value itself
    with recording():
        value = read_guarded(lambda: seen.append(is_recording()) or 2.5)
        assert is_recording()
    assert seen == [False] and type(value) is float  # no LiveScalar: a branch, not an operand
