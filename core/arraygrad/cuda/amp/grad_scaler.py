"""``arraygrad.cuda.amp.GradScaler``: ``arraygrad.amp.GradScaler("cuda", ...)``, with PyTorch's
deprecation warning."""

from __future__ import annotations

from arraygrad.amp._deprecated import DeprecatedGradScaler

__all__ = ["GradScaler"]


class GradScaler(DeprecatedGradScaler):
    """``arraygrad.amp.GradScaler("cuda", ...)`` (deprecated spelling: a FutureWarning)."""

    _deprecated_device = "cuda"
