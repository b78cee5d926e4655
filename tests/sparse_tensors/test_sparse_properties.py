"""Properties over random shapes, densities and repeated indices (hypothesis): a COO tensor's
dense copy adds up its entries; coalescing keeps that tensor and leaves sorted unique indices;
``to_sparse`` round-trips; products, sums and softmax equal their dense counterparts; the
gradient of the values is the output gradient gathered at their positions; and against
PyTorch, the stored entries of coalesce and the values of mm and sum."""

from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag
from sparse_pairs import needs_torch, torch

pytestmark = pytest.mark.filterwarnings("ignore:Sparse invariant checks")


@st.composite
def coo_arrays(draw, max_sparse=3, max_dense=2):
    """``(indices, values, shape)``: random sizes, entries (repeats likely) and values."""
    sparse_dim = draw(st.integers(1, max_sparse))
    dense_dim = draw(st.integers(0, max_dense))
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=sparse_dim + dense_dim,
                                max_size=sparse_dim + dense_dim)))
    nnz = draw(st.integers(0, 12))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    indices = np.stack([rng.integers(0, n, nnz) for n in shape[:sparse_dim]]).astype(np.int64)
    values = rng.standard_normal((nnz, *shape[sparse_dim:]))
    return indices, values, shape


def dense_reference(indices, values, shape):
    out = np.zeros(shape)
    for k in range(indices.shape[1]):
        out[tuple(indices[:, k])] += values[k]
    return out


def make(indices, values, shape):
    return ag.sparse_coo_tensor(ag.tensor(indices.tolist(), dtype=ag.int64).reshape(
        indices.shape), ag.tensor(values.tolist(), dtype=ag.float64).reshape(values.shape), shape)


def host(t):
    t = t.to_dense() if t.is_sparse else t
    return np.asarray(t.detach().tolist(), dtype=float).reshape(tuple(t.shape))


@settings(max_examples=60, deadline=None)
@given(coo_arrays())
def test_dense_copy_adds_up_the_entries_and_coalesce_keeps_it(arrays):
    indices, values, shape = arrays
    s = make(indices, values, shape)
    want = dense_reference(indices, values, shape)
    np.testing.assert_allclose(host(s), want, atol=1e-12)
    c = s.coalesce()
    np.testing.assert_allclose(host(c), want, atol=1e-12)
    keys = np.ravel_multi_index(np.asarray(c._indices().tolist(), dtype=np.int64).reshape(
        c._indices().shape), shape[:indices.shape[0]]) if c._nnz() else np.array([])
    assert c.is_coalesced() and list(keys) == sorted(set(keys.tolist()))


@settings(max_examples=60, deadline=None)
@given(coo_arrays())
def test_to_sparse_round_trips_a_dense_tensor(arrays):
    indices, values, shape = arrays
    dense = ag.tensor(dense_reference(indices, values, shape).tolist(),
                      dtype=ag.float64).reshape(shape)
    for sparse_dim in range(1, len(shape) + 1):
        s = dense.to_sparse(sparse_dim)
        assert s.sparse_dim() == sparse_dim and s.is_coalesced()
        np.testing.assert_allclose(host(s), host(dense))


@settings(max_examples=50, deadline=None)
@given(coo_arrays(max_sparse=2, max_dense=0), st.integers(1, 3), st.booleans())
def test_products_sums_and_softmax_equal_their_dense_counterparts(arrays, p, transpose):
    indices, values, shape = arrays
    if len(shape) != 2:
        return
    s = make(indices, values, shape)
    if transpose:
        s = s.t()
    dense = host(s)
    d = np.arange(1.0, 1.0 + s.shape[1] * p).reshape(s.shape[1], p) / 3
    dt = ag.tensor(d.tolist(), dtype=ag.float64)
    np.testing.assert_allclose(host(ag.sparse.mm(s, dt)), dense @ d, atol=1e-12)
    np.testing.assert_allclose(host(dt.t() @ s.t()), d.T @ dense.T, atol=1e-12)
    np.testing.assert_allclose(host(ag.sparse.sum(s, 1)), dense.sum(1), atol=1e-12)
    np.testing.assert_allclose(float(ag.sparse.sum(s)), dense.sum(), atol=1e-12)
    soft = host(ag.sparse.softmax(s, 1))
    present = np.zeros(dense.shape, bool)
    c = s.coalesce()
    for r, k in zip(*c._indices().tolist()):
        present[r, k] = True
    for r in range(dense.shape[0]):
        row = present[r]
        if row.any():
            e = np.exp(dense[r, row] - dense[r, row].max())
            np.testing.assert_allclose(soft[r, row], e / e.sum(), atol=1e-12)
        assert (soft[r, ~row] == 0).all()


@settings(max_examples=40, deadline=None)
@given(coo_arrays(max_dense=1))
def test_value_gradients_gather_the_output_gradient(arrays):
    indices, values, shape = arrays
    v = ag.tensor(values.tolist(), dtype=ag.float64).reshape(values.shape).requires_grad_()
    s = ag.sparse_coo_tensor(ag.tensor(indices.tolist(), dtype=ag.int64).reshape(
        indices.shape), v, shape)
    g = np.random.default_rng(0).standard_normal(shape)
    s.to_dense().backward(ag.tensor(g.tolist(), dtype=ag.float64).reshape(shape))
    want = np.stack([g[tuple(indices[:, k])] for k in range(indices.shape[1])]) \
        if indices.shape[1] else np.zeros(values.shape)
    np.testing.assert_allclose(host(v.grad), want.reshape(values.shape), atol=1e-12)


@needs_torch
@settings(max_examples=40, deadline=None)
@given(coo_arrays(max_dense=1))
def test_coalesce_stores_what_pytorch_stores(arrays):
    indices, values, shape = arrays
    ours = make(indices, values, shape).coalesce()
    theirs = torch.sparse_coo_tensor(torch.tensor(indices), torch.tensor(values),
                                     shape).coalesce()
    assert ours._indices().tolist() == theirs._indices().tolist()
    np.testing.assert_allclose(host(ours._values()), theirs._values().numpy(), atol=1e-12)
    assert ours.is_coalesced() == theirs.is_coalesced()


@needs_torch
@settings(max_examples=40, deadline=None)
@given(coo_arrays(max_sparse=2, max_dense=0))
def test_mm_and_its_gradients_match_pytorch(arrays):
    indices, values, shape = arrays
    if len(shape) != 2:
        return
    d = np.linspace(-1, 1, shape[1] * 2).reshape(shape[1], 2)
    ours_s = make(indices, values, shape).requires_grad_()
    ours_d = ag.tensor(d.tolist(), dtype=ag.float64, requires_grad=True)
    their_s = torch.sparse_coo_tensor(torch.tensor(indices), torch.tensor(values), shape,
                                      requires_grad=True)
    their_d = torch.tensor(d, requires_grad=True)
    ag.sparse.mm(ours_s, ours_d).sum().backward()
    torch.sparse.mm(their_s, their_d).sum().backward()
    np.testing.assert_allclose(host(ours_d.grad), their_d.grad.numpy(), atol=1e-12)
    assert ours_s.grad.is_sparse and their_s.grad.is_sparse
    np.testing.assert_allclose(host(ours_s.grad), their_s.grad.to_dense().numpy(), atol=1e-12)
    assert ours_s.grad._nnz() == their_s.grad._nnz()


def test_empty_tensors_work_throughout():
    s = ag.sparse_coo_tensor(ag.empty(2, 0, dtype=ag.int64), ag.empty(0, dtype=ag.float64),
                             (3, 4))
    d = ag.ones(4, 2, dtype=ag.float64)
    assert ag.sparse.mm(s, d).tolist() == [[0.0, 0.0]] * 3
    assert s.coalesce()._nnz() == 0 and float(ag.sparse.sum(s)) == 0.0
    assert ag.sparse.softmax(s, 1)._nnz() == 0
    assert (s + s)._nnz() == 0 and s.to_dense().abs().sum().item() == 0


@pytest.mark.parametrize("device", ["strict"])
def test_an_array_api_only_backend_runs_the_sparse_ops(device):
    pytest.importorskip("array_api_strict")
    v = ag.tensor([3.0, 4.0, 5.0, 1.0], dtype=ag.float64, device=device, requires_grad=True)
    s = ag.sparse_coo_tensor(ag.tensor([[0, 1, 1, 0], [2, 0, 2, 2]], device=device), v, (2, 3))
    d = ag.ones(3, 2, dtype=ag.float64, device=device, requires_grad=True)
    out = ag.sparse.mm(s, d) + ag.sparse.softmax(s, 1).to_dense().sum()
    out.sum().backward()
    assert s.coalesce().to_dense().tolist() == [[0.0, 0.0, 4.0], [4.0, 0.0, 5.0]]
    assert d.grad.tolist() == [[4.0, 4.0], [0.0, 0.0], [9.0, 9.0]]
    assert v.grad.device == ag.device(device) and v.grad.tolist() == [2.0, 2.0, 2.0, 2.0]


@settings(max_examples=30, deadline=None)
@given(coo_arrays(max_sparse=2, max_dense=0), st.sampled_from(["float32", "float64"]))
def test_the_numpy_kernel_and_the_portable_product_agree(arrays, dtype_name):
    pytest.importorskip("scipy")
    from arraygrad_numpy import backend as numpy_backend

    indices, values, shape = arrays
    if len(shape) != 2:
        return
    dtype = getattr(ag, dtype_name)
    s = make(indices, values, shape).to(dtype)
    d = ag.tensor(np.linspace(-1, 1, shape[1] * 3).reshape(shape[1], 3).tolist(), dtype=dtype)
    kernel = host(ag.mm(s, d))
    with mock.patch.dict(numpy_backend._KERNELS):
        del numpy_backend._KERNELS["sparse_mm"]
        portable = host(ag.mm(s, d))
    tol = 1e-5 if dtype_name == "float32" else 1e-12
    np.testing.assert_allclose(kernel, portable, rtol=tol, atol=tol)
    np.testing.assert_allclose(portable, dense_reference(indices, values, shape) @ host(d),
                               rtol=tol, atol=tol)
