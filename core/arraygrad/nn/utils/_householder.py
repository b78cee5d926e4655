"""Householder reflections for ``parametrizations.orthogonal``: LAPACK's ``geqrf`` (a QR
factorisation as reflectors, computed without a graph) and ``householder_product`` (the
orthogonal matrix the reflectors make, composed of Tensor ops so it differentiates)."""

from __future__ import annotations

from arraygrad.autograd.grad_mode import no_grad
from arraygrad.creation import eye
from arraygrad.ops.shape import cat
from arraygrad.tensor import Tensor

__all__ = ["geqrf", "householder_product"]


def householder_product(A: Tensor, tau: Tensor) -> Tensor:
    """The first ``n`` columns of ``H_1 ... H_k``, ``H_i = I - tau_i v_i v_i^T``, ``v_i``
    column ``i`` of ``A`` (``m x n``, batched) below the diagonal with an implicit 1 on it
    (LAPACK's ``orgqr``)."""
    m, n = A.shape[-2], A.shape[-1]
    Q = eye(m, dtype=A.dtype, device=A.device).expand(*A.shape[:-2], m, m)
    for i in range(tau.shape[-1]):
        below = A[..., i + 1:, i:i + 1]
        head = below.new_zeros((*below.shape[:-2], i, 1))
        one = below.new_ones((*below.shape[:-2], 1, 1))
        v = cat([head, one, below], -2)  # (..., m, 1)
        Q = Q - (Q @ v) * tau[..., i:i + 1].unsqueeze(-1) @ v.mT
    return Q[..., :n]


def geqrf(A: Tensor) -> tuple[Tensor, Tensor]:
    """``(reflectors, tau)`` of LAPACK's ``geqrf``: ``R`` on and above the diagonal, the
    Householder vectors below it (no graph is recorded)."""
    with no_grad():
        a = A.detach().clone()
        m, n = a.shape[-2], a.shape[-1]
        k = min(m, n)
        taus = []
        for j in range(k):
            x = a[..., j:, j]  # (..., m - j)
            alpha = x[..., 0]
            tail = (x[..., 1:] * x[..., 1:]).sum(-1)
            norm = (alpha * alpha + tail).sqrt()
            reflect = tail > 0
            beta = (-alpha.sign().where(alpha != 0, alpha.new_ones(())) * norm)
            beta = beta.where(reflect, alpha)
            tau = ((beta - alpha) / beta.where(reflect, beta.new_ones(()))).where(
                reflect, alpha.new_zeros(()))
            scale = (1.0 / (alpha - beta).where(reflect, alpha.new_ones(()))).unsqueeze(-1)
            v = cat([x[..., :1].new_ones(x[..., :1].shape), x[..., 1:] * scale], -1)
            rest = a[..., j:, j + 1:]
            update = (v.unsqueeze(-1) * tau.unsqueeze(-1).unsqueeze(-1)) @ (
                v.unsqueeze(-2) @ rest)
            a[..., j:, j + 1:] = rest - update
            a[..., j, j] = beta
            a[..., j + 1:, j] = v[..., 1:]
            taus.append(tau)
        tau_all = (cat([t.unsqueeze(-1) for t in taus], -1) if taus
                   else a.new_zeros((*a.shape[:-2], 0)))
    return a, tau_all
