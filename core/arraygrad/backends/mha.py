"""``arraygrad.backends.mha``: the switch of ``nn.MultiheadAttention``'s fused inference path.

arraygrad's multi-head attention has one path; the switch is stored and answered back."""

from __future__ import annotations

__all__ = ["get_fastpath_enabled", "set_fastpath_enabled"]

_fastpath = [True]


def get_fastpath_enabled() -> bool:
    """The fast-path switch (True by default, as PyTorch)."""
    return _fastpath[0]


def set_fastpath_enabled(value: bool) -> None:
    """Store the fast-path switch."""
    _fastpath[0] = bool(value)
