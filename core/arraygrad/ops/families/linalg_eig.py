"""``linalg.eig`` and ``linalg.eigvals``: the eigendecomposition of any square matrix.

Its results are complex whatever the input (complex64 for float32, complex128 for float64),
as PyTorch's. The Array API's linalg extension has ``eigh`` only, so the forward is the
backend's ``linalg_eig`` kernel (``(eigenvalues, eigenvectors)`` of a native array: LAPACK's
geev on NumPy, whose eigenvectors have unit norm as PyTorch's do); a backend without one
raises a RuntimeError naming it.

The gradient is PyTorch's (eigenvalues distinct): with ``E[i, j] = conj(L_j - L_i)`` off the
diagonal, ``gA = V^{-H} (diag(gL) + (V^H gV - V^H V Re(diag(V^H gV))) / E) V^H``, and its real
part for a real ``A``. An eigenvector is defined up to a phase, so a loss that depends on the
phase has no gradient (PyTorch's check: the imaginary part of ``diag(V^H gV)`` must vanish).
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any, Callable, Sequence

from arraygrad.ops.complex_views import imag, real
from arraygrad.ops.conjugate import conj
from arraygrad.ops.families.linalg_ops import _PENDING, _floating, _matrices, _save_outputs, solve
from arraygrad.ops.rule import VIA_VJP, RuleNode, defop
from arraygrad.plugins.registry import dispatch_kernel
from arraygrad.tensor import Tensor

__all__ = ["eig", "eigvals", "FUNCTIONS"]

EigResult = namedtuple("EigResult", ["eigenvalues", "eigenvectors"])


def _eig_vjp(g: Sequence[Tensor], n: RuleNode) -> Tensor:
    import arraygrad as ag

    gL, gV = g  # (both given: the recorder fills a missing one with zeros)
    L, V = n.eigenvalues, n.eigenvectors
    Vh = conj(V.mT)
    VhgV = Vh @ gV
    diag = VhgV.diagonal(0, -2, -1)
    if bool((imag(diag).abs() > 1e-2 * (1 + diag.abs())).any()):
        raise RuntimeError(
            "linalg_eig_backward: The eigenvectors in the complex case are specified up to "
            "multiplication by e^{i phi}. The specified loss function depends on this "
            "quantity, so it is ill-defined.")
    VhgV = VhgV - Vh @ (V * real(diag).unsqueeze(-2))
    Lc = conj(L)
    E = Lc.unsqueeze(-2) - Lc.unsqueeze(-1)
    eye = ag.eye(L.shape[-1], dtype=ag.bool, device=L.device)
    inner = ag.where(eye, 0.0, VhgV / ag.where(eye, 1.0, E)) + gL.unsqueeze(-1) * eye.to(L.dtype)
    return solve(Vh, inner @ Vh)  # V^{-H} inner V^H


EIG = defop("LinalgEigBackward0", jvp=VIA_VJP, inputs=("A",),
            saves=("eigenvalues", "eigenvectors"), vjp=(_eig_vjp,), outputs=2, complex=True)


def _no_kernel(op: str, backend: Any) -> Callable[[Any], Any]:
    def refuse(a: Any) -> Any:
        raise RuntimeError(f"{op}: the {backend.name!r} backend has no general eigendecomposition "
                           "(a 'linalg_eig' kernel: the Array API linalg extension has eigh only)")
    return refuse


def eig(A: Tensor) -> tuple[Tensor, Tensor]:
    """``(eigenvalues, eigenvectors)`` of square matrices ``A`` (batched), complex: ``A V =
    V diag(eigenvalues)``, each eigenvector of unit norm."""
    op = "linalg.eig"
    backend = _floating(op, A, complex=True)
    _matrices(op, A, square=True)
    d = A.dtype if A.dtype.is_complex else A.dtype.to_complex()
    native = backend.native_dtype(d)
    xp = backend.xp
    w, v = dispatch_kernel("linalg_eig", backend, _no_kernel(op, backend), A._data)
    L, V = EIG.record_many((xp.astype(w, native), xp.astype(v, native)), backend, (A,),
                           eigenvalues=_PENDING, eigenvectors=_PENDING)
    _save_outputs(EIG, (L, V), ("eigenvalues", "eigenvectors"))
    return EigResult(L, V)


def eigvals(A: Tensor) -> Tensor:
    """The eigenvalues of square matrices ``A`` (complex), as ``linalg.eig``'s first result
    (its node: ``LinalgEigBackward0``, as PyTorch's)."""
    return eig(A)[0]


FUNCTIONS: dict[str, Callable[..., Any]] = {}  # linalg's namespace: ``arraygrad.linalg``
