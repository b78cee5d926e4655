"""Hyper-parameter validation and helpers shared by the optimizers, with PyTorch's messages.

The update helpers are written as PyTorch's updates are (see ``Optimizer``).
"""

from __future__ import annotations

from typing import Any, Iterable

from arraygrad import dtypes as _dt
from arraygrad.creation import tensor
from arraygrad.optim.optimizer import _get_value
from arraygrad.tensor import Tensor

__all__ = ["check_lr", "check_non_negative", "check_betas", "check_fused", "scalar",
           "step_tensor", "weight_decay"]


def check_lr(lr: float | Tensor) -> None:
    """``lr`` must be a non-negative number (or a one-element tensor holding one)."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= scalar(lr):
        raise ValueError(f"Invalid learning rate: {lr}")


def check_non_negative(name: str, value: float) -> None:
    """``value`` of hyper-parameter ``name`` must be >= 0 (message: ``Invalid {name} value``)."""
    if not 0.0 <= value:
        raise ValueError(f"Invalid {name} value: {value}")


def check_betas(betas: Iterable[float]) -> None:
    """Both Adam betas must lie in [0, 1)."""
    for i, b in enumerate(betas):
        if not 0.0 <= b < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {b}")


def check_fused(fused: bool | None, foreach: bool | None, differentiable: bool) -> None:
    """PyTorch's refusals of contradictory implementation flags (``fused`` itself has no
    effect here: there is one implementation)."""
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


def scalar(value: Any) -> float:
    """A hyper-parameter as a Python float (a one-element tensor ``lr`` is read out)."""
    if isinstance(value, Tensor):
        return float(value.item())
    return float(value)


def step_tensor(like: Tensor, value: float = 0.0) -> Tensor:
    """A 0-d float32 state scalar (``step``, ``mu_product``...), as PyTorch keeps them
    (float64 when the default dtype is float64, as ``_get_scalar_dtype``)."""
    dtype = _dt.float64 if _dt.get_default_dtype() == _dt.float64 else _dt.float32
    return tensor(value, dtype=dtype, device=like.device)


def weight_decay(p: Tensor, g: Tensor, group: dict[str, Any]) -> Tensor:
    """Apply the group's ``weight_decay``: decoupled (AdamW-style, ``decoupled_weight_decay``)
    shrinks ``p`` in place by ``1 - lr * wd``; otherwise (L2) the returned gradient is
    ``g + wd * p``."""
    wd = group["weight_decay"]
    if wd == 0:
        return g
    if group["decoupled_weight_decay"]:
        p.mul_(1 - _get_value(group["lr"]) * wd)
        return g
    return g.add(p, alpha=wd)


