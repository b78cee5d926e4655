"""The fixed passes of a recording call over the state (the walk before it, the comparisons
after it): what they skip when nothing changed, and what they still see when something did.
Values and counts, never timings."""

from __future__ import annotations

import warnings

import numpy as np

import arraygrad as ag

from .helpers import host, same


def test_a_call_that_switches_a_module_to_eval_is_not_replayed():
    # a replay would leave the module in training mode, where the call left it in eval
    def make():
        model = ag.nn.Sequential(ag.nn.Linear(3, 2), ag.nn.Dropout(0.5))
        x = ag.ones(4, 3)

        def step():
            model.eval()
            return model(x) * 2.0
        return step, model
    (eager, em), (fn, cm) = make(), make()
    cm.load_state_dict(em.state_dict())
    step = ag.compile(fn)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(4):
            em.train()
            cm.train()
            assert same(host(eager()), host(step()))
            assert cm.training is em.training is False
    assert step.stats["replays"] == 0
