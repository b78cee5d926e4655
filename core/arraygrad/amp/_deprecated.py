"""The deprecated per-device spellings of ``GradScaler`` (``torch.cpu.amp.GradScaler``,
``torch.cuda.amp.GradScaler``): the same scaler, after PyTorch's FutureWarning."""

from __future__ import annotations

import warnings

from arraygrad.amp.grad_scaler import GradScaler

__all__ = ["DeprecatedGradScaler"]


class DeprecatedGradScaler(GradScaler):
    """``arraygrad.amp.GradScaler(<device>, ...)`` for a subclass's ``_deprecated_device``,
    warning (FutureWarning) that the spelling is deprecated."""

    _deprecated_device: str

    def __init__(self, init_scale: float = 2.0 ** 16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000,
                 enabled: bool = True) -> None:
        device = self._deprecated_device
        warnings.warn(f"`torch.{device}.amp.GradScaler(args...)` is deprecated. Please use "
                      f"`torch.amp.GradScaler('{device}', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__(device, init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval,
                         enabled=enabled)
