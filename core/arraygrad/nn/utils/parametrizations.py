"""``nn.utils.parametrizations``: ``weight_norm``, ``spectral_norm`` and ``orthogonal`` as
parametrizations (``nn.utils.parametrize``), with PyTorch's state_dict keys
(``parametrizations.weight.original0``/``original1``; ``parametrizations.weight.original`` and
``parametrizations.weight.0._u``/``_v``; ``parametrizations.weight.0.base``)."""

from __future__ import annotations

import enum
from typing import Any

from arraygrad import dtypes as _dt
from arraygrad.autograd.grad_mode import no_grad
from arraygrad.creation import eye, randn, zeros_like
from arraygrad.linalg import matrix_exp, qr, solve
from arraygrad.nn.modules.module import Module
from arraygrad.nn.utils import parametrize
from arraygrad.nn.utils._norms import (
    matrix_along, norm_except_dim, normalize_vector, power_iterate, sigma, weight_norm_weight,
)
from arraygrad.ops.families.linalg_householder import geqrf, householder_product
from arraygrad.ops.shape import cat
from arraygrad.tensor import Tensor

__all__ = ["orthogonal", "weight_norm", "spectral_norm"]


class _WeightNorm(Module):
    """``weight = g * v / ||v||``: magnitude ``original0`` and direction ``original1``."""

    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        """The weight from its magnitude and direction."""
        return weight_norm_weight(weight_g, weight_v, self.dim)

    def right_inverse(self, weight: Tensor) -> tuple[Tensor, Tensor]:
        """``(||weight||, weight)``."""
        return norm_except_dim(weight, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Reparametrize ``module.<name>`` by its magnitude and direction (``dim=None``: one
    magnitude for the whole tensor). Returns ``module``."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is not None and dim < -1:
        dim += weight.ndim
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module


class _SpectralNorm(Module):
    """``weight / sigma(weight)`` with ``sigma`` estimated by power iteration (one step per
    training forward); vectors ``_u``, ``_v`` are buffers."""

    def __init__(self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = matrix_along(weight.detach(), self.dim)
            h, w = weight_mat.shape
            opts: dict[str, Any] = {"dtype": weight.dtype, "device": weight.device}
            self.register_buffer("_u", normalize_vector(randn(h, **opts), eps))
            self.register_buffer("_v", normalize_vector(randn(w, **opts), eps))
            power_iterate(weight_mat, self._u, self._v, 15, eps)

    def forward(self, weight: Tensor) -> Tensor:
        """The weight divided by its spectral norm."""
        if weight.ndim == 1:
            return normalize_vector(weight, self.eps)
        weight_mat = matrix_along(weight, self.dim)
        if self.training:
            power_iterate(weight_mat.detach(), self._u, self._v, self.n_power_iterations,
                          self.eps)
        u, v = self._u.clone(), self._v.clone()
        return weight / sigma(weight_mat, u, v)

    def right_inverse(self, value: Tensor) -> Tensor:
        """Any weight is its own preimage (the spectral norm is recomputed)."""
        return value


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: int | None = None) -> Module:
    """Divide ``module.<name>`` by its spectral norm on every access (``dim`` defaults to 1 for
    transposed convolutions, else 0). Returns ``module``."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if type(module).__name__.startswith("ConvTranspose") else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module


def _is_orthogonal(Q: Tensor) -> bool:
    n, k = Q.size(-2), Q.size(-1)
    identity = eye(k, dtype=Q.dtype, device=Q.device)
    eps = 10.0 * n * (2.220446049250313e-16 if Q.dtype == _dt.float64 else
                      1.1920928955078125e-07 if Q.dtype == _dt.float32 else 0.0009765625)
    return bool((Q.mT @ Q).allclose(identity, atol=eps))


def _make_orthogonal(A: Tensor) -> Tensor:
    """The Q of A's QR factorisation whose R has a positive diagonal (unique for full rank)."""
    Q, R = qr(A)
    return Q * R.diagonal(dim1=-2, dim2=-1).sign().unsqueeze(-2)


class _OrthMaps(enum.Enum):
    matrix_exp = enum.auto()
    cayley = enum.auto()
    householder = enum.auto()


class _Orthogonal(Module):
    """An orthogonal matrix (orthonormal columns, or rows when wide) from an unconstrained
    one: ``matrix_exp`` or ``cayley`` of its skew-symmetric part, or the ``householder``
    product of its reflectors; with ``use_trivialization`` times the ``base`` buffer."""

    def __init__(self, weight: Tensor, orthogonal_map: _OrthMaps, *,
                 use_trivialization: bool = True) -> None:
        super().__init__()
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X: Tensor) -> Tensor:
        """The orthogonal matrix ``X`` parametrizes."""
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            X = X.tril()
            if n != k:
                X = cat([X, X.new_zeros((n, n - k)).expand(*X.shape[:-2], -1, -1)], -1)
            A = X - X.mT
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = matrix_exp(A)
            else:
                identity = eye(n, dtype=A.dtype, device=A.device)
                Q = solve(identity - A * 0.5, identity + A * 0.5)
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = householder_product(A, tau)
            # the signs are a constant of the graph (an integer tensor carries no gradient)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).detach().int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    def right_inverse(self, Q: Tensor) -> Tensor:
        """What to store for ``Q``: with ``use_trivialization``, ``Q`` (made orthogonal,
        completed to a square matrix with random columns) becomes ``base`` and the stored
        matrix the one mapping to the identity; otherwise ``Q``'s reflectors."""
        if tuple(Q.shape) != tuple(self.shape):
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        with no_grad():
            Q_init = Q
            n, k = Q.size(-2), Q.size(-1)
            transpose = n < k
            if transpose:
                Q = Q.mT
                n, k = k, n
            if not hasattr(self, "base"):
                if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                    raise NotImplementedError(
                        "It is not possible to assign to the matrix exponential or the Cayley "
                        "parametrizations when use_trivialization=False.")
                A, tau = geqrf(Q)
                diagonal = A.diagonal(dim1=-2, dim2=-1).sign()
                diagonal = diagonal.where(tau != 0.0, -diagonal)  # PyTorch's flip at tau == 0
                A[..., range(k), range(k)] = diagonal
                return A.mT if transpose else A
            if n == k:
                Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
            else:
                N = randn(*(tuple(Q.shape[:-2]) + (n, n - k)), dtype=Q.dtype, device=Q.device)
                Q = _make_orthogonal(cat([Q, N], -1))
            self.base = Q
            neg_identity = zeros_like(Q_init)
            size = min(neg_identity.shape[-2], neg_identity.shape[-1])
            neg_identity[..., range(size), range(size)] = -1.0
            return neg_identity


def orthogonal(module: Module, name: str = "weight", orthogonal_map: str | None = None, *,
               use_trivialization: bool = True) -> Module:
    """Constrain ``module.<name>`` (a matrix or batch of matrices) to be orthogonal: its
    columns orthonormal, or its rows when it is wide. ``orthogonal_map``: ``"matrix_exp"``
    (default for square), ``"cayley"`` or ``"householder"`` (default otherwise). Returns
    ``module``."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of "
                         f"{weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if weight.size(-2) == weight.size(-1) else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", '
                         f'"householder". Got: {orthogonal_map}')
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module
