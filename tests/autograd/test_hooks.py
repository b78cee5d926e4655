"""Tensor hooks, node hooks, post-accumulate hooks, handles, and no reference cycles."""

import gc
import weakref

import pytest

import arraygrad as ag


def test_hook_runs_once_with_summed_gradient_when_used_twice():
    x = ag.tensor([1., 2.], requires_grad=True)
    y = x * 1
    seen = []
    y.register_hook(lambda g: seen.append(g.tolist()))
    (y * 2 + y * 3).sum().backward()
    assert seen == [[5., 5.]]


def test_hook_can_replace_gradient_of_intermediate():
    x = ag.tensor([1., 2.], requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: g * 10)
    y.sum().backward()
    assert x.grad.tolist() == [20., 20.]


def test_hooks_run_in_registration_order_and_chain():
    x = ag.tensor([1.], requires_grad=True)
    order = []
    x.register_hook(lambda g: (order.append("a"), g + 1)[1])
    x.register_hook(lambda g: (order.append("b"), g * 10)[1])
    (x * 1).sum().backward()
    assert order == ["a", "b"] and x.grad.tolist() == [20.]


def test_handle_remove_and_context_manager():
    x = ag.tensor([1.], requires_grad=True)
    calls = []
    h = x.register_hook(lambda g: calls.append(1))
    h.remove()
    h.remove()  # twice is harmless
    (x * 1).sum().backward()
    with x.register_hook(lambda g: calls.append(2)):
        (x * 1).sum().backward()
    (x * 1).sum().backward()
    assert calls == [2]


def test_hook_returning_wrong_shape_raises():
    x = ag.tensor([1., 2.], requires_grad=True)
    y = x * 1
    y.register_hook(lambda g: g.sum())
    with pytest.raises(RuntimeError, match="changed the size"):
        y.sum().backward()


def test_hook_on_tensor_without_grad_raises():
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        ag.tensor([1.]).register_hook(print)


def test_retain_grad_sees_hooked_gradient():
    x = ag.tensor([1.], requires_grad=True)
    y = x * 1
    y.retain_grad()
    y.register_hook(lambda g: g * 2)  # registered after retain_grad, still seen
    (y * 3).sum().backward()
    assert y.grad.tolist() == [6.] and x.grad.tolist() == [6.]


def test_grad_fn_prehook_and_hook():
    x = ag.tensor([1., 2.], requires_grad=True)
    y = x * 3
    log = []

    def pre(grad_outputs):
        log.append(("pre", grad_outputs[0].tolist()))
        return (grad_outputs[0] * 2,)

    def post(grad_inputs, grad_outputs):
        log.append(("post", grad_inputs[0].tolist(), grad_outputs[0].tolist()))

    y.grad_fn.register_prehook(pre)
    y.grad_fn.register_hook(post)
    y.sum().backward()
    assert log == [("pre", [1., 1.]), ("post", [6., 6.], [2., 2.])]
    assert x.grad.tolist() == [6., 6.]


def test_node_post_hook_may_replace_grad_inputs():
    x = ag.tensor([1.], requires_grad=True)
    y = x * 3
    y.grad_fn.register_hook(lambda gi, go: (gi[0] * 0 + 7, None))
    y.sum().backward()
    assert x.grad.tolist() == [7.]


def test_post_accumulate_grad_hook_sees_final_grad():
    x = ag.tensor([1., 2.], requires_grad=True)
    seen = []
    x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.tolist()))
    (x * 2).sum().backward()
    (x * 2).sum().backward()
    assert seen == [[2., 2.], [4., 4.]]
    with pytest.raises(RuntimeError, match="non-leaf"):
        (x * 2).register_post_accumulate_grad_hook(print)


def test_hooks_hold_no_reference_to_the_tensor():
    x = ag.tensor([1.], requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: g)
    y.retain_grad()
    handle = y.register_hook(lambda g: g)
    ref = weakref.ref(y)
    del y
    assert ref() is None or gc.collect() >= 0 and ref() is None
    handle.remove()


def test_leaf_tensor_with_hook_is_freed():
    x = ag.tensor([1.], requires_grad=True)
    x.register_hook(lambda g: g)
    (x * 2).sum().backward()
    ref = weakref.ref(x)
    del x
    assert ref() is None


def test_handle_does_not_keep_hooks_alive():
    x = ag.tensor([1.], requires_grad=True)
    h = x.register_hook(lambda g: g)
    ref = weakref.ref(x)
    del x
    assert ref() is None
    h.remove()  # the dict is gone; removal is a no-op


def test_hook_order_leaf_accumulates_after_intermediate(capsys):
    x = ag.tensor([1.], requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: print("y"))
    x.register_hook(lambda g: print("x"))
    y.sum().backward()
    assert capsys.readouterr().out == "y\nx\n"
