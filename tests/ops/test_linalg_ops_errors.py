"""``arraygrad.linalg``: PyTorch's errors, batching over random shapes, methods, degenerate
points and the backend's linalg extension."""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag
from arraygrad.ops.families import linalg_ops
from torch_compare import needs_torch, torch

LA = ag.linalg


def _close(a: Any, b: Any) -> bool:
    return a.shape == b.shape and float((a - b).abs().max()) < 1e-8


def _t(*shape: int, seed: int = 0) -> Any:
    g = ag.Generator().manual_seed(seed)
    return ag.rand(*shape, generator=g, dtype=ag.float64) * 2 - 1


@pytest.mark.parametrize("fn", [LA.inv, LA.det, LA.slogdet, LA.cholesky, LA.eigh, LA.eigvalsh,
                                lambda a: LA.matrix_power(a, 2), LA.matrix_exp, ag.inverse])
def test_non_square_is_a_runtime_error_naming_the_op_and_shape(fn: Any) -> None:
    with pytest.raises(RuntimeError, match=r"linalg\.\w+: A must be batches of square "
                                           r"matrices, but they are 2 by 3 matrices"):
        fn(_t(2, 3))


@pytest.mark.parametrize("fn", [LA.inv, LA.det, LA.svd, LA.qr, LA.pinv, LA.svdvals])
def test_one_dimensional_input_is_a_runtime_error(fn: Any) -> None:
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        fn(_t(3))


def test_integer_input_is_a_runtime_error_naming_the_dtype() -> None:
    with pytest.raises(RuntimeError, match=r"linalg\.inv: Expected a floating point .*int64"):
        LA.inv(ag.ones(3, 3, dtype=ag.int64))


def test_singular_and_not_positive_definite_raise_linalg_error() -> None:
    assert issubclass(LA.LinAlgError, RuntimeError)
    with pytest.raises(LA.LinAlgError, match=r"linalg\.inv"):
        LA.inv(ag.zeros(3, 3, dtype=ag.float64))
    with pytest.raises(LA.LinAlgError, match=r"linalg\.cholesky"):
        LA.cholesky(-ag.eye(3, dtype=ag.float64))
    with pytest.raises(LA.LinAlgError, match=r"linalg\.solve"):
        LA.solve(ag.zeros(3, 3, dtype=ag.float64), ag.ones(3, dtype=ag.float64))


def test_bad_shapes_and_arguments() -> None:
    with pytest.raises(RuntimeError, match=r"linalg\.solve: Incompatible shapes of A and B "
                                           r"for the equation AX = B \(3x3 and 4x2\)"):
        LA.solve(ag.eye(3, dtype=ag.float64), _t(4, 2))
    with pytest.raises(RuntimeError, match="must have length 3. Got 3 and 4"):
        LA.cross(_t(2, 3), _t(2, 4))
    with pytest.raises(RuntimeError, match="same number of dimensions|does not match"):
        LA.cross(_t(2, 3), _t(3))
    with pytest.raises(RuntimeError, match="unrecognized mode"):
        LA.qr(_t(3, 3), mode="bogus")
    with pytest.raises(RuntimeError, match="UPLO"):
        LA.eigh(_t(3, 3), UPLO="X")
    with pytest.raises(RuntimeError, match="at least 2 tensors"):
        LA.multi_dot([_t(3, 3)])
    with pytest.raises(RuntimeError, match="Order 3 not supported"):
        LA.matrix_norm(_t(3, 3), 3)
    with pytest.raises(RuntimeError, match="Expected A and B to have the same dtype"):
        LA.solve(ag.eye(3, dtype=ag.float64), ag.ones(3, dtype=ag.float32))


def test_an_error_changes_nothing() -> None:
    a = _t(2, 3).requires_grad_(True)
    before = a.detach().clone()
    with pytest.raises(RuntimeError):
        LA.inv(a)
    assert a.grad is None and a.grad_fn is None and bool((a.detach() == before).all())


def test_a_backend_without_the_linalg_extension_is_named() -> None:
    backend: Any = SimpleNamespace(xp=SimpleNamespace(), name="bare")
    with pytest.raises(RuntimeError, match=r"linalg\.inv: the 'bare' backend's array "
                                           r"namespace has no Array API linalg extension"):
        linalg_ops._call("linalg.inv", backend, "inv", None)


def test_top_level_functions_and_methods() -> None:
    a = _t(3, 3) + 3 * ag.eye(3, dtype=ag.float64)
    spd = a @ a.mT
    assert _close(a.inverse(), LA.inv(a)) and _close(ag.inverse(a), LA.inv(a))
    assert _close(a.det(), LA.det(a))
    assert _close(spd.logdet(), LA.slogdet(spd).logabsdet)
    assert _close(spd.cholesky(), LA.cholesky(spd))
    assert _close(a.matrix_power(2), a @ a)
    assert _close(a.pinverse(), LA.inv(a))
    u, s, v = a.svd()
    assert _close(u @ (s.unsqueeze(-1) * v.mT), a)  # V, not Vh
    u, s, v = ag.svd(_t(4, 3), some=False)
    assert tuple(u.shape) == (4, 4) and tuple(v.shape) == (3, 3)
    u, s, v = ag.svd(_t(4, 3), compute_uv=False)
    assert bool((u == 0).all()) and bool((v == 0).all())
    sign, logabs = ag.slogdet(-ag.eye(3, dtype=ag.float64))
    assert float(sign) == -1.0 and float(logabs) == 0.0
    assert math.isnan(float(ag.logdet(-ag.eye(3, dtype=ag.float64))))


def test_results_are_named_tuples() -> None:
    a = _t(4, 3)
    assert LA.qr(a).R is LA.qr(a)[1] or LA.qr(a).R.shape == (3, 3)
    assert tuple(LA.svd(a, full_matrices=False).Vh.shape) == (3, 3)
    assert tuple(LA.eigh(a[:3] + a[:3].mT).eigenvectors.shape) == (3, 3)
    assert tuple(LA.slogdet(a[:3]).sign.shape) == ()
    res = LA.lstsq(a, _t(4, 2))
    assert tuple(res.solution.shape) == (3, 2) and int(res.rank) == 3


def test_matrix_rank() -> None:
    a = _t(4, 2) @ _t(2, 5, seed=1)
    assert int(LA.matrix_rank(a)) == 2
    assert LA.matrix_rank(ag.zeros(2, 3, 3, dtype=ag.float64)).tolist() == [0, 0]
    assert int(LA.matrix_rank(ag.eye(3, dtype=ag.float64), atol=2.0)) == 0


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
def test_degenerate_points_follow_pytorch() -> None:
    # repeated eigenvalues: eigenvector gradients are nan/inf; eigenvalue gradients are fine
    a = ag.eye(3, dtype=ag.float64).requires_grad_(True)
    LA.eigh(a)[1].sum().backward()
    assert not all(math.isfinite(v) for v in a.grad.reshape(-1).tolist())
    b = ag.eye(3, dtype=ag.float64).requires_grad_(True)
    LA.eigvalsh(b).sum().backward()
    assert _close(b.grad, ag.eye(3, dtype=ag.float64))
    # a norm at zero has a zero gradient, also in double backward
    z = ag.zeros(2, 2, dtype=ag.float64).requires_grad_(True)
    (g,) = ag.autograd.grad(LA.vector_norm(z), z, create_graph=True)
    assert bool((g == 0).all())
    assert ag.autograd.gradcheck(lambda x: LA.vector_norm(x, 3, dim=1), (
        ag.tensor([[0.0, 0.5], [0.3, -0.2]], dtype=ag.float64, requires_grad=True),))


@needs_torch
@settings(max_examples=25, deadline=None)
@given(batch=st.lists(st.integers(1, 3), max_size=2), n=st.integers(1, 4),
       k=st.integers(1, 4), seed=st.integers(0, 1000),
       op=st.sampled_from(["inv", "det", "slogdet", "solve", "cholesky", "svdvals", "pinv",
                           "qr", "eigvalsh", "matrix_norm", "vector_norm", "matrix_power"]))
def test_batched_shapes_match_torch(batch: list[int], n: int, k: int, seed: int,
                                    op: str) -> None:
    shape = (*batch, n, n if op not in ("svdvals", "pinv", "qr", "matrix_norm") else k)
    x = _t(*shape, seed=seed)
    tx = torch.tensor(x.tolist(), dtype=torch.float64).reshape(shape)
    eye, teye = ag.eye(n, dtype=ag.float64), torch.eye(n, dtype=torch.float64)

    def run(lib: Any, la: Any, a: Any, e: Any) -> Any:
        if op in ("inv", "det", "slogdet"):
            out = getattr(la, op)(a + 3 * e)
            return out[1] if op == "slogdet" else out
        if op == "solve":
            return la.solve(a + 3 * e, a)
        if op == "cholesky":
            return la.cholesky(a @ a.mT + e)
        if op == "eigvalsh":
            return la.eigvalsh(a + a.mT)
        if op == "qr":
            q, r = la.qr(a)
            return q @ r
        if op == "matrix_norm":
            return la.matrix_norm(a, "nuc")
        if op == "vector_norm":
            return la.vector_norm(a, 2.5, dim=-1)
        if op == "matrix_power":
            return la.matrix_power(a, 3)
        return getattr(la, op)(a)

    xa = x.clone().requires_grad_(True)
    txa = tx.clone().requires_grad_(True)
    out, tout = run(ag, LA, xa, eye), run(torch, torch.linalg, txa, teye)
    assert tuple(out.shape) == tuple(tout.shape)
    assert torch.allclose(torch.tensor(out.tolist(), dtype=torch.float64).reshape(tout.shape),
                          tout.detach(), rtol=1e-6, atol=1e-8)
    (g,) = ag.autograd.grad((out * out).sum(), xa)
    (tg,) = torch.autograd.grad((tout * tout).sum(), txa)
    assert torch.allclose(torch.tensor(g.tolist(), dtype=torch.float64).reshape(shape), tg,
                          rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("m", [[[1.0, 2.0], [2.0, 4.0]], [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]]])
def test_det_gradient_at_a_singular_matrix_is_the_adjugate(m: list[list[float]]) -> None:
    # PyTorch 2.13 gives zeros here; the cofactor matrix is what finite differences see
    a = ag.tensor(m, dtype=ag.float64, requires_grad=True)
    assert ag.autograd.gradcheck(LA.det, (a,))
    assert ag.autograd.gradgradcheck(LA.det, (a,))
    LA.det(a).backward()
    if len(m) == 2:
        assert _close(a.grad, ag.tensor([[4.0, -2.0], [-2.0, 1.0]], dtype=ag.float64))


def test_qr_gradients_that_pytorch_refuses() -> None:
    a = _t(4, 3).requires_grad_(True)
    q, r = LA.qr(a, mode="r")
    assert tuple(q.shape) == (0,) and tuple(r.shape) == (3, 3)
    with pytest.raises(RuntimeError, match="not computed when mode='r'"):
        r.sum().backward()
    q, r = LA.qr(a, mode="complete")
    assert tuple(q.shape) == (4, 4)
    with pytest.raises(RuntimeError, match="mode='complete' and nrows > ncols"):
        (q.sum() + r.sum()).backward()
