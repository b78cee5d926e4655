"""A hook or custom backward that raises mid-backward leaves the engine usable and state intact."""

import pytest

import arraygrad as ag


class Boom(ag.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 1

    @staticmethod
    def backward(ctx, g):
        raise ValueError("boom in backward")


def test_custom_backward_raising_propagates_and_next_backward_works():
    x = ag.ones(3, requires_grad=True)
    w = ag.ones(3, requires_grad=True)
    y = (Boom.apply(x) * w).sum()
    with pytest.raises(ValueError, match="boom"):
        y.backward()
    assert x.grad is None and w.grad is None  # nothing half-accumulated
    assert ag.is_grad_enabled()
    z = (x * w * 2).sum()  # a fresh graph
    z.backward()
    assert x.grad.tolist() == [2., 2., 2.] and w.grad.tolist() == [2., 2., 2.]


def test_hook_raising_leaves_graph_reusable():
    x = ag.ones(2, requires_grad=True)
    y = x.exp()
    z = y.sum()
    calls = []

    def hook(g):
        calls.append(1)
        if len(calls) == 1:
            raise KeyError("hook failed once")
        return g

    y.register_hook(hook)
    with pytest.raises(KeyError):
        z.backward()
    assert x.grad is None
    z.backward()  # same graph: saved values were not released by the failed pass
    assert x.grad.tolist() == pytest.approx([2.718281828, 2.718281828])


def test_post_accumulate_hook_error_propagates_and_engine_recovers():
    x = ag.ones(1, requires_grad=True)
    h = x.register_post_accumulate_grad_hook(lambda t: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        (x * 2).sum().backward()
    h.remove()
    x.grad = None
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.]


def test_grad_mode_restored_after_exceptions_in_contexts():
    for make in (ag.no_grad, ag.enable_grad, ag.inference_mode):
        with pytest.raises(RuntimeError):
            with make():
                raise RuntimeError("inside")
        assert ag.is_grad_enabled() and not ag.is_inference_mode_enabled()
    with ag.no_grad():
        with pytest.raises(RuntimeError):
            with ag.enable_grad():
                raise RuntimeError("nested")
        assert not ag.is_grad_enabled()
    assert ag.is_grad_enabled()


def test_create_graph_backward_error_restores_grad_mode():
    x = ag.ones(1, requires_grad=True)
    y = Boom.apply(x)
    with ag.no_grad():
        pass
    with pytest.raises(ValueError):
        ag.autograd.grad(y.sum(), x, create_graph=True)
    assert ag.is_grad_enabled()
