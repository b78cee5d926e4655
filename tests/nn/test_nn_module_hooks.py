"""Module hooks: forward pre/post hooks, full backward (pre-)hooks, order, replacement, removal."""

import gc
import weakref

import pytest

import arraygrad as ag
from arraygrad import nn


class Double(nn.Module):
    def forward(self, x):
        return x * 2


class Outer(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = Double()

    def forward(self, x):
        return self.inner(x) + 1


class Pair(nn.Module):
    def forward(self, a, b, scale=1.0):
        return a * b * scale, a + b


# -- forward hooks -----------------------------------------------------------------------

def test_forward_pre_hook_replaces_inputs_and_forward_hook_replaces_output():
    m = Double()
    m.register_forward_pre_hook(lambda mod, args: args[0] + 1)  # single value: wrapped in a tuple
    m.register_forward_hook(lambda mod, args, out: out * 10)
    assert m(ag.tensor([1.])).tolist() == [40.]


def test_forward_hooks_with_kwargs_prepend_and_order():
    calls = []
    m = Pair()
    m.register_forward_pre_hook(lambda mod, args: calls.append("pre1"))
    m.register_forward_pre_hook(lambda mod, args: calls.append("pre0"), prepend=True)

    def kw_pre(mod, args, kwargs):
        calls.append("kw_pre")
        return args, {"scale": 5.0}

    m.register_forward_pre_hook(kw_pre, with_kwargs=True)

    def kw_post(mod, args, kwargs, out):
        calls.append(("kw_post", kwargs["scale"]))

    m.register_forward_hook(kw_post, with_kwargs=True)
    out = m(ag.tensor([2.]), ag.tensor([3.]))
    assert out[0].tolist() == [30.]
    assert calls == ["pre0", "pre1", "kw_pre", ("kw_post", 5.0)]


def test_bad_kwargs_pre_hook_result():
    m = Double()
    m.register_forward_pre_hook(lambda mod, args, kw: 3, with_kwargs=True)
    with pytest.raises(RuntimeError, match="forward pre-hook must return None or a tuple"):
        m(ag.ones(1))


def test_always_call_forward_hook_runs_on_error():
    class Boom(nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    seen = []
    m = Boom()
    m.register_forward_hook(lambda mod, args, out: seen.append("normal"))
    m.register_forward_hook(lambda mod, args, out: seen.append(out), always_call=True)
    with pytest.raises(ValueError, match="boom"):
        m(ag.ones(1))
    assert seen == [None]


def test_hook_handle_removal():
    m = Double()
    h = m.register_forward_hook(lambda mod, args, out: out * 0)
    assert m(ag.ones(1)).tolist() == [0.]
    h.remove()
    h.remove()
    assert m(ag.ones(1)).tolist() == [2.]
    with m.register_forward_pre_hook(lambda mod, args: (args[0] * 3,)):
        assert m(ag.ones(1)).tolist() == [6.]
    assert m(ag.ones(1)).tolist() == [2.]
    hb = m.register_full_backward_hook(lambda mod, gi, go: (gi[0] * 100,))
    hb.remove()
    x = ag.ones(1, requires_grad=True)
    m(x).backward()
    assert x.grad.tolist() == [2.]


# -- backward hooks ------------------------------------------------------------------------

def test_backward_hook_order_nested():
    calls = []
    outer = Outer()
    outer.register_full_backward_pre_hook(lambda m, go: calls.append("pre(outer)"))
    outer.register_full_backward_hook(lambda m, gi, go: calls.append("outer"))
    outer.inner.register_full_backward_pre_hook(lambda m, go: calls.append("pre(inner)"))
    outer.inner.register_full_backward_hook(lambda m, gi, go: calls.append("inner"))
    x = ag.tensor([1., 2.], requires_grad=True)
    outer(x).sum().backward()
    assert calls == ["pre(outer)", "pre(inner)", "inner", "outer"]
    assert x.grad.tolist() == [2., 2.]


def test_backward_hook_sees_module_level_gradients():
    seen = {}
    m = Pair()

    def hook(mod, grad_input, grad_output):
        seen["gi"] = [None if g is None else g.tolist() for g in grad_input]
        seen["go"] = [None if g is None else g.tolist() for g in grad_output]

    m.register_backward_hook(hook)  # same meaning as register_full_backward_hook
    a = ag.tensor([2.], requires_grad=True)
    b = ag.tensor([3.], requires_grad=True)
    prod, total = m(a, b)
    (prod * 4 + total).backward()
    assert seen["go"] == [[4.], [1.]]
    assert seen["gi"] == [[4 * 3 + 1.], [4 * 2 + 1.]]


def test_backward_hook_grad_input_none_for_inputs_without_grad():
    seen = []
    m = Pair()
    m.register_full_backward_hook(lambda mod, gi, go: seen.append(gi))
    a = ag.tensor([2.], requires_grad=True)
    b = ag.tensor([3.])  # needs no gradient
    m(a, b)[0].sum().backward()
    (gi,) = seen
    assert gi[0].tolist() == [3.] and gi[1] is None


def test_backward_hook_when_no_input_requires_grad():
    seen = []
    lin = nn.Linear(2, 1)
    lin.register_full_backward_hook(lambda mod, gi, go: seen.append((gi, go)))
    lin(ag.ones(1, 2)).sum().backward()
    assert seen[0][0] == (None,)
    assert seen[0][1][0].tolist() == [[1.]]
    assert lin.weight.grad.tolist() == [[1., 1.]]


def test_backward_hook_replaces_grad_input():
    m = Double()
    m.register_full_backward_hook(lambda mod, gi, go: (gi[0] * 10,))
    x = ag.tensor([1., 1.], requires_grad=True)
    m(x).sum().backward()
    assert x.grad.tolist() == [20., 20.]


def test_backward_pre_hook_replaces_grad_output():
    m = Double()
    seen = []
    m.register_full_backward_pre_hook(lambda mod, go: (go[0] * 3,))
    m.register_full_backward_hook(lambda mod, gi, go: seen.append(go[0].tolist()))
    x = ag.tensor([1.], requires_grad=True)
    m(x).sum().backward()
    assert seen == [[3.]]  # the full hook sees the replaced grad_output
    assert x.grad.tolist() == [6.]


def test_backward_hook_wrong_length_raises():
    m = Double()
    m.register_full_backward_hook(lambda mod, gi, go: (gi[0], gi[0]))
    x = ag.tensor([1.], requires_grad=True)
    with pytest.raises(RuntimeError, match="invalid number of grad_input, got 2, but expected 1"):
        m(x).sum().backward()


def test_backward_hooks_fire_each_call_and_not_under_no_grad():
    calls = []
    m = Double()
    m.register_full_backward_hook(lambda mod, gi, go: calls.append(1))
    x = ag.tensor([1.], requires_grad=True)
    (m(x) + m(x)).sum().backward()
    assert len(calls) == 2
    with ag.no_grad():
        y = m(x)
    assert y.grad_fn is None


def test_hooks_keep_no_tensors_alive_after_backward():
    m = Outer()
    m.register_full_backward_hook(lambda mod, gi, go: None)
    m.register_full_backward_pre_hook(lambda mod, go: None)
    m.inner.register_full_backward_hook(lambda mod, gi, go: None)
    x = ag.tensor([1., 2.], requires_grad=True)
    out = m(x)
    loss = out.sum()
    refs = [weakref.ref(out), weakref.ref(loss), weakref.ref(out.grad_fn)]
    grads = []
    m.register_forward_hook(lambda *a: None)  # registration after the call has no effect on it
    h = out.register_hook(lambda g: grads.append(weakref.ref(g)))
    loss.backward()
    h.remove()
    del out, loss
    gc.collect()
    assert all(r() is None for r in refs)
    assert all(r() is None for r in grads)
    assert x.grad.tolist() == [2., 2.]
