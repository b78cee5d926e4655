"""The older, hook-based ``nn.utils.spectral_norm`` / ``remove_spectral_norm``: parameter
``<name>_orig``, buffers ``<name>_u``/``<name>_v``, the weight divided by its power-iteration
spectral norm before each forward (one iteration per training forward)."""

from __future__ import annotations

from typing import Any

from arraygrad.autograd.grad_mode import no_grad
from arraygrad.creation import randn
from arraygrad.nn.modules.module import Module
from arraygrad.nn.parameter import Parameter
from arraygrad.nn.utils._norms import (
    hook_on, matrix_along, normalize_vector, power_iterate, put_back, sigma,
)

__all__ = ["spectral_norm", "remove_spectral_norm", "SpectralNorm"]


class SpectralNorm:
    """The forward pre-hook recomputing ``module.<name> = <name>_orig / sigma``."""

    def __init__(self, name: str, n_power_iterations: int, dim: int, eps: float) -> None:
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.name = name
        self.n_power_iterations = n_power_iterations
        self.dim = dim
        self.eps = eps

    def compute_weight(self, module: Module, do_power_iteration: bool) -> Any:
        """The normalised weight (power iteration first when ``do_power_iteration``)."""
        weight = getattr(module, self.name + "_orig")
        u, v = getattr(module, self.name + "_u"), getattr(module, self.name + "_v")
        weight_mat = matrix_along(weight, self.dim)
        if do_power_iteration:
            power_iterate(weight_mat.detach(), u, v, self.n_power_iterations, self.eps,
                          v_first=True)
            u, v = u.clone(), v.clone()
        return weight / sigma(weight_mat, u, v)

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module, module.training))


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: int | None = None) -> Module:
    """Spectral normalisation of ``module.<name>`` by a forward pre-hook; returns ``module``."""
    if hook_on(module, SpectralNorm, name) is not None:
        raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter "
                           f"{name}")
    if dim is None:
        dim = 1 if type(module).__name__.startswith("ConvTranspose") else 0
    weight = module._parameters.get(name)
    if weight is None:
        raise ValueError(f"Module '{type(module).__name__}' has no parameter '{name}'")
    fn = SpectralNorm(name, n_power_iterations, dim, eps)
    with no_grad():
        weight_mat = matrix_along(weight, dim)
        h, w = weight_mat.shape
        u = normalize_vector(randn(h, dtype=weight.dtype, device=weight.device), eps)
        v = normalize_vector(randn(w, dtype=weight.dtype, device=weight.device), eps)
    del module._parameters[name]
    module.register_parameter(name + "_orig", Parameter(weight.detach(), weight.requires_grad))
    setattr(module, name, weight.detach().clone())
    module.register_buffer(name + "_u", u)
    module.register_buffer(name + "_v", v)
    module.register_forward_pre_hook(fn)
    return module


def remove_spectral_norm(module: Module, name: str = "weight") -> Module:
    """Put ``module.<name>`` back as one parameter (its current normalised value)."""
    found = hook_on(module, SpectralNorm, name)
    if found is None:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    key, hook = found
    with no_grad():
        weight = hook.compute_weight(module, do_power_iteration=False).detach()
    return put_back(module, name, key, weight, (name + "_orig",), (name + "_u", name + "_v"))
