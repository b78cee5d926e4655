"""Indexing and matrix products as rules (issue #11): node names, edges, gradients against
PyTorch, with fast paths on and off."""

from __future__ import annotations

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.ops.indexing import index_put
from arraygrad.ops.rule import reference_mode, rules

try:  # the comparisons with PyTorch skip without it; the other checks here always run
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

MODES = [pytest.param(False, id="fast"), pytest.param(True, id="reference")]


def _pair(shape, seed):
    data = np.random.default_rng(seed).standard_normal(shape)
    return (ag.tensor(data, requires_grad=True),
            torch.tensor(data, requires_grad=True))


def _close(a, t):
    np.testing.assert_allclose(a.detach().numpy(), t.detach().numpy(), rtol=1e-10, atol=1e-12)


def test_rules_are_in_the_table():
    names = rules()
    for name in ("SelectBackward0", "SliceBackward0", "IndexBackward0", "GatherBackward0",
                 "IndexSelectBackward0", "IndexPutBackward0", "MaskedKeyBackward0",
                 "DotBackward0", "MvBackward0", "MmBackward0", "BmmBackward0",
                 "UnsafeViewBackward0"):
        assert name in names


@needs_torch
@pytest.mark.parametrize("make, name", [
    # integers alone select (was SliceBackward0: the normalised key's ... hid them)
    (lambda x: x[1], "SelectBackward0"),
    (lambda x: x[-1, 0], "SelectBackward0"),
    (lambda x: x[..., 1], "SelectBackward0"),
    (lambda x: x[...], "SliceBackward0"),
    (lambda x: x[1:, None], "SliceBackward0"),
    (lambda x: x[[0, 2, 0]], "IndexBackward0"),
    (lambda x: x[x > 0], "IndexBackward0"),
    (lambda x: x.gather(1, ag.tensor([[0], [1], [1]])), "GatherBackward0"),
    (lambda x: x.index_select(0, ag.tensor([2, 0])), "IndexSelectBackward0"),
    (lambda x: index_put(x, (ag.tensor([0, 1]),), ag.tensor(1.0)), "IndexPutBackward0"),
])
def test_indexing_node_names(make, name):
    x, _ = _pair((3, 2), 0)
    assert make(x).grad_fn.name() == name


@needs_torch
@pytest.mark.parametrize("a_shape, b_shape, name", [
    ((3,), (3,), "DotBackward0"), ((2, 3), (3,), "MvBackward0"),
    ((2, 3), (3, 4), "MmBackward0"), ((5, 2, 3), (5, 3, 4), "BmmBackward0"),
    ((3,), (3, 4), "UnsafeViewBackward0"), ((5, 2, 3), (3, 4), "UnsafeViewBackward0"),
])
def test_matmul_node_names_and_saved(a_shape, b_shape, name):
    a, _ = _pair(a_shape, 0)
    b = ag.tensor(np.ones(b_shape))  # no gradient: still saved, as before the rule table
    out = a @ b
    assert out.grad_fn.name() == name
    assert [type(f).__name__ if f else None for f, _ in out.grad_fn.next_functions] == [
        "AccumulateGrad", None]
    sa, sb = out.grad_fn.saved_tensors
    assert sa is a and tuple(sb.shape) == b_shape


@needs_torch
@pytest.mark.parametrize("reference", MODES)
@pytest.mark.parametrize("a_shape, b_shape", [
    ((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)),
    ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)), ((5, 1, 2, 3), (4, 3, 2)),
    ((5, 2, 3), (3,)), ((3,), (5, 3, 4)),
])
def test_matmul_gradients_match_torch(reference, a_shape, b_shape):
    """Broadcast batch dimensions are summed back by the recorder; second order too."""
    a, ta = _pair(a_shape, 1)
    b, tb = _pair(b_shape, 2)
    with reference_mode(reference):
        out = a @ b
        w = ag.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape)))
        ga, gb = ag.autograd.grad((out * w).sum(), (a, b), create_graph=True)
        gga, ggb = ag.autograd.grad((ga * ga).sum() + (gb ** 3).sum(), (a, b))
    tout = ta @ tb
    tw = torch.tensor(w.numpy())
    tga, tgb = torch.autograd.grad((tout * tw).sum(), (ta, tb), create_graph=True)
    tgga, tggb = torch.autograd.grad((tga * tga).sum() + (tgb ** 3).sum(), (ta, tb))
    for x, t in ((out, tout), (ga, tga), (gb, tgb), (gga, tgga), (ggb, tggb)):
        assert tuple(x.shape) == tuple(t.shape)
        _close(x, t)


@needs_torch
@pytest.mark.parametrize("reference", MODES)
def test_matmul_expanded_gradient(reference):
    """``sum()`` hands matmul a stride-0 gradient: copied once, values as PyTorch's."""
    a, ta = _pair((4, 3), 3)
    b, tb = _pair((3, 5), 4)
    with reference_mode(reference):
        (a @ b).sum().backward()
    (ta @ tb).sum().backward()
    _close(a.grad, ta.grad)
    _close(b.grad, tb.grad)


@needs_torch
def test_indexing_double_backward_records_index_put_like_torch():
    """The gradient of reading is zeros with ``g`` written in: PyTorch's index-put node,
    whose first edge (the zeros) is None."""
    x, _ = _pair((4, 3), 5)
    w, _ = _pair((2, 3), 6)
    (g,) = ag.autograd.grad((x[ag.tensor([0, 2])] * w).sum(), (x,), create_graph=True)
    assert g.grad_fn.name() == "IndexPutBackward0"
    (none, _), (mul, _) = g.grad_fn.next_functions
    assert none is None and mul.name() == "MulBackward0"


@needs_torch
@pytest.mark.parametrize("reference", MODES)
def test_index_put_values_of_the_result_shape_broadcast_further(reference):
    """Values shaped like the result but broadcast to a larger selection (a ``None`` in the
    key): their gradient is summed back to their shape, though the recorder sees no
    difference in shape. Failed when the rule left the summing to the recorder alone."""
    x, _ = _pair((2,), 7)
    v, _ = _pair((2,), 8)
    with reference_mode(reference):
        out = index_put(x, (None, slice(None)), v)
        out.backward(ag.tensor([3.0, -1.0]))
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0])
    np.testing.assert_array_equal(v.grad.numpy(), [3.0, -1.0])


@needs_torch
@pytest.mark.parametrize("reference", MODES)
def test_index_put_gradients_match_torch(reference):
    """Overwritten entries get no gradient; broadcast values get the sum; second order."""
    x, tx = _pair((4, 3), 9)
    v, tv = _pair((3,), 10)
    idx = [0, 2]
    with reference_mode(reference):
        out = index_put(x, (ag.tensor(idx),), v)
        w = ag.tensor(np.arange(12.0).reshape(4, 3))
        gx, gv = ag.autograd.grad((out * out * w).sum(), (x, v), create_graph=True)
        ggx, ggv = ag.autograd.grad((gx * gx).sum() + (gv * gv).sum(), (x, v))
    tout = tx.index_put((torch.tensor(idx),), tv)
    tw = torch.tensor(w.numpy())
    tgx, tgv = torch.autograd.grad((tout * tout * tw).sum(), (tx, tv), create_graph=True)
    tggx, tggv = torch.autograd.grad((tgx * tgx).sum() + (tgv * tgv).sum(), (tx, tv))
    for a, t in ((out, tout), (gx, tgx), (gv, tgv), (ggx, tggx), (ggv, tggv)):
        _close(a, t)


def test_index_put_value_of_another_dtype_gets_its_dtype_back():
    x = ag.zeros(3, dtype=ag.float64, requires_grad=True)
    v = ag.tensor([1.0, 2.0], dtype=ag.float32, requires_grad=True)
    index_put(x, (ag.tensor([0, 2]),), v).sum().backward()
    assert v.grad.dtype is ag.float32
    np.testing.assert_array_equal(v.grad.numpy(), [1.0, 1.0])
