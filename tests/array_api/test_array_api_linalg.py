"""The namespace's ``linalg`` extension: PyTorch's values where both define them, the
standard's named results, ``vecdot`` of integers and complex numbers (``x1`` conjugated),
``solve`` of a 1-D right-hand side, ``trace`` with the standard's accumulation dtype, and
per-matrix tolerance arrays of ``pinv``/``matrix_rank`` (one value per matrix of a batch:
arraygrad broadcast them against the wrong axis before, a ValueError where PyTorch works)."""

from __future__ import annotations

import numpy as np
import pytest

import arraygrad as ag
from arraygrad import array_api as xp

RNG = np.random.default_rng(0)


def test_batched_tolerance_arrays_match_pytorch() -> None:
    torch = pytest.importorskip("torch")
    A = RNG.standard_normal((3, 2, 2))
    rtol = np.array([0.1, 0.9, 0.2])
    np.testing.assert_allclose(
        ag.linalg.pinv(ag.tensor(A), rtol=ag.tensor(rtol)).numpy(),
        torch.linalg.pinv(torch.tensor(A), rtol=torch.tensor(rtol)).numpy(), rtol=1e-10)
    assert ag.linalg.matrix_rank(ag.tensor(A), atol=ag.tensor(rtol * 3)).tolist() == \
        torch.linalg.matrix_rank(torch.tensor(A), atol=torch.tensor(rtol * 3)).tolist()
    assert xp.linalg.matrix_rank(ag.tensor(A), rtol=ag.tensor(rtol)).tolist() == \
        torch.linalg.matrix_rank(torch.tensor(A), rtol=torch.tensor(rtol)).tolist()


def test_vecdot_of_integers_and_complex_numbers() -> None:
    a = np.arange(6).reshape(2, 3)
    b = np.arange(3)
    assert xp.vecdot(ag.tensor(a), ag.tensor(b)).tolist() == (a @ b).tolist()
    c = RNG.standard_normal((2, 3)) + 1j * RNG.standard_normal((2, 3))
    d = RNG.standard_normal(3) + 1j * RNG.standard_normal(3)
    np.testing.assert_allclose(xp.linalg.vecdot(ag.tensor(c), ag.tensor(d)).numpy(),
                               np.sum(np.conj(c) * d, axis=-1))
    with pytest.raises(ValueError):
        xp.vecdot(ag.ones(3), ag.ones(4))


def test_decompositions_are_named_tuples() -> None:
    a = RNG.standard_normal((4, 4))
    spd = ag.tensor(a @ a.T + 4 * np.eye(4))
    assert xp.linalg.eigh(spd).eigenvalues.shape == (4,)
    q, r = xp.linalg.qr(ag.tensor(a))
    np.testing.assert_allclose((q @ r).numpy(), a, atol=1e-12)
    assert xp.linalg.svd(ag.tensor(a), full_matrices=False).Vh.shape == (4, 4)
    sign, logabsdet = xp.linalg.slogdet(spd)
    np.testing.assert_allclose(sign.item() * np.exp(logabsdet.item()),
                               np.linalg.det(a @ a.T + 4 * np.eye(4)))


def test_solve_trace_and_norms() -> None:
    a = RNG.standard_normal((2, 3, 3)) + 3 * np.eye(3)
    b = RNG.standard_normal(3)
    np.testing.assert_allclose(xp.linalg.solve(ag.tensor(a), ag.tensor(b)).numpy(),
                               np.linalg.solve(a, b[None, :, None])[..., 0])
    ints = np.arange(9, dtype=np.int32).reshape(3, 3)
    tr = xp.linalg.trace(ag.tensor(ints), offset=1)
    assert tr.dtype == ag.int64 and tr.item() == np.trace(ints, offset=1)
    np.testing.assert_allclose(xp.linalg.vector_norm(ag.tensor(a), axis=(1, 2), ord=1).numpy(),
                               np.abs(a).sum(axis=(1, 2)))
    np.testing.assert_allclose(xp.linalg.matrix_norm(ag.tensor(a), ord="nuc").numpy(),
                               np.linalg.norm(a, ord="nuc", axis=(-2, -1)))


def test_cross_of_integers_and_tensordot_of_empty_operands_match_pytorch() -> None:
    # arraygrad refused integer vectors in linalg.cross and could not reshape zero-size
    # operands in tensordot; PyTorch does both
    torch = pytest.importorskip("torch")
    a, b = np.array([[1, 2, 3], [4, 5, 6]]), np.array([7, 8, 10])
    assert ag.linalg.cross(ag.tensor(a), ag.tensor(b).expand(2, 3)).tolist() == \
        torch.linalg.cross(torch.tensor(a), torch.tensor(b).expand(2, 3)).tolist()
    assert xp.linalg.cross(ag.tensor(a, dtype=ag.uint8), ag.tensor(b, dtype=ag.uint8)).dtype \
        == ag.uint8
    for sa, sb, dims in [((2, 0), (0, 3), 1), ((0, 2), (2, 3), 1), ((2, 3), (0,), 0)]:
        out = ag.tensordot(ag.ones(sa), ag.ones(sb), dims=dims)
        expected = torch.tensordot(torch.ones(sa), torch.ones(sb), dims=dims)
        assert tuple(out.shape) == tuple(expected.shape)
        assert out.tolist() == expected.tolist()
