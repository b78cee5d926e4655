"""The NumPy backend's ``sparse @ dense`` kernel: a small sparse matrix multiplies in its dense
form (BLAS, no SciPy import), a large one through SciPy; both agree with a float64 reference,
repeated entries included, and with each other."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag

sparse_kernels = pytest.importorskip("arraygrad_numpy.sparse_kernels")


def _entries(rng, rows, cols, nnz, dtype):
    """Random entries, some repeated (they add up), in random order."""
    r = rng.integers(0, rows, nnz)
    c = rng.integers(0, cols, nnz)
    k = nnz // 4
    if k:  # the first quarter repeats the last one: those entries add up
        r[:k], c[:k] = r[-k:], c[-k:]
    if np.dtype(dtype).kind == "f":
        values = rng.standard_normal(nnz).astype(dtype)
    else:
        values = rng.integers(-50, 50, nnz).astype(dtype)
    return np.stack([r, c]), values


def _reference(indices, values, dense, rows):
    a = np.zeros((rows, dense.shape[0]), dtype=np.float64)
    np.add.at(a, (indices[0], indices[1]), values.astype(np.float64))
    return a @ dense.astype(np.float64)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 40), st.integers(1, 40), st.integers(0, 9), st.integers(0, 120),
       st.sampled_from(["float32", "float64", "int32", "int64"]), st.integers(0, 2**31))
def test_the_dense_route_sums_every_entry(rows, cols, width, nnz, dtype, seed):
    rng = np.random.default_rng(seed)
    indices, values = _entries(rng, rows, cols, nnz, dtype)
    dense = (rng.standard_normal((cols, width)) * 4).astype(dtype)
    out = sparse_kernels.sparse_mm(indices, values, dense, rows)
    assert out.shape == (rows, width) and out.dtype == np.dtype(dtype)
    want = _reference(indices, values, dense, rows)
    if np.dtype(dtype).kind == "i":
        assert np.array_equal(out, want.astype(dtype))  # integers: exact
    else:
        tol = 1e-5 if dtype == "float32" else 1e-12
        np.testing.assert_allclose(out, want, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_the_scipy_route_and_the_dense_route_agree(dtype, monkeypatch):
    pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(1)
    rows, cols = 300, 260  # past DENSE_CELLS: SciPy's product
    assert rows * cols > sparse_kernels.DENSE_CELLS
    indices, values = _entries(rng, rows, cols, 900, dtype)
    dense = rng.integers(-3, 4, (cols, 5)).astype(dtype)
    through_scipy = sparse_kernels.sparse_mm(indices, values, dense, rows)
    monkeypatch.setattr(sparse_kernels, "DENSE_CELLS", rows * cols)
    monkeypatch.setattr(sparse_kernels, "DENSE_WORK", rows * cols * 5)
    through_dense = sparse_kernels.sparse_mm(indices, values, dense, rows)
    tol = 1e-4 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(through_dense, through_scipy, rtol=tol, atol=tol)
    np.testing.assert_allclose(through_scipy, _reference(indices, values, dense, rows),
                               rtol=tol, atol=tol)


def test_a_wide_dense_operand_takes_scipy_even_for_a_small_matrix(monkeypatch):
    """The dense form's work grows with the dense operand's columns, the sparse one's with
    the entries: past DENSE_WORK multiply-adds the small matrix goes to SciPy too."""
    pytest.importorskip("scipy.sparse")
    import scipy.sparse as sp

    made = []
    real = sp.coo_matrix
    monkeypatch.setattr(sp, "coo_matrix", lambda *a, **k: made.append(1) or real(*a, **k))
    indices, values = np.array([[0, 1], [1, 0]]), np.array([1.0, 2.0])
    sparse_kernels.sparse_mm(indices, values, np.ones((100, 3)), 100)
    assert made == []
    out = sparse_kernels.sparse_mm(indices, values, np.ones((100, 200)), 100)  # 2,000,000
    assert made == [1] and out[:2, :1].tolist() == [[1.0], [2.0]]


def test_no_entries_and_a_transposed_dense_operand():
    indices, values = np.zeros((2, 0), dtype=np.int64), np.zeros(0, np.float32)
    out = sparse_kernels.sparse_mm(indices, values, np.ones((4, 3), np.float32), 5)
    assert out.shape == (5, 3) and not out.any()
    s = ag.sparse_coo_tensor([[0, 1, 1], [2, 0, 0]], [1.0, 2.0, 3.0], (2, 3))
    d = ag.arange(6.0).reshape(3, 2)
    assert ag.mm(d.T, s.t()).tolist() == (d.T @ s.to_dense().T).tolist()  # dense @ sparse


def test_a_small_graph_convolution_does_not_import_scipy_sparse():
    code = textwrap.dedent("""
        import sys
        import arraygrad as ag
        adj = ag.sparse_coo_tensor([[0, 1, 2, 2], [1, 2, 0, 2]], [0.5, 0.5, 0.3, 0.7], (3, 3))
        x = ag.randn(3, 4, requires_grad=True)
        ag.sparse.mm(adj, x).sum().backward()
        print("scipy.sparse" in sys.modules, x.grad.shape == x.shape)
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=dict(os.environ), timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["False", "True"]
