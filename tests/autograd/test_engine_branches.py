"""Hook-free nodes and leaves (which run their class's plain ``_run``; there used to be a
lean branch in the engine for them) behave like hooked ones, and an unshared gradient
becomes a leaf's ``.grad`` without a copy."""

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.tensor import Tensor


@pytest.fixture
def copies(monkeypatch):
    """How many gradients were copied into a ``.grad`` (instead of adopted)."""
    count = [0]
    original = Tensor._detached_copy

    def counting(self):
        count[0] += 1
        return original(self)

    monkeypatch.setattr(Tensor, "_detached_copy", counting)
    return count


def test_last_node_gradient_is_adopted_not_copied(copies):
    # the leaf's gradient comes from the last node the engine runs; the engine's own
    # locals used to keep a reference to it, which forced a copy
    x = ag.tensor(np.ones((64, 64)), requires_grad=True)
    (x * 2.0).sum().backward()
    assert copies[0] == 0
    np.testing.assert_array_equal(x.grad.numpy(), np.full((64, 64), 2.0))


def test_every_linear_layer_gradient_is_adopted(copies):
    model = ag.nn.Sequential(ag.nn.Linear(8, 16), ag.nn.ReLU(), ag.nn.Linear(16, 3))
    x = ag.randn(5, 8)
    ag.nn.functional.cross_entropy(model(x), ag.tensor([0, 1, 2, 0, 1])).backward()
    assert copies[0] == 0
    assert all(p.grad is not None for p in model.parameters())


def test_shared_gradient_is_copied(copies):
    """A gradient another tensor can still see must not become ``.grad`` itself."""
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    y = x * 1.0
    y.register_hook(lambda g: seen.append(g))  # keeps a reference to the gradient
    y.sum().backward()
    assert x.grad is not seen[0]
    x.grad.add_(1.0)
    np.testing.assert_array_equal(seen[0].numpy(), [1.0, 1.0])  # untouched


def test_leaf_hooks_and_node_hooks_still_run_on_lean_branches():
    calls = []
    x = ag.tensor([1.0, 2.0], dtype=ag.float64, requires_grad=True)
    x.register_hook(lambda g: calls.append("leaf") or g * 2)
    y = (x * 3.0).tanh()
    y.grad_fn.register_prehook(lambda gs: calls.append("pre") or None)
    y.grad_fn.register_hook(lambda gi, go: calls.append("post") or None)
    y.retain_grad()
    y.sum().backward()
    assert calls == ["pre", "post", "leaf"]
    expected = 2 * 3 * (1 - np.tanh(3 * np.array([1.0, 2.0])) ** 2)
    np.testing.assert_allclose(x.grad.numpy(), expected)
    np.testing.assert_array_equal(y.grad.numpy(), [1.0, 1.0])


def test_recording_an_op_never_compares_tensors(monkeypatch):
    """``record`` used ``OUTPUT in saved``, which ran each saved tensor's elementwise ``==``
    (a wasted op per recorded op that saves tensors and its output, e.g. ``x ** y``)."""
    calls = []
    original = Tensor.__eq__

    def counting(self, other):
        calls.append(other)
        return original(self, other)

    monkeypatch.setattr(Tensor, "__eq__", counting)
    x = ag.tensor([1.5, 2.0], requires_grad=True)
    y = ag.tensor([2.0, 3.0], requires_grad=True)
    z = x ** y
    assert calls == []
    z.sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), (np.array([1.5, 2.0]) ** [2.0, 3.0])
                               * np.log([1.5, 2.0]), rtol=1e-6)


def test_leaf_node_prehook_does_not_run_without_a_gradient():
    """A leaf whose edge carries no gradient (a custom backward returned None for it) is not
    run: its node pre-hook sees nothing, and its ``.grad`` stays None."""

    class FirstOnly(ag.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * 1.0

        @staticmethod
        def backward(ctx, g):
            return g, None

    calls = []
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = ag.tensor([3.0, 4.0], requires_grad=True)
    out = FirstOnly.apply(x, y)
    acc = out.grad_fn.next_functions[1][0]
    acc.register_prehook(lambda gs: calls.append(gs))
    out.sum().backward()
    assert calls == []
    assert y.grad is None and x.grad.tolist() == [1.0, 1.0]


def test_training_steps_leave_no_reference_cycles():
    """Graphs are freed by reference counting alone (no work for the cyclic collector)."""
    import gc

    model = ag.nn.Sequential(ag.nn.Linear(8, 16), ag.nn.Tanh(), ag.nn.Linear(16, 3))
    opt = ag.optim.SGD(model.parameters(), lr=0.1)
    x, y = ag.randn(5, 8), ag.tensor([0, 1, 2, 0, 1])
    w = ag.randn(5, 8, requires_grad=True)

    def step():
        opt.zero_grad()
        loss = ag.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        h = (w.sum(1) * 2.0 + 1.0).sigmoid()  # the fast paths too
        h.retain_grad()
        (h * h).sum().backward()

    step()
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(5):
            step()
        assert gc.collect() == 0
    finally:
        if was_enabled:
            gc.enable()
