"""A backend's capture capability: a capturable program's device part is handed to
``Backend.capture`` once and launched afterwards, over fixed arrays, with eager's results."""

from __future__ import annotations

import numpy as np
import pytest

import arraygrad as ag
from arraygrad import nn
from arraygrad.backends.registry import default_backend

from .helpers import host, same

IMG = np.random.default_rng(5).standard_normal((8, 3, 4)).astype(np.float32)


class FakeGraph:
    """A capture that launches by running the handed-over replay (what a graph launch
    computes), counting captures and launches."""

    def __init__(self):
        self.captures = 0
        self.launches = 0

    def __call__(self, replay):
        self.captures += 1

        def launch():
            self.launches += 1
            return replay()
        return launch


@pytest.fixture
def fake_capture(monkeypatch):
    graph = FakeGraph()
    monkeypatch.setattr(type(default_backend()), "capture", lambda self, replay: graph(replay),
                        raising=False)
    return graph


def test_inference_forward_is_captured_once_and_launched(fake_capture):
    ag.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2)).eval()
    cm = ag.compile(model)
    with ag.no_grad():
        for i in range(6):
            x = ag.tensor(IMG[i])
            assert same(host(cm(x)), host(model(x)))
    assert fake_capture.captures == 1
    assert fake_capture.launches == 5  # the first call records, the others launch


def test_training_step_through_a_capture_equals_eager(fake_capture):
    from arraygrad.compiler import capture as capture_mod

    def make():
        ag.manual_seed(0)
        model = nn.Sequential(nn.Linear(3, 5), nn.ReLU(), nn.Linear(5, 1))
        opt = ag.optim.SGD(model.parameters(), lr=0.05)

        def step(x):
            opt.zero_grad(set_to_none=False)
            loss = (model(x) ** 2).mean()
            loss.backward()
            opt.step()
            return loss
        return model, step

    m1, eager = make()
    m2, step = make()
    compiled = ag.compile(step)
    for i in range(8):
        assert same(host(eager(ag.tensor(IMG[i, :, :3]))), host(compiled(ag.tensor(IMG[i, :, :3]))))
        assert same(host(list(m1.parameters())), host(list(m2.parameters())))
    programs = [e.program for es in compiled._cache.values() for e in es]
    captured = [p for p in programs if isinstance(p, capture_mod.CapturedProgram)
                and p.launches is not None]  # replayed at least once
    # SGD reads its lr live: the lr reaches the captured program as a 0-d buffer
    assert captured and fake_capture.captures == len(captured)
    assert fake_capture.launches >= 5


def test_state_given_a_new_array_drops_the_capture(fake_capture):
    ag.manual_seed(0)
    lin = nn.Linear(4, 2)
    cf = ag.compile(lambda x: lin(x) * 2)
    with ag.no_grad():
        for i in range(3):
            cf(ag.tensor(IMG[i]))
        lin.weight.data = lin.weight.data * 1.0  # same tensor, a new array
        for i in range(3, 6):
            assert same(host(cf(ag.tensor(IMG[i]))), host(lin(ag.tensor(IMG[i])) * 2))
    assert fake_capture.captures == 1
    program = next(e.program for es in cf._cache.values() for e in es)
    assert program.off


def test_no_capture_by_default():
    from arraygrad.compiler import capture as capture_mod

    assert getattr(default_backend(), "capture", lambda replay: None)(lambda: None) is None
    lin = nn.Linear(4, 2)
    cf = ag.compile(lambda x: lin(x))
    with ag.no_grad():
        for i in range(3):
            assert same(host(cf(ag.tensor(IMG[i]))), host(lin(ag.tensor(IMG[i]))))
    program = next(e.program for es in cf._cache.values() for e in es)
    assert not isinstance(program, capture_mod.CapturedProgram) or program.off
