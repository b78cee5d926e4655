"""The eager hot path's shortcuts (issue 27, per-op overhead) keep behaviour: the engine's
array sum of two gradients reaching one input (``ops.fast.gradient_sum``), the version
checks inlined in the node factory and the first-order formulas, and the version counter
bumped inline. Each is compared with the reference path (``reference_mode``: the general
mechanism), with PyTorch, and with analytic values."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag
import arraygrad.autograd.forward_ad as fwAD
from arraygrad.autograd import engine
from arraygrad.ops import fast
from arraygrad.ops.rule import reference_mode

X0 = np.array([0.1, -0.7, 0.3, 1.2], np.float32)


def _chain_grad(x0: np.ndarray, links: list[str]) -> np.ndarray:
    """The gradient in x of ``sum(y)`` after ``links`` (``add``: y + x, ``mul``: y * x,
    ``tanh``): every link but tanh sends a second gradient to x."""
    x = ag.tensor(x0, requires_grad=True)
    y = x
    for link in links:
        y = y + x if link == "add" else y * x if link == "mul" else y.tanh()
    y.sum().backward()
    return x.grad.numpy()


def test_the_engine_sums_gradients_with_the_fast_path():
    assert engine.grad_sum is fast.gradient_sum


def test_two_gradients_of_one_input_sum_to_the_analytic_gradient():
    # y = x * x + tanh(x): dy/dx = 2x + 1 - tanh(x)^2, three gradients reaching x
    x = ag.tensor(X0, requires_grad=True)
    (x * x + x.tanh()).sum().backward()
    x64 = X0.astype(np.float64)
    np.testing.assert_allclose(x.grad.numpy(), 2 * x64 + 1 - np.tanh(x64) ** 2, rtol=1e-6)
    assert x.grad.dtype == ag.float32


def test_the_chain_of_tensor_operands_matches_pytorch():
    torch = pytest.importorskip("torch")
    links = ["add", "mul", "tanh"] * 5
    got = _chain_grad(X0, links)
    x = torch.tensor(X0, requires_grad=True)
    y = x
    for link in links:
        y = y + x if link == "add" else y * x if link == "mul" else y.tanh()
    y.sum().backward()
    np.testing.assert_allclose(got, x.grad.numpy(), rtol=1e-5, atol=1e-7)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["add", "mul", "tanh"]), min_size=1, max_size=12),
       st.sampled_from([np.float32, np.float64]))
def test_the_fast_sum_is_the_reference_sum_bit_for_bit(links, dtype):
    x0 = X0.astype(dtype)
    fast_grad = _chain_grad(x0, links)
    with reference_mode():
        reference = _chain_grad(x0, links)
    np.testing.assert_array_equal(fast_grad, reference)
    assert fast_grad.dtype == dtype


def test_create_graph_records_the_sum_of_two_gradients():
    # y = x*x*x + x*x: dy/dx = 3x^2 + 2x (two gradients summed, recorded), d2y/dx2 = 6x + 2
    x = ag.tensor(X0.astype(np.float64), requires_grad=True)
    y = (x * x * x + x * x).sum()
    (g,) = ag.autograd.grad(y, x, create_graph=True)
    assert g.grad_fn is not None
    np.testing.assert_allclose(g.detach().numpy(), 3 * X0.astype(np.float64) ** 2 + 2 * X0,
                               rtol=1e-6)
    (h,) = ag.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(h.numpy(), 6 * X0.astype(np.float64) + 2, rtol=1e-6)


def test_a_backward_inside_a_dual_level_sums_as_the_reference():
    # with a forward-AD level open the engine takes ``a + b`` itself
    x = ag.tensor(X0.astype(np.float64), requires_grad=True)
    with fwAD.dual_level():
        (x * x + x.tanh()).sum().backward()
    x64 = X0.astype(np.float64)
    np.testing.assert_allclose(x.grad.numpy(), 2 * x64 + 1 - np.tanh(x64) ** 2, rtol=1e-12)


def test_a_factor_modified_in_place_after_the_product_refuses_the_backward():
    # mul's first-order formula checks the saved factor's version inline: PyTorch's error
    x = ag.tensor(X0, requires_grad=True)
    w = ag.tensor(X0, requires_grad=True)
    a = x * 2.0
    b = a * w  # w's gradient reads the saved a
    a.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        b.sum().backward()
    assert x.grad is None and w.grad is None  # nothing changed on error


def test_a_tanh_result_modified_in_place_refuses_the_backward():
    x = ag.tensor(X0, requires_grad=True)
    y = x.tanh()  # its backward reads its own result (``SavedOutput``)
    z = y * 1.0
    y.mul_(2.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_in_place_writes_bump_the_version_as_pytorch_does():
    torch = pytest.importorskip("torch")
    t, r = ag.zeros(3), torch.zeros(3)
    seen = [(t._version, r._version)]
    for op in ("add_", "mul_", "sub_"):
        getattr(t, op)(2.0)
        getattr(r, op)(2.0)
        seen.append((t._version, r._version))
    assert all(a == b for a, b in seen), seen
    assert t._version == 3
