"""The rest of ``torch.linalg`` and PyTorch's older linear-algebra names, as composites of the
ruled ops: ``cond``, ``vander``, ``tensorinv``, ``tensorsolve``, the ``_ex`` variants that report
``info`` instead of raising, ``diagonal``, ``chain_matmul``, the deprecated norms, the
conjugate transposes (``adjoint``, ``H``, ``mH``: transposes on real tensors), the randomised
low-rank factorisations (``svd_lowrank``, ``pca_lowrank``) and the functions PyTorch 2 removed
(``torch.eig``, ``symeig``, ``solve``, ``lstsq``, ``matrix_rank``), which raise its RuntimeError.
"""

from __future__ import annotations

import math
import warnings
from collections import namedtuple
from typing import Any, Sequence

from arraygrad.ops.conjugate import conj
from arraygrad.ops.families.linalg_lu import factor_data
from arraygrad.ops.families.linalg_ops import (
    LinAlgError, _call, _floating, _matrices, cholesky, inv, matrix_norm, multi_dot, solve,
    svd, svdvals,
)
from arraygrad.tensor import Tensor, wrap

__all__ = ["cond", "vander", "tensorinv", "tensorsolve", "inv_ex", "cholesky_ex", "solve_ex",
           "linalg_diagonal", "chain_matmul", "adjoint", "svd_lowrank", "pca_lowrank",
           "FUNCTIONS", "METHODS"]

InvExResult = namedtuple("InvExResult", ["inverse", "info"])
CholeskyExResult = namedtuple("CholeskyExResult", ["L", "info"])
SolveExResult = namedtuple("SolveExResult", ["result", "info"])


def cond(A: Tensor, p: Any = None) -> Tensor:
    """The condition number of ``A`` in norm ``p``: ``smax / smin`` for ``None``/2 (``-2``: the
    inverse), else ``norm(A, p) * norm(A^-1, p)`` (inf where ``A`` is singular)."""
    op = "linalg.cond"
    _floating(op, A)
    _matrices(op, A)
    if p in (None, 2, -2):
        s = svdvals(A)
        big, small = s[..., 0], s[..., -1]
        return big / small if p in (None, 2) else small / big
    if p not in ("fro", "nuc", math.inf, -math.inf, 1, -1):
        raise RuntimeError(f"{op}: Expected p to be one of 2, -2, inf, -inf, 1, -1, 'fro', "
                           f"'nuc' or None, got {p!r}")
    _matrices(op, A, square=True)
    inverse, info = inv_ex(A)
    import arraygrad as ag

    out = matrix_norm(A, p) * matrix_norm(inverse, p)
    return ag.where(info > 0, math.inf, out)


def vander(x: Tensor, *, N: int | None = None) -> Tensor:
    """The Vandermonde matrix of ``x`` with increasing powers ``x^0 ... x^(N-1)`` along the last
    dimension (``torch.linalg.vander``; ``N`` defaults to ``x.shape[-1]``)."""
    import arraygrad as ag

    if x.ndim < 1:
        raise RuntimeError("linalg.vander: x must have at least one dimension")
    n = x.shape[-1] if N is None else N
    if n < 0:
        raise RuntimeError(f"linalg.vander: N must be non-negative, got {n}")
    if n == 0:
        return x.unsqueeze(-1)[..., :0]
    powers = [ag.ones_like(x)]
    for _ in range(1, n):
        powers.append(powers[-1] * x)
    return ag.stack(powers, dim=-1)


def tensorinv(A: Tensor, ind: int = 2) -> Tensor:
    """The inverse of ``A`` seen as a map from its last ``ndim - ind`` to its first ``ind``
    dimensions: ``tensordot(tensorinv(A), A, ind)`` is the identity."""
    op = "linalg.tensorinv"
    if ind <= 0:
        raise RuntimeError(f"{op}: Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = A.shape[:ind], A.shape[ind:]
    m, n = math.prod(rows), math.prod(cols)
    if m != n:
        raise RuntimeError(f"{op}: Expected self to satisfy the requirement "
                           f"prod(self.shape[ind:]) == prod(self.shape[:ind]), but got {n} != {m}")
    return inv(A.reshape(m, n)).reshape(tuple(cols) + tuple(rows))


def tensorsolve(A: Tensor, B: Tensor, dims: Sequence[int] | None = None) -> Tensor:
    """``X`` with ``tensordot(A, X, X.ndim) = B``; ``dims`` of ``A`` are moved to the end
    first."""
    op = "linalg.tensorsolve"
    if dims is not None:
        A = A.movedim(tuple(dims), tuple(range(A.ndim - len(dims), A.ndim)))
    rest = A.shape[B.ndim:]
    m, n = math.prod(B.shape), math.prod(rest)
    if tuple(A.shape[:B.ndim]) != tuple(B.shape) or m != n:
        raise RuntimeError(f"{op}: Expected self to satisfy the requirement "
                           f"prod(self.shape[other.ndim:]) == prod(self.shape[:other.ndim]), "
                           f"but got {n} != {m}")
    return solve(A.reshape(m, n), B.reshape(m)).reshape(tuple(rest))


def _singular(A: Tensor) -> Tensor:
    """int32 ``info`` of each matrix: 0, or the 1-based index of ``getrf``'s first zero pivot."""
    backend = A._backend
    _, _, info, _ = factor_data(backend.xp, A.detach()._data)
    return wrap(info, backend)


def _safe(A: Tensor, info: Tensor) -> Tensor:
    """``A`` with each singular matrix (``info > 0``) replaced by the identity."""
    import arraygrad as ag

    eye = ag.eye(A.shape[-1], dtype=A.dtype, device=A.device)
    return ag.where((info > 0).unsqueeze(-1).unsqueeze(-1), eye, A)


def inv_ex(A: Tensor, *, check_errors: bool = False) -> Any:
    """``(inverse, info)``: ``linalg.inv`` that reports singular matrices in ``info`` (their
    inverse is nan) instead of raising, unless ``check_errors``."""
    import arraygrad as ag

    op = "linalg.inv_ex"
    _floating(op, A)
    _matrices(op, A, square=True)
    try:
        return InvExResult(inv(A), ag.zeros(A.shape[:-2], dtype=ag.int32, device=A.device))
    except LinAlgError:
        info = _singular(A)
    if check_errors:
        raise LinAlgError(f"{op}: The diagonal element {int(info.max())} is zero, the inversion "
                          "could not be completed because the input matrix is singular.")
    bad = (info > 0).unsqueeze(-1).unsqueeze(-1)
    return InvExResult(ag.where(bad, math.nan, inv(_safe(A, info))), info)


def solve_ex(A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False) -> Any:
    """``(result, info)``: ``linalg.solve`` that reports singular matrices in ``info`` (their
    result is nan) instead of raising, unless ``check_errors``."""
    import arraygrad as ag

    op = "linalg.solve_ex"
    _floating(op, A, B)
    _matrices(op, A, square=True)
    try:
        return SolveExResult(solve(A, B, left=left),
                             ag.zeros(A.shape[:-2], dtype=ag.int32, device=A.device))
    except LinAlgError:
        info = _singular(A)
    if check_errors:
        raise LinAlgError(f"{op}: The solver failed because the input matrix is singular.")
    X = solve(_safe(A, info), B, left=left)
    bad = info > 0
    while bad.ndim < X.ndim:
        bad = bad.unsqueeze(-1)
    return SolveExResult(ag.where(bad, math.nan, X), info)


def _cholesky_info(a: Any, backend: Any) -> int:
    """The order of ``a``'s first leading minor that is not positive-definite (0 if none)."""
    lo, hi = 1, a.shape[-1]  # the smallest failing order lies in [lo, hi]
    try:
        _call("linalg.cholesky_ex", backend, "cholesky", a)
        return 0
    except LinAlgError:
        pass
    while lo < hi:
        mid = (lo + hi) // 2
        try:
            _call("linalg.cholesky_ex", backend, "cholesky", a[:mid, :mid])
            lo = mid + 1
        except LinAlgError:
            hi = mid
    return lo


def cholesky_ex(A: Tensor, *, upper: bool = False, check_errors: bool = False) -> Any:
    """``(L, info)``: ``linalg.cholesky`` that reports, in ``info``, the order of the first
    leading minor that is not positive-definite instead of raising (unless ``check_errors``);
    ``L`` is nan for those matrices."""
    import arraygrad as ag

    op = "linalg.cholesky_ex"
    _floating(op, A)
    _matrices(op, A, square=True)
    try:
        return CholeskyExResult(cholesky(A, upper=upper),
                                ag.zeros(A.shape[:-2], dtype=ag.int32, device=A.device))
    except LinAlgError:
        pass
    backend = A._backend
    xp = backend.xp
    a = A.detach()
    sym = (a.tril() + a.tril(-1).mT)._data
    flat = xp.reshape(sym, (-1,) + tuple(sym.shape[-2:]))
    infos = [_cholesky_info(flat[i], backend) for i in range(flat.shape[0])]
    info = wrap(xp.reshape(xp.asarray(infos, dtype=xp.int32), tuple(A.shape[:-2])), backend)
    if check_errors:
        raise LinAlgError(f"{op}: The factorization could not be completed because the input "
                          f"is not positive-definite (the leading minor of order "
                          f"{max(infos)} is not positive-definite).")
    bad = (info > 0).unsqueeze(-1).unsqueeze(-1)
    L = cholesky(_safe(A, info), upper=upper)
    return CholeskyExResult(ag.where(bad, math.nan, L), info)


def linalg_diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """``torch.linalg.diagonal``: ``torch.diagonal`` over the last two dimensions by default."""
    return A.diagonal(offset, dim1, dim2)


def chain_matmul(*matrices: Tensor, out: Tensor | None = None) -> Tensor:
    """The product of 2-D matrices (deprecated in PyTorch for ``linalg.multi_dot``)."""
    warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch "
                  "release. Use torch.linalg.multi_dot instead, which accepts a list of two or "
                  "more tensors rather than multiple parameters.", UserWarning, stacklevel=2)
    if len(matrices) == 1 and isinstance(matrices[0], (list, tuple)):
        matrices = tuple(matrices[0])
    if len(matrices) == 1:
        result = matrices[0].clone()
    else:
        for i, m in enumerate(matrices):
            if m.ndim != 2:
                raise RuntimeError(f"chain_matmul(): Expected 2D tensors, but tensor {i} has "
                                   f"{m.ndim} dimensions")
        result = multi_dot(list(matrices))
    if out is not None:
        from arraygrad.ops.out_arg import write_out

        return write_out("chain_matmul", result, out)
    return result


def adjoint(input: Tensor) -> Tensor:
    """The conjugate transpose of the last two dimensions (of a real tensor, a transposed view;
    of a complex one, its conjugate: no lazy bit, docs/complex.md)."""
    if input.ndim < 2:
        raise RuntimeError(f"adjoint(): tensor.adjoint() is only supported on matrices or "
                           f"batches of matrices. Got {input.ndim}-D tensor.")
    return conj(input.transpose(-2, -1))


def nuclear_norm(input: Tensor, dim: Any = None, keepdim: bool = False, *,
                 out: Tensor | None = None) -> Tensor:
    """PyTorch's deprecated ``torch.nuclear_norm``: ``linalg.matrix_norm(input, "nuc")``."""
    if isinstance(dim, bool):  # nuclear_norm(input, keepdim)
        dim, keepdim = None, dim
    result = matrix_norm(input, "nuc", (-2, -1) if dim is None else tuple(dim), keepdim)
    if out is not None:
        from arraygrad.ops.out_arg import write_out

        return write_out("nuclear_norm", result, out)
    return result


def frobenius_norm(input: Tensor, dim: Any = (-2, -1), keepdim: bool = False, *,
                   out: Tensor | None = None) -> Tensor:
    """PyTorch's deprecated ``torch.frobenius_norm``: the 2-norm over ``dim``."""
    from arraygrad.ops.families.linalg_ops import vector_norm

    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    result = vector_norm(input, 2, dims, keepdim)
    if out is not None:
        from arraygrad.ops.out_arg import write_out

        return write_out("frobenius_norm", result, out)
    return result


def _approximate_basis(A: Tensor, q: int, niter: int, M: Tensor | None) -> Tensor:
    """Halko et al.'s range finder (PyTorch's ``get_approximate_basis``): ``Q`` with ``q``
    orthonormal columns spanning most of ``A - M``'s range, from ``niter`` power iterations."""
    import arraygrad as ag
    from arraygrad.ops.families.linalg_ops import qr

    n = A.shape[-1]
    R = ag.randn(tuple(A.shape[:-2]) + (n, q), dtype=A.dtype, device=A.device)
    X = A @ R if M is None else A @ R - M @ R
    Q = qr(X).Q
    for _ in range(niter):
        X = A.mT @ Q if M is None else A.mT @ Q - M.mT @ Q
        Q = qr(X).Q
        X = A @ Q if M is None else A @ Q - M @ Q
        Q = qr(X).Q
    return Q


def svd_lowrank(A: Tensor, q: int | None = 6, niter: int = 2, M: Tensor | None = None) -> Any:
    """``(U, S, V)``: an approximate rank-``q`` SVD of ``A - M`` by randomised subspace
    iteration (PyTorch's ``torch.svd_lowrank``; the result depends on the random draw)."""
    op = "svd_lowrank"
    _floating(op, A)
    _matrices(op, A)
    q = 6 if q is None else q
    m, n = A.shape[-2], A.shape[-1]
    if not 0 <= q <= min(m, n):
        raise ValueError(f"{op}: q(={q}) must be non-negative integer and not greater than "
                         f"min(m, n)={min(m, n)}")
    if M is not None:
        M = M.broadcast_to(A.shape)
    if m < n:  # work on the transpose, as PyTorch does
        U, S, V = svd_lowrank(A.mT, q, niter, None if M is None else M.mT)
        return V, S, U
    Q = _approximate_basis(A, q, niter, M)
    B = Q.mT @ A if M is None else Q.mT @ A - Q.mT @ M
    U, S, Vh = svd(B, full_matrices=False)
    return Q @ U, S, Vh.mT


def pca_lowrank(A: Tensor, q: int | None = None, center: bool = True, niter: int = 2) -> Any:
    """``(U, S, V)`` of an approximate PCA of the rows of ``A`` (centred unless ``center`` is
    False), as PyTorch's ``torch.pca_lowrank``: ``q`` defaults to ``min(6, m, n)``."""
    op = "pca_lowrank"
    _floating(op, A)
    _matrices(op, A)
    m, n = A.shape[-2], A.shape[-1]
    q = min(6, m, n) if q is None else q
    if not 0 <= q <= min(m, n):
        raise ValueError(f"{op}: q(={q}) must be non-negative integer and not greater than "
                         f"min(m, n)={min(m, n)}")
    if niter < 0:
        raise ValueError(f"{op}: niter(={niter}) must be non-negative integer")
    if not center:
        return svd_lowrank(A, q, niter)
    C = A.mean(dim=-2, keepdim=True)
    return svd_lowrank(A - C, q, niter)


QrResult = namedtuple("QrResult", ["Q", "R"])


def legacy_qr(input: Tensor, some: bool = True) -> Any:
    """PyTorch's ``torch.qr``: ``linalg.qr`` with ``mode="reduced"`` (``"complete"`` when
    ``some`` is False)."""
    from arraygrad.ops.families.linalg_ops import qr

    Q, R = qr(input, mode="reduced" if some else "complete")
    return QrResult(Q, R)


def ger(input: Tensor, vec2: Tensor) -> Tensor:
    """``torch.ger``: the outer product (PyTorch's older name of ``outer``)."""
    from arraygrad.ops.linalg import outer

    return outer(input, vec2)


def _b_orthonormal_basis(S: Tensor, B: Tensor | None) -> Tensor:
    """Columns spanning ``S`` that are orthonormal in ``B``'s inner product (directions with
    a vanishing norm dropped)."""
    from arraygrad.ops.families.linalg_ops import eigh

    G = S.mT @ (S if B is None else B @ S)
    w, V = eigh(0.5 * (G + G.mT))
    keep = w > w.max() * (1e3 * _eps(S))
    V, w = V[..., keep], w[keep]
    return S @ (V / w.sqrt())


def _eps(t: Tensor) -> float:
    return {2: 9.765625e-4, 4: 1.1920928955078125e-07}.get(t.element_size(), 2.220446049250313e-16)


def lobpcg(A: Tensor, k: int | None = None, B: Tensor | None = None, X: Tensor | None = None,
           n: int | None = None, iK: Tensor | None = None, niter: int | None = None,
           tol: float | None = None, largest: bool | None = None, method: str | None = None,
           tracker: Any = None, ortho_iparams: dict[str, int] | None = None,
           ortho_fparams: dict[str, float] | None = None,
           ortho_bparams: dict[str, bool] | None = None) -> tuple[Tensor, Tensor]:
    """``(E, X)``: the ``k`` largest (or smallest) eigenpairs of the symmetric problem
    ``A X = B X diag(E)`` by the locally optimal block preconditioned conjugate gradient method
    (Knyazev), with ``iK`` as preconditioner; ``tracker(state)`` is called each iteration.
    The iteration runs without recording; ``E`` is then recomputed as the Rayleigh quotients of
    the converged ``X`` (so ``E``'s gradient is ``x^T dA x``), and ``X`` carries no gradient."""
    import arraygrad as ag
    from arraygrad.autograd.grad_mode import no_grad
    from arraygrad.ops.families.linalg_ops import eigh

    op = "lobpcg"
    _floating(op, A)
    _matrices(op, A, square=True)
    m = A.shape[-1]
    if X is None:
        count = n if n is not None else (k if k is not None else 1)
        X = ag.randn(m, count, dtype=A.dtype, device=A.device)
    count = X.shape[-1]
    k = count if k is None else k
    if m < 3 * count:
        raise ValueError(f"LPBPCG algorithm is not applicable when the number of A rows (={m}) "
                         f"is smaller than 3 x the number of requested eigenpairs (={count})")
    largest = True if largest is None else largest
    niter = 1000 if niter is None or niter < 0 else niter
    tol = _eps(A) ** 0.5 if tol is None else tol
    with no_grad():
        a, b = A.detach(), None if B is None else B.detach()
        Xc = _b_orthonormal_basis(X.detach(), b)
        P: Tensor | None = None
        E = ag.zeros(count, dtype=A.dtype, device=A.device)
        for _ in range(niter + 1):
            T = Xc.mT @ a @ Xc
            w, C = eigh(0.5 * (T + T.mT))
            order = w.argsort(descending=largest)
            E, Xc = w[order], Xc @ C[:, order]
            BX = Xc if b is None else b @ Xc
            R = a @ Xc - BX * E
            norms = ag.linalg.vector_norm(R, dim=0)
            scale = E.abs().clamp_min(1.0)
            if tracker is not None:
                tracker({"E": E, "X": Xc, "R": R, "iteration": _})
            if bool((norms <= tol * scale).all()):
                break
            W = R if iK is None else iK.detach() @ R
            S = ag.cat([Xc, W] + ([] if P is None else [P]), dim=1)
            Q = _b_orthonormal_basis(S, b)
            T = Q.mT @ a @ Q
            w, C = eigh(0.5 * (T + T.mT))
            order = w.argsort(descending=largest)[:count]
            Xn = Q @ C[:, order]
            P = Xn - Xc @ (Xc.mT @ (Xn if b is None else b @ Xn))
            Xc = _b_orthonormal_basis(Xn, b)
    Xk = Xc[:, :k]
    E = ((Xk * (A @ Xk)).sum(0) / (Xk * (Xk if B is None else B @ Xk)).sum(0))
    return E, Xk


def _removed(name: str, advice: str) -> Any:
    def removed(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(f"This function was deprecated since version 1.9 and is now removed. "
                           f"{advice}")

    removed.__name__ = removed.__qualname__ = name
    removed.__doc__ = f"Removed in PyTorch 2 (raises RuntimeError, as PyTorch's ``{name}``): {advice}"
    return removed


_REMOVED = {
    "eig": "`torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` rather than "
           "real tensors mimicking complex tensors.",
    "symeig": "The default behavior has changed from using the upper triangular portion of the "
              "matrix by default to using the lower triangular portion: use torch.linalg.eigh.",
    "solve": "`torch.solve` is deprecated in favor of `torch.linalg.solve`. `torch.linalg.solve` "
             "has its arguments reversed and does not return the LU factorization.",
    "lstsq": "`torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`. `torch.linalg.lstsq` "
             "has reversed arguments and does not return the QR decomposition in the returned "
             "tuple.",
    "matrix_rank": "Please use the `torch.linalg.matrix_rank` function instead.",
}

FUNCTIONS = {
    "qr": legacy_qr, "ger": ger, "lobpcg": lobpcg,
    "chain_matmul": chain_matmul, "adjoint": adjoint, "nuclear_norm": nuclear_norm,
    "frobenius_norm": frobenius_norm, "svd_lowrank": svd_lowrank, "pca_lowrank": pca_lowrank,
    **{name: _removed(name, advice) for name, advice in _REMOVED.items()},
}
"""``arraygrad.<name>``."""

METHODS = {"adjoint": adjoint, "qr": legacy_qr, "ger": ger,
           **{name: FUNCTIONS[name] for name in ("eig", "symeig", "solve", "lstsq")}}
"""``Tensor.<name>``."""


def _matrix_H(self: Tensor) -> Tensor:
    if self.ndim not in (0, 2):
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got "
                           f"{self.ndim}-D tensor.")
    return self if self.ndim == 0 else conj(self.transpose(0, 1))


def _batch_mH(self: Tensor) -> Tensor:
    if self.ndim < 2:
        raise RuntimeError(f"tensor.mH is only supported on matrices or batches of matrices. "
                           f"Got {self.ndim}-D tensor.")
    return conj(self.transpose(-2, -1))


METHODS["H"] = property(_matrix_H, doc="The conjugate transpose of a matrix (a transposed view "
                                       "of a real one).")
METHODS["mH"] = property(_batch_mH, doc="The conjugate transpose of the last two dimensions.")
