"""``arraygrad.cuda.amp.autocast``, ``custom_fwd``, ``custom_bwd``: ``arraygrad.amp``'s, for
the CUDA device type, with PyTorch's deprecation warnings."""

from __future__ import annotations

import functools
import warnings
from typing import Any, Callable

from arraygrad import dtypes as _dt
from arraygrad.amp import autocast_mode as _amp

__all__ = ["autocast", "custom_fwd", "custom_bwd"]


class autocast(_amp.autocast):
    """``arraygrad.autocast("cuda", ...)`` (deprecated spelling: a FutureWarning)."""

    def __init__(self, enabled: bool = True, dtype: _dt.dtype = _dt.float16,
                 cache_enabled: bool = True) -> None:
        warnings.warn("`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cuda', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


def custom_fwd(fwd: Callable[..., Any] | None = None, *, cast_inputs: Any = None) -> Any:
    """``arraygrad.amp.custom_fwd(device_type="cuda")`` (deprecated spelling)."""
    warnings.warn("`torch.cuda.amp.custom_fwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_fwd(args..., device_type='cuda')` instead.", FutureWarning,
                  stacklevel=2)
    return functools.partial(_amp.custom_fwd, device_type="cuda", cast_inputs=cast_inputs) \
        if fwd is None else _amp.custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd: Callable[..., Any]) -> Any:
    """``arraygrad.amp.custom_bwd(device_type="cuda")`` (deprecated spelling)."""
    warnings.warn("`torch.cuda.amp.custom_bwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_bwd(args..., device_type='cuda')` instead.", FutureWarning,
                  stacklevel=2)
    return _amp.custom_bwd(bwd, device_type="cuda")
