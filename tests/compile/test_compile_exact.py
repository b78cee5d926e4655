"""``arraygrad.compile``: compiled training steps equal eager ones bit for bit over 50 steps."""

from __future__ import annotations

import numpy as np
import pytest

import arraygrad as ag
from arraygrad import nn

from .helpers import compare, host, same

RNG = np.random.default_rng(7)
X = [RNG.standard_normal((6, 4)).astype(np.float32) for _ in range(50)]
Y = [RNG.standard_normal((6, 3)).astype(np.float32) for _ in range(50)]
IMG = [RNG.standard_normal((4, 2, 6, 6)).astype(np.float32) for _ in range(50)]
LBL = [RNG.integers(0, 3, size=4) for _ in range(50)]


def xy(i: int) -> tuple[ag.Tensor, ag.Tensor]:
    return ag.tensor(X[i]), ag.tensor(Y[i])


def mlp() -> nn.Module:
    return nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))


def _setup(opt_factory, *, zero_grad_set_to_none: bool = True):
    def make():
        model = mlp()
        opt = opt_factory(model.parameters())
        loss_fn = nn.MSELoss()

        def step(x, y):
            opt.zero_grad(set_to_none=zero_grad_set_to_none)
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            return loss
        return (model, opt), step
    return make


def test_mlp_sgd_momentum():
    compare(_setup(lambda p: ag.optim.SGD(p, lr=0.05, momentum=0.9)), xy)


def test_mlp_adam():
    compare(_setup(lambda p: ag.optim.Adam(p, lr=1e-2)), xy, expect_replays=_adam_is_live())


def _adam_is_live() -> bool:
    """Adam's bias corrections are live scalars once the optimizers read state through
    ``compiler.scalars.live`` (task "compopt"); before that its ``.item()`` is a graph break
    and the compiled function runs eagerly (same results, no replays)."""
    import inspect

    from arraygrad.optim import adam
    return "live(" in inspect.getsource(adam)


@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad_both_ways(set_to_none):
    compare(_setup(lambda p: ag.optim.SGD(p, lr=0.05), zero_grad_set_to_none=set_to_none), xy)


def test_gradient_accumulation_over_two_backwards():
    def make():
        model = mlp()
        opt = ag.optim.SGD(model.parameters(), lr=0.05, momentum=0.5)

        def step(x, y):
            opt.zero_grad()
            for half in (slice(0, 3), slice(3, 6)):
                loss = ((model(x[half]) - y[half]) ** 2).mean()
                loss.backward()
            opt.step()
            return loss
        return (model, opt), step
    compare(make, xy)


def test_step_returning_several_tensors():
    def make():
        model = mlp()
        opt = ag.optim.SGD(model.parameters(), lr=0.05)

        def step(x, y):
            opt.zero_grad()
            out = model(x)
            loss = ((out - y) ** 2).mean()
            loss.backward()
            opt.step()
            return {"loss": loss, "pair": (out.detach(), out.sum().detach() * 2), "n": 3}
        return (model, opt), step
    compare(make, xy)


def test_lr_scheduler_changes_lr_mid_run():
    def make():
        model = mlp()
        opt = ag.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        sched = ag.optim.lr_scheduler.StepLR(opt, step_size=10, gamma=0.5)
        loss_fn = nn.MSELoss()

        def step(x, y):
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            return loss
        return (model, opt, sched), step

    _compare_with_sched(make)


def _compare_with_sched(make):
    # the scheduler is stepped between steps, outside the compiled function: the lr the
    # replay uses must follow it (a guard on the lr, or a live read)
    ag.manual_seed(0)
    (m1, o1, s1), step1 = make()
    ag.manual_seed(0)
    (m2, o2, s2), step2 = make()
    compiled = ag.compile(step2)
    for i in range(50):
        a = host(step1(*xy(i)))
        b = host(compiled(*xy(i)))
        assert same(a, b), i
        assert all(same(host(p), host(q)) for p, q in zip(m1.parameters(), m2.parameters())), i
        s1.step()
        s2.step()
    assert o2.param_groups[0]["lr"] == o1.param_groups[0]["lr"] < 0.1
    assert compiled.stats["replays"] >= 40, compiled.stats


def test_model_switched_between_train_and_eval():
    def make():
        model = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.3), nn.Tanh(), nn.Linear(8, 3))
        opt = ag.optim.SGD(model.parameters(), lr=0.05)

        def step(x, y):
            opt.zero_grad()
            loss = ((model(x) - y) ** 2).mean()
            loss.backward()
            opt.step()
            return loss
        return (model, opt), step

    def between(state, i):
        state[0].train(i % 7 < 4)
    compare(make, xy, between=between)


class ConvNet(nn.Module):
    """Conv → BatchNorm → ReLU → Dropout → Linear: running stats, random masks."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 3, padding=1)
        self.bn = nn.BatchNorm2d(3)
        self.drop = nn.Dropout(0.25)
        self.fc = nn.Linear(3 * 6 * 6, 3)

    def forward(self, x):
        h = self.drop(ag.relu(self.bn(self.conv(x))))
        return self.fc(h.flatten(1))


def test_conv_batchnorm_dropout():
    def make():
        model = ConvNet()
        opt = ag.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        loss_fn = nn.CrossEntropyLoss()

        def step(x, t):
            opt.zero_grad()
            loss = loss_fn(model(x), t)
            loss.backward()
            opt.step()
            return loss
        return (model, opt), step
    # cross_entropy reads the targets' min and max into Python (its fast path's test): a
    # value guard, so each distinct (min, max) of a batch's labels is one more program
    compiled = compare(make, lambda i: (ag.tensor(IMG[i]), ag.tensor(LBL[i])), min_replays=40)
    assert compiled.stats["records"] <= 8


def test_dropout_draws_fresh_masks_each_replay():
    ag.manual_seed(3)
    drop = nn.Dropout(0.5)
    f = ag.compile(lambda x: drop(x) * 1.0)
    x = ag.ones(64)
    outs = [host(f(x)) for _ in range(6)]
    assert f.stats["replays"] >= 4
    assert len({o.tobytes() for o in outs}) == 6  # a baked mask would repeat
    ag.manual_seed(3)
    eager = [host(drop(x) * 1.0) for _ in range(6)]
    assert same(outs, eager)


def test_compile_module_inference_forward():
    ag.manual_seed(0)
    model = ConvNet().eval()
    cm = ag.compile(model)
    assert isinstance(cm, ag.compiler.OptimizedModule)
    assert cm._orig_mod is model and list(cm.parameters()) == list(model.parameters())
    with ag.no_grad():
        for i in range(5):
            assert same(host(cm(ag.tensor(IMG[i]))), host(model(ag.tensor(IMG[i]))))
    assert cm.forward.stats["replays"] >= 3


def test_compile_module_training_forward_gives_eager_grads():
    ag.manual_seed(0)
    m1 = mlp()
    ag.manual_seed(0)
    m2 = mlp()
    cm = ag.compile(m2)
    for i in range(4):
        x, y = xy(i)
        ((m1(x) - y) ** 2).mean().backward()
        ((cm(x) - y) ** 2).mean().backward()
    for p, q in zip(m1.parameters(), m2.parameters()):
        assert same(host(p.grad), host(q.grad))


def test_decorator_and_options_accepted():
    @ag.compile(fullgraph=True, dynamic=False, backend="inductor", mode="reduce-overhead",
                options={})
    def f(x):
        return (x * 2 + 1).tanh()

    x = ag.tensor([0.1, 0.2, 0.3])
    for _ in range(3):
        assert same(host(f(x)), host((x * 2 + 1).tanh()))
    assert f.stats["replays"] == 2
    g = lambda x: x  # noqa: E731
    assert ag.compile(g, disable=True) is g


def test_scheduler_stepped_inside_the_step():
    """``scheduler.step()`` inside the compiled function: eager's trajectory either way. Once
    schedulers mark ``step`` as a host effect (``compiler.scalars.host_effect``, task
    "compopt") and optimizers read ``lr`` live, the steady step replays; before that, a
    Python state change the replay cannot redo keeps the function eager (with a warning)."""
    import warnings

    from arraygrad.optim.lr_scheduler import StepLR

    def make():
        model = mlp()
        opt = ag.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        sched = StepLR(opt, step_size=7, gamma=0.5)

        def step(x, y):
            opt.zero_grad()
            loss = ((model(x) - y) ** 2).mean()
            loss.backward()
            opt.step()
            sched.step()
            return loss
        return (model, opt, sched), step

    ag.manual_seed(0)
    (m1, o1, s1), step1 = make()
    ag.manual_seed(0)
    (m2, o2, s2), step2 = make()
    compiled = ag.compile(step2)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "arraygrad.compile")
        for i in range(30):
            assert same(host(step1(*xy(i))), host(compiled(*xy(i)))), i
            assert all(same(host(p), host(q)) for p, q in zip(m1.parameters(), m2.parameters()))
            assert o1.param_groups[0]["lr"] == o2.param_groups[0]["lr"]
            assert s1.last_epoch == s2.last_epoch
    import inspect

    if "host_effect" in inspect.getsource(StepLR.step):  # host_effect is in place
        assert compiled.stats["replays"] >= 20, compiled.stats


def test_moves_to_the_same_device_inside_the_step_are_recorded():
    lin = nn.Linear(4, 3)
    f = ag.compile(lambda x: (lin(x.to("cpu")).cpu() * 2).sum())
    with ag.no_grad():
        for i in range(4):
            x = ag.tensor(X[i])
            assert same(host(f(x)), host((lin(x) * 2).sum()))
    assert f.stats["replays"] == 3


def test_a_compiled_function_called_inside_another_is_recorded_into_it():
    lin = nn.Linear(4, 3)
    inner = ag.compile(lambda x: lin(x).tanh())
    outer = ag.compile(lambda x: inner(x) * 2 + inner(x * 0.5))
    with ag.no_grad():
        for i in range(4):
            x = ag.tensor(X[i])
            assert same(host(outer(x)), host(lin(x).tanh() * 2 + lin(x * 0.5).tanh()))
    assert outer.stats["replays"] == 3 and inner.stats["records"] == 0


def test_state_reached_through_a_helper_function_is_found():
    # the step names only ``loss_of`` and ``opt``: the model (with its BatchNorm buffers) is
    # reached through the helper's closure
    def make():
        model = nn.Sequential(nn.Linear(4, 6), nn.BatchNorm1d(6), nn.Tanh(), nn.Linear(6, 3))
        opt = ag.optim.SGD(model.parameters(), lr=0.05)

        def loss_of(x, y):
            return ((model(x) - y) ** 2).mean()

        def step(x, y):
            opt.zero_grad()
            loss = loss_of(x, y)
            loss.backward()
            opt.step()
            return loss
        return (model, opt), step
    compare(make, xy)


def test_gradient_clipping_inside_the_step():
    def make():
        model = mlp()
        opt = ag.optim.SGD(model.parameters(), lr=0.5, momentum=0.9, nesterov=True,
                           weight_decay=1e-3)

        def step(x, y):
            opt.zero_grad()
            loss = ((model(x) - y) ** 2).mean()
            loss.backward()
            norm = nn.utils.clip_grad_norm_(model.parameters(), 0.05)
            opt.step()
            return loss, norm
        return (model, opt), step
    compare(make, xy)


def test_training_forward_graph_holds_plain_arrays_after_the_recording_call():
    # the recording call of a training forward returns eager's graph: differentiating it
    # after the call must not meet the recorder's arrays (every op kind: saved inputs,
    # saved outputs, a device move's argument)
    ag.manual_seed(0)
    model = ConvNet()
    cm = ag.compile(model)
    x = ag.tensor(IMG[0])
    out = cm(x)
    loss = (out.to("cpu").softmax(-1) * out).sum()
    loss.backward()
    for p in model.parameters():
        assert type(p.grad._data) is np.ndarray
        assert type(p.grad._backend).__name__ != "RecordingBackend"
    ag.manual_seed(0)
    ref = ConvNet()
    out_r = ref(x)  # the same draws from the generator as the compiled call's dropout
    (out_r.to("cpu").softmax(-1) * out_r).sum().backward()
    for p, q in zip(model.parameters(), ref.parameters()):
        assert same(host(p.grad), host(q.grad))


class Carry(nn.Module):
    """Keeps its last output as a plain tensor attribute (as a stateful RNN cell does)."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.h = ag.zeros(2, 3)

    def forward(self, x):
        self.h = self.lin(x + 0.5 * x.sum()).tanh()  # kept, not read back: no backend mix
        return self.h * 2


def test_a_module_rebinding_a_tensor_attribute_runs_eagerly_and_stays_usable():
    import warnings

    ag.manual_seed(0)
    m1, m2 = Carry(), Carry()
    m2.load_state_dict(m1.state_dict())
    cm = ag.compile(m2)
    with ag.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(5):
            x = ag.tensor(X[i][:2, :3])
            assert same(host(cm(x)), host(m1(x)))
            assert type(m2.h._data) is np.ndarray and same(host(m2.h), host(m1.h))
    assert cm.forward.stats["replays"] == 0


def test_in_place_on_a_view_of_a_tensor_that_requires_grad():
    # the write-back into the base goes through index_put, whose positions (a nonzero of a
    # mask made from shapes alone) are the same at every replay: no data-dependent break
    def make():
        model = mlp()
        opt = ag.optim.SGD(model.parameters(), lr=0.05)

        def step(x, y):
            opt.zero_grad()
            h = model(x)
            h[:, 1:].mul_(0.5)
            loss = ((h - y) ** 2).mean()
            loss.backward()
            opt.step()
            return loss
        return (model, opt), step
    compare(make, xy)


def test_layernorm_gelu_through_a_plugin_kernel():
    # gelu's erf runs a plugin's kernel (SciPy's, when installed) that converts its argument
    # with numpy.asarray: the call is recorded whole, and replays use fresh inputs
    def make():
        model = nn.Sequential(nn.Linear(4, 8), nn.LayerNorm(8), nn.GELU(), nn.Linear(8, 3))
        opt = ag.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

        def step(x, y):
            opt.zero_grad()
            loss = ((model(x) - y) ** 2).mean()
            loss.backward()
            opt.step()
            return loss
        return (model, opt), step
    compare(make, xy)
