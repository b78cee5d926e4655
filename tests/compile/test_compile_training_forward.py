"""``compile(model)`` replays training forwards: a forward program, and a backward program
run by a ``CompiledFunctionBackward`` node; bit for bit equal to eager over 50 steps."""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
import pytest

import arraygrad as ag
from arraygrad import nn

from .helpers import host, same, state_of
from .test_compile_exact import IMG, LBL, ConvNet, mlp, xy


def twins(build: Callable[[], tuple[Any, Any]], step: Callable[..., Any],
          inputs: Callable[[int], tuple[Any, ...]], steps: int = 50, *,
          between: Callable[[Any, int], None] | None = None, min_replays: int | None = None,
          extra: Callable[[tuple[Any, ...]], Any] | None = None) -> Any:
    """Build ``(model, optimizer)`` twice from one seed, run ``step(call, model, opt, *args)``
    ``steps`` times with the model called eagerly and through ``compile(model)``, and assert
    the results, the state (parameters, grads, buffers, optimizer state, versions) and
    ``extra(args)`` (an input's ``.grad``) are identical after every step."""
    ag.manual_seed(0)
    model_e, opt_e = build()
    ag.manual_seed(0)
    model_c, opt_c = build()
    cm = ag.compile(model_c)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for i in range(steps):
            args_e, args_c = inputs(i), inputs(i)
            ag.manual_seed(1000 + i)
            want = host(step(model_e, model_e, opt_e, *args_e))
            ag.manual_seed(1000 + i)
            got = host(step(cm, model_c, opt_c, *args_c))
            assert same(want, got), f"step {i}: results differ"
            assert same(state_of(model_e, opt_e), state_of(model_c, opt_c)), f"step {i}: state"
            if extra is not None:
                assert same(host(extra(args_e)), host(extra(args_c))), f"step {i}: extra"
            if between is not None:
                between(model_e, i)
                between(model_c, i)
    stats = cm.forward.stats
    assert stats["replays"] >= (steps - 2 if min_replays is None else min_replays), stats
    return cm


def sgd(momentum: float = 0.9) -> Callable[[nn.Module], Any]:
    return lambda model: ag.optim.SGD(model.parameters(), lr=0.05, momentum=momentum)


def built(model_fn: Callable[[], nn.Module], opt_fn: Callable[[nn.Module], Any]) -> Any:
    def build() -> tuple[Any, Any]:
        model = model_fn()
        return model, opt_fn(model)
    return build


def mse_step(call, model, opt, x, y, set_to_none=True):
    opt.zero_grad(set_to_none=set_to_none)
    out = call(x)
    loss = ((out - y) ** 2).mean()
    loss.backward()
    opt.step()
    return loss, out


def test_mlp_sgd_momentum():
    cm = twins(built(mlp, sgd()), mse_step, xy)
    x, y = xy(0)
    cm.zero_grad()  # the key the loop replayed (no .grad yet)
    out = cm(x)
    assert out.requires_grad and not out.is_leaf
    assert out.grad_fn.name() == "CompiledFunctionBackward"
    params = list(cm.parameters())
    assert {id(n.variable) for n, _ in out.grad_fn.next_functions} == {id(p) for p in params}


@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad_both_ways(set_to_none):
    def step(call, model, opt, x, y):
        return mse_step(call, model, opt, x, y, set_to_none)
    twins(built(mlp, sgd(0.5)), step, xy)


def test_conv_batchnorm_dropout():
    def step(call, model, opt, x, t):
        opt.zero_grad()
        out = call(x)
        loss = nn.functional.cross_entropy(out, t)
        loss.backward()
        opt.step()
        return loss, out
    # running stats are updated by the forward program; dropout draws fresh masks in it
    twins(built(ConvNet, sgd()), step, lambda i: (ag.tensor(IMG[i]), ag.tensor(LBL[i])))


def test_gradient_accumulation_over_two_forwards():
    def step(call, model, opt, x, y):
        opt.zero_grad()
        for half in (slice(0, 3), slice(3, 6)):
            loss = ((call(x[half]) - y[half]) ** 2).mean()
            loss.backward()
        opt.step()
        return loss
    twins(built(mlp, sgd(0.5)), step, xy)


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 8)
        self.a = nn.Linear(8, 3)
        self.b = nn.Linear(8, 2)

    def forward(self, x):
        h = self.body(x).tanh()
        return self.a(h), {"b": self.b(h) * 2}


def test_two_outputs_used_in_one_loss():
    def step(call, model, opt, x, y):
        opt.zero_grad()
        a, rest = call(x)
        loss = ((a - y) ** 2).mean() + rest["b"].pow(2).sum() * 0.1
        loss.backward()
        opt.step()
        return loss, a, rest
    twins(built(TwoHeads, sgd()), step, xy)


def test_an_output_not_used_in_the_loss_gets_zeros():
    def step(call, model, opt, x, y):
        opt.zero_grad()
        a, rest = call(x)
        ((a - y) ** 2).mean().backward()  # rest["b"] not used: its gradient is zeros
        opt.step()
        return a
    twins(built(TwoHeads, sgd()), step, xy)


def test_input_requiring_grad():
    def inputs(i):
        x, y = xy(i)
        return x.requires_grad_(), y

    def step(call, model, opt, x, y):
        return mse_step(call, model, opt, x, y)
    twins(built(mlp, sgd()), step, inputs, extra=lambda args: args[0].grad)


def test_model_switched_between_train_and_eval():
    def model():
        return nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.3), nn.Tanh(), nn.Linear(8, 3))

    def between(m, i):
        m.train(i % 7 < 4)
    twins(built(model, sgd()), mse_step, xy, between=between, min_replays=44)


def test_non_leaf_input_passes_its_gradient_on():
    # the input is made by an eager layer before the call: its gradient flows on through the
    # node's edge into that layer's graph
    def build():
        model = nn.ModuleDict({"pre": nn.Linear(4, 4), "head": mlp()})
        return model, ag.optim.SGD(model.parameters(), lr=0.05)

    ag.manual_seed(0)
    model_e, opt_e = build()
    ag.manual_seed(0)
    model_c, opt_c = build()
    head = ag.compile(model_c["head"])
    for i in range(12):
        x, y = xy(i)
        results = []
        for model, opt, call in ((model_e, opt_e, model_e["head"]), (model_c, opt_c, head)):
            opt.zero_grad()
            out = call(model["pre"](x).relu())
            ((out - y) ** 2).mean().backward()
            opt.step()
            results.append(host(out))
        assert same(results[0], results[1])
        assert same(state_of(model_e, opt_e), state_of(model_c, opt_c))
    assert head.forward.stats["replays"] >= 10


def test_a_graph_reaching_a_tensor_outside_the_discovery_stays_eager():
    # a parameter tied through the input's own graph: the recorded backward would reach
    # into that graph, so the key stays eager (same gradients)
    shared = nn.Linear(4, 4)

    class Head(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 3)
            self.shared = shared

        def forward(self, h):
            return self.lin(self.shared(h))

    head = Head()
    cm = ag.compile(head)
    for i in range(4):
        x, y = xy(i)
        shared.zero_grad()
        head.lin.zero_grad()
        ((cm(shared(x)) - y) ** 2).mean().backward()
        g_c = [host(p.grad) for p in head.parameters()]
        shared.zero_grad()
        head.lin.zero_grad()
        ((head(shared(x)) - y) ** 2).mean().backward()
        assert same(g_c, [host(p.grad) for p in head.parameters()])
    assert cm.forward.stats["replays"] == 0


def _replayed_output() -> tuple[Any, Any]:
    ag.manual_seed(0)
    model = mlp()
    cm = ag.compile(model)
    x, y = xy(0)
    for _ in range(2):
        out = cm(x)
    assert cm.forward.stats["replays"] == 1
    return model, ((out - y) ** 2).mean()


def test_second_backward_raises_as_eager():
    model, loss = _replayed_output()
    loss.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        loss.backward()


def test_retain_graph_allows_a_second_backward():
    model, loss = _replayed_output()
    loss.backward(retain_graph=True)
    first = [host(p.grad) for p in model.parameters()]
    loss.backward()
    assert same([2 * g for g in first], [host(p.grad) for p in model.parameters()])


def test_create_graph_through_the_compiled_node_raises():
    model, loss = _replayed_output()
    with pytest.raises(RuntimeError, match="create_graph=True .* compiled training forward"):
        loss.backward(create_graph=True)
    assert all(p.grad is None for p in model.parameters())  # nothing changed on error


class Doubler(ag.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


class WithFunction(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 3)

    def forward(self, x):
        return Doubler.apply(self.lin(x))


def test_a_custom_function_in_the_graph_stays_eager():
    def step(call, model, opt, x, y):
        return mse_step(call, model, opt, x, y)
    cm = twins(built(WithFunction, sgd()), step, xy, steps=4, min_replays=0)
    assert cm.forward.stats["replays"] == 0


def test_inference_forward_still_replays_without_a_graph():
    ag.manual_seed(0)
    model = mlp()
    cm = ag.compile(model)
    x, _ = xy(0)
    with ag.no_grad():
        outs = [cm(x) for _ in range(3)]
    assert cm.forward.stats["replays"] == 2
    assert not outs[-1].requires_grad and outs[-1].grad_fn is None


def test_saved_tensor_hooks_at_a_replay_run_the_call_eagerly():
    from arraygrad.autograd.graph import saved_tensors_hooks

    ag.manual_seed(0)
    model = mlp()
    cm = ag.compile(model)
    x, y = xy(0)
    for _ in range(2):
        cm(x)
    assert cm.forward.stats["replays"] == 1
    packed: list[int] = []
    with saved_tensors_hooks(lambda t: packed.append(1) or t, lambda t: t):
        out = cm(x)
    assert packed and out.grad_fn.name() != "CompiledFunctionBackward"
    ((out - y) ** 2).mean().backward()
    ref = mlp()
    ref.load_state_dict(model.state_dict())
    ((ref(x) - y) ** 2).mean().backward()
    assert same([host(p.grad) for p in model.parameters()],
                [host(p.grad) for p in ref.parameters()])


def test_a_replayed_step_loss_has_a_released_graph_as_eager():
    ag.manual_seed(0)
    model = mlp()
    opt = ag.optim.SGD(model.parameters(), lr=0.05)

    def step(x, y):
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        return loss

    compiled = ag.compile(step)
    for i in range(3):
        eager_loss = step(*xy(i))
        loss = compiled(*xy(i))
    assert compiled.stats["replays"] >= 1
    for t in (eager_loss, loss):
        assert t.requires_grad and t.grad_fn is not None and not t.is_leaf
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            t.backward()
    assert loss.grad_fn.name() == "CompiledFunctionBackward"


def test_autograd_grad_and_an_output_hook_through_the_node():
    ag.manual_seed(0)
    m1 = mlp()
    ag.manual_seed(0)
    m2 = mlp()
    cm = ag.compile(m2)
    for i in range(4):
        got, want = [], []
        for call, model, out_list in ((m1, m1, want), (cm, m2, got)):
            x, y = xy(i)
            x.requires_grad_()
            out = call(x)
            out.register_hook(lambda g: g * 3)
            out.retain_grad()
            loss = ((out - y) ** 2).mean()
            grads = ag.autograd.grad(loss, [x, *model.parameters()], retain_graph=True)
            loss.backward()
            out_list.extend([grads, out.grad, x.grad, [p.grad for p in model.parameters()]])
            model.zero_grad()
        assert same(host(want), host(got)), i
    assert cm.forward.stats["replays"] >= 2


def test_a_value_read_in_the_backward_keeps_the_key_eager_silently(monkeypatch):
    tanh_backward = type(ag.ones(2, requires_grad=True).tanh().grad_fn)
    run = tanh_backward._run
    reads: list[float] = []

    def reading(self, grads, task, *raw):
        g = grads[0]  # a tensor, or a bare array in the engine's plain pass
        reads.append(float(getattr(g, "_data", g).sum()))  # a value into Python: a graph break
        return run(self, grads, task, *raw)

    monkeypatch.setattr(tanh_backward, "_run", reading)

    def step(call, model, opt, x, y):
        return mse_step(call, model, opt, x, y)
    cm = twins(built(mlp, sgd()), step, xy, steps=5, min_replays=0)  # no warning either
    assert cm.forward.stats["replays"] == 0 and cm.forward._eager is None
    assert reads


class SigmoidOut(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 3)

    def forward(self, x):
        return self.lin(x).sigmoid()  # its backward reads the output


@pytest.mark.parametrize("change", ["output", "parameter", "input"])
def test_an_in_place_change_of_a_saved_value_raises_as_eager(change):
    ag.manual_seed(0)
    model = SigmoidOut()
    cm = ag.compile(model)
    for call in (model, cm, cm, cm):  # eager, the recording call, two replays
        x = ag.tensor(xy(0)[0].numpy(), requires_grad=True)
        out = call(x)
        with ag.no_grad():
            {"output": out, "parameter": model.lin.weight, "input": x}[change].mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            out.sum().backward()
        assert model.lin.weight.grad is None and x.grad is None  # nothing changed on error
    assert cm.forward.stats["replays"] == 2


def test_an_in_place_change_of_an_unsaved_output_is_fine():
    def step(call, model, opt, x, y):
        opt.zero_grad()
        out = call(x)  # a Linear's output: no backward reads it
        out.add_(1)
        ((out - y) ** 2).mean().backward()
        opt.step()
        return out
    twins(built(mlp, sgd()), step, xy)
