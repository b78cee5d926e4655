"""Which ``scaled_dot_product_attention`` backends are enabled, and in what priority order:
the one state ``nn.attention.sdpa_kernel`` and ``backends.cuda``'s ``enable_*_sdp`` switches
both set (a leaf module, so neither imports the other).

arraygrad computes attention one way, the math formula, on every device; that is what
PyTorch's ``MATH`` backend computes, and on the CPU its ``FLASH_ATTENTION`` backend too (a
fused kernel, same values). So ``scaled_dot_product_attention`` runs while either is
enabled and raises PyTorch's "No viable backend" error otherwise, as PyTorch's CPU build
does.
"""

from __future__ import annotations

import enum

__all__ = ["SDPBackend", "enabled", "set_enabled", "priority", "set_priority", "check_viable"]


class SDPBackend(enum.Enum):
    """The backends of scaled dot product attention (PyTorch's names and numbers)."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __int__(self) -> int:
        return int(self.value)

    def __index__(self) -> int:
        return int(self.value)


_ALL = (SDPBackend.MATH, SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION,
        SDPBackend.CUDNN_ATTENTION, SDPBackend.OVERRIDEABLE)
_enabled: set[SDPBackend] = set(_ALL)  # PyTorch enables them all by default
_priority: list[int] = [1, 2, 0, 3, 4]  # PyTorch's default order (flash first)


def enabled() -> list[SDPBackend]:
    """The enabled backends, in PyTorch's listing order (cudnn, flash, efficient, math,
    overrideable)."""
    order = (SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION,
             SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH, SDPBackend.OVERRIDEABLE)
    return [b for b in order if b in _enabled]


def set_enabled(backend: SDPBackend, on: bool) -> None:
    """Enable or disable one backend."""
    if on:
        _enabled.add(backend)
    else:
        _enabled.discard(backend)


def priority() -> list[int]:
    """The backends' priority order, as their numbers."""
    return list(_priority)


def set_priority(order: list[int]) -> None:
    """Set the priority order (every backend's number once)."""
    _priority[:] = order


def check_viable() -> None:
    """PyTorch's RuntimeError when no backend that computes here is enabled."""
    if SDPBackend.MATH not in _enabled and SDPBackend.FLASH_ATTENTION not in _enabled:
        raise RuntimeError("No viable backend for scaled_dot_product_attention was found. This "
                           "is likely due to turning off both the math kernel and the fused "
                           "kernels.")
