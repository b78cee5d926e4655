"""The Python values a compiled step reads are guarded: a change between calls records
again, a change made by the step itself is not replayed, never a stale constant (issue 26's
reproducers, each compiled against eager from the same state)."""

from __future__ import annotations

import copy
import warnings

import pytest

import arraygrad as ag
from arraygrad import nn

from .helpers import UserSGD, host, same


class _Plain:
    """A plain config object."""


def _square_step(p, opt, compiled):
    """A step minimising ``sum(p * p)`` with ``opt``: compiled or not."""
    def step():
        opt.zero_grad()
        (p * p).sum().backward()
        opt.step()
    return ag.compile(step) if compiled else step


def _both(run):
    """``run(compiled)`` eagerly and compiled (warnings allowed: a call may run eagerly)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return run(False), run(True)


def test_a_user_optimizers_lr_changed_between_steps_is_read_anew():
    def run(compiled):
        p = nn.Parameter(ag.tensor([1.0]))
        opt = UserSGD([p], lr=0.1)

        s = _square_step(p, opt, compiled)
        out = []
        for i in range(4):
            s()
            out.append(host(p))
            opt.param_groups[0]["lr"] = 0.1 * (i + 2)
        return out
    eager, compiled = _both(run)
    assert same(eager, compiled)


@pytest.mark.parametrize("edit", ["attribute", "nested", "slope", "dropout_p", "bn_momentum",
                                  "bn_eps"])
def test_python_values_changed_between_calls_are_guarded(edit):
    def run(compiled):
        ag.manual_seed(0)
        cfg = _Plain()
        cfg.scale = 2.0
        nested = [{"mul": 1.0}]
        act = nn.LeakyReLU(0.1)
        drop = nn.Dropout(0.25)
        bn = nn.BatchNorm1d(3)
        model = nn.Sequential(bn, act, drop)
        model.train()

        def step(x):
            return model(x) * cfg.scale * nested[0]["mul"]
        s = ag.compile(step) if compiled else step
        out = []
        for i in range(4):
            out.append(host(s(ag.tensor([[-1.0, 2.0, 0.5], [0.25, -3.0, 1.0]]))))
            out.append(host(bn.running_mean))
            if edit == "attribute":
                cfg.scale += 2
            elif edit == "nested":
                nested[0]["mul"] += 1
            elif edit == "slope":
                act.negative_slope += 0.1
            elif edit == "dropout_p":
                drop.p = 0.5 if drop.p == 0.25 else 0.25
            elif edit == "bn_momentum":
                bn.momentum = 0.5 if bn.momentum == 0.1 else 0.1
            else:
                bn.eps = 1e-2 if bn.eps == 1e-5 else 1e-5
        return out
    eager, compiled = _both(run)
    assert same(eager, compiled)


def test_a_compiled_module_sees_its_hyperparameters_change():
    def run(compiled):
        m = nn.LeakyReLU(0.1)
        f = ag.compile(m) if compiled else m
        out = []
        for _ in range(4):
            out.append(host(f(-ag.ones(2))))
            m.negative_slope += 0.1
        return out
    eager, compiled = _both(run)
    assert same(eager, compiled)


def test_the_default_dtype_is_a_guard():
    def run(compiled):
        def f(x):
            return x + ag.arange(2.0)
        g = ag.compile(f) if compiled else f
        out = []
        try:
            for i in range(4):
                ag.set_default_dtype(ag.float64 if i % 2 else ag.float32)
                out.append(host(g(ag.ones(2, dtype=ag.int32))))
        finally:
            ag.set_default_dtype(ag.float32)
        return out
    eager, compiled = _both(run)
    assert [a.dtype for a in compiled] == [a.dtype for a in eager]
    assert same(eager, compiled)


def test_load_state_dict_between_calls_is_seen():
    def run(compiled):
        p = nn.Parameter(ag.tensor([1.0, -0.5]))
        opt = ag.optim.SGD([p], lr=0.1, momentum=0.9)

        s = _square_step(p, opt, compiled)
        out = []
        for _ in range(3):
            s()
        saved = copy.deepcopy(opt.state_dict())
        for _ in range(3):
            s()
            out.append(host(p))
        opt.load_state_dict(saved)
        for _ in range(3):
            s()
            out.append(host(p))
        out.append(host(opt.state[p]["momentum_buffer"]))
        return out
    eager, compiled = _both(run)
    assert same(eager, compiled)


def test_a_counter_the_step_increments_on_a_plain_object_counts_every_call():
    def run(compiled):
        c = _Plain()
        c.n = 0

        def f(x):
            c.n += 1
            return x * 2
        g = ag.compile(f) if compiled else f
        for _ in range(5):
            g(ag.ones(1))
        return c.n
    eager, compiled = _both(run)
    assert eager == compiled == 5


def test_an_error_of_the_step_on_the_recording_call_runs_the_body_once():
    c = _Plain()
    c.n = 0

    def f(x):
        c.n += 1
        raise ValueError("the step's own error")
    g = ag.compile(f)
    with pytest.raises(ValueError, match="the step's own error"):
        g(ag.ones(1))
    assert c.n == 1


def test_state_reached_through_a_default_argument_is_recorded_and_replayed():
    w = nn.Parameter(ag.ones(2))

    def f(x, w=w):
        return (x * w).sum()
    g = ag.compile(f)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "recording failed"
        got = [host(g(ag.ones(2))) for _ in range(3)]
        with ag.no_grad():
            w.mul_(2)
        got.append(host(g(ag.ones(2))))
    assert same(got, [host(ag.tensor(2.0))] * 3 + [host(ag.tensor(4.0))])
    assert g.stats["records"] == 1 and g.stats["replays"] == 3


class CountingSGD(ag.optim.Optimizer):
    """A user optimizer keeping a Python step count in its state (PyTorch's docs style)."""

    def __init__(self, params, lr=0.1):
        super().__init__(params, dict(lr=lr, unused=1.0))

    @ag.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["t"] = state.get("t", 0) + 1
                p.add_(p.grad, alpha=-group["lr"] / state["t"])


def test_a_user_optimizers_python_state_counter_is_never_replayed_stale():
    def run(compiled):
        p = nn.Parameter(ag.tensor([1.0, 2.0]))
        opt = CountingSGD([p])

        s = _square_step(p, opt, compiled)
        out = []
        for _ in range(6):
            s()
            out.append(host(p))
        return out, opt.state[p]["t"]
    eager, compiled = _both(run)
    assert same(list(eager[0]), list(compiled[0])) and eager[1] == compiled[1] == 6


def test_a_hyperparameter_the_user_step_does_not_read_guards_nothing():
    p = nn.Parameter(ag.tensor([1.0]))
    opt = UserSGD([p], lr=0.1)
    opt.param_groups[0]["unused"] = 0.0

    s = _square_step(p, opt, True)
    for i in range(5):
        s()
        opt.param_groups[0]["unused"] = float(i)  # never read by the step: no new recording
    # (two recordings: the first call finds no .grad, the second finds one, as zero_grad sets
    # it to None)
    assert s.stats["records"] == 2 and s.stats["replays"] == 3
    opt.param_groups[0]["lr"] = 0.2  # read by the step: recorded again, then replayed
    s()
    s()
    assert s.stats["records"] == 3 and s.stats["replays"] == 4


def test_the_warning_of_a_step_that_changes_python_state_names_the_users_line():
    c = _Plain()
    c.n = 0

    def f(x):
        c.n += 1
        return x * 2
    g = ag.compile(f)
    with pytest.warns(UserWarning, match="changed Python state") as got:
        for _ in range(4):
            g(ag.ones(1))
    assert [w.filename for w in got if "changed Python state" in str(w.message)] == [__file__]


def test_the_default_device_is_a_guard():
    def run(compiled):
        def f(x):
            return ag.ones(2) * 2
        g = ag.compile(f) if compiled else f
        out = []
        try:
            for i in range(4):
                ag.set_default_device("strict" if i % 2 else "cpu")
                out.append(str(g(ag.ones(1, device="cpu")).device))
        finally:
            ag.set_default_device("cpu")
        return out
    eager, compiled = _both(run)
    assert eager == compiled == ["cpu", "strict", "cpu", "strict"]


def test_fingerprints_tell_apart_what_the_flat_container_walk_appends_inline():
    """A dict's and an empty container's items are appended without a call per item; they
    must still tell ``0.0`` from ``-0.0`` and ``1`` from ``1.0`` and ``True``, and an empty
    container from one that gained an item."""
    from arraygrad.autograd.hooks import HookDict
    from arraygrad.compiler.python_values import value_guard

    distinct = [{"a": 0.0}, {"a": -0.0}, {"a": 1}, {"a": 1.0}, {"a": True}, {"a": "1"},
                {1: 1}, {"1": 1}, {}, {"a": None}, {"a": {}}, {"a": []}, HookDict(), [],
                (), [0.0], [-0.0], {"a": {"b": 2}}, {"a": {"b": 3}}]
    prints = [value_guard(v) for v in distinct]
    assert len(set(prints)) == len(distinct)
    hooks = HookDict()
    before = value_guard(hooks)
    hooks[0] = print
    assert value_guard(hooks) != before


def test_an_optimizer_hook_registered_between_compiled_steps_runs():
    m = nn.Linear(3, 2)
    opt = ag.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
    x = ag.randn(4, 3)

    @ag.compile
    def step():
        opt.zero_grad()
        m(x).pow(2).sum().backward()
        opt.step()

    for _ in range(4):
        step()
    calls = []
    opt.register_step_pre_hook(lambda o, args, kwargs: calls.append(o))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the hook is a graph break: eager from then on
        step()
        step()
    assert calls == [opt, opt]
