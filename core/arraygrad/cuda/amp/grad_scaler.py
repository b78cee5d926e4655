"""``arraygrad.cuda.amp.GradScaler``: ``arraygrad.amp.GradScaler("cuda", ...)``, with PyTorch's
deprecation warning."""

from __future__ import annotations

import warnings

from arraygrad.amp import grad_scaler as _amp

__all__ = ["GradScaler"]


class GradScaler(_amp.GradScaler):
    """``arraygrad.amp.GradScaler("cuda", ...)`` (deprecated spelling: a FutureWarning)."""

    def __init__(self, init_scale: float = 2.0 ** 16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000,
                 enabled: bool = True) -> None:
        warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__("cuda", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval,
                         enabled=enabled)
