"""A plain backward hands gradients from rule node to rule node as bare native arrays
(``engine.BareGradients``): what every other node, hook and caller sees is still a tensor.

Each test runs with fast paths on and off (``make test`` runs the suite both ways; with them
off every gradient is a tensor) and checks values against analytic formulas.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.tensor import wrap
from arraygrad.ops.rule import fast_paths


def _wraps_during(fn):
    """How many tensors ``tensor.wrap`` makes while ``fn()`` runs."""
    calls = []
    code = wrap.__code__

    def profile(frame, event, arg):
        if event == "call" and frame.f_code is code:
            calls.append(1)

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return len(calls)


def _chain():
    x = ag.tensor([0.1, 0.2, 0.3, 0.4], requires_grad=True)
    y = x
    for _ in range(10):
        y = ((y + x) * x).tanh()
    return x, y.sum()


@pytest.mark.skipif(not fast_paths.on, reason="gradients are tensors with fast paths off")
def test_a_plain_backward_wraps_no_gradient_between_rule_nodes():
    # 30 ops: each product and tanh gradient, and each sum of x's 20 arriving gradients,
    # was a tensor before (52 wraps). Now: the seed and x's .grad
    _, loss = _chain()
    assert _wraps_during(loss.backward) <= 2


def test_the_chain_gradient_matches_the_analytic_one():
    x, loss = _chain()
    loss.backward()
    xs = np.array([0.1, 0.2, 0.3, 0.4], np.float64)
    y, dy = xs.copy(), np.ones(4)  # forward mode by hand, in float64
    for _ in range(10):
        a = (y + xs) * xs
        da = (dy + 1) * xs + (y + xs)
        y, dy = np.tanh(a), (1 - np.tanh(a) ** 2) * da
    np.testing.assert_allclose(x.grad.numpy(), dy, rtol=1e-5)


def test_a_tensor_hook_in_the_chain_sees_a_tensor_and_its_result_is_used():
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    h = x * x
    seen = []

    def hook(g):
        seen.append(type(g))
        return g * 10

    handle = h.register_hook(hook)
    (h * 3).sum().backward()
    assert seen == [ag.Tensor]
    np.testing.assert_allclose(x.grad.numpy(), 60 * np.array([1.0, 2.0, 3.0]))
    handle.remove()
    x.grad = None
    h2 = x * x  # a new graph: no hook
    (h2 * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 6 * np.array([1.0, 2.0, 3.0]))
    assert seen == [ag.Tensor]


def test_a_removed_hook_gives_the_node_its_plain_run_back():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    h = x * 2
    handle = h.register_hook(lambda g: g + 1)
    handle.remove()
    y = (h * h).sum()
    y.backward(retain_graph=True)
    np.testing.assert_allclose(x.grad.numpy(), 8 * np.array([1.0, 2.0]))  # d/dx (2x)^2
    assert "_run" not in h.grad_fn.__dict__  # the first run after the removal unwrapped
    x.grad = None
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), 8 * np.array([1.0, 2.0]))


def test_a_custom_function_between_rule_nodes_gets_and_gives_tensors():
    kinds = []

    class Cube(ag.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            cube = t ** 3
            ctx.save_for_backward(t)
            return cube

        @staticmethod
        def backward(ctx, g):
            kinds.append(type(g))
            (t,) = ctx.saved_tensors
            return g * 3 * t * t

    x = ag.tensor([1.0, 2.0], dtype=ag.float64, requires_grad=True)
    (Cube.apply(x * 2) * 5).sum().backward()
    assert kinds == [ag.Tensor]
    np.testing.assert_allclose(x.grad.numpy(), 5 * 3 * (2 * np.array([1.0, 2.0])) ** 2 * 2)


def test_a_multi_output_node_with_one_output_unused_gets_zeros_for_it():
    x = ag.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    a, b = x.split(2)
    (a * a).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.array([2.0, 4.0, 0.0, 0.0], np.float32))


def test_a_broadcast_bias_and_zero_dim_results_are_summed_back():
    x = ag.tensor(np.arange(6.0, dtype=np.float32).reshape(3, 2), requires_grad=True)
    w = ag.tensor([[1.0, -1.0], [2.0, 0.5]], requires_grad=True)
    b = ag.tensor([0.5, -0.5], requires_grad=True)
    s = (x @ w + b).sum()  # a 0-d result: NumPy's 0-d arithmetic answers scalars
    (s * s).backward()
    ones = np.ones((3, 2))
    np.testing.assert_allclose(b.grad.numpy(), 2 * s.item() * np.full(2, 3.0))
    xs = np.arange(6.0).reshape(3, 2)
    np.testing.assert_allclose(w.grad.numpy(), 2 * s.item() * (xs.T @ ones))
    np.testing.assert_allclose(x.grad.numpy(), 2 * s.item() * (ones @ w.detach().numpy().T))


def test_two_gradients_of_different_dtypes_reaching_one_input_are_promoted():
    x = ag.tensor([1.0, 2.0], dtype=ag.float32, requires_grad=True)
    y = x * 2
    z = y.double() * 3 + y.sum()  # y gets a float64 and a float32 gradient
    z.sum().backward()
    assert x.grad.dtype == ag.float32
    np.testing.assert_allclose(x.grad.numpy(), np.array([2 * (3 + 2), 2 * (3 + 2)]))


def test_retain_grad_in_a_plain_pass_stores_a_tensor():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    h.retain_grad()
    (h * h).sum().backward()
    assert type(h.grad) is ag.Tensor
    np.testing.assert_allclose(h.grad.numpy(), 2 * 3 * np.array([1.0, 2.0]))


def test_a_saved_input_modified_in_place_is_refused_by_its_first_order_formula():
    """``saved_data`` tests a saved input's version inline: an input changed in place after
    it was saved still raises PyTorch's error (sin's formula reads its saved input), and an
    unmodified one gives the analytic gradient."""
    x = ag.tensor([0.1, 0.2, 0.3], dtype=ag.float64, requires_grad=True)
    y = x * 2.0
    z = y.sin()
    y.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()
    assert x.grad is None  # nothing committed
    (x * 2.0).sin().sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * np.cos(2.0 * np.array([0.1, 0.2, 0.3])))
