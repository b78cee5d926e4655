"""``utils.checkpoint``: checkpointed and plain training agree (values, gradients, dropout
masks through the replayed random state), both variants; PyTorch's warnings and errors."""

import warnings

import numpy as np
import pytest

import arraygrad as ag
from arraygrad import nn
from arraygrad.utils.checkpoint import CheckpointError, checkpoint, checkpoint_sequential

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch not installed")


def _model():
    ag.manual_seed(0)
    return nn.Sequential(*[m for _ in range(3) for m in
                           (nn.Linear(6, 6), nn.Tanh(), nn.Dropout(0.3))], nn.Linear(6, 2))


def _train(mode, steps=10):
    """Losses and final gradients of ``steps`` SGD steps with dropout; ``mode``: None (plain),
    True/False (checkpoint with that use_reentrant), "seq" (checkpoint_sequential)."""
    m = _model()
    opt = ag.optim.SGD(m.parameters(), lr=0.1)
    ag.manual_seed(1)
    data = [ag.randn(5, 6) for _ in range(steps)]
    losses = []
    for x in data:
        opt.zero_grad()
        x = x.requires_grad_()
        if mode is None:
            out = m(x)
        elif mode == "seq":
            out = checkpoint_sequential(m, 3, x, use_reentrant=False)
        else:
            out = checkpoint(lambda a: m[:6](a), x, use_reentrant=mode)
            out = m[6:](out)
        loss = (out ** 2).mean()
        loss.backward()
        losses.append(loss.item())
        opt.step()
    return losses, [p.grad.numpy().copy() for p in m.parameters()]


@pytest.mark.parametrize("mode", [False, True, "seq"], ids=["non_reentrant", "reentrant", "seq"])
def test_training_with_dropout_matches_plain(mode):
    plain_losses, plain_grads = _train(None)
    losses, grads = _train(mode)
    np.testing.assert_allclose(losses, plain_losses, rtol=1e-6)
    for a, b in zip(grads, plain_grads):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)


def test_caller_random_stream_is_not_consumed_by_recomputation():
    x = ag.randn(4, 4, requires_grad=True)
    ag.manual_seed(3)
    y = checkpoint(lambda t: ag.nn.functional.dropout(t, 0.5), x, use_reentrant=False)
    after_forward = ag.rand(3)
    ag.manual_seed(3)
    ag.nn.functional.dropout(x, 0.5)
    state = ag.get_rng_state()
    y.sum().backward()  # recomputes: must not move the stream
    np.testing.assert_array_equal(ag.rand(3).numpy(), after_forward.numpy())
    ag.set_rng_state(state)
    np.testing.assert_array_equal(ag.rand(3).numpy(), after_forward.numpy())


def test_recomputes_in_backward_not_in_forward():
    calls = []

    def f(t):
        calls.append(1)
        return t.sin().exp()

    x = ag.randn(3, requires_grad=True)
    y = checkpoint(f, x, use_reentrant=False)
    assert len(calls) == 1
    y.sum().backward()
    assert len(calls) == 2
    np.testing.assert_allclose(x.grad.numpy(), (np.cos(x.detach().numpy())
                                                * np.exp(np.sin(x.detach().numpy()))),
                               rtol=1e-6)


def test_kwargs_and_non_tensor_outputs_non_reentrant():
    def f(a, *, scale, tag):
        return a * scale, tag, (a * a).sum()

    x = ag.tensor([1.0, 2.0], requires_grad=True, dtype=ag.float64)
    y, tag, s = checkpoint(f, x, use_reentrant=False, scale=3.0, tag="hi")
    assert tag == "hi"
    (y.sum() + s).backward()
    np.testing.assert_allclose(x.grad.numpy(), 3 + 2 * np.array([1.0, 2.0]))


def test_nested_checkpoints():
    def inner(t):
        return (t * t).tanh()

    def outer(t):
        return checkpoint(inner, t.exp(), use_reentrant=False).sin()

    xv = np.array([0.1, -0.4, 0.7])
    x = ag.tensor(xv, requires_grad=True)
    checkpoint(outer, x, use_reentrant=False).sum().backward()
    y = ag.tensor(xv, requires_grad=True)
    (((y.exp() * y.exp()).tanh()).sin()).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy(), rtol=1e-12)


def test_double_backward_non_reentrant():
    xv = np.array([0.3, -1.1, 0.5])
    x = ag.tensor(xv, requires_grad=True)
    y = checkpoint(lambda t: (t * t * t).sin(), x, use_reentrant=False).sum()
    (g,) = ag.autograd.grad(y, x, create_graph=True)
    g.sum().backward()
    z = ag.tensor(xv, requires_grad=True)
    (gz,) = ag.autograd.grad((z * z * z).sin().sum(), z, create_graph=True)
    gz.sum().backward()
    np.testing.assert_allclose(g.detach().numpy(), gz.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), z.grad.numpy(), rtol=1e-12)


def test_autograd_grad_non_reentrant_and_retain_graph():
    x = ag.tensor([0.5, 2.0], requires_grad=True, dtype=ag.float64)
    y = checkpoint(lambda t: t.exp() * t, x, use_reentrant=False).sum()
    (g1,) = ag.autograd.grad(y, x, retain_graph=True)
    (g2,) = ag.autograd.grad(y, x)
    expect = np.exp([0.5, 2.0]) * (1 + np.array([0.5, 2.0]))
    np.testing.assert_allclose(g1.numpy(), expect)
    np.testing.assert_allclose(g2.numpy(), expect)


def test_use_reentrant_not_passed_warns_and_defaults_to_reentrant():
    x = ag.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match="use_reentrant parameter should be passed explicitly"):
        y = checkpoint(lambda t: t * 2, x)
    assert type(y.grad_fn).__name__ == "CheckpointFunctionBackward"
    with pytest.warns(UserWarning, match="use_reentrant parameter should be passed explicitly"):
        checkpoint_sequential([lambda t: t * 2, lambda t: t + 1], 2, x)


def test_reentrant_errors_and_warnings():
    x = ag.ones(2)
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        checkpoint(lambda t: t * 2, x, use_reentrant=True)
    w = ag.ones(2, requires_grad=True)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: scale"):
        checkpoint(lambda t, scale: t * scale, w, use_reentrant=True, scale=2)
    with pytest.raises(ValueError, match="only supported when use_reentrant=False"):
        checkpoint(lambda t: t, w, use_reentrant=True, debug=True)
    with pytest.raises(ValueError, match="determinism_check should be one of"):
        checkpoint(lambda t: t, w, use_reentrant=False, determinism_check="nope")
    with pytest.raises(ValueError, match="Unexpected keyword arguments: foo"):
        checkpoint_sequential([lambda t: t], 1, w, use_reentrant=False, foo=1)


def test_recomputation_saving_differently_is_a_checkpoint_error():
    calls = []

    def f(t):
        calls.append(1)
        return t.exp() if len(calls) == 1 else t.exp().sin()  # saves more when recomputed

    x = ag.ones(2, requires_grad=True)
    from arraygrad.utils.checkpoint import set_checkpoint_early_stop

    with set_checkpoint_early_stop(False):  # the recomputation runs to the end
        y = checkpoint(f, x, use_reentrant=False)
    with pytest.raises(CheckpointError, match="trying to save more tensors during "
                                              "recomputation than during the original"):
        y.sum().backward()
    calls.clear()
    x.grad = None
    y = checkpoint(f, x, use_reentrant=False)  # PyTorch's default: it stops once exp(x) is back
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([1.0, 1.0]), rtol=1e-6)

    def g(t):
        calls.append(1)
        return t.exp().exp() if len(calls) == 1 else t.exp()  # saves fewer when recomputed

    calls.clear()
    y = checkpoint(g, x, use_reentrant=False)
    with pytest.raises(CheckpointError, match="A different number of tensors was saved"):
        y.sum().backward()
    calls.clear()
    y = checkpoint(g, x, use_reentrant=False, determinism_check="none")
    with pytest.raises(CheckpointError, match="A different number"):  # whatever the check
        y.sum().backward()


def test_context_fn():
    log = []

    class Ctx:
        def __init__(self, name):
            self.name = name

        def __enter__(self):
            log.append(self.name)

        def __exit__(self, *exc):
            return False

    x = ag.ones(2, requires_grad=True)
    y = checkpoint(lambda t: t.exp(), x, use_reentrant=False,
                   context_fn=lambda: (Ctx("forward"), Ctx("recompute")))
    assert log == ["forward"]
    y.sum().backward()
    assert log == ["forward", "recompute"]


def test_rng_state_roundtrip():
    ag.manual_seed(5)
    s = ag.get_rng_state()
    assert s.dtype == ag.uint8  # as PyTorch's
    a = ag.randn(4)
    ag.set_rng_state(s)
    np.testing.assert_array_equal(ag.randn(4).numpy(), a.numpy())
    g = ag.Generator().manual_seed(2)
    st = g.get_state()
    b = ag.rand(3, generator=g)
    g.set_state(st)
    np.testing.assert_array_equal(ag.rand(3, generator=g).numpy(), b.numpy())


@needs_torch
def test_same_warnings_as_torch():
    for lib, ck in ((torch, torch.utils.checkpoint.checkpoint), (ag, checkpoint)):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            ck(lambda t: t * 2, lib.ones(2), use_reentrant=True)
        assert any("None of the inputs have requires_grad=True" in str(m.message) for m in w)


@needs_torch
def test_gradients_match_torch_non_reentrant():
    xv = np.random.default_rng(0).standard_normal((3, 4))
    wv = np.random.default_rng(1).standard_normal((4, 4))

    def run(lib, ck):
        x = lib.tensor(xv, requires_grad=True)
        w = lib.tensor(wv, requires_grad=True)
        y = ck(lambda a, b: (a @ b).tanh() @ b, x, w, use_reentrant=False)
        (y ** 2).sum().backward()
        return x.grad.numpy(), w.grad.numpy()

    for a, b in zip(run(ag, checkpoint), run(torch, torch.utils.checkpoint.checkpoint)):
        np.testing.assert_allclose(a, b, rtol=1e-10)


def test_reentrant_refuses_grad_and_backward_inputs():
    w = ag.ones(2, requires_grad=True)
    x = ag.ones(2, requires_grad=True)
    y = checkpoint(lambda t: (t * w).sum(), x, use_reentrant=True)
    with pytest.raises(RuntimeError, match="incompatible with .grad\\(\\) or passing an `inputs`"):
        ag.autograd.grad(y, x, retain_graph=True)
    with pytest.raises(RuntimeError, match="incompatible with .grad\\(\\) or passing an `inputs`"):
        y.backward(inputs=[x], retain_graph=True)
    assert w.grad is None
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 1.0])
    np.testing.assert_allclose(w.grad.numpy(), [1.0, 1.0])


def test_one_recomputation_per_backward_even_when_a_value_is_read_twice():
    """div's two input formulas both read the divisor: the second read must find it (the
    read value is kept while in use), not rerun the segment."""
    calls = []

    def f(a, b):
        calls.append(1)
        return (a.exp() / b.sin()).tanh()

    a = ag.tensor([0.2, 0.4], requires_grad=True, dtype=ag.float64)
    b = ag.tensor([1.0, 1.3], requires_grad=True, dtype=ag.float64)
    y = checkpoint(f, a, b, use_reentrant=False).sum()
    y.backward(retain_graph=True)
    assert len(calls) == 2
    ga, gb = a.grad.clone(), b.grad.clone()
    y.backward()  # retain_graph: the values were freed after use, so it recomputes once more
    assert len(calls) == 3
    np.testing.assert_allclose(a.grad.numpy(), 2 * ga.numpy())
    np.testing.assert_allclose(b.grad.numpy(), 2 * gb.numpy())


def test_recomputed_activations_are_freed_after_use():
    import gc
    import weakref

    x = ag.randn(4, 4, requires_grad=True)
    seen = []

    def f(t):
        h = t.exp()
        seen.append(weakref.ref(h._data))
        return h.sin()

    y = checkpoint(f, x, use_reentrant=False)
    y.sum().backward(retain_graph=True)  # the graph (and its holders) stays
    gc.collect()
    assert seen[0]() is None and seen[1]() is None  # neither forward's nor recomputed h
