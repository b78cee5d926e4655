"""The ``products`` op family (diagonal ... broadcast_shapes): values and gradients against
PyTorch (skipped without it), analytic values, errors, in-place forms."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag
from torch_compare import flat as _flat, same_as_torch as _same

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

F64 = ag.float64


def _pairs(*shapes, seed=0):
    """The same float64 values as arraygrad and torch leaves that require grad, per shape."""
    rng = np.random.default_rng(seed)
    out = []
    for shape in shapes:
        data = rng.standard_normal(shape)
        out.append((ag.tensor(data.tolist(), dtype=F64).reshape(shape).requires_grad_(),
                    torch.tensor(data, dtype=torch.float64, requires_grad=True)))
    return out


# name -> (input shapes, function of the library and its tensors)
CASES = {
    "diagonal": ([(3, 4)], lambda m, x: m.diagonal(x)),
    "diagonal_offset": ([(3, 4)], lambda m, x: x.diagonal(2)),
    "diagonal_neg": ([(3, 4)], lambda m, x: m.diagonal(x, -2)),
    "diagonal_empty": ([(3, 4)], lambda m, x: m.diagonal(x, 5)),
    "diagonal_dims": ([(2, 3, 4)], lambda m, x: m.diagonal(x, 1, 2, 0)),
    "diagonal_kw": ([(2, 3, 4)], lambda m, x: x.diagonal(offset=-1, dim1=-1, dim2=1)),
    "diag_embed": ([(2, 3)], lambda m, x: m.diag_embed(x)),
    "diag_embed_offset": ([(2, 3)], lambda m, x: x.diag_embed(-2)),
    "diag_embed_dims": ([(2, 3)], lambda m, x: m.diag_embed(x, 1, 2, 0)),
    "diag_vector": ([(3,)], lambda m, x: m.diag(x)),
    "diag_vector_offset": ([(3,)], lambda m, x: x.diag(2)),
    "diag_matrix": ([(3, 4)], lambda m, x: m.diag(x, -1)),
    "diagflat": ([(2, 2)], lambda m, x: m.diagflat(x, 1)),
    "trace": ([(3, 4)], lambda m, x: m.trace(x)),
    "trace_method": ([(4, 2)], lambda m, x: x.trace()),
    "block_diag": ([(2, 3), (3,), (), (1, 2)], lambda m, a, b, c, d: m.block_diag(a, b, c, d)),
    "cartesian_prod": ([(3,), (2,), (2,)], lambda m, a, b, c: m.cartesian_prod(a, b, c)),
    "cartesian_prod_one": ([(3,)], lambda m, a: m.cartesian_prod(a)),
    "combinations": ([(4,)], lambda m, a: m.combinations(a)),
    "combinations_r3": ([(4,)], lambda m, a: m.combinations(a, 3)),
    "combinations_repl": ([(3,)], lambda m, a: m.combinations(a, 2, with_replacement=True)),
    "combinations_none": ([(1,)], lambda m, a: m.combinations(a, 2)),
    "kron": ([(2, 3), (3, 2)], lambda m, a, b: m.kron(a, b)),
    "kron_ranks": ([(2,), (2, 3, 2)], lambda m, a, b: a.kron(b)),
    "kron_scalar": ([(), (2, 2)], lambda m, a, b: m.kron(a, b)),
    "inner": ([(2, 3), (4, 3)], lambda m, a, b: m.inner(a, b)),
    "inner_batched": ([(2, 2, 3), (3,)], lambda m, a, b: a.inner(b)),
    "inner_scalar": ([(), (2, 3)], lambda m, a, b: m.inner(a, b)),
    "tensordot_int": ([(2, 3, 4), (3, 4, 2)], lambda m, a, b: m.tensordot(a, b)),
    "tensordot_0": ([(2, 3), (2,)], lambda m, a, b: m.tensordot(a, b, 0)),
    "tensordot_lists": ([(2, 3, 4), (4, 2, 5)], lambda m, a, b: m.tensordot(a, b, ([2, 0], [0, 1]))),
    "tensordot_dims": ([(2, 3, 4), (4, 2, 5)], lambda m, a, b: m.tensordot(a, b, dims=([-1], [0]))),
    "vdot": ([(4,), (4,)], lambda m, a, b: m.vdot(a, b)),
    "addmm": ([(2, 4), (2, 3), (3, 4)], lambda m, c, a, b: m.addmm(c, a, b)),
    "addmm_scaled": ([(4,), (2, 3), (3, 4)], lambda m, c, a, b: c.addmm(a, b, beta=0.5, alpha=-2)),
    "addmm_beta0": ([(2, 1), (2, 3), (3, 4)], lambda m, c, a, b: m.addmm(c, a, b, beta=0)),
    "addmv": ([(2,), (2, 3), (3,)], lambda m, c, a, b: m.addmv(c, a, b, beta=2, alpha=0.5)),
    "addmv_broadcast": ([(), (2, 3), (3,)], lambda m, c, a, b: c.addmv(a, b)),
    "addr": ([(2, 3), (2,), (3,)], lambda m, c, a, b: m.addr(c, a, b, alpha=3)),
    "baddbmm": ([(2, 3, 4), (2, 3, 2), (2, 2, 4)], lambda m, c, a, b: m.baddbmm(c, a, b, beta=0.25)),
    "baddbmm_broadcast": ([(3, 4), (2, 3, 2), (2, 2, 4)], lambda m, c, a, b: c.baddbmm(a, b, alpha=2)),
    "addbmm": ([(3, 4), (2, 3, 2), (2, 2, 4)], lambda m, c, a, b: m.addbmm(c, a, b, beta=-1, alpha=0.5)),
    "meshgrid_ij": ([(3,), (2,), (4,)], lambda m, a, b, c: m.meshgrid(a, b, c, indexing="ij")),
    "meshgrid_xy": ([(3,), (2,), (4,)], lambda m, a, b, c: m.meshgrid(a, b, c, indexing="xy")),
    "meshgrid_list_xy": ([(3,), ()], lambda m, a, b: m.meshgrid([a, b], indexing="xy")),
    "broadcast_tensors": ([(2, 1, 3), (4, 1), ()], lambda m, a, b, c: m.broadcast_tensors(a, b, c)),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_pytorch(name):
    shapes, fn = CASES[name]
    pairs = _pairs(*shapes)
    _same(fn(ag, *(a for a, _ in pairs)), fn(torch, *(t for _, t in pairs)), pairs)


@needs_torch
@settings(max_examples=40, deadline=None)
@given(shape=st.lists(st.integers(0, 4), min_size=2, max_size=4), data=st.data())
def test_diagonal_and_diag_embed_match_pytorch_on_random_shapes(shape, data):
    n = len(shape)
    ((a, t),) = _pairs(tuple(shape))
    offset = data.draw(st.integers(-5, 5))
    d1, d2 = data.draw(st.lists(st.integers(-n, n - 1), min_size=2, max_size=2,
                                unique_by=lambda d: d % n))
    _same(ag.diagonal(a, offset, d1, d2), torch.diagonal(t, offset, d1, d2))
    e1, e2 = data.draw(st.lists(st.integers(-n - 1, n), min_size=2, max_size=2,
                                unique_by=lambda d: d % (n + 1)))
    _same(ag.diag_embed(a, offset, e1, e2), torch.diag_embed(t, offset, e1, e2))


@needs_torch
@settings(max_examples=30, deadline=None)
@given(a_shape=st.lists(st.integers(1, 3), max_size=3), b_shape=st.lists(st.integers(1, 3), max_size=3))
def test_kron_matches_pytorch_on_random_shapes(a_shape, b_shape):
    (a, t), (b, u) = _pairs(tuple(a_shape), tuple(b_shape))
    _same(ag.kron(a, b), torch.kron(t, u), [(a, t), (b, u)])


@needs_torch
def test_broadcast_shapes_matches_pytorch():
    for shapes in [((2, 1), 3, (4, 1, 1)), ((), (0,)), ((5,),), ((1, 0), (3, 1))]:
        assert tuple(ag.broadcast_shapes(*shapes)) == tuple(torch.broadcast_shapes(*shapes))
    assert isinstance(ag.broadcast_shapes((2,)), ag.Size)


def test_trace_gradient_is_the_identity():
    x = ag.arange(12.0, dtype=F64).reshape(3, 4).requires_grad_()
    ag.trace(x).backward()
    assert x.grad.tolist() == np.eye(3, 4).tolist()


def test_addmm_beta_zero_ignores_nan_input_and_gives_it_zero_gradient():
    c = ag.full((2, 2), float("nan"), dtype=F64, requires_grad=True)
    a = ag.eye(2, dtype=F64, requires_grad=True)
    out = ag.addmm(c, a, a, beta=0)
    assert out.tolist() == [[1.0, 0.0], [0.0, 1.0]]
    out.sum().backward()
    assert c.grad.tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_diag_embed_keeps_infinities_and_zeros():
    out = ag.diag_embed(ag.tensor([float("inf"), 1.0]))
    assert out.tolist() == [[float("inf"), 0.0], [0.0, 1.0]]


def test_double_backward_through_tensordot_and_diagonal():
    a = ag.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=F64, requires_grad=True)
    y = (ag.tensordot(a, a, ([1], [0])).diagonal() ** 2).sum()  # sum_i ((a @ a)_ii)^2
    (g,) = ag.autograd.grad(y, a, create_graph=True)
    (gg,) = ag.autograd.grad(g.sum(), a)
    eps, x0 = 1e-6, np.array([[1.0, 2.0], [3.0, 4.0]])

    def grad_sum(x):  # sum of the analytic gradient: d/dx sum_i ((x x)_ii)^2 = 2 (D x^T + x^T D)
        d = np.diag(np.diag(x @ x))
        return (2 * (d @ x.T + x.T @ d)).sum()

    fd = np.zeros((2, 2))
    for i in range(2):
        for j in range(2):
            e = np.zeros((2, 2))
            e[i, j] = eps
            fd[i, j] = (grad_sum(x0 + e) - grad_sum(x0 - e)) / (2 * eps)
    np.testing.assert_allclose(np.array(gg.tolist()), fd, rtol=1e-6)


def test_inplace_add_products():
    c = ag.ones(2, 2, dtype=F64)
    a = ag.eye(2, dtype=F64)
    assert c.addmm_(a, a, beta=2, alpha=3) is c
    assert c.tolist() == [[5.0, 2.0], [2.0, 5.0]]
    v = ag.zeros(2, dtype=F64)
    v.addmv_(a, ag.tensor([1.0, 2.0], dtype=F64))
    assert v.tolist() == [1.0, 2.0]
    m = ag.zeros(2, 2, dtype=F64)
    m.addr_(ag.tensor([1.0, 2.0], dtype=F64), ag.tensor([1.0, 1.0], dtype=F64))
    assert m.tolist() == [[1.0, 1.0], [2.0, 2.0]]
    b = ag.zeros(1, 2, 2, dtype=F64)
    b.baddbmm_(a.reshape(1, 2, 2), a.reshape(1, 2, 2))
    assert b.tolist() == [[[1.0, 0.0], [0.0, 1.0]]]
    s = ag.zeros(2, 2, dtype=F64)
    s.addbmm_(ag.stack([a, a]), ag.stack([a, a]))
    assert s.tolist() == [[2.0, 0.0], [0.0, 2.0]]


@pytest.mark.parametrize("call,error", [
    (lambda x: ag.diagonal(x[0]), RuntimeError),
    (lambda x: ag.diagonal(x, 0, 1, 1), RuntimeError),
    (lambda x: ag.diagonal(x, 0, 0, 2), IndexError),
    (lambda x: ag.diag_embed(x, 0, 0, 0), RuntimeError),
    (lambda x: ag.diag(x.reshape(1, 3, 4)), RuntimeError),
    (lambda x: ag.trace(x[0]), RuntimeError),
    (lambda x: ag.block_diag(x.reshape(1, 3, 4)), RuntimeError),
    (lambda x: ag.cartesian_prod(x, x[0]), RuntimeError),
    (lambda x: ag.combinations(x), RuntimeError),
    (lambda x: ag.inner(x, x.t()), RuntimeError),
    (lambda x: ag.tensordot(x, x, -1), RuntimeError),
    (lambda x: ag.tensordot(x, x, ([0], [0, 1])), RuntimeError),
    (lambda x: ag.tensordot(x, x.t()), RuntimeError),
    (lambda x: ag.vdot(x, x[0]), RuntimeError),
    (lambda x: ag.addmm(x, x, x.t()), RuntimeError),
    (lambda x: ag.addmm(x, x.t(), x.double()), RuntimeError),
    (lambda x: ag.addr(x, x, x[0]), RuntimeError),
    (lambda x: ag.addbmm(x, x, x), RuntimeError),
    (lambda x: ag.meshgrid(x, indexing="yx"), RuntimeError),
    (lambda x: ag.meshgrid(x), RuntimeError),
    (lambda x: ag.meshgrid(x[0], x[0].double()), RuntimeError),
    (lambda x: ag.broadcast_tensors(x, x[:2]), RuntimeError),
    (lambda x: ag.broadcast_shapes((2,), (3,)), RuntimeError),
])
def test_errors_are_pytorchs_classes(call, error):
    x = ag.zeros(3, 4)
    with pytest.raises(error):
        call(x)
    assert x.tolist() == [[0.0] * 4] * 3


def test_function_method_and_inplace_surface():
    for name in ("diagonal", "diag_embed", "diag", "diagflat", "trace", "kron", "inner", "vdot",
                 "addmm", "addmv", "addbmm", "baddbmm", "addr"):
        assert callable(getattr(ag, name)) and callable(getattr(ag.Tensor, name))
    for name in ("block_diag", "cartesian_prod", "combinations", "tensordot", "meshgrid",
                 "broadcast_tensors", "broadcast_shapes"):
        assert callable(getattr(ag, name))
    for name in ("addmm_", "addmv_", "addbmm_", "baddbmm_", "addr_"):
        assert callable(getattr(ag.Tensor, name))
