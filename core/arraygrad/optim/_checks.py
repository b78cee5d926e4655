"""Hyper-parameter validation shared by the optimizers, with PyTorch's messages."""

from __future__ import annotations

from typing import Iterable

__all__ = ["check_lr", "check_non_negative", "check_betas"]


def check_lr(lr: float) -> None:
    """``lr`` must be a non-negative number."""
    if not 0.0 <= lr:
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
