"""Complex linear algebra: ``inv``, ``det``, ``slogdet``, ``solve``, the norms, ``eig`` and
``eigvals`` (of real and complex matrices), ``mH``/``adjoint``: values and gradients against
PyTorch, finite differences of both parts, and the refusal of the real-only ops."""

from __future__ import annotations

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.autograd import gradcheck, gradgradcheck
from tests.complex.torch_pairs import as_numpy, complex_values, needs_torch, torch

CALLS = {
    "inv": lambda m, a: m.linalg.inv(a),
    "det": lambda m, a: m.linalg.det(a),
    "slogdet": lambda m, a: tuple(m.linalg.slogdet(a)),
    "solve": lambda m, a: m.linalg.solve(a, a @ a.mT + 1),
    "solve-vector": lambda m, a: m.linalg.solve(a, a[..., 0]),
    "vector_norm": lambda m, a: m.linalg.vector_norm(a, 3, dim=-1),
    "norm": lambda m, a: m.linalg.norm(a),
    "matrix_norm-1": lambda m, a: m.linalg.matrix_norm(a, 1),
    "matrix_norm-inf": lambda m, a: m.linalg.matrix_norm(a, float("inf")),
    "eigvals": lambda m, a: m.linalg.eigvals(a),
    "eig-phase-free": lambda m, a: (m.linalg.eig(a).eigenvalues,
                                    m.linalg.eig(a).eigenvectors.abs()),
    "mH": lambda m, a: a.mH @ a.adjoint().conj(),
}


def _matrix(seed: int, batch=()):
    return complex_values(batch + (3, 3), seed) + 2 * np.eye(3)  # well conditioned


@pytest.mark.parametrize("name", sorted(CALLS))
def test_gradients_by_finite_differences(name):
    A = ag.tensor(_matrix(1, (2,)), requires_grad=True)
    assert gradcheck(lambda a: CALLS[name](ag, a), (A,))
    assert gradgradcheck(lambda a: CALLS[name](ag, a), (A,))


def _loss(lib, out):
    outs = out if isinstance(out, tuple) else (out,)
    total = 0
    for o in outs:
        o = o.resolve_conj() if hasattr(o, "resolve_conj") else o
        total = total + (lib.view_as_real(o).sum() if o.dtype.is_complex else o.sum())
    return total


@needs_torch
@pytest.mark.parametrize("name", sorted(CALLS))
def test_values_and_gradients_equal_pytorchs(name):
    data = _matrix(2, (2,))
    ours = ag.tensor(data, requires_grad=True)
    theirs = torch.tensor(data, requires_grad=True)
    o, t = CALLS[name](ag, ours), CALLS[name](torch, theirs)
    for a, b in zip(o if isinstance(o, tuple) else (o,), t if isinstance(t, tuple) else (t,)):
        np.testing.assert_allclose(as_numpy(a), as_numpy(b), rtol=1e-9, atol=1e-12)
    (g_ours,) = ag.autograd.grad(_loss(ag, o), ours)
    (g_theirs,) = torch.autograd.grad(_loss(torch, t), theirs)
    np.testing.assert_allclose(as_numpy(g_ours), as_numpy(g_theirs), rtol=1e-8, atol=1e-10)


@needs_torch
def test_eig_of_a_real_matrix_is_complex_and_equals_pytorchs():
    data = np.random.default_rng(3).standard_normal((4, 4))
    L, V = ag.linalg.eig(ag.tensor(data, dtype=ag.float32))
    Lt, Vt = torch.linalg.eig(torch.tensor(data, dtype=torch.float32))
    assert L.dtype is ag.complex64 and V.dtype is ag.complex64
    np.testing.assert_allclose(as_numpy(L), as_numpy(Lt), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(np.abs(as_numpy(V)), np.abs(as_numpy(Vt)), rtol=1e-4, atol=1e-5)
    A = ag.tensor(data, requires_grad=True)
    assert gradcheck(lambda a: ag.linalg.eigvals(a), (A,))
    assert A.grad is None and ag.linalg.eigvals(A).grad_fn.name() == "LinalgEigBackward0"


def test_a_phase_dependent_loss_of_eigenvectors_is_refused_as_pytorch():
    A = ag.tensor(_matrix(4), requires_grad=True)
    V = ag.linalg.eig(A).eigenvectors
    with pytest.raises(RuntimeError, match="specified up to multiplication by e\\^{i phi}"):
        ag.view_as_real(V).sum().backward()


def test_real_only_linalg_refuses_complex_tensors():
    A = ag.tensor(_matrix(5))
    with pytest.raises(NotImplementedError, match="linalg.eigh: complex tensors are not supported"):
        ag.linalg.eigh(A)
    with pytest.raises(RuntimeError, match="'strict' backend has no general eigendecomposition"):
        ag.linalg.eig(A.to("strict"))
