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


@contextmanager
def recording(host_calls=None, breaks=None):
    """What the recorder does around a recording call: the flag on, its hooks installed."""
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


def test_arithmetic_on_a_live_scalar_gives_plain_floats():
    with recording():
        value = live(lambda: 0.5)
    assert type(-value) is float and type(value * 2) is float and -value == -0.5


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

    @host_effect
    def step(self, by=1):
        """Advance by ``by``."""
        self.flags.append(is_recording())
        self.n += by
        return self.n


def test_host_effect_outside_a_recording_is_the_plain_call():
    c = Counter()
    assert c.step() == 1 and c.step(by=2) == 3 and c.flags == [False, False]
    assert Counter.step.__doc__ == "Advance by ``by``."


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
