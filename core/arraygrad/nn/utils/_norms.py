"""The arithmetic shared by the two spellings of weight and spectral normalisation
(``nn.utils.parametrizations`` and the older hook-based ``nn.utils.weight_norm`` /
``spectral_norm``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arraygrad.autograd.grad_mode import no_grad
from arraygrad.tensor import Tensor

if TYPE_CHECKING:
    from arraygrad.nn.modules.module import Module

__all__ = ["norm_except_dim", "weight_norm_weight", "matrix_along", "normalize_vector",
           "power_iterate", "sigma", "hook_on", "put_back"]


def norm_except_dim(v: Tensor, dim: int, pow: float = 2) -> Tensor:
    """The ``pow``-norm of ``v`` over every dim but ``dim``, shaped to broadcast with ``v``
    (size 1 elsewhere); ``dim=-1`` means over all dims (a 0-d result), as PyTorch's
    ``norm_except_dim``."""
    if dim == -1:
        return (v * v).sum().sqrt() if pow == 2 else v.norm(pow)
    dims = tuple(d for d in range(v.ndim) if d != dim)
    if pow == 2:
        return (v * v).sum(dim=dims, keepdim=True).sqrt()
    return v.norm(pow, dim=dims, keepdim=True)


def weight_norm_weight(g: Tensor, v: Tensor, dim: int) -> Tensor:
    """``v * g / ||v||`` (the norm over every dim but ``dim``)."""
    return v * (g / norm_except_dim(v, dim))


def matrix_along(weight: Tensor, dim: int) -> Tensor:
    """``weight`` as a matrix whose rows run along ``dim``."""
    if dim != 0:
        order = [dim] + [d for d in range(weight.ndim) if d != dim]
        weight = weight.permute(*order)
    return weight.reshape(weight.shape[0], -1)


def normalize_vector(x: Tensor, eps: float) -> Tensor:
    """``x / max(||x||, eps)``."""
    return x / (x * x).sum().sqrt().clamp_min(eps)


def power_iterate(weight_mat: Tensor, u: Tensor, v: Tensor, n: int, eps: float,
                  v_first: bool = False) -> None:
    """``n`` steps of the power method on ``weight_mat``, updating ``u`` and ``v`` in place
    (outside the graph). The parametrization updates ``u`` then ``v``; the older hook-based
    spectral norm ``v`` then ``u`` (``v_first``): each as PyTorch, so loaded states agree."""
    with no_grad():
        for _ in range(n):
            if v_first:
                v.copy_(normalize_vector(weight_mat.t().mv(u), eps))
            u.copy_(normalize_vector(weight_mat.mv(v), eps))
            if not v_first:
                v.copy_(normalize_vector(weight_mat.t().mv(u), eps))


def sigma(weight_mat: Tensor, u: Tensor, v: Tensor) -> Any:
    """The spectral-norm estimate ``u . (W v)`` (differentiable in ``W``)."""
    return (u * weight_mat.mv(v)).sum()


def hook_on(module: Module, kind: type, name: str) -> tuple[Any, Any] | None:
    """``(key, hook)`` of ``module``'s forward pre-hook of class ``kind`` for ``name``."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, kind) and getattr(hook, "name", None) == name:
            return key, hook
    return None


def put_back(module: Module, name: str, key: Any, weight: Tensor, parameters: tuple[str, ...],
             buffers: tuple[str, ...] = ()) -> Module:
    """Undo a hook-based reparametrization: drop its pre-hook ``key``, its ``parameters`` and
    ``buffers``, and make ``weight`` the parameter ``name`` again."""
    from arraygrad.nn.parameter import Parameter

    delattr(module, name)
    for p in parameters:
        del module._parameters[p]
    for b in buffers:
        del module._buffers[b]
    module.register_parameter(name, Parameter(weight))
    del module._forward_pre_hooks[key]
    return module
