"""Graph breaks: each cause warns once (naming it and the user's line), gives eager's results
and runs eagerly from then on; ``fullgraph=True`` raises ``Unsupported`` and changes nothing."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import arraygrad as ag
from arraygrad import nn
from arraygrad.compiler import Unsupported

from .helpers import host, same, state_of

X = np.random.default_rng(3).standard_normal((5, 4)).astype(np.float32)


def _setup(seed=0):
    ag.manual_seed(seed)
    model = nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 2))
    opt = ag.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    return model, opt


def _step_with(model, opt, extra):
    def step(x):
        opt.zero_grad()
        out = model(x)
        loss = (out ** 2).mean()
        loss.backward()
        opt.step()
        return loss, extra(x, out, loss, model)
    return step


# each: (what the warning names, the step's extra work, optional setup on the model)
CAUSES = {
    "item": ("`.item()`", lambda x, out, loss, m: loss.item(), None),
    "float": ("copied to the host", lambda x, out, loss, m: float(loss), None),
    "bool": ("copied to the host",
             lambda x, out, loss, m: 1 if m[0].weight.sum() > 0 else 0, None),
    "tolist": ("copied to the host", lambda x, out, loss, m: out.tolist(), None),
    "numpy": ("copied to the host", lambda x, out, loss, m: out.detach().numpy().sum(), None),
    "other library": ("copied to the host",
                      lambda x, out, loss, m: math.exp(np.asarray(out.detach()).mean()), None),
    "nonzero": ("data-dependent shape", lambda x, out, loss, m: ag.nonzero(x > 0), None),
    "boolean mask": ("data-dependent shape", lambda x, out, loss, m: x[x > 0].sum(), None),
    "tensor hook": ("tensor hook", lambda x, out, loss, m: None,
                    lambda m: m[0].weight.register_hook(lambda g: g * 1.0)),
    "module hook": ("module hook", lambda x, out, loss, m: None,
                    lambda m: m[0].register_forward_hook(lambda mod, i, o: None)),
    "hook inside": ("tensor hook registered inside",
                    lambda x, out, loss, m: (x * 1.0).requires_grad_().register_hook(print) and 0,
                    None),
}


def _run(name, compiled, fullgraph=False, steps=4):
    words, extra, prepare = CAUSES[name]
    model, opt = _setup()
    if prepare is not None:
        prepare(model)
    step = _step_with(model, opt, extra)
    if compiled:
        step = ag.compile(step, fullgraph=fullgraph)
    results = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for i in range(steps):
            results.append(host(step(ag.tensor(X + i))))
    breaks = [w for w in caught if "graph break" in str(w.message)]
    return results, state_of(model, opt), breaks, step


@pytest.mark.parametrize("name", sorted(CAUSES))
def test_break_warns_once_and_gives_eager_results(name):
    want, want_state, none, _ = _run(name, False)
    assert not none
    got, got_state, breaks, step = _run(name, True)
    assert same(want, got) and same(want_state, got_state)
    assert len(breaks) == 1, [str(w.message) for w in breaks]
    message = str(breaks[0].message)
    assert CAUSES[name][0] in message
    if name not in ("tensor hook", "module hook"):  # found before the call: no line inside it
        assert breaks[0].filename == __file__, (breaks[0].filename, message)
    assert step.stats["replays"] == 0


@pytest.mark.parametrize("name", sorted(CAUSES))
def test_fullgraph_raises_and_changes_nothing(name):
    words, extra, prepare = CAUSES[name]
    model, opt = _setup()
    if prepare is not None:
        prepare(model)
    step = ag.compile(_step_with(model, opt, extra), fullgraph=True)
    # a first eager-free step: momentum buffers and grads exist, so "unchanged" means something
    plain = _step_with(model, opt, lambda *a: None)
    plain(ag.tensor(X))
    before = state_of(model, opt)
    versions = [p._version for p in model.parameters()]
    grads = [p.grad for p in model.parameters()]
    with pytest.raises(Unsupported, match="graph break"):
        step(ag.tensor(X))
    assert same(state_of(model, opt), before)
    assert [p._version for p in model.parameters()] == versions
    assert all(p.grad is g for p, g in zip(model.parameters(), grads))
    assert all(type(p._data) is np.ndarray for p in model.parameters())


def test_value_read_that_depends_on_inputs_only_is_a_guard_not_a_break():
    # cross_entropy asks whether its targets suit the one-hot fast path (yes/no reads of
    # their range): guards, checked before anything is written. Batches with other labels
    # but the same answers replay the program; a batch with another answer (its range
    # spans the ignored class) records a second one
    from arraygrad.ops.rule import fast_paths

    ag.manual_seed(0)
    lin = nn.Linear(4, 3)
    f = ag.compile(lambda x, t: nn.functional.cross_entropy(lin(x), t, ignore_index=1))
    x = ag.tensor(X)
    t1, t2 = ag.tensor(np.array([0, 0, 0, 0, 0])), ag.tensor(np.array([2, 2, 2, 2, 2]))
    t3 = ag.tensor(np.array([0, 2, 2, 0, 2]))
    with warnings.catch_warnings(), ag.no_grad():
        warnings.simplefilter("error")
        for t in (t1, t1, t2, t3, t3, t1):
            want = nn.functional.cross_entropy(lin(x), t, ignore_index=1)
            assert same(host(f(x, t)), host(want))
    # (with fast paths off every batch takes the general path: one answer, one program)
    records = 2 if fast_paths.on else 1
    assert f.stats == {"records": records, "replays": 6 - records, "eager": 0}


def test_returned_loss_printed_after_the_call_is_fine():
    model, opt = _setup()
    step = ag.compile(_step_with(model, opt, lambda *a: None))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for i in range(4):
            loss, _ = step(ag.tensor(X))
            assert math.isfinite(loss.item())
    assert step.stats["replays"] == 2


def test_recording_failure_of_any_kind_runs_eagerly(monkeypatch):
    from arraygrad.compiler import session as session_mod

    model, opt = _setup()
    want = [host(_step_with(model, opt, lambda *a: None)(ag.tensor(X))) for _ in range(3)]
    want_state = state_of(model, opt)
    model, opt = _setup()
    step = ag.compile(_step_with(model, opt, lambda *a: None))

    def broken_bind(self, after, result):
        raise RuntimeError("recorder bug")
    monkeypatch.setattr(session_mod.Session, "bind", broken_bind)
    with pytest.warns(UserWarning):
        got = [host(step(ag.tensor(X))) for _ in range(3)]
    assert same(want, got) and same(want_state, state_of(model, opt))


def test_recording_failure_inside_the_call_reruns_it_eagerly(monkeypatch):
    from arraygrad.compiler import traced

    model, opt = _setup()
    want = [host(_step_with(model, opt, lambda *a: None)(ag.tensor(X))) for _ in range(3)]
    want_state = state_of(model, opt)
    model, opt = _setup()
    step = ag.compile(_step_with(model, opt, lambda *a: None))
    calls = {"n": 0}
    real = traced._trace

    def flaky(*args):
        calls["n"] += 1
        if calls["n"] == 5:  # midway through the forward
            raise TypeError("a recorder that cannot follow an operation")
        return real(*args)
    monkeypatch.setattr(traced, "_trace", flaky)
    with pytest.warns(UserWarning, match="recording failed"):
        got = [host(step(ag.tensor(X))) for _ in range(3)]
    assert same(want, got) and same(want_state, state_of(model, opt))


def test_user_error_during_recording_is_eagers_error():
    lin = nn.Linear(4, 3)
    f = ag.compile(lambda x: lin(x))
    with pytest.raises(RuntimeError) as got:
        f(ag.ones(2, 5))
    with pytest.raises(RuntimeError) as want:
        lin(ag.ones(2, 5))
    assert str(got.value) == str(want.value)


def test_fullgraph_raises_even_when_the_step_swallows_the_error():
    model, opt = _setup()

    def step(x):
        out = model(x)
        try:
            out.sum().item()
        except Exception:  # noqa: BLE001 - a step that hides errors
            pass
        return out

    before = state_of(model, opt)
    f = ag.compile(step, fullgraph=True)
    with ag.no_grad(), pytest.raises(Unsupported):
        f(ag.tensor(X))
    assert same(state_of(model, opt), before)
    assert all(type(p._data) is np.ndarray for p in model.parameters())


def test_keyboard_interrupt_during_recording_leaves_plain_arrays():
    model, opt = _setup()

    def step(x):
        model(x)
        raise KeyboardInterrupt

    f = ag.compile(step)
    with pytest.raises(KeyboardInterrupt):
        f(ag.tensor(X))
    assert all(type(p._data) is np.ndarray and type(p._backend).__name__ != "RecordingBackend"
               for p in model.parameters())


def test_a_read_of_a_value_the_step_wrote_is_a_break_not_a_guard():
    # the targets are changed in place before cross_entropy reads their range: a guard
    # checked before the program runs would see the old values, so this must break
    lin = nn.Linear(4, 3)
    targets = ag.tensor(np.array([0, 1, 2, 1, 0]))

    def step(x):
        targets.add_(1).remainder_(3)
        return nn.functional.cross_entropy(lin(x), targets)

    f = ag.compile(step)
    want_t = ag.tensor(np.array([0, 1, 2, 1, 0]))
    with ag.no_grad(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for i in range(4):
            want_t.add_(1).remainder_(3)
            want = host(nn.functional.cross_entropy(lin(ag.tensor(X)), want_t))
            assert same(host(f(ag.tensor(X))), want), i
    assert sum("graph break" in str(w.message) for w in caught) == 1
    assert f.stats["replays"] == 0


def test_a_step_appending_to_a_list_is_never_replayed_silently():
    model, opt = _setup()
    losses = []

    def step(x):
        opt.zero_grad()
        loss = (model(x) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss)
        return loss

    f = ag.compile(step)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for i in range(6):
            f(ag.tensor(X))
    assert len(losses) == 6 and f.stats["replays"] == 0
    assert any("runs eagerly" in str(w.message) and "list" in str(w.message) for w in caught)


def test_a_step_setting_the_learning_rate_itself_is_replayed_with_it():
    # the step's own Python halves the lr: the write into the group is a host call each
    # replay makes again, with the value eager computes then
    def make():
        model, opt = _setup()

        def step(x):
            opt.param_groups[0]["lr"] *= 0.5
            opt.zero_grad()
            (model(x) ** 2).mean().backward()
            opt.step()
        return model, opt, step

    m1, o1, eager = make()
    m2, o2, step = make()
    compiled = ag.compile(step)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(6):
            eager(ag.tensor(X))
            compiled(ag.tensor(X))
            assert same(state_of(m1, o1), state_of(m2, o2)), i
    assert compiled.stats["replays"] >= 4
