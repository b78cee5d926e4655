"""``autograd.grad(..., is_grads_batched=True)``: each row of the batched grad_outputs gives
the VJP ``autograd.grad`` gives for it alone; unused inputs, create_graph, the shape error,
and PyTorch where installed."""

import numpy as np
import pytest
from func_helpers import arr, needs_torch, t64, torch, torch64

import arraygrad as ag

X = np.array([0.3, -1.2, 2.0])
ROWS = np.array([[1.0, 0.0], [0.5, -2.0], [0.0, 3.0], [1.0, 1.0]])


def _graph(x, y):
    return (x[:2] * y).sin(), (x ** 2).sum()


def test_each_row_is_the_plain_vjp():
    x, y = t64(X, requires_grad=True), t64([1.5, 0.7], requires_grad=True)
    o1, o2 = _graph(x, y)
    scalars = np.array([1.0, 0.0, -1.0, 2.0])
    gx, gy = ag.autograd.grad((o1, o2), (x, y), (t64(ROWS), t64(scalars)), is_grads_batched=True)
    assert tuple(gx.shape) == (4, 3) and tuple(gy.shape) == (4, 2)
    for k in range(4):
        wx, wy = ag.autograd.grad((o1, o2), (x, y), (t64(ROWS[k]), t64(scalars[k])),
                                  retain_graph=True)
        np.testing.assert_allclose(arr(gx[k]), arr(wx), rtol=1e-14)
        np.testing.assert_allclose(arr(gy[k]), arr(wy), rtol=1e-14)
    assert x.grad is None and not gx.requires_grad


def test_unused_input_none_or_materialized_and_create_graph():
    x, z = t64(X, requires_grad=True), t64([1.0], requires_grad=True)
    out = x ** 3
    eye = ag.eye(3, dtype=ag.float64)
    gx, gz = ag.autograd.grad(out, (x, z), eye, is_grads_batched=True, allow_unused=True,
                              retain_graph=True)
    assert gz is None
    np.testing.assert_allclose(arr(gx), np.diag(3 * X ** 2))
    _, gz = ag.autograd.grad(out, (x, z), eye, is_grads_batched=True, materialize_grads=True,
                             retain_graph=True)
    np.testing.assert_allclose(arr(gz), np.zeros((3, 1)))
    (gx,) = ag.autograd.grad(out, x, eye, is_grads_batched=True, create_graph=True)
    assert gx.requires_grad
    (h,) = ag.autograd.grad(gx.sum(), x)  # d/dx sum(diag(3 x^2)) = 6 x
    np.testing.assert_allclose(arr(h), 6 * X)


def test_shape_error_as_pytorch():
    x = t64(X, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"If `is_grads_batched=True`.*grad_output\[0\]"):
        ag.autograd.grad(x * 2, x, t64(ROWS), is_grads_batched=True)


@needs_torch
def test_matches_torch():
    x, y = t64(X, requires_grad=True), t64([1.5, 0.7], requires_grad=True)
    tx, ty = torch64(X, requires_grad=True), torch64([1.5, 0.7], requires_grad=True)
    ours = ag.autograd.grad(_graph(x, y)[0], (x, y), t64(ROWS), is_grads_batched=True)
    theirs = torch.autograd.grad(_graph(tx, ty)[0], (tx, ty), torch64(ROWS),
                                 is_grads_batched=True)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(arr(a), arr(b), rtol=1e-14)
