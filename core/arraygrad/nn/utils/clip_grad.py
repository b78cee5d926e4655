"""Gradient clipping, as ``torch.nn.utils.clip_grad``.

``clip_grad_norm_`` is ``get_total_norm`` of the gradients followed by
``clip_grads_with_norm_``; ``clip_grad_value_`` clamps each gradient. All of them work
under ``no_grad`` and change the ``.grad`` tensors in place. ``foreach`` is accepted for
PyTorch compatibility: arraygrad has one implementation, which is used either way.
"""

from __future__ import annotations

import functools
import types
import warnings
from typing import Callable, Iterable, ParamSpec, TypeAlias, TypeVar

from arraygrad.autograd.grad_mode import no_grad
from arraygrad.ops.fast_optim import grad_norms_data, scale_in_place
from arraygrad.tensor import Tensor, wrap

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_",
           "get_total_norm"]

_tensor_or_tensors: TypeAlias = "Tensor | Iterable[Tensor]"

_P = ParamSpec("_P")
_R = TypeVar("_R")


def _no_grad(func: Callable[_P, _R]) -> Callable[_P, _R]:
    """Run ``func`` under ``no_grad`` (keeping its name and docstring)."""
    @functools.wraps(func)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with no_grad():
            return func(*args, **kwargs)
    return wrapper


def _check_foreach(foreach: bool | None) -> None:
    # PyTorch raises for foreach=True only on devices without foreach kernels; arraygrad's
    # single implementation serves every device, so any bool (or None) is fine.
    if foreach is not None and not isinstance(foreach, bool):
        raise TypeError(f"foreach must be a bool or None, got {type(foreach).__name__}")


def _on(t: Tensor, other: Tensor) -> Tensor:
    """``t`` on ``other``'s device (``t`` itself when it is there already)."""
    return t if t._backend is other._backend else t.to(other.device)


@_no_grad
def get_total_norm(tensors: _tensor_or_tensors, norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """The ``norm_type``-norm of all ``tensors`` taken together as one vector.

    ``norm_type`` may be ``inf``. With ``error_if_nonfinite`` a nan or infinite total
    raises RuntimeError. An empty iterable gives ``tensor(0.)``.

    >>> get_total_norm([arraygrad.tensor([3.0]), arraygrad.tensor([4.0])])
    tensor(5.)
    """
    from arraygrad.creation import tensor as make_tensor
    from arraygrad.linalg import vector_norm
    from arraygrad.ops.shape import stack

    _check_foreach(foreach)
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return make_tensor(0.0)
    first = tensors[0]
    norms_data = grad_norms_data(tensors, norm_type)  # on the arrays where it may
    if norms_data is not None:
        total_norm: Tensor = vector_norm(wrap(norms_data, first._backend), norm_type)
    else:
        # a move only between backends (each serves one device): ``.to`` parses its
        # arguments and builds a device object even when nothing moves, per gradient per step
        norms = [_on(vector_norm(t, norm_type), first) for t in tensors]
        total_norm = vector_norm(stack(norms), norm_type)
    if error_if_nonfinite and bool(total_norm.isnan() | total_norm.isinf()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, "
            "so it cannot be clipped. To disable this error and scale the gradients by the "
            "non-finite norm anyway, set `error_if_nonfinite=False`")
    return total_norm


@_no_grad
def clip_grads_with_norm_(parameters: _tensor_or_tensors, max_norm: float, total_norm: Tensor,
                          foreach: bool | None = None) -> None:
    """Scale every ``p.grad`` in place by ``min(max_norm / (total_norm + 1e-6), 1)``.

    ``clip_grad_norm_`` with a total norm computed beforehand (e.g. by ``get_total_norm``).
    """
    from arraygrad.ops.elementwise import clamp

    _check_foreach(foreach)
    params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    grads = [p.grad for p in params if p.grad is not None]
    max_norm = float(max_norm)
    if not grads:
        return
    clip_coef = max_norm / (total_norm + 1e-6)
    clip_coef_clamped = clamp(clip_coef, max=1.0)
    for g in scale_in_place(grads, clip_coef_clamped):  # those its arrays could not take
        g.mul_(_on(clip_coef_clamped, g))


@_no_grad
def clip_grad_norm_(parameters: _tensor_or_tensors, max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Rescale the gradients so that their total ``norm_type``-norm is at most ``max_norm``.

    The norm is taken over all gradients together, as if concatenated into one vector;
    returns that total norm (before clipping) as a tensor. ``norm_type`` may be ``inf``.

    >>> loss.backward()
    >>> total = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    """
    if isinstance(parameters, Tensor):
        params = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        params = list(parameters)
        if is_generator and not params:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.",
                          stacklevel=3)
    grads = [p.grad for p in params if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(params, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters: _tensor_or_tensors, max_norm: float, norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Deprecated alias of ``clip_grad_norm_`` (warns with FutureWarning, as PyTorch)."""
    warnings.warn("`arraygrad.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`arraygrad.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@_no_grad
def clip_grad_value_(parameters: _tensor_or_tensors, clip_value: float,
                     foreach: bool | None = None) -> None:
    """Clamp every ``p.grad`` in place to ``[-clip_value, clip_value]``."""
    _check_foreach(foreach)
    params = [parameters] if isinstance(parameters, Tensor) else parameters
    clip_value = float(clip_value)
    for p in params:
        if p.grad is not None:
            p.grad.clamp_(min=-clip_value, max=clip_value)
