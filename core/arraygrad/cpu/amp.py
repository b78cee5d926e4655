"""``arraygrad.cpu.amp``: PyTorch's deprecated CPU spellings of ``arraygrad.amp``
(``torch.cpu.amp.autocast()`` is ``autocast("cpu")``), with PyTorch's FutureWarning."""

from __future__ import annotations

import warnings
from typing import Any

from arraygrad.amp import autocast_mode as _autocast_mode
from arraygrad.amp._deprecated import DeprecatedGradScaler

__all__ = ["autocast", "GradScaler"]


class autocast(_autocast_mode.autocast):
    """``arraygrad.autocast("cpu", ...)``: ``dtype`` None is the CPU's default (bfloat16, not
    an arraygrad dtype yet: the region warns and runs disabled; pass ``arraygrad.float16``)."""

    def __init__(self, enabled: bool = True, dtype: Any = None, cache_enabled: bool = True) -> None:
        warnings.warn("`torch.cpu.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cpu', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(DeprecatedGradScaler):
    """``arraygrad.amp.GradScaler("cpu", ...)`` (deprecated spelling: a FutureWarning)."""

    _deprecated_device = "cpu"
