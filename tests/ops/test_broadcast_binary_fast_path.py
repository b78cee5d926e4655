"""``a op b`` of two tensors of one dtype that broadcast (``h @ W + b``, a column plus a row)
takes ``ops.fast.binary`` (it took the general promotion path): the same values, node,
gradients (summed back to each input's shape by the recorder) and errors as the general path
(``reference_mode``) and PyTorch."""

from __future__ import annotations

import operator

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag
from arraygrad.ops.rule import reference_mode

OPS = [operator.add, operator.sub, operator.mul, operator.truediv]
DTYPES = ["float32", "float64", "float16"]


def _broadcasting_pair(data):
    shape = data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
    a = [s if data.draw(st.booleans()) else 1 for s in shape]
    b = [s if data.draw(st.booleans()) else 1 for s in shape]
    b = b[data.draw(st.integers(0, len(b))):]  # fewer dimensions: leading ones implied
    return tuple(a), tuple(b)


@settings(max_examples=80, deadline=None)
@given(st.data(), st.sampled_from(OPS), st.sampled_from(DTYPES), st.booleans(), st.booleans())
def test_broadcasting_operands_match_the_general_path(data, op, dtype, ga, gb):
    sa, sb = _broadcasting_pair(data)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**31 - 1)))
    a0 = rng.uniform(0.5, 2.0, sa).astype(dtype)
    b0 = rng.uniform(0.5, 2.0, sb).astype(dtype)

    def run():
        a = ag.tensor(a0, requires_grad=ga)
        b = ag.tensor(b0, requires_grad=gb)
        out = op(a, b)
        grads = ()
        if ga or gb:
            wanted = [t for t, g in ((a, ga), (b, gb)) if g]
            grads = ag.autograd.grad(out.sum(), wanted)
        return out, grads

    got, got_grads = run()
    with reference_mode():
        want, want_grads = run()
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(got.detach().numpy(), want.detach().numpy())
    assert type(got.grad_fn).__name__ == type(want.grad_fn).__name__
    for g, w in zip(got_grads, want_grads):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-3 if dtype == "float16" else 1e-6)


def test_shapes_that_do_not_broadcast_get_the_general_paths_error_and_change_nothing():
    a, b = ag.ones(3, requires_grad=True), ag.ones(4)
    for op in OPS:
        with pytest.raises(RuntimeError, match=r"shapes \[3\] and \[4\] cannot be broadcast"):
            op(a, b)
    assert a.grad is None and a.tolist() == [1.0, 1.0, 1.0]


def test_a_bias_add_records_one_node_with_the_inputs_shapes():
    h = ag.randn(5, 3)
    w = ag.randn(3, 4, requires_grad=True)
    b = ag.randn(4, requires_grad=True)
    out = h @ w + b
    assert type(out.grad_fn).__name__ == "AddBackward0"
    out.backward(ag.ones(5, 4))
    assert b.grad.tolist() == [5.0] * 4 and w.grad.shape == (3, 4)


def test_broadcasting_matches_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    a0 = rng.standard_normal((4, 1)).astype(np.float32)
    b0 = rng.standard_normal(5).astype(np.float32)
    for op in OPS:
        a, b = ag.tensor(a0, requires_grad=True), ag.tensor(b0, requires_grad=True)
        ta, tb = torch.tensor(a0, requires_grad=True), torch.tensor(b0, requires_grad=True)
        out, tout = op(a, b), op(ta, tb)
        np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-6)
        out.sum().backward()
        tout.sum().backward()
        np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-5)
        np.testing.assert_allclose(b.grad.numpy(), tb.grad.numpy(), rtol=1e-5)


def test_inside_vmap_broadcasting_still_maps():
    x = ag.randn(3, 4)
    b = ag.randn(4)
    got = ag.func.vmap(lambda row: row[:, None] * b[None, :])(x)
    assert got.shape == (3, 4, 4)
    np.testing.assert_allclose(got.numpy(), x.numpy()[:, :, None] * b.numpy()[None, None, :],
                               rtol=1e-6)
