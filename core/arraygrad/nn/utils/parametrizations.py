"""``nn.utils.parametrizations``: ``weight_norm`` and ``spectral_norm`` as parametrizations
(``nn.utils.parametrize``), with PyTorch's state_dict keys
(``parametrizations.weight.original0``/``original1``; ``parametrizations.weight.original`` and
``parametrizations.weight.0._u``/``_v``)."""

from __future__ import annotations

from typing import Any

from arraygrad.creation import randn
from arraygrad.nn.modules.module import Module
from arraygrad.nn.utils import parametrize
from arraygrad.nn.utils._norms import (
    matrix_along, norm_except_dim, normalize_vector, power_iterate, sigma, weight_norm_weight,
)
from arraygrad.tensor import Tensor

__all__ = ["weight_norm", "spectral_norm"]


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
