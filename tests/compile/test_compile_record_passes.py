"""The fixed passes of a recording call over the state (the walk before it, the comparisons
after it): what they skip when nothing changed, and what they still see when something did.
Values and counts, never timings."""

from __future__ import annotations

import warnings

import numpy as np

import arraygrad as ag
from arraygrad.compiler import compiled as compiled_mod

from .helpers import host, same, scaled_sgd_step


class _Root:
    """A cell-like root (what ``roots_of`` gives)."""

    def __init__(self, value):
        self.cell_contents = value


class _Carrier(ag.nn.Module):
    """A module keeping a plain tensor attribute (as an RNN keeps its hidden state)."""

    def __init__(self):
        super().__init__()
        self.lin = ag.nn.Linear(2, 2)
        self.state = ag.zeros(2)


def test_with_no_container_argument_the_state_after_the_call_is_the_state_found(monkeypatch):
    # the walk would find the same objects and no argument is a container the call could
    # fill: the state after the call is not listed again (each tensor's new .grad is read
    # from the state found)
    listed = []
    real_after = compiled_mod.state_after
    monkeypatch.setattr(compiled_mod, "state_after",
                        lambda *a: listed.append(1) or real_after(*a))
    eager, step = scaled_sgd_step()[0], ag.compile(scaled_sgd_step()[0])
    scale = ag.tensor(np.float32(2.0))
    want = [host(eager(scale)) for _ in range(4)]
    got = [host(step(scale)) for _ in range(4)]
    assert listed == [] and same(want, got)
    assert step.stats == {"records": 2, "replays": 2, "eager": 0}


def test_an_argument_s_gradient_set_by_the_call_replays_as_eager_sets_it():
    def make():
        def step(x):
            (x * x).sum().backward()
            return x.grad
        return step

    def arg():
        return ag.tensor(np.array([1.0, 2.0, 3.0], dtype=np.float32), requires_grad=True)
    eager, step = make(), ag.compile(make())
    xe, xc = arg(), arg()
    want, got = [], []
    for _ in range(4):
        xe.grad = xc.grad = None
        want.append(host(eager(xe)))
        out = step(xc)
        got.append(host(out))
        assert out is xc.grad
    assert same(want, got) and step.stats["replays"] == 3


def test_a_list_argument_the_call_fills_is_seen_after_the_call():
    # a container among the arguments is listed again after the call: a tensor the call put
    # in it is state the call created, which a replay would not create
    def step(xs):
        xs.append(xs[0] * 2.0)
        return xs[-1]
    compiled = ag.compile(step)
    eager_list = [ag.tensor(np.array([1.0, 2.0], dtype=np.float32))]
    compiled_list = [ag.tensor(np.array([1.0, 2.0], dtype=np.float32))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(4):
            assert same(host(step(eager_list)), host(compiled(compiled_list)))
    assert len(compiled_list) == len(eager_list) == 5
    assert compiled.stats["replays"] == 0


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


def test_tensors_of_several_devices_break_before_the_call():
    a = ag.tensor(np.array([1.0, 2.0], dtype=np.float32))
    b = ag.tensor(np.array([3.0, 4.0], dtype=np.float32)).to("strict")
    step = ag.compile(lambda: (a * 2.0, b * 2.0))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = step()
    assert "several devices" in " ".join(str(w.message) for w in caught)
    assert same(host([out[0], out[1].cpu()]), host([a * 2.0, (b * 2.0).cpu()]))
    assert step.stats["records"] == 0


def test_a_tensor_hook_is_named_before_a_module_hook_and_several_devices():
    # one pass over the tensors finds their hooks and their devices: the tensor hook is
    # still the reason given, as when the hooks were looked for first
    model = ag.nn.Linear(2, 2)
    model.register_forward_hook(lambda mod, args, out: None)
    model.weight.register_hook(lambda g: g)
    other = ag.ones(2).to("strict")
    x = ag.ones(1, 2)
    step = ag.compile(lambda: (model(x), other * 1.0))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        step()
    messages = " ".join(str(w.message) for w in caught)
    assert "tensor hook" in messages and "module hook" not in messages
    assert step.stats["records"] == 0


def test_the_walk_lists_plain_tensor_attributes_after_parameters():
    from arraygrad.compiler.state import layout_of

    m = _Carrier()
    layout = layout_of([_Root(m)])
    assert [id(t) for t in layout.base] == [id(t) for t in (m.lin.weight, m.lin.bias, m.state)]
    m.state = ag.ones(2)
    m.other = ag.ones(1)
    again = layout_of([_Root(m)])
    assert [id(t) for t in again.base] == [id(t) for t in (m.lin.weight, m.lin.bias, m.state,
                                                             m.other)]


def test_a_tensor_attribute_rebound_by_the_call_is_seen_after_it():
    # the call rebinds a module's plain tensor attribute: the state after the call is
    # walked again, and the new tensor is state the call created (not replayable)
    def make():
        m = _Carrier()

        def step(x):
            m.state = m.state + x
            return m.state * 1.0
        return step, m
    (eager, em), (fn, cm) = make(), make()
    step = ag.compile(fn)
    x = ag.ones(2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(4):
            assert same(host(eager(x)), host(step(x)))
            assert same(host(em.state), host(cm.state))
    assert step.stats["replays"] == 0


def test_a_call_that_changes_an_optimizer_s_hyperparameter_is_replayed_with_the_change():
    # the step's write into its group is made again at every replay (``group_reads``),
    # with the value eager computes then: the learning rate halves at each call
    def make():
        ag.manual_seed(0)
        model = ag.nn.Linear(3, 2)
        opt = ag.optim.SGD(model.parameters(), lr=0.5)
        x = ag.ones(2, 3)

        def step():
            opt.zero_grad()
            model(x).sum().backward()
            opt.step()
            opt.param_groups[0]["lr"] *= 0.5
            return model.weight * 1.0
        return step, opt
    (eager, eo), (fn, co) = make(), make()
    step = ag.compile(fn)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(4):
            assert same(host(eager()), host(step()))
    assert co.param_groups[0]["lr"] == eo.param_groups[0]["lr"] == 0.5 ** 5
    assert step.stats["replays"] >= 2


def test_the_layout_says_when_what_its_stamp_does_not_watch_was_rebound():
    from arraygrad.compiler.state import layout_of

    m = _Carrier()
    opt = ag.optim.SGD(m.parameters(), lr=0.1)
    other = ag.optim.SGD(m.parameters(), lr=0.1)
    sched = ag.optim.lr_scheduler.StepLR(opt, step_size=1)
    layout = layout_of([_Root(m), _Root(sched)])
    assert layout.current(layout.cells) and layout.unwatched_same()
    kept = m.state
    m.state = ag.zeros(2)  # a module's plain tensor attribute rebound
    assert layout.current(layout.cells) and not layout.unwatched_same()
    m.state = kept
    sched.optimizer = other  # a scheduler's optimizer rebound
    assert not layout.unwatched_same()
    sched.optimizer = opt
    m.note = 3  # a plain attribute that is no tensor
    assert layout.unwatched_same()


def test_the_layout_sees_a_root_rebound_and_an_empty_cell():
    from arraygrad.compiler.state import layout_of

    def make():
        model = ag.nn.Linear(2, 2)

        def step():
            return model(ag.ones(1, 2))
        if False:  # a cell that stays empty: ``late`` is assigned in no run
            late = None
        return step, (lambda: late)  # noqa: F821
    step, reads_late = make()
    cells = [step.__closure__[0], reads_late.__closure__[0]]
    layout = layout_of(cells)
    assert layout.current(cells)
    step.__closure__[0].cell_contents = ag.nn.Linear(2, 2)  # the root rebound
    assert not layout.current(cells)


def test_a_state_tensor_passed_as_an_argument_too_is_one_tensor():
    # the key lists the layout's tensors after the arguments': one met there is keyed by
    # its place among them, and the recording swaps it in once
    def make():
        ag.manual_seed(0)
        model = ag.nn.Linear(2, 2)
        x = ag.ones(3, 2)

        def step(w):
            with ag.no_grad():
                w.mul_(0.5)
            return model(x)
        return step, model
    (eager, em), (fn, cm) = make(), make()
    step = ag.compile(fn)
    want = [host(eager(em.weight)) for _ in range(4)]
    got = [host(step(cm.weight)) for _ in range(4)]
    assert same(want, got) and same(host(em.weight), host(cm.weight))
    assert step.stats["replays"] == 3
