"""The recording call's cost: the replay function is generated and compiled at the first
replay (never in the recording call, once per key), and recording grows linearly with the
number of ops. Counted (Python function calls, builds), never timed, so nothing flakes."""

from __future__ import annotations

import sys

import numpy as np

import arraygrad as ag
from arraygrad.compiler import program as program_mod

from .helpers import host, same, scaled_sgd_step


def _chain(n_ops):
    x0 = np.array([0.1, 0.2, 0.3, 0.4], dtype=np.float32)

    def step():
        x = ag.tensor(x0, requires_grad=True)
        y = x
        for i in range(n_ops // 2):
            y = y + 1.0
            y = y * 0.5 if i % 2 else y.tanh()
        y.sum().backward()
        return x.grad
    return step


def _python_calls(fn):
    """How many Python functions ``fn()`` calls (a profile hook counting 'call' events)."""
    count = 0

    def hook(frame, event, arg):
        nonlocal count
        if event == "call":
            count += 1
    sys.setprofile(hook)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return count


def test_recording_call_grows_linearly_with_the_ops():
    ag.compile(_chain(8))()  # once-per-process imports out of the way
    small = _python_calls(ag.compile(_chain(100)))
    large = _python_calls(ag.compile(_chain(200)))
    # twice the ops: about twice the calls (a fixed part makes it a little less); a
    # quadratic path would give about 4x
    assert 1.5 < large / small < 2.2, (small, large)


def test_the_replay_function_is_built_at_the_first_replay_only(monkeypatch):
    builds = []
    real_build = program_mod.build

    def counting_build(*args, **kwargs):
        builds.append(1)
        return real_build(*args, **kwargs)
    monkeypatch.setattr(program_mod, "build", counting_build)
    eager, step = _chain(20), ag.compile(_chain(20))
    want = [host(eager()) for _ in range(4)]
    got = [host(step())]
    assert builds == [] and step.stats["records"] == 1  # the recording call built nothing
    got.append(host(step()))
    assert len(builds) == 1 and step.stats["replays"] == 1
    got += [host(step()), host(step())]
    assert len(builds) == 1 and step.stats["replays"] == 3  # built once, then called directly
    assert same(want, got)


def test_a_key_recorded_but_never_replayed_builds_nothing(monkeypatch):
    builds = []
    real_build = program_mod.build
    monkeypatch.setattr(program_mod, "build",
                        lambda *a, **k: builds.append(1) or real_build(*a, **k))
    step = ag.compile(lambda x: (x * 2.0).sum())
    for n in (2, 3, 4):  # a new shape each call: three recordings, no replay
        out = step(ag.ones(n))
        assert float(out) == 2.0 * n
    assert step.stats["records"] == 3 and builds == []


def _recording(step):
    """The recording of a compiled function's (only) key, before its first replay."""
    (entries,) = step._cache.values()
    return entries[0].program.rec


def test_an_in_place_update_records_one_instruction_as_eager_runs_one():
    from arraygrad.ops.rule import fast_paths

    # eager's ``p += g * -lr`` updates p's array in place and is done; the recording's
    # in-place operator gives back the argument's own traced array, so it is done too (no
    # second instruction writing the array into itself)
    def make():
        ag.manual_seed(0)
        lin = ag.nn.Linear(4, 3)
        opt = ag.optim.SGD(lin.parameters(), lr=0.1)
        x = ag.tensor(np.arange(8, dtype=np.float32).reshape(2, 4))

        def step():
            opt.zero_grad()
            lin(x).sum().backward()
            opt.step()
            return [p.detach().clone() for p in lin.parameters()]
        return step
    eager, step = make(), ag.compile(make())
    want = [host(eager()) for _ in range(4)]
    got = [host(step())]
    kinds = [ins.kind for ins in _recording(step).instrs]
    # (with fast paths off, eager itself computes the update apart and writes it back; with
    # them on, the update is one replay unit writing the parameter's own slot)
    if fast_paths.on:
        updates = [ins for ins in _recording(step).instrs
                   if getattr(ins.fn, "__name__", "") == "scaled_inplace"]
        assert len(updates) == 2 and all(not u.pure and u.out < 2 for u in updates), kinds
    assert ("setitem" in kinds) == (not fast_paths.on), kinds
    got += [host(step()) for _ in range(3)]  # the grads exist from the second call on
    assert step.stats == {"records": 2, "replays": 2, "eager": 0} and same(want, got)


def test_an_in_place_operator_on_a_traced_array_returns_that_array():
    from arraygrad.compiler import traced as traced_mod

    seen = []

    def step(x):
        data = x._data
        data += 1.0  # an ndarray's ``+=``: the same object back
        seen.append(x._data is data and type(data) is traced_mod.TracedArray)
        return x * 2.0
    f = ag.compile(step)
    out = f(ag.ones(3))
    assert seen == [True] and same(host(out), np.full(3, 4.0, np.float32))


class _Carry(ag.nn.Module):
    """A module keeping its last output as a plain tensor attribute (which the walk's stamp
    does not watch)."""

    def __init__(self):
        super().__init__()
        self.lin = ag.nn.Linear(3, 3)
        self.h = ag.zeros(2, 3)

    def forward(self, x):
        self.h = self.lin(x).tanh()
        return self.h * 2


def test_the_state_is_walked_again_after_a_recording_only_when_it_changed(monkeypatch):
    from arraygrad.compiler import compiled as compiled_mod

    walks = []
    real_walk = compiled_mod.layout_of
    monkeypatch.setattr(compiled_mod, "layout_of", lambda cells: walks.append(1) or
                        real_walk(cells))
    ag.manual_seed(0)
    model = ag.nn.Sequential(ag.nn.Linear(3, 4), ag.nn.Tanh(), ag.nn.Sequential(
        ag.nn.Linear(4, 2)))
    shared = model[2]  # a submodule reached twice: through the model and by itself
    opt = ag.optim.SGD(model.parameters(), lr=0.1)
    x = ag.ones(2, 3)

    def step():
        opt.zero_grad()
        (model(x).sum() + shared(x[:, :0].sum() + ag.ones(2, 4)).sum()).backward()
        opt.step()
    f = ag.compile(step)
    f()
    assert len(walks) == 1  # the walk after the call would find the same objects
    with ag.no_grad():
        carry = _Carry()
        g = ag.compile(carry)
        walks.clear()
        g(ag.ones(2, 3))
    assert len(walks) == 2  # the call rebound ``carry.h``: walked again


def test_recording_namespaces_are_shared_and_read_the_real_namespace_at_each_call(monkeypatch):
    from arraygrad.backends.registry import default_backend
    from arraygrad.compiler.recording_backend import recording_namespace

    xp = default_backend().xp
    assert recording_namespace(xp) is recording_namespace(xp)
    with ag.no_grad():
        first = ag.compile(lambda x: ag.matmul(x, x))
        first(ag.ones(2, 2))  # the shared namespace now holds its ``matmul`` wrapper
        calls = []
        real_matmul = xp.matmul
        monkeypatch.setattr(xp, "matmul", lambda *a, **k: calls.append(1) or real_matmul(*a, **k))
        x = ag.tensor(np.arange(4, dtype=np.float32).reshape(2, 2))
        second = ag.compile(lambda x: ag.matmul(x, x))
        out = [host(second(x)) for _ in range(3)]  # a recording, then replays
    want = host(x) @ host(x)
    assert calls and all(same(o, want) for o in out) and second.stats["replays"] == 2


def _sgd_step(seed=0):
    step, model = scaled_sgd_step(seed)
    return step, model, scale_of(2.0)


def scale_of(value):
    return ag.tensor(np.float32(value))


def test_the_state_after_a_recording_is_listed_without_a_guard_key(monkeypatch):
    from arraygrad.compiler import compiled as compiled_mod
    from arraygrad.compiler.state import discover, state_after

    keyed, unkeyed = [], []
    real_discover, real_after = compiled_mod.discover, compiled_mod.state_after
    monkeypatch.setattr(compiled_mod, "discover",
                        lambda *a: keyed.append(1) or real_discover(*a))
    monkeypatch.setattr(compiled_mod, "state_after",
                        lambda *a: unkeyed.append(a) or real_after(*a))
    (eager, _, s1), (fn, model, s2) = _sgd_step(), _sgd_step()
    # (a list argument: the call could fill it, so the state after it is listed anew; with
    # no container among the arguments it is the state found, see test_compile_record_passes)
    step = ag.compile(lambda scales: fn(scales[0]))
    want = [host(eager(s1)) for _ in range(4)]
    got = [host(step([s2]))]
    # the key is computed before the call only; the state the call left is listed without one
    assert len(keyed) == 1 and len(unkeyed) == 1
    layout, args, kwargs = unkeyed[0]
    after, full = state_after(layout, args, kwargs), discover(layout, args, kwargs)
    assert after.key is None and full.key is not None
    # the same tensors (each state tensor followed by its new .grad), in the same order
    assert [id(t) for t in after.tensors] == [id(t) for t in full.tensors]
    # (the argument; x, which has no grad; four parameters, each with its grad)
    assert after.nargs == full.nargs == 1 and len(after.tensors) == 1 + 1 + 2 * 4
    assert after.modules == full.modules and after.optimizers == full.optimizers
    got += [host(step([s2])) for _ in range(3)]
    assert step.stats == {"records": 2, "replays": 2, "eager": 0} and same(want, got)


def test_version_counters_replay_as_the_snapshot_before_the_recording_saw_them():
    # ``bind`` reads each state tensor's version, grad and graph before the call from the
    # recording's snapshot: a counter bumped by the call replays as the same bump
    def make():
        buf = ag.zeros(3)
        buf.add_(1.0)  # a version before the first call: the recording counts from it
        shared = buf[1:]  # a view: shares buf's counter

        def step(x):
            buf.mul_(2.0)
            shared.add_(x)
            return buf * 1.0
        return step, buf
    (eager, eb), (fn, sb) = make(), make()
    step = ag.compile(fn)
    x = ag.tensor(np.array([0.5, 0.25], dtype=np.float32))
    for call in range(4):
        want, got = host(eager(x)), host(step(x))
        assert same(want, got) and eb._version == sb._version == 1 + 2 * (call + 1)
    assert step.stats["replays"] == 3


def test_a_snapshot_restores_values_and_copies_nothing_it_shares():
    from arraygrad.compiler.state import Snapshot, discover, layout_of

    step, model, _ = _sgd_step()
    p = next(model.parameters())
    before = host(p)
    found = discover(layout_of([type("C", (), {"cell_contents": model})()]), (), {})
    snap = Snapshot(found)
    copy = next(e[7] for e in snap.tensors if e[0] is p)
    assert copy is not p._data and copy.dtype == p._data.dtype
    data = p._data
    with ag.no_grad():
        p.add_(1.0)
    assert not same(host(p), before) and same(np.asarray(copy), before)
    snap.restore()
    assert p._data is data and same(host(p), before)  # written back into the same array


def test_the_recording_gives_each_state_tensor_its_backends_one_recording_view():
    from arraygrad.compiler.recording_backend import RecordingBackend

    seen = []
    a, b = ag.ones(2), ag.full((2,), 3.0)
    real = a._backend

    def step():
        seen.append((a._backend, b._backend))
        return a * b

    out = ag.compile(step)()
    (va, vb), = seen
    # one view per backend and recording, around the tensors' own backend; put back after
    assert va is vb and va.__class__ is RecordingBackend and va._real is real
    assert a._backend is real and b._backend is real and same(host(out), np.full(2, 3.0, np.float32))


def test_a_replay_returns_the_recorded_call_s_containers():
    x = ag.tensor(np.arange(3, dtype=np.float32))
    step = ag.compile(lambda: ((x * 2.0, [x + 1.0, (x - 1.0,)]), {"s": x.sum()}))
    for _ in range(3):
        (pair, d) = step()
        assert type(pair) is tuple and type(pair[1]) is list and type(pair[1][1]) is tuple
        assert same(host(pair[1][1][0]), np.arange(3, dtype=np.float32) - 1.0)
        assert same(host(d["s"]), np.array(3.0, np.float32))
    assert step.stats["replays"] == 2


def test_one_pass_over_the_state_binds_versions_grads_and_arrays_together():
    # ``bind`` reads each state tensor's version counter, grad and array in one pass: a
    # parameter whose grad is set, whose array is rebound and whose counter is bumped (also
    # through a view sharing it) replays all three as eager does
    def make():
        w = ag.tensor(np.array([1.0, 2.0, 3.0], dtype=np.float32), requires_grad=True)
        b = ag.zeros(3)
        view = b[:2]

        def step(x):
            (w * x).sum().backward()
            with ag.no_grad():
                w.sub_(w.grad * 0.5)
                view.add_(1.0)
            b.data = b * 2.0  # rebound
            return w.grad
        return step, w, b
    (eager, ew, eb), (fn, sw, sb) = make(), make()
    step = ag.compile(fn)
    x = ag.tensor(np.array([0.5, 0.25, 2.0], dtype=np.float32))
    for _ in range(4):
        want, got = host(eager(x)), host(step(x))
        ew.grad, sw.grad = None, None
        assert same(want, got) and same(host([ew, eb]), host([sw, sb]))
        assert (ew._version, eb._version) == (sw._version, sb._version)
    assert step.stats["replays"] >= 2, step.stats
