"""A compiled SGD step reads its (live) learning rate once per replay, however many
parameters the group has (issue 27: compiled mlp_small_step had grown one read per
parameter), and still follows a learning rate changed between steps, as eager does."""

from __future__ import annotations

import re

import numpy as np

import arraygrad as ag

from .helpers import host, training_step


def _step(seed: int = 0):
    """``(step, opt)``: an MLP's SGD step (four parameters in one group) on a fixed batch."""
    ag.manual_seed(seed)
    model = ag.nn.Sequential(ag.nn.Linear(6, 5), ag.nn.ReLU(), ag.nn.Linear(5, 3))
    opt = ag.optim.SGD(model.parameters(), lr=0.05)
    rng = np.random.default_rng(seed)
    x = ag.tensor(rng.standard_normal((8, 6)).astype(np.float32))
    y = ag.tensor(rng.integers(0, 3, (8,)).astype(np.int64))
    return training_step(model, opt, lambda m: ag.nn.functional.cross_entropy(m(x), y)), opt


def _replay_sources(step) -> list[str]:
    return [e.source for es in step._cache.values() for e in es if e.source]


def test_the_replay_reads_the_learning_rate_once():
    fn, _ = _step()
    step = ag.compile(fn)
    for _ in range(4):
        step()
    assert step.stats["replays"] >= 2
    (source,) = _replay_sources(step)
    # a live value's read is a call of its ``L<k>`` getter: the learning rate is the only one
    reads = re.findall(r"\bL\d+\(\)", source)
    assert len(reads) == 1, source


def test_a_changed_learning_rate_reaches_the_replay():
    (eager, eager_opt), (fn, opt) = _step(), _step()
    step = ag.compile(fn)
    for i in range(6):
        if i == 3:
            for o in (eager_opt, opt):
                o.param_groups[0]["lr"] = 0.2
        want, got = eager(), step()
        assert all(np.array_equal(host(w), host(g))
                   for w, g in zip([want[0], *want[1]], [got[0], *got[1]]))
    assert step.stats["replays"] >= 2
