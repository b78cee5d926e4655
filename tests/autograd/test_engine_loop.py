"""The engine's one loop: hooks wrap the node they concern, and final callbacks
(``Variable._execution_engine.queue_callback``) run at the end of each backward pass."""

import gc

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.autograd import engine
from arraygrad.autograd.graph import AccumulateGrad, Node
from arraygrad.autograd.variable import Variable

queue_callback = Variable._execution_engine.queue_callback


# -- queue_callback ---------------------------------------------------------------------------

def test_callbacks_run_in_order_after_every_node():
    log = []
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2.0
    z = y * 3.0

    def hook(g):
        queue_callback(lambda: log.append("first"))
        queue_callback(lambda: log.append("second"))
        log.append("hook")

    z.register_hook(hook)
    y.grad_fn.register_hook(lambda gi, go: log.append("last node") or None)
    z.sum().backward()
    assert log == ["hook", "last node", "first", "second"]


def test_a_callback_may_queue_more_which_run_after_the_queued_ones():
    log = []
    x = ag.tensor([1.0], requires_grad=True)
    y = x * 2.0

    def first():
        log.append(1)
        queue_callback(lambda: log.append(3))

    def hook(g):
        queue_callback(first)
        queue_callback(lambda: log.append(2))

    y.register_hook(hook)
    y.sum().backward()
    assert log == [1, 2, 3]  # PyTorch's order


@pytest.mark.parametrize("queue", [queue_callback, engine.queue_callback],
                         ids=["Variable._execution_engine", "engine"])
def test_queue_callback_outside_backward_raises(queue):
    with pytest.raises(RuntimeError,
                       match="^Final callbacks can only be installed during backward pass.$"):
        queue(lambda: None)


def test_queue_callback_outside_backward_raises_after_a_backward_and_after_one_that_failed():
    x = ag.tensor([1.0], requires_grad=True)
    (x * 2.0).sum().backward()
    with pytest.raises(RuntimeError, match="Final callbacks"):
        queue_callback(lambda: None)
    y = x * 2.0
    y.register_hook(lambda g: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        y.sum().backward()
    with pytest.raises(RuntimeError, match="Final callbacks"):
        queue_callback(lambda: None)


def test_queue_callback_refuses_what_cannot_be_called():
    x = ag.tensor([1.0], requires_grad=True)
    y = x * 2.0
    y.register_hook(lambda g: queue_callback(42))
    with pytest.raises(TypeError, match="callable"):
        y.sum().backward()
    assert x.grad is None  # raised inside the pass: nothing written


def test_callbacks_see_the_final_grad():
    seen = []
    w = ag.tensor([1.0, 2.0], requires_grad=True)
    b = ag.tensor([0.5], requires_grad=True)
    h = w * 3.0
    h.retain_grad()
    out = (h * w).sum() + (b * 2.0).sum()  # w has two contributions, summed in .grad

    def hook(g):
        queue_callback(lambda: seen.append((w.grad.tolist(), b.grad.tolist(), h.grad.tolist())))

    h.register_hook(hook)
    out.backward()
    assert seen == [([6.0, 12.0], [2.0], [1.0, 2.0])]


def test_callbacks_see_the_grad_of_a_non_leaf_backward_input():
    """``backward(inputs=[non-leaf])`` writes its ``.grad`` with the commit, before the
    callbacks (it was written after the engine returned)."""
    seen = []
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2.0
    y.register_hook(lambda g: queue_callback(lambda: seen.append(y.grad.tolist())))
    (y * 3.0).sum().backward(inputs=[y])
    assert seen == [[3.0, 3.0]]
    assert x.grad is None


def test_callbacks_run_in_the_passes_grad_mode():
    modes = []
    x = ag.tensor([1.0], requires_grad=True)
    for create_graph in (False, True):
        y = x * 2.0
        y.register_hook(lambda g: queue_callback(lambda: modes.append(ag.is_grad_enabled())))
        y.sum().backward(create_graph=create_graph)
    assert modes == [False, True]  # create_graph's, as in PyTorch
    assert ag.is_grad_enabled()


def test_an_exception_in_a_callback_propagates_after_the_commit():
    log = []
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2.0

    def boom():
        raise ValueError("boom")

    def hook(g):
        queue_callback(boom)
        queue_callback(lambda: log.append("after"))

    y.register_hook(hook)
    with pytest.raises(ValueError, match="boom"):
        y.sum().backward()
    assert log == []  # the callbacks after the failing one do not run (as in PyTorch)
    assert x.grad.tolist() == [2.0, 2.0]  # written before the callbacks ran
    with pytest.raises(RuntimeError, match="a second time"):  # released as usual
        y.sum().backward()
    (x * 1.0).sum().backward()  # the next pass starts with no callbacks left over
    assert log == [] and x.grad.tolist() == [3.0, 3.0]


def test_a_backward_inside_a_hook_keeps_its_own_callbacks():
    log = []
    a = ag.tensor([1.0], requires_grad=True)

    def outer_hook(g):
        queue_callback(lambda: log.append("outer"))
        with ag.enable_grad():
            b = ag.tensor([1.0], requires_grad=True)
            c = b * 2.0
            c.register_hook(lambda g: queue_callback(lambda: log.append("inner")))
            c.sum().backward()
        log.append("inner backward returned")

    y = a * 2.0
    y.register_hook(outer_hook)
    y.sum().backward()
    assert log == ["inner", "inner backward returned", "outer"]


def test_autograd_grad_runs_callbacks_too():
    log = []
    x = ag.tensor([1.0], requires_grad=True)
    y = x * 2.0
    y.register_hook(lambda g: queue_callback(lambda: log.append("done")))
    (gx,) = ag.autograd.grad(y.sum(), x)
    assert log == ["done"] and gx.tolist() == [2.0]


# -- hooks wrap their node ------------------------------------------------------------------------

def test_no_hooked_flag_and_hook_free_nodes_run_their_class_run():
    assert not hasattr(Node, "_hooked")
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 2.0).tanh()
    assert "_run" not in y.grad_fn.__dict__
    y.retain_grad()
    assert "_run" in y.grad_fn.__dict__  # wrapped: the engine asks nothing about hooks


def test_hooks_registered_after_the_graph_is_built_still_run():
    log = []
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2.0
    z = y * 3.0
    out = z.sum()
    assert isinstance(x._gradient_edge()[0], AccumulateGrad)  # the graph holds x's node
    # now the hooks, the leaf's on its existing AccumulateGrad among them
    z.register_hook(lambda g: log.append("z tensor hook") or g * 10.0)
    y.retain_grad()
    z.grad_fn.register_prehook(lambda gs: log.append("z pre") or None)
    z.grad_fn.register_hook(lambda gi, go: log.append("z post") or None)
    x.register_hook(lambda g: log.append("x tensor hook") or None)
    x.register_post_accumulate_grad_hook(lambda t: log.append(("x post acc", t.grad.tolist())))
    out.backward()
    assert log == ["z tensor hook", "z pre", "z post", "x tensor hook",
                   ("x post acc", [60.0, 60.0])]
    assert y.grad.tolist() == [30.0, 30.0]
    assert x.grad.tolist() == [60.0, 60.0]


def _every_hook(x, y, log):
    """One hook of each kind on ``y = f(x)`` and ``x``; their handles."""
    node, acc = y.grad_fn, x._gradient_edge()[0]
    return [
        y.register_hook(lambda g: log.append("tensor") or g * 100.0),
        node.register_prehook(lambda gs: log.append("pre") or (gs[0] * 100.0,)),
        node.register_hook(lambda gi, go: log.append("post") or (gi[0] * 100.0,)),
        x.register_hook(lambda g: log.append("leaf") or g * 100.0),
        x.register_post_accumulate_grad_hook(lambda t: log.append("post acc")),
        acc.register_prehook(lambda gs: log.append("acc pre") or None),
        acc.register_hook(lambda gi, go: log.append("acc post") or None),
    ]


def test_removing_every_hook_restores_plain_behaviour():
    log = []
    x = ag.tensor([1.0, 2.0], dtype=ag.float64, requires_grad=True)
    y = (x * 3.0).tanh()
    node, acc = y.grad_fn, x._gradient_edge()[0]
    handles = _every_hook(x, y, log)
    y.sum().backward(retain_graph=True)
    assert log == ["tensor", "pre", "post", "leaf", "acc pre", "post acc", "acc post"]
    plain = 3.0 * (1.0 - np.tanh(3.0 * np.array([1.0, 2.0])) ** 2)
    np.testing.assert_allclose(x.grad.numpy(), plain * 100.0 ** 4)
    for h in handles:
        h.remove()
    log.clear()
    x.grad = None
    y.sum().backward()
    assert log == []
    np.testing.assert_allclose(x.grad.numpy(), plain)
    # and the nodes run their class's plain run again
    assert "_run" not in node.__dict__
    assert "_run" not in acc.__dict__ and "_apply" not in acc.__dict__


def test_a_hook_registered_again_after_removal_runs():
    log = []
    x = ag.tensor([1.0], requires_grad=True)
    y = x * 2.0
    y.register_hook(lambda g: log.append("first")).remove()
    y.sum().backward(retain_graph=True)  # unwraps the node
    y.register_hook(lambda g: log.append("second"))
    y.sum().backward()
    assert log == ["second"]


def test_leaf_hooks_wrap_every_new_accumulate_grad():
    log = []
    x = ag.tensor([1.0], requires_grad=True)
    x.register_hook(lambda g: log.append("leaf") or None)
    for _ in range(2):  # each graph makes x a new AccumulateGrad, wrapped when made
        (x * 2.0).sum().backward()
    assert log == ["leaf", "leaf"]


def test_post_hook_sees_unmaterialized_grad_outputs_like_pytorch():
    """A node's post-hook gets the gradients that arrived (None for an unused output), as
    PyTorch passes them; it used to get the zeros materialized for the backward."""

    class Two(ag.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2.0, x * 3.0

        @staticmethod
        def backward(ctx, a, b):
            seen.append(("backward", a.tolist(), b.tolist()))
            return a * 2.0 + b * 3.0

    seen = []
    x = ag.tensor([1.0, 1.0], requires_grad=True)
    a, _ = Two.apply(x)
    a.grad_fn.register_prehook(lambda go: seen.append(("pre", go[1])) or None)
    a.grad_fn.register_hook(lambda gi, go: seen.append(("post", go[1])) or None)
    a.sum().backward()
    assert seen == [("pre", None), ("backward", [1.0, 1.0], [0.0, 0.0]), ("post", None)]
    assert x.grad.tolist() == [2.0, 2.0]


def test_autograd_grad_captures_after_the_inputs_tensor_hooks():
    x = ag.tensor([1.0, 1.0], requires_grad=True)
    x.register_hook(lambda g: g * 2.0)
    assert ag.autograd.grad((x * 3.0).sum(), x)[0].tolist() == [6.0, 6.0]
    y = x * 3.0
    y.register_hook(lambda g: g * 2.0)
    assert ag.autograd.grad((y * 1.0).sum(), y)[0].tolist() == [2.0, 2.0]
    assert x.grad is None


def test_hook_wrappers_make_no_reference_cycles():
    x = ag.tensor([1.0, 2.0], requires_grad=True)

    def step():
        y = x * 2.0
        z = y.tanh()
        _every_hook(x, y, [])
        z.retain_grad()
        z.sum().backward()

    step()
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(3):
            step()
        assert gc.collect() == 0
    finally:
        if was_enabled:
            gc.enable()


def test_profiler_times_every_node_once_hooked_or_not():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 2.0).tanh()
    y.grad_fn.register_prehook(lambda gs: None)
    with ag.autograd.profiler.profile() as prof:
        y.sum().backward()
    names = [e.name for e in prof.function_events if e.name.startswith("autograd::engine")]
    assert sorted(names) == sorted(f"autograd::engine::evaluate_function: {n}" for n in (
        "SumBackward0", "TanhBackward0", "MulBackward0", "AccumulateGrad"))
    assert engine.node_runner is None


def test_anomaly_mode_checks_what_a_post_hook_returns():
    """As in PyTorch, the NaN check sees the node's gradients after its post-hooks (it used
    to check them before, so a hook's NaN passed)."""
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2.0
    y.grad_fn.register_hook(lambda gi, go: (gi[0] * float("nan"), None))
    with ag.autograd.set_detect_anomaly(True):
        with pytest.warns(UserWarning, match="Error detected in MulBackward0"):
            with pytest.raises(RuntimeError, match="MulBackward0' returned nan"):
                y.sum().backward()
    assert x.grad is None


def test_removable_handle_repr_names_its_real_module():
    """The repr named ``arraygrad.utils.hooks``, a module that does not exist."""
    import importlib

    handle = ag.tensor([1.0], requires_grad=True).register_hook(lambda g: None)
    text = repr(handle)
    assert text == f"<arraygrad.autograd.hooks.RemovableHandle id={handle.id}>"
    module = importlib.import_module(text[1:].split(".RemovableHandle")[0])
    assert module.RemovableHandle is type(handle)
