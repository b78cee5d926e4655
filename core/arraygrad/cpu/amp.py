"""``arraygrad.cpu.amp``: PyTorch's deprecated CPU spellings of ``arraygrad.amp``
(``torch.cpu.amp.autocast()`` is ``autocast("cpu")``), with PyTorch's FutureWarning."""

from __future__ import annotations

import warnings
from typing import Any

from arraygrad.amp import autocast_mode as _autocast_mode, grad_scaler as _grad_scaler

__all__ = ["autocast", "GradScaler"]


class autocast(_autocast_mode.autocast):
    """``arraygrad.autocast("cpu", ...)``: ``dtype`` None is the CPU's default (bfloat16, not
    an arraygrad dtype yet: the region warns and runs disabled; pass ``arraygrad.float16``)."""

    def __init__(self, enabled: bool = True, dtype: Any = None, cache_enabled: bool = True) -> None:
        warnings.warn("`torch.cpu.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cpu', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(_grad_scaler.GradScaler):
    """``arraygrad.amp.GradScaler("cpu", ...)`` (deprecated spelling: a FutureWarning)."""

    def __init__(self, init_scale: float = 2.0 ** 16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000,
                 enabled: bool = True) -> None:
        warnings.warn("`torch.cpu.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cpu', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__("cpu", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval,
                         enabled=enabled)
