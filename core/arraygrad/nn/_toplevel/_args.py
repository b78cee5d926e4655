"""Argument conversions of PyTorch's top-level (ATen) forms of the ``nn.functional`` ops."""

from __future__ import annotations

from typing import Any

__all__ = ["reduction_name", "stride_or_none"]

_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def reduction_name(reduction: Any) -> str:
    """ATen's integer reduction (0 none, 1 mean, 2 sum) as ``nn.functional``'s name."""
    if isinstance(reduction, str):
        return reduction
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _REDUCTIONS[reduction]


def stride_or_none(stride: Any) -> Any:
    """ATen's empty ``stride`` (``[]``, its default) as ``nn.functional``'s None."""
    if isinstance(stride, (list, tuple)) and len(stride) == 0:
        return None
    return stride
