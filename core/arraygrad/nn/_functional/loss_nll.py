"""Likelihood losses of ``nn.functional`` for regression targets: ``gaussian_nll_loss`` and
``poisson_nll_loss`` (PyTorch's formulas, variance rules and Stirling term)."""

from __future__ import annotations

import math
from typing import Any

from arraygrad.amp import state as _amp
from arraygrad.nn._functional.loss import _reduce, _reduction
from arraygrad.nn._functional.loss_margin import same_device
from arraygrad.ops import elementwise as ew
from arraygrad.ops.value_checks import any_true
from arraygrad.tensor import Tensor

__all__ = ["gaussian_nll_loss", "poisson_nll_loss"]


def _gaussian_var(input: Tensor, var: Tensor | float) -> Tensor:
    """``var`` checked and shaped as PyTorch's rules allow: the input's shape, the input's
    without its last dimension (unsqueezed), or one broadcast dimension; a float fills the
    input's shape."""
    if not isinstance(var, Tensor):  # a number: the same variance everywhere
        if var < 0:
            raise ValueError("var has negative entry/entries")
        return ew.full_like_scalar(input, float(var)).expand_as(input)
    if any_true(var._backend, var._data < 0):
        raise ValueError("var has negative entry/entries")
    ishape, vshape = tuple(input.shape), tuple(var.shape)
    if vshape == ishape:
        return var
    if ishape[:-1] == vshape:  # one variance per sample: broadcast along the last dimension
        return var.unsqueeze(-1)
    if len(ishape) == len(vshape) and sum(v for i, v in zip(ishape, vshape) if i != v) == 1:
        return var  # one dimension of size 1 broadcast
    raise ValueError(f"gaussian_nll_loss: var is of incorrect size {list(vshape)} for input of "
                     f"size {list(ishape)}")


def gaussian_nll_loss(input: Tensor, target: Tensor, var: Tensor | float, full: bool = False,
                      eps: float = 1e-6, reduction: str = "mean") -> Tensor:
    """``0.5 (log(max(var, eps)) + (input - target)^2 / max(var, eps))`` (+ ``0.5 log(2 pi)``
    when ``full``).

    The clamp at ``eps`` changes the values only: the gradient reaches ``var`` as if it were
    not clamped, as PyTorch clamps a copy in place under ``no_grad``.
    """
    same_device("gaussian_nll_loss", input, target, var)
    v = _gaussian_var(input, var)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    v = v + (ew.clamp(v, min=eps) - v).detach()
    diff = input - target
    loss = 0.5 * (ew.log(v) + diff * diff / v)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False,
                     size_average: Any = None, eps: float = 1e-8, reduce: Any = None,
                     reduction: str = "mean") -> Tensor:
    """``exp(input) - target * input`` (``log_input``) or ``input - target * log(input + eps)``;
    ``full`` adds Stirling's ``t log t - t + 0.5 log(2 pi t)`` where ``target > 1``."""
    if _amp.on:  # autocast (arraygrad.amp.state)
        input, target = _amp.cast("poisson_nll_loss", input, target)
    reduction = _reduction(size_average, reduce, reduction)
    same_device("poisson_nll_loss", input, target)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    if log_input:
        loss = ew.exp(input) - target * input
    else:
        loss = input - target * ew.log(input + eps)
    if full:
        stirling = target * ew.log(target) - target + 0.5 * ew.log(2 * math.pi * target)
        loss = loss + ew.where(target <= 1, ew.full_like_scalar(stirling, 0.0), stirling)
    return _reduce(loss, reduction)
