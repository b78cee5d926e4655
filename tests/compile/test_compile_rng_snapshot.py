"""The random stream in a recording's snapshot: the NumPy generator's cheap copy (its state,
made into a generator at its first draw) continues exactly where the original was, and a
recording that is undone puts the default generator back there."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.compiler import Unsupported
from arraygrad_numpy.backend import NumpyGenerator


def _draws(g):
    return [g.normal((3,), np.float32), g.uniform((2, 2), np.float64),
            g.integers(0, 100, (4,), np.int64), g.permutation(5)]


def _same(a, b):
    return all(x.dtype == y.dtype and np.array_equal(x, y) for x, y in zip(a, b))


def test_a_copy_continues_the_stream_and_is_independent():
    g = NumpyGenerator(7)
    g.normal((5,), np.float32)
    c = g.copy()
    cc = c.copy()  # a copy of a copy not drawn from yet
    want = _draws(g)
    assert _same(_draws(c), want)
    assert _same(_draws(cc), want)
    # drawing from a copy left the others alone
    d = g.copy()
    assert _same(_draws(d), _draws(g))


def test_a_copy_not_drawn_from_pickles():
    g = NumpyGenerator(3)
    g.uniform((4,), np.float32)
    c = pickle.loads(pickle.dumps(g.copy()))
    assert _same(_draws(c), _draws(g))


def test_the_default_generator_snapshot_restores_exactly():
    ag.manual_seed(11)
    ag.rand(3)
    from arraygrad.random import default_generator

    gen = default_generator
    snap = gen._snapshot()
    want = ag.rand(4).numpy().copy()
    gen._restore(snap)
    assert np.array_equal(ag.rand(4).numpy(), want)
    gen._restore(snap)  # a snapshot restores any number of times
    assert np.array_equal(ag.rand(4).numpy(), want)


def test_an_undone_recording_gives_the_random_stream_back():
    # fullgraph=True raising at a graph break undoes the call, its draws included: the next
    # draw is the one eager makes without that call
    def step(x):
        y = x * ag.rand(4)
        return y.sum().item()  # a graph break

    ag.manual_seed(5)
    ag.rand(2)
    want = ag.rand(4).numpy().copy()
    ag.manual_seed(5)
    ag.rand(2)
    with pytest.raises(Unsupported, match="graph break"):
        ag.compile(step, fullgraph=True)(ag.ones(4))
    assert np.array_equal(ag.rand(4).numpy(), want)


def test_compile_after_a_draw_on_the_strict_backend():
    """The snapshot copies every backend's generator: the strict one holds modules, which a
    deep copy cannot copy (TypeError: cannot pickle 'module' object before its own copy)."""
    ag.randn(2, device="strict")
    f = ag.compile(lambda t: t * 2)
    assert f(ag.ones(2)).tolist() == [2.0, 2.0]


class _Uncopyable:
    """A third-party native generator without the contract's ``copy``, which a deep copy
    cannot copy either."""

    def __deepcopy__(self, memo):
        raise TypeError("cannot pickle 'module' object")


def test_a_state_that_cannot_be_snapshotted_runs_eagerly_not_raises(monkeypatch):
    # compile is safe to leave on: a snapshot failing before the recording is a graph break
    # (the call runs eagerly, with its warning), never an error the eager call would not raise
    from arraygrad.random import Generator, _default
    from arraygrad.device import device

    odd = Generator(device("cpu"))
    odd._native = (None, _Uncopyable())
    monkeypatch.setitem(_default, device("meta"), odd)
    calls = []

    def step(t):
        calls.append(1)
        return t * 2

    f = ag.compile(step)
    with pytest.warns(UserWarning, match="cannot be snapshotted.*TypeError"):
        out = f(ag.ones(2))
    assert out.tolist() == [2.0, 2.0] and len(calls) == 1  # the body ran once
    assert f(ag.ones(2)).tolist() == [2.0, 2.0] and len(calls) == 2
