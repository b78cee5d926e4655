"""``Optimizer``'s class-level names PyTorch has: the hook type aliases and ``profile_hook_step``
(the step wrapper: hooks, and a profiler range while profiling)."""

from __future__ import annotations

import arraygrad as ag
from arraygrad.optim import Optimizer


def _sgd() -> ag.optim.SGD:
    p = ag.nn.Parameter(ag.ones(2))
    p.grad = ag.ones(2)
    return ag.optim.SGD([p], lr=0.1)


def test_profile_hook_step_wraps_a_step_with_the_hooks() -> None:
    calls = []

    class Counting(Optimizer):
        def __init__(self, params):
            super().__init__(params, {})

        @Optimizer.profile_hook_step
        def plain(self):
            calls.append("step")

    opt = Counting([ag.nn.Parameter(ag.ones(1))])
    opt.register_step_pre_hook(lambda o, a, k: calls.append("pre"))
    opt.register_step_post_hook(lambda o, a, k: calls.append("post"))
    opt.plain()
    assert calls == ["pre", "step", "post"]


def test_a_profiled_step_shows_as_pytorchs_range() -> None:
    opt = _sgd()
    with ag.autograd.profiler.profile() as prof:
        opt.step()
    assert "Optimizer.step#SGD.step" in {e.name for e in prof.function_events}


def test_hook_type_aliases_exist() -> None:
    assert callable(lambda o, a, k: None) and Optimizer.OptimizerPreHook is not None
    assert Optimizer.OptimizerPostHook is not None
