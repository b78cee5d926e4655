"""Householder reflectors in LAPACK's compact form: ``geqrf`` (QR as reflectors and ``tau``),
``linalg.householder_product`` (``orgqr``: the matrix ``Q`` they make) and ``ormqr``
(multiplying by ``Q`` without forming it).

``geqrf`` is LAPACK's ``geqr2``/``larfg`` (``beta = -sign(alpha) * ||x||``,
``tau = (beta - alpha) / beta``) written with Array API calls, without writes in place; like
PyTorch's, it has no gradient. ``householder_product`` and ``ormqr`` apply the reflectors one at a
time in Tensor ops, so their gradients (in the reflectors, ``tau`` and ``other``) are the
composite's.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

from arraygrad.ops.arguments import renamed_keywords
from arraygrad.ops.families.linalg_ops import _floating, _matrices
from arraygrad.tensor import Tensor, wrap

__all__ = ["geqrf", "householder_product", "ormqr", "FUNCTIONS", "METHODS"]

GeqrfResult = namedtuple("GeqrfResult", ["a", "tau"])


def _geqrf_data(xp: Any, a: Any) -> tuple[Any, Any]:
    m, n = a.shape[-2], a.shape[-1]
    k = min(m, n)
    rows = xp.reshape(xp.arange(m), (m, 1))
    cols = xp.reshape(xp.arange(n), (1, n))
    taus = []
    for j in range(k):
        x = a[..., :, j]
        alpha = a[..., j, j]
        tail = xp.where(rows[:, 0] > j, x, 0.0)
        xnorm = xp.sqrt(xp.sum(tail * tail, axis=-1))
        beta = -xp.where(alpha >= 0, 1.0, -1.0) * xp.sqrt(alpha * alpha + xnorm * xnorm)
        reflect = xnorm != 0
        safe_beta = xp.where(reflect, beta, 1.0)
        tau = xp.where(reflect, (safe_beta - alpha) / safe_beta, 0.0)
        scale = xp.where(reflect, 1.0 / xp.where(reflect, alpha - beta, 1.0), 0.0)
        v = xp.where(rows[:, 0] == j, 1.0, tail * scale[..., None])  # v[j] = 1, zero above
        # apply H = I - tau v v^T to the columns right of j
        w = xp.sum(v[..., :, None] * a, axis=-2)  # v^T a
        update = tau[..., None, None] * v[..., :, None] * w[..., None, :]
        a = xp.where(cols > j, a - update, a)
        new_col = xp.where(rows[:, 0] == j, xp.where(reflect, beta, alpha)[..., None],
                           xp.where(rows[:, 0] > j, v, x))
        a = xp.where(cols == j, new_col[..., :, None], a)
        taus.append(tau)
    tau_all = xp.stack(taus, axis=-1) if taus else xp.zeros(tuple(a.shape[:-2]) + (0,),
                                                             dtype=a.dtype)
    return a, tau_all


def geqrf(input: Tensor) -> Any:
    """``(a, tau)``: the QR decomposition in LAPACK's ``geqrf`` form (``R`` on and above the
    diagonal, the Householder vectors below it). Not differentiable, as in PyTorch."""
    op = "geqrf"
    backend = _floating(op, input)
    _matrices(op, input, name="input")
    a, tau = _geqrf_data(backend.xp, input.detach()._data)
    return GeqrfResult(wrap(a, backend), wrap(tau, backend))


def _reflector(A: Tensor, i: int) -> Tensor:
    """The i-th Householder vector stored in column i of ``A`` (1 at i, zeros above)."""
    import arraygrad as ag

    m = A.shape[-2]
    r = ag.arange(m, device=A.device)
    return ag.where(r == i, 1.0, ag.where(r > i, A[..., :, i], 0.0)).to(A.dtype)


def _apply(C: Tensor, v: Tensor, tau: Tensor, left: bool) -> Tensor:
    """``H C`` (``left``) or ``C H`` with ``H = I - tau v v^T`` (batched)."""
    t = tau.unsqueeze(-1).unsqueeze(-1)
    if left:
        return C - t * v.unsqueeze(-1) @ (v.unsqueeze(-2) @ C)
    return C - t * (C @ v.unsqueeze(-1)) @ v.unsqueeze(-2)


def _check(op: str, A: Tensor, tau: Tensor) -> None:
    _floating(op, A, tau)
    _matrices(op, A, name="input")
    if tau.shape[-1] > A.shape[-1]:
        raise RuntimeError(f"{op}: input.shape[-1] must be greater than or equal to "
                           f"tau.shape[-1], got {A.shape[-1]} and {tau.shape[-1]}")
    if A.shape[-2] < A.shape[-1]:
        raise RuntimeError(f"{op}: input.shape[-2] must be greater than or equal to "
                           f"input.shape[-1], got {A.shape[-2]} and {A.shape[-1]}")


def householder_product(A: Tensor, tau: Tensor) -> Tensor:
    """The first ``n`` columns of ``H_1 H_2 ... H_k`` for the reflectors stored in ``A``'s
    columns (``m >= n >= k``): LAPACK's ``orgqr``, as ``torch.linalg.householder_product``."""
    import arraygrad as ag

    op = "linalg.householder_product"
    _check(op, A, tau)
    m, n = A.shape[-2], A.shape[-1]
    Q = ag.eye(m, n, dtype=A.dtype, device=A.device).expand(tuple(A.shape[:-2]) + (m, n))
    for i in range(tau.shape[-1] - 1, -1, -1):
        Q = _apply(Q, _reflector(A, i), tau[..., i], left=True)
    return Q


def ormqr(input: Tensor, tau: Tensor, other: Tensor, left: bool = True,
          transpose: bool = False) -> Tensor:
    """``Q @ other`` (``other @ Q`` when not ``left``; ``Q^T`` when ``transpose``) with ``Q`` the
    product of the reflectors in ``input`` (LAPACK's ``ormqr``), without forming ``Q``."""
    op = "ormqr"
    _floating(op, input, tau, other)
    _matrices(op, input, name="input")
    _matrices(op, other, name="other")
    k = tau.shape[-1]
    if k > input.shape[-1]:
        raise RuntimeError(f"{op}: tau.shape[-1] must be less than or equal to input.shape[-1], "
                           f"got {k} and {input.shape[-1]}")
    size = other.shape[-2] if left else other.shape[-1]
    if input.shape[-2] != size:
        raise RuntimeError(f"{op}: input.shape[-2] must be equal to other.shape["
                           f"{-2 if left else -1}], got {input.shape[-2]} and {size}")
    # Q = H_1 ... H_k: Q C applies H_k first; Q^T C applies H_1 first; C Q applies H_1 first
    first_to_last = (left and transpose) or (not left and not transpose)
    order = range(k) if first_to_last else range(k - 1, -1, -1)
    out = other
    for i in order:
        out = _apply(out, _reflector(input, i), tau[..., i], left=left)
    return out


FUNCTIONS = {"geqrf": geqrf,
             "orgqr": renamed_keywords(householder_product, input="A", input2="tau"),
             "ormqr": renamed_keywords(ormqr, input2="tau", input3="other")}
"""``arraygrad.geqrf``, ``orgqr`` (``linalg.householder_product``) and ``ormqr``."""

METHODS = dict(FUNCTIONS)
"""The same as ``Tensor`` methods."""
