"""Linear algebra (``arraygrad.linalg``, PyTorch's ``torch.linalg``): the rules and forwards.

Forwards go through the backend's Array API ``linalg`` extension (``xp.linalg.inv``, ...);
a backend without it gets a RuntimeError naming the op and the backend. Every input may
carry leading batch dimensions. Gradients are PyTorch's matrix-calculus formulas written
in Tensor ops, so double backward works; ops PyTorch differentiates through other ops
(``logdet``, ``matrix_norm``, ``cross``, ``multi_dot``, ``matrix_power``, ``matrix_exp``,
``lstsq``, ...) are composites of the ruled ones here. As in PyTorch, gradients of
``eigh``/``svd`` eigenvectors and singular vectors are inf/nan where eigenvalues or
singular values repeat, and ``det``'s gradient needs an invertible matrix.

Complex matrices (PyTorch's convention, docs/complex.md: transposes in the real formulas
become conjugate transposes ``mH``): ``inv``, ``det``, ``slogdet``, ``solve``, the norms, and
``eig``/``eigvals`` (``linalg_eig``, for any square matrix: complex results), ``qr`` and ``svd``
(PyTorch's gradients with the complex gauge terms; ``svd`` refuses a loss that depends on the
singular vectors' phases, as PyTorch does). The other ops
are real only and refuse complex tensors with NotImplementedError.
"""

from __future__ import annotations

import math
from collections import namedtuple
from typing import TYPE_CHECKING, Any, Callable, Sequence

from arraygrad.amp import state as _amp
from arraygrad.autograd.graph import SavedOutput
from arraygrad.autograd.grad_mode import is_grad_enabled
from arraygrad.ops.arguments import renamed_keywords
from arraygrad.ops.casting import in_opmath
from arraygrad.ops.conjugate import conj_of
from arraygrad.ops.extensions import extension
from arraygrad.ops.promotion import same_backend
from arraygrad.ops.rule import VIA_VJP, defop, fast_paths
from arraygrad.plugins.registry import dispatch_kernel
from arraygrad.tensor import Tensor, wrap

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend
    from arraygrad.ops.rule import RuleNode

__all__ = ["LinAlgError", "inv", "det", "slogdet", "logdet", "solve", "cholesky", "qr", "eigh",
           "eigvalsh", "svd", "svdvals", "pinv", "vector_norm", "matrix_norm", "norm", "cross",
           "vecdot", "multi_dot", "matrix_power", "matrix_exp", "matrix_rank", "lstsq",
           "FUNCTIONS", "METHODS"]


class LinAlgError(RuntimeError):
    """A matrix the op cannot handle (singular, not positive-definite): PyTorch's
    ``torch.linalg.LinAlgError``, a RuntimeError."""


SlogdetResult = namedtuple("SlogdetResult", ["sign", "logabsdet"])
QRResult = namedtuple("QRResult", ["Q", "R"])
EighResult = namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
SVDResult = namedtuple("SVDResult", ["U", "S", "Vh"])
SvdResult = namedtuple("SvdResult", ["U", "S", "V"])  # torch.svd's (V, not Vh)
LstsqResult = namedtuple("LstsqResult", ["solution", "residuals", "rank", "singular_values"])


# -- checks and the backend's linalg extension ----------------------------------------

def _linalg(op: str, backend: Backend) -> Any:
    """The backend's ``xp.linalg``, or a RuntimeError naming the op and the backend."""
    return extension(op, backend, "linalg")


def _call(op: str, backend: Backend, name: str, *args: Any, **kw: Any) -> Any:
    """``xp.linalg.<name>(*args)``; the library's LinAlgError becomes ours, naming the op."""
    fn = getattr(_linalg(op, backend), name, None)
    if fn is None:
        raise RuntimeError(f"{op}: the {backend.name!r} backend's linalg extension has no {name}")
    try:
        return fn(*args, **kw)
    except Exception as e:  # the library's own class (numpy.linalg.LinAlgError, ...)
        if type(e).__name__ == "LinAlgError":
            raise LinAlgError(f"{op}: {e}") from None
        raise


_COMPLEX_OPS = ("inv", "det", "slogdet", "solve", "vector_norm", "matrix_norm", "norm", "eig",
                "eigvals", "svdvals", "matrix_rank", "cholesky", "pinv", "qr", "svd")


def _floating(op: str, *ts: Any, complex: bool = False) -> Backend:
    """The tensors' backend after PyTorch's dtype check: floating tensors, and complex ones
    where ``complex`` (the ops of ``_COMPLEX_OPS``; NotImplementedError for the others)."""
    for t in ts:
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}: expected a Tensor, got {type(t).__name__}")
        if t.dtype.is_complex and not complex:
            raise NotImplementedError(
                f"{op}: complex tensors are not supported here (arraygrad's complex linear "
                f"algebra: {', '.join('linalg.' + name for name in _COMPLEX_OPS)})")
        if not (t.dtype.is_floating_point or t.dtype.is_complex):
            raise RuntimeError(f"{op}: Expected a floating point tensor as input. Got {t.dtype}")
    backend: Backend = same_backend(op, *ts)
    return backend


def _is_integral(t: Any) -> bool:
    return isinstance(t, Tensor) and not (t.dtype.is_floating_point or t.dtype.is_complex)


def _matrices(op: str, A: Tensor, square: bool = False, name: str = "A") -> None:
    if A.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor {name} must have at least 2 dimensions.")
    if square and A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{op}: {name} must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")


def _square(op: str, A: Tensor, complex: bool = False) -> Backend:
    backend = _floating(op, A, complex=complex)
    _matrices(op, A, square=True)
    return backend


# -- Tensor-op helpers the gradients are written in --------------------------------------

def _eye(n: int, like: Tensor) -> Tensor:
    import arraygrad as ag

    return ag.eye(n, dtype=like.dtype, device=like.device)


def _diag_embed(v: Tensor) -> Tensor:
    """``(..., n) -> (..., n, n)`` with ``v`` on the diagonal (differentiable: a product)."""
    return v.unsqueeze(-1) * _eye(v.shape[-1], v)


def _tril_mask(n: int, like: Tensor, k: int = 0) -> Tensor:
    import arraygrad as ag

    i = ag.arange(n, device=like.device)
    return (i.unsqueeze(-1) - i >= -k).to(like.dtype)


def _tril(x: Tensor, k: int = 0) -> Tensor:
    return x * _tril_mask(x.shape[-1], x, k)


_PENDING = object()  # an output's place in ``saves`` until ``_save_outputs`` fills it


def _save_outputs(rule: Any, outs: Sequence[Tensor], names: Sequence[str]) -> None:
    """Save a multi-output rule's own outputs for its backward, as PyTorch does: unpacked,
    they carry the node as ``grad_fn``, so a double backward differentiates through them.
    ``record_many`` cannot save outputs (they do not exist yet), so the rule lists them as
    extra saves, recorded with placeholders, and they are swapped in here."""
    node = outs[0]._grad_fn
    if node is None:
        return
    saved = list(node._saved)
    for out, name in zip(outs, names):
        i = rule.save_index[name]
        if saved[i] is _PENDING:  # None: no needed input's vjp reads it
            saved[i] = SavedOutput(out)
    node._saved = tuple(saved)


def _col(t: Tensor) -> Tensor:
    """A batch of scalars ``(...)`` as ``(..., 1, 1)`` to scale matrices."""
    return t.unsqueeze(-1).unsqueeze(-1)


# -- inv, det, slogdet --------------------------------------------------------------------

def _mH(t: Tensor) -> Tensor:
    """The conjugate transpose of the last two dimensions (the transpose of a real tensor)."""
    return conj_of(t.mT)


INV = defop("LinalgInvExBackward0", jvp=VIA_VJP, inputs=("A",), saves=("result",),
            vjp=(lambda g, n: -(_mH(n.result) @ g @ _mH(n.result)),), complex=True)


def inv(A: Tensor) -> Tensor:
    """The inverse of square matrices ``A`` (batched); LinAlgError if one is singular."""
    backend = _square("linalg.inv", A, complex=True)
    return INV.record(_call("linalg.inv", backend, "inv", A._data), backend, (A,))


def _det_vjp(g: Tensor, n: RuleNode) -> Tensor:
    # the cofactor matrix: det * A^-T where A is invertible, else from the SVD
    # A = U S Vh: det(U) det(Vh) U diag(prod_{j != i} s_j) Vh (PyTorch's singular path)
    A = n.A
    try:
        return _col(g * conj_of(n.result)) * _mH(inv(A))
    except LinAlgError:
        pass
    import arraygrad as ag

    U, S, Vh = svd(A)
    k = S.shape[-1]
    others = ag.where(_eye(k, S) > 0, 1.0, S.unsqueeze(-2)).prod(-1)  # prod_{j != i} s_j
    # conj(det A) A^-H with A^-H = U S^-1 Vh: the phases det(U) det(Vh) enter conjugated
    scale = (g * conj_of(det(U) * det(Vh))).unsqueeze(-1) * others.to(U.dtype)
    return (U * scale.unsqueeze(-2)) @ Vh


DET = defop("LinalgDetBackward0", jvp=VIA_VJP, inputs=("A",), saves=("A", "result"),
            vjp=(_det_vjp,), complex=True)


def det(A: Tensor) -> Tensor:
    """The determinant of square matrices ``A`` (batched)."""
    backend = _square("linalg.det", A, complex=True)
    return DET.record(_call("linalg.det", backend, "det", A._data), backend, (A,))


def _slogdet_vjp(g: Sequence[Tensor], n: RuleNode) -> Tensor:
    A = n.A
    if not A.dtype.is_complex:
        return _col(g[1]) * inv(A).mT  # the sign is piecewise constant: no gradient
    # a complex sign e^{i arg} moves with the phase of det: (g_log + i Im(g_sign conj(sign)))
    # times A^{-H}
    from arraygrad.ops.complex_views import imag

    scale = g[1] + imag(g[0] * conj_of(n.sign)) * 1j
    return _col(scale) * _mH(inv(A))


SLOGDET = defop("LinalgSlogdetBackward0", jvp=VIA_VJP, inputs=("A",), saves=("A", "sign"),
                vjp=(_slogdet_vjp,), outputs=2, complex=True)


def slogdet(A: Tensor) -> Any:
    """``(sign, logabsdet)`` of square matrices ``A``: ``det = sign * exp(logabsdet)`` (the
    sign of a complex determinant is ``det / |det|``)."""
    backend = _square("linalg.slogdet", A, complex=True)
    res = _call("linalg.slogdet", backend, "slogdet", A._data)
    # the sign's gradient is zero, but it stays in the graph (requires grad) as in PyTorch
    sign, logabs = SLOGDET.record_many((res[0], res[1]), backend, (A,), sign=_PENDING)
    _save_outputs(SLOGDET, (sign,), ("sign",))  # in the graph: double backward reaches it
    return SlogdetResult(sign, logabs)


def logdet(input: Tensor) -> Tensor:
    """``log(det(input))``: nan where the determinant is negative, -inf where it is zero."""
    import arraygrad as ag

    sign, logabs = slogdet(input)
    return ag.where(sign < 0, math.nan, logabs)


# -- solve --------------------------------------------------------------------------------

def _solve_vjp(g: Tensor, n: RuleNode) -> tuple[Tensor | None, Tensor | None]:
    gB = solve(_mH(n.A), g)
    gA = -(gB @ _mH(n.result)) if n.needs_input_grad[0] else None
    return gA, gB


SOLVE = defop("LinalgSolveExBackward0", jvp=VIA_VJP, inputs=("A", "B"), saves=("A", "result"),
              vjp=_solve_vjp, complex=True)


def solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor:
    """``X`` with ``A @ X = B`` (``X @ A = B`` when ``left=False``); ``B`` may be a batch of
    vectors ``(..., n)``. Batch dimensions broadcast."""
    op = "linalg.solve"
    backend = _floating(op, A, B, complex=True)
    _matrices(op, A, square=True)
    if A.dtype != B.dtype:
        raise RuntimeError(f"{op}: Expected A and B to have the same dtype, but found "
                           f"A of type {A.dtype} and B of type {B.dtype} instead")
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    if not left:
        if vector:
            raise RuntimeError(f"{op}: Vector broadcasting of the left hand side is not "
                               "supported for left=False")
        return solve(A.mT, B.mT).mT
    Bm = B.unsqueeze(-1) if vector else B
    if Bm.ndim < 2 or Bm.shape[-2] != A.shape[-1]:
        raise RuntimeError(f"{op}: Incompatible shapes of A and B for the equation AX = B "
                           f"({A.shape[-2]}x{A.shape[-1]} and {Bm.shape[-2]}x{Bm.shape[-1]})")
    X = SOLVE.record(_call(op, backend, "solve", A._data, Bm._data), backend, (A, Bm))
    return X.squeeze(-1) if vector else X


# -- cholesky -----------------------------------------------------------------------------

def _cholesky_vjp(g: Tensor, n: RuleNode) -> Tensor:
    # PyTorch's cholesky_backward: A^-H Phi(L^H gL) L^-1, Phi symmetrising the lower part
    # (conjugate transposes: the same formula holds for complex Hermitian matrices)
    L = n.result
    if n.upper:
        L, g = _mH(L), _mH(g)
    P = _tril(_mH(L) @ g)
    P = 0.5 * (P + _mH(_tril(P, -1)))
    Linv = inv(L)
    return _mH(Linv) @ P @ Linv


CHOLESKY = defop("LinalgCholeskyExBackward0", jvp=VIA_VJP, inputs=("A",), saves=("result",),
                 params=("upper",), vjp=(_cholesky_vjp,), complex=True)


def cholesky(A: Tensor, *, upper: bool = False) -> Tensor:
    """The Cholesky factor ``L`` (``A = L L^T``; ``U = L^T`` when ``upper``) of symmetric
    positive-definite ``A`` (only its lower triangle is read); LinAlgError otherwise."""
    op = "linalg.cholesky"
    backend = _square(op, A, complex=True)
    # the Array API leaves which triangle is read to the library: read the lower one
    a = A.detach()
    data = _call(op, backend, "cholesky", (_tril(a) + _mH(_tril(a, -1)))._data)
    if upper:
        data = _mH(wrap(data, backend)).contiguous()._data
    return CHOLESKY.record(data, backend, (A,), upper=upper)


# -- qr -----------------------------------------------------------------------------------

def _copyltu(M: Tensor) -> Tensor:
    """The Hermitian matrix whose strict lower triangle is ``M``'s, with ``M``'s real diagonal
    (R's diagonal is real, so only the real part of its gradient there counts)."""
    if not M.dtype.is_complex:
        return _tril(M) + _tril(M, -1).mT
    lower = _tril(M, -1)
    return lower + _mH(lower) + _diag_embed(M.diagonal(0, -2, -1).real.to(M.dtype))


def _qr_square_tall(gQ: Tensor, gR: Tensor, Q: Tensor, R: Tensor) -> Tensor:
    # m >= n: gA = (gQ + Q copyltu(M)) R^-H with M = R gR^H - gQ^H Q
    M = R @ _mH(gR) - _mH(gQ) @ Q
    b = gQ + Q @ _copyltu(M)
    return _mH(solve(R, _mH(b)))  # b R^-H


def _qr_vjp(g: Sequence[Tensor], n: RuleNode) -> Tensor:
    gQ, gR = g
    Q, R, A = n.Q, n.R, n.A
    m, k = A.shape[-2], A.shape[-1]
    if n.mode == "r":
        raise RuntimeError("linalg.qr: The derivative of linalg.qr depends on Q, which is not "
                           "computed when mode='r'. Please use linalg.qr(A, mode='reduced') if "
                           "you are going to differentiate through linalg.qr.")
    if n.mode == "complete" and m > k:
        raise RuntimeError("linalg.qr: The derivative of linalg.qr is not implemented when "
                           "mode='complete' and nrows > ncols.")
    if m >= k:
        return _qr_square_tall(gQ, gR, Q, R)
    # wide: A = [X | Y], R = [U | V] with V = Q^T Y
    U, gU, gV = R[..., :, :m], gR[..., :, :m], gR[..., :, m:]
    Y = A[..., :, m:]
    gX = _qr_square_tall(gQ + Y @ _mH(gV), gU, Q, U)
    import arraygrad as ag

    return ag.cat([gX, Q @ gV], dim=-1)


QR = defop("LinalgQrBackward0", jvp=VIA_VJP, inputs=("A",), saves=("A", "Q", "R"), params=("mode",),
           vjp=(_qr_vjp,), outputs=2, complex=True)


def qr(A: Tensor, mode: str = "reduced") -> Any:
    """``(Q, R)`` with ``A = Q R``, ``Q`` orthonormal columns, ``R`` upper-triangular.
    ``mode``: ``"reduced"``, ``"complete"`` or ``"r"`` (``Q`` empty)."""
    op = "linalg.qr"
    backend = _floating(op, A, complex=True)
    _matrices(op, A)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"{op}: qr received unrecognized mode '{mode}' but expected one of "
                           "'reduced' (default), 'r', or 'complete'")
    res = _call(op, backend, "qr", A._data, mode="complete" if mode == "complete" else "reduced")
    Qd, Rd = res[0], res[1]
    Q, R = QR.record_many((Qd, Rd), backend, (A,), Q=_PENDING, R=_PENDING, mode=mode)
    _save_outputs(QR, (Q, R), ("Q", "R"))
    if mode == "r":
        Q = wrap(backend.xp.zeros((0,), dtype=Qd.dtype), backend)
    return QRResult(Q, R)


# -- eigh, eigvalsh ------------------------------------------------------------------------

def _eigh_vjp(g: Sequence[Tensor], n: RuleNode) -> Tensor:
    # PyTorch's linalg_eig_backward (hermitian): V (skew(V^T gV) / E + diag(gL)) V^T,
    # E_ij = L_j - L_i; inf/nan where eigenvalues repeat
    gL, gV = g
    L, V = n.eigenvalues, n.eigenvectors
    k = L.shape[-1]
    eye = _eye(k, L)
    VtgV = V.mT @ gV
    VtgV = 0.5 * (VtgV - VtgV.mT)
    E = L.unsqueeze(-2) - L.unsqueeze(-1) + eye  # 1 on the diagonal: 0/1 there, replaced
    inner = VtgV / E * (1 - eye) + _diag_embed(gL)
    return V @ inner @ V.mT


EIGH = defop("LinalgEighBackward0", jvp=VIA_VJP, inputs=("A",), saves=("eigenvalues", "eigenvectors"),
             vjp=(_eigh_vjp,), outputs=2)


def _sym_data(op: str, A: Tensor, UPLO: str) -> Any:
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"{op}: Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    a = A.detach()
    low = _tril(a) if UPLO == "L" else _tril(a.mT)
    return (low + _tril(low, -1).mT)._data


def eigh(A: Tensor, UPLO: str = "L") -> Any:
    """``(eigenvalues, eigenvectors)`` of symmetric ``A`` (eigenvalues ascending); only the
    ``UPLO`` triangle is read."""
    op = "linalg.eigh"
    backend = _square(op, A)
    res = _call(op, backend, "eigh", _sym_data(op, A, UPLO))
    L, V = EIGH.record_many((res[0], res[1]), backend, (A,), eigenvalues=_PENDING,
                            eigenvectors=_PENDING)
    _save_outputs(EIGH, (L, V), ("eigenvalues", "eigenvectors"))
    return EighResult(L, V)


def _eigvalsh_vjp(g: Tensor, n: RuleNode) -> Tensor:
    # V diag(g) V^T; under create_graph V comes from a recorded eigh of A, so the double
    # backward sees how V moves with A
    V = eigh(n.A)[1] if is_grad_enabled() else n.eigenvectors
    return (V * g.unsqueeze(-2)) @ V.mT


EIGVALSH = defop("LinalgEigvalshBackward0", jvp=VIA_VJP, inputs=("A",), saves=("A", "eigenvectors"),
                 vjp=(_eigvalsh_vjp,))


def eigvalsh(A: Tensor, UPLO: str = "L") -> Tensor:
    """The eigenvalues of symmetric ``A``, ascending (gradient well-defined when they repeat)."""
    op = "linalg.eigvalsh"
    backend = _square(op, A)
    res = _call(op, backend, "eigh", _sym_data(op, A, UPLO))
    return EIGVALSH.record(res[0], backend, (A,), eigenvectors=wrap(res[1], backend))


# -- svd, svdvals --------------------------------------------------------------------------

def _svd_phase_term(UhgU: Tensor, VhgV: Tensor, S: Tensor) -> Tensor:
    """A complex SVD's diagonal term ``i Im(diag(U^H gU)) / S``, after PyTorch's check that
    the loss does not depend on the singular vectors' phases (a column of U and the row of
    Vh may both turn by ``e^{i phi}``): then ``Im diag(U^H gU) = -Im diag(V^H gV)``."""
    im_u = UhgU.diagonal(0, -2, -1).imag
    im_v = VhgV.diagonal(0, -2, -1).imag
    if not im_u.allclose(-im_v, rtol=1e-2, atol=1e-2):
        raise RuntimeError("svd_backward: The singular vectors in the complex case are "
                           "specified up to multiplication by e^{i phi}. The specified loss "
                           "function depends on this phase term, making it ill-defined.")
    return _diag_embed((im_u / S) * 1j)


def _svd_vjp(g: Sequence[Tensor], n: RuleNode) -> Tensor:
    # PyTorch's svd_backward on the reduced factors (extra columns of full factors get none);
    # conjugate transposes make it hold for complex matrices, with the phase term
    gU, gS, gVh = g
    U, S, Vh = n.U, n.S, n.Vh
    m, k, nc = U.shape[-2], S.shape[-1], Vh.shape[-1]
    U, gU = U[..., :, :k], gU[..., :, :k]
    Vh, gVh = Vh[..., :k, :], gVh[..., :k, :]
    eye = _eye(k, S)
    UhgU = _mH(U) @ gU
    VhgV = Vh @ _mH(gVh)
    skew_u, skew_v = UhgU - _mH(UhgU), VhgV - _mH(VhgV)
    S2 = S * S
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + eye
    inner = (skew_u * S.unsqueeze(-2) + S.unsqueeze(-1) * skew_v) / E * (1 - eye) + _diag_embed(gS)
    if U.dtype.is_complex:
        inner = inner + _svd_phase_term(UhgU, VhgV, S)
    if m > nc:
        gUS = gU / S.unsqueeze(-2)
        return (U @ inner + gUS - U @ (_mH(U) @ gUS)) @ Vh
    if m < nc:
        SgVh = gVh / S.unsqueeze(-1)
        return U @ (inner @ Vh + SgVh - (SgVh @ _mH(Vh)) @ Vh)
    return U @ inner @ Vh


SVD = defop("LinalgSvdBackward0", jvp=VIA_VJP, inputs=("A",), saves=("U", "S", "Vh"), vjp=(_svd_vjp,),
            outputs=3, complex=True)


def svd(A: Tensor, full_matrices: bool = True) -> Any:
    """``(U, S, Vh)`` with ``A = U diag(S) Vh``, ``S`` descending. Gradients reach ``A``
    through the first ``min(m, n)`` columns of ``U`` and rows of ``Vh`` (as PyTorch)."""
    op = "linalg.svd"
    backend = _floating(op, A, complex=True)
    _matrices(op, A)
    res = _call(op, backend, "svd", A._data, full_matrices=full_matrices)
    U, S, Vh = SVD.record_many(tuple(res[:3]), backend, (A,), U=_PENDING, S=_PENDING, Vh=_PENDING)
    _save_outputs(SVD, (U, S, Vh), ("U", "S", "Vh"))
    return SVDResult(U, S, Vh)


def _svdvals_vjp(g: Tensor, n: RuleNode) -> Tensor:
    # U diag(g) Vh; under create_graph U, Vh come from a recorded svd of A (double backward)
    U, Vh = (svd(n.A, full_matrices=False)[0::2] if is_grad_enabled() else (n.U, n.Vh))
    return (U * g.unsqueeze(-2)) @ Vh


# complex too: the singular values are real and U diag(gS) Vh is their gradient either way
SVDVALS = defop("LinalgSvdvalsBackward0", jvp=VIA_VJP, inputs=("A",), saves=("A", "U", "Vh"),
                vjp=(_svdvals_vjp,), complex=True)


def svdvals(A: Tensor) -> Tensor:
    """The singular values of ``A``, descending (gradient ``U diag(gS) Vh``)."""
    op = "linalg.svdvals"
    backend = _floating(op, A, complex=True)
    _matrices(op, A)
    res = _call(op, backend, "svd", A._data, full_matrices=False)
    return SVDVALS.record(res[1], backend, (A,), U=wrap(res[0], backend),
                          Vh=wrap(res[2], backend))


# -- pinv, lstsq, matrix_rank --------------------------------------------------------------

def _pinv_vjp(g: Tensor, n: RuleNode) -> Tensor:
    # PyTorch's pinv_backward (conjugate transposes: complex matrices too)
    A, P = n.A, n.result
    m, k = A.shape[-2], A.shape[-1]
    Ph, gh = _mH(P), _mH(g)
    if m <= k:
        K = gh @ P
        KPh = K @ Ph
        return -_mH(P @ K) + KPh - (A @ P) @ KPh + (Ph @ P) @ (gh - K @ A)
    K = P @ gh
    PhK = Ph @ K
    return -_mH(K @ P) + (gh - A @ K) @ P @ Ph + PhK - PhK @ P @ A


PINV = defop("LinalgPinvBackward0", jvp=VIA_VJP, inputs=("A",), saves=("A", "result"), vjp=(_pinv_vjp,),
             complex=True)


def _tolerance(op: str, A: Tensor, atol: Any, rtol: Any, smax: Any) -> Any:
    """PyTorch's cutoff ``max(atol, rtol * smax)`` as an array of shape ``smax``'s."""
    xp = A._backend.xp
    if rtol is None:
        from arraygrad.ops.families.dtype_queries import finfo

        eps = finfo(A.dtype).eps
        rtol = eps * max(A.shape[-2], A.shape[-1]) if atol is None or _is_zero(atol) else 0.0
    # a tolerance tensor holds one value per matrix (shape A.shape[:-2]): it meets smax,
    # shaped (..., 1), through a trailing axis, as PyTorch's does
    a = 0.0 if atol is None else (atol._data[..., None] if isinstance(atol, Tensor) else atol)
    r = rtol._data[..., None] if isinstance(rtol, Tensor) else rtol
    return xp.maximum(xp.asarray(a, dtype=smax.dtype) + 0 * smax, r * smax)


def _is_zero(v: Any) -> bool:
    return not isinstance(v, Tensor) and float(v) == 0.0


def pinv(A: Tensor, *, atol: Any = None, rtol: Any = None, hermitian: bool = False) -> Tensor:
    """The Moore-Penrose pseudo-inverse; singular values below ``max(atol, rtol * smax)``
    count as zero (``rtol`` defaults to ``eps * max(m, n)`` when ``atol`` is unset or 0)."""
    op = "linalg.pinv"
    backend = _floating(op, A, complex=True)
    _matrices(op, A)
    xp = backend.xp

    def formula(a: Any) -> Any:  # (float16/bfloat16 in float32, rounded once: in_opmath)
        res = _call(op, backend, "svd", a, full_matrices=False)
        U, S, Vh = res[0], res[1], res[2]
        cut = _tolerance(op, A, atol, rtol,
                         xp.max(S, axis=-1, keepdims=True) if S.shape[-1] else S)
        keep = S > cut
        Sinv = xp.where(keep, 1.0 / xp.where(keep, S, xp.ones_like(S)), xp.zeros_like(S))
        if xp.isdtype(U.dtype, "complex floating"):  # V S^-1 U^H: conjugate transposes
            U, Vh = xp.conj(U), xp.conj(Vh)
        return xp.matmul(xp.matrix_transpose(Vh) * Sinv[..., None, :], xp.matrix_transpose(U))

    return PINV.record(in_opmath(backend, formula, A._data), backend, (A,))


def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    """``torch.pinverse``: ``linalg.pinv(input, rtol=rcond)``."""
    return pinv(input, rtol=rcond)


def matrix_rank(A: Tensor, *, atol: Any = None, rtol: Any = None, hermitian: bool = False) -> Tensor:
    """The number of singular values above ``max(atol, rtol * smax)`` (int64, no gradient)."""
    op = "linalg.matrix_rank"
    backend = _floating(op, A, complex=True)  # a count: no gradient, any floating kind
    _matrices(op, A)
    xp = backend.xp
    S = _call(op, backend, "svdvals", A._data)
    if S.shape[-1] == 0:
        return wrap(xp.zeros(S.shape[:-1], dtype=xp.int64), backend)
    cut = _tolerance(op, A, atol, rtol, xp.max(S, axis=-1, keepdims=True))
    return wrap(xp.sum(xp.astype(S > cut, xp.int64), axis=-1), backend)


def lstsq(A: Tensor, B: Tensor, rcond: float | None = None, *, driver: str | None = None) -> Any:
    """Least-squares ``argmin ||A X - B||`` (minimum-norm): ``(solution, residuals, rank,
    singular_values)``; as PyTorch's default CPU driver ``gelsy``, ``residuals`` and
    ``singular_values`` are empty. Differentiable through ``pinv``."""
    op = "linalg.lstsq"
    backend = _floating(op, A, B)
    _matrices(op, A)
    if driver not in (None, "gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError(f"{op}: parameter `driver` should be one of (gels, gelsy, gelsd, "
                           f"gelss), but got {driver}")
    vector = B.ndim == A.ndim - 1
    Bm = B.unsqueeze(-1) if vector else B
    if Bm.ndim < 2 or Bm.shape[-2] != A.shape[-2]:
        raise RuntimeError(f"{op}: input.size(-2) should match other.size(-2), got "
                           f"{A.shape[-2]} and {Bm.shape[-2]}")
    X = pinv(A, rtol=rcond) @ Bm
    xp = backend.xp
    empty = wrap(xp.zeros((0,), dtype=A._data.dtype), backend)
    rank = matrix_rank(A, rtol=rcond)
    return LstsqResult(X.squeeze(-1) if vector else X, empty, rank, empty)


# -- norms ---------------------------------------------------------------------------------

def _norm_vjp(g: Tensor, n: RuleNode) -> Tensor:
    # PyTorch's norm_backward, with safe denominators so double backward sees no 0/0 (sgn:
    # the sign of a complex x is x / |x|, so the formulas hold for complex inputs too)
    import arraygrad as ag

    x, norm, p = n.self, n.result, n.ord
    dims = n.dims
    if not n.keepdim:
        for d in sorted(dims):
            g, norm = g.unsqueeze(d), norm.unsqueeze(d)
    if p == 0:
        return x * 0
    if p == 1:
        return x.sgn() * g
    zero = norm == 0
    safe = ag.where(zero, 1.0, norm)
    if p == 2:
        return ag.where(zero, 0.0, x * (g / safe))
    if math.isinf(p):
        hit = (x.abs() == norm).to(norm.dtype)
        return x.sgn() * hit * (g / hit.sum(dims, keepdim=True))
    if p < 1:
        xz = x == 0
        xs = ag.where(xz, 1.0, x.abs())
        return ag.where(xz, 0.0, x.sgn() * xs.pow(p - 1)) * (g * norm.pow(1 - p))
    scaled = x.sgn() * x.abs().pow(p - 1) if p < 2 else x * x.abs().pow(p - 2)
    return ag.where(zero, 0.0, scaled * (g / safe.pow(p - 1)))


VECTOR_NORM = defop("LinalgVectorNormBackward0", jvp=VIA_VJP, inputs=("self",), saves=("self", "result"),
                    params=("ord", "dims", "keepdim"), vjp=(_norm_vjp,), complex=True)


def _dims(dim: Any, ndim: int) -> tuple[int, ...]:
    if dim is None:
        return tuple(range(ndim))
    ds = (dim,) if isinstance(dim, int) else tuple(dim)
    out = tuple(d + ndim if d < 0 else d for d in ds)
    if any(not 0 <= d < max(ndim, 1) for d in out) or len(set(out)) != len(out):
        raise IndexError(f"Dimension out of range or repeated: dim={dim} for a {ndim}-D tensor")
    return out


def vector_norm(x: Tensor, ord: float = 2, dim: Any = None, keepdim: bool = False, *,
                dtype: Any = None) -> Tensor:
    """``(sum |x|^ord)^(1/ord)`` over ``dim`` (all by default); ``ord`` may be inf, -inf, 0."""
    op = "linalg.vector_norm"
    backend = _floating(op, x, complex=True)
    if dtype is not None:
        x = x.to(dtype)
    if isinstance(ord, bool) or not isinstance(ord, (int, float)):
        raise RuntimeError(f"{op}: ord must be a number, got {type(ord).__name__}")
    dims = _dims(dim, x.ndim)
    if x.ndim == 0:
        dims = ()
    if x.numel() == 0 and (ord < 0 or math.isinf(ord)) and any(x.shape[d] == 0 for d in dims):
        raise RuntimeError(f"{op}: Expected a non-empty tensor for ord={ord} over dim={dim}")
    data = vector_norm_data(op, backend, x._data, dims if dims else None, keepdim, ord)
    return VECTOR_NORM.record(data, backend, (x,), ord=float(ord), dims=dims, keepdim=keepdim)


def vector_norm_data(op: str, backend: Backend, data: Any, axis: Any, keepdims: bool,
                      ord: float) -> Any:
    """``xp.linalg.vector_norm`` of ``data``, or (fast paths on) the backend's
    ``vector_norm`` kernel where it has one and takes the case (NumPy: a whole array's
    2-norm as one dot product)."""
    def portable(data: Any, axis: Any, keepdims: bool, ord: float) -> Any:
        return _call(op, backend, "vector_norm", data, axis=axis, keepdims=keepdims, ord=ord)

    if fast_paths.on:
        return dispatch_kernel("vector_norm", backend, portable, data, axis, keepdims, ord)
    return portable(data, axis, keepdims, ord)


def matrix_norm(A: Tensor, ord: Any = "fro", dim: tuple[int, int] = (-2, -1),
                keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """Matrix norms over ``dim``: ``"fro"``, ``"nuc"``, ``2``/``-2`` (largest/smallest
    singular value), ``1``/``-1`` (max/min column abs-sum), ``inf``/``-inf`` (rows)."""
    import arraygrad as ag

    op = "linalg.matrix_norm"
    _floating(op, A, complex=True)
    if dtype is not None:
        A = A.to(dtype)
    if A.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    d0, d1 = _dims(dim, A.ndim)
    if len((d0, d1)) != 2:
        raise RuntimeError(f"{op}: dim must be a 2-tuple. Got {dim}")
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim)
    if ord not in ("nuc", 2, -2, 1, -1, math.inf, -math.inf):
        raise RuntimeError(f"{op}: Order {ord} not supported.")
    if ord in ("nuc", 2, -2):
        moved = A.movedim((d0, d1), (-2, -1)) if (d0, d1) != (A.ndim - 2, A.ndim - 1) else A
        s = svdvals(moved)
        out = s.sum(-1) if ord == "nuc" else (s.amax(-1) if ord == 2 else s.amin(-1))
        if keepdim:
            for d in sorted((d0, d1)):
                out = out.unsqueeze(d)
        return out
    red, keep = (d0, d1) if ord in (1, -1) else (d1, d0)  # sum over red, extreme over keep
    sums = A.abs().sum(red, keepdim=True)
    ext = ag.amax if ord > 0 else ag.amin
    out = ext(sums, dim=keep, keepdim=True)
    return out if keepdim else out.squeeze((d0, d1))


def norm(A: Tensor, ord: Any = None, dim: Any = None, keepdim: bool = False, *,
         dtype: Any = None) -> Tensor:
    """``vector_norm`` or ``matrix_norm`` by ``ord``/``dim`` (PyTorch's ``linalg.norm``)."""
    if dim is not None and not isinstance(dim, int) and len(dim) == 2:
        return matrix_norm(A, "fro" if ord is None else ord, dim, keepdim, dtype=dtype)
    if dim is None and ord is not None:
        if A.ndim == 2:
            return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
        if A.ndim != 1:
            raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input "
                               f"must be 1D or 2D. Got {A.ndim}D.")
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.norm: ord {ord!r} needs a matrix (2 dims)")
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


# -- products: cross, vecdot, multi_dot, matrix_power, matrix_exp --------------------------

def cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:
    """The cross product of 3-vectors along ``dim`` (broadcasting the other dimensions)."""
    import arraygrad as ag

    op = "linalg.cross"
    if _is_integral(input) and _is_integral(other):  # PyTorch's cross takes integers too
        same_backend(op, input, other)
    else:
        _floating(op, input, other)
    if input.ndim != other.ndim:
        raise RuntimeError(f"{op}: inputs dimension {input.ndim} does not match other "
                           f"dimension {other.ndim}")
    if input.shape[dim] != 3 or other.shape[dim] != 3:
        raise RuntimeError(f"{op}: inputs dimension {dim} must have length 3. Got "
                           f"{input.shape[dim]} and {other.shape[dim]}")
    i1 = ag.tensor([1, 2, 0], device=input.device)
    i2 = ag.tensor([2, 0, 1], device=input.device)
    return (input.index_select(dim, i1) * other.index_select(dim, i2)
            - input.index_select(dim, i2) * other.index_select(dim, i1))


def vecdot(x: Tensor, y: Tensor, *, dim: int = -1) -> Tensor:
    """The dot product of vectors along ``dim`` (broadcasting the others)."""
    _floating("linalg.vecdot", x, y)
    if x.shape[dim] != y.shape[dim]:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same size along dim "
                           f"{dim}, got {x.shape[dim]} and {y.shape[dim]}")
    return (x * y).sum(dim)


def multi_dot(tensors: Sequence[Tensor]) -> Tensor:
    """The product of matrices, left to right; a first (last) 1-D tensor is a row (column)."""
    if _amp.on:  # autocast (arraygrad.amp.state)
        tensors = _amp.cast("multi_dot", *tensors)
    op = "linalg.multi_dot"
    ts = list(tensors)
    if len(ts) < 2:
        raise RuntimeError(f"{op}(): expected at least 2 tensors but got {len(ts)}")
    _floating(op, *ts)
    for i, t in enumerate(ts):
        want = (1, 2) if i in (0, len(ts) - 1) else (2,)
        if t.ndim not in want:
            raise RuntimeError(f"{op}(): tensor {i} must be "
                               f"{'1D or 2D' if len(want) == 2 else '2D'} but got {t.ndim}D")
    out = ts[0]
    for t in ts[1:]:
        out = out @ t
    return out


def matrix_power(A: Tensor, n: int) -> Tensor:
    """``A`` to the integer power ``n`` (repeated squaring; ``n < 0`` inverts first)."""
    op = "linalg.matrix_power"
    _square(op, A)
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"{op}: n must be an int, got {type(n).__name__}")
    if n == 0:
        return A * 0 + _eye(A.shape[-1], A)  # the identity; its gradient is zero
    base = inv(A) if n < 0 else A
    k, out = abs(n), None
    while True:
        if k & 1:
            out = base if out is None else out @ base
        k >>= 1
        if not k:
            break
        base = base @ base
    assert out is not None
    return out


def matrix_exp(A: Tensor) -> Tensor:
    """The matrix exponential: scaling and squaring over a degree-18 Taylor polynomial, in
    Tensor ops (so its gradient is the composite's)."""
    op = "linalg.matrix_exp"
    backend = _square(op, A)
    xp = backend.xp
    if A.numel() == 0:
        return A * 1
    # the 1-norm chooses the scaling; without values (meta) any scaling gives the shape
    a1 = float(xp.max(xp.sum(xp.abs(A._data), axis=-2))) if backend.holds_data else 0.0
    s = max(0, math.ceil(math.log2(a1 / 0.5))) if a1 > 0.5 and math.isfinite(a1) else 0
    X = A / float(2 ** s)
    eye = _eye(A.shape[-1], A)
    out = eye + X * 0
    for k in range(18, 0, -1):  # Horner: I + X/1 (I + X/2 (I + ...))
        out = eye + (X @ out) / float(k)
    for _ in range(s):
        out = out @ out
    return out


def _svd_old(input: Tensor, some: bool = True, compute_uv: bool = True) -> Any:
    """``torch.svd``: ``(U, S, V)`` (V, not Vh); ``some=False`` gives full U and V; without
    ``compute_uv``, U and V are zeros."""
    U, S, Vh = svd(input, full_matrices=not some)
    if not compute_uv:
        return SvdResult(U.detach() * 0, S, Vh.mT.detach() * 0)
    return SvdResult(U, S, Vh.mT)


def _cholesky_old(input: Tensor, upper: bool = False) -> Tensor:
    """``torch.cholesky``: ``linalg.cholesky(input, upper=upper)``."""
    return cholesky(input, upper=upper)


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "inverse": renamed_keywords(inv, input="A"), "det": renamed_keywords(det, input="A"),
    "logdet": logdet, "slogdet": renamed_keywords(slogdet, input="A"),
    "cholesky": _cholesky_old, "svd": _svd_old, "pinverse": pinverse,
    "matrix_power": renamed_keywords(matrix_power, input="A"),
    "matrix_exp": renamed_keywords(matrix_exp, input="A"),
}
"""Top-level ``arraygrad.<name>`` (PyTorch's ``torch.<name>``)."""

METHODS: dict[str, Callable[..., Any]] = dict(FUNCTIONS)
"""``Tensor.<name>`` methods (the same functions, ``self`` first)."""
