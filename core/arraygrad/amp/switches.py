"""PyTorch's top-level autocast switches (``torch.is_autocast_enabled``,
``torch.set_autocast_dtype``...), over ``amp.state``, with the per-device legacy spellings
(``get_autocast_cpu_dtype``...) and their DeprecationWarnings."""

from __future__ import annotations

import warnings
from typing import Any

from arraygrad import dtypes as _dt
from arraygrad.amp import state

__all__ = [
    "is_autocast_enabled", "set_autocast_enabled", "get_autocast_dtype", "set_autocast_dtype",
    "is_autocast_cache_enabled", "set_autocast_cache_enabled", "clear_autocast_cache",
    "autocast_increment_nesting", "autocast_decrement_nesting",
    "is_autocast_cpu_enabled", "set_autocast_cpu_enabled", "get_autocast_cpu_dtype",
    "set_autocast_cpu_dtype", "get_autocast_gpu_dtype", "set_autocast_gpu_dtype",
    "is_autocast_ipu_enabled", "set_autocast_ipu_enabled", "get_autocast_ipu_dtype",
    "set_autocast_ipu_dtype", "is_autocast_xla_enabled", "set_autocast_xla_enabled",
    "get_autocast_xla_dtype", "set_autocast_xla_dtype",
]


def _bool(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name}(): argument 'enabled' must be bool, not {type(value).__name__}")
    return value


def is_autocast_enabled(device_type: str = "cuda") -> bool:
    """Whether autocast is on for ``device_type`` (CUDA when not given) in this thread."""
    return state.is_enabled(device_type)


def set_autocast_enabled(device_type: Any = None, enabled: Any = None) -> None:
    """``set_autocast_enabled(device_type, enabled)``, or ``(enabled)`` for CUDA."""
    if device_type is None and enabled is not None:  # set_autocast_enabled(enabled=...)
        device_type = "cuda"
    elif enabled is None and isinstance(device_type, bool):  # set_autocast_enabled(flag)
        device_type, enabled = "cuda", device_type
    if enabled is None or not isinstance(device_type, str):
        raise TypeError("set_autocast_enabled() received an invalid combination of arguments: "
                        "expected (str device_type, bool enabled) or (bool enabled)")
    state.set_enabled(device_type, _bool("set_autocast_enabled", enabled))


def get_autocast_dtype(device_type: str) -> _dt.dtype:
    """The dtype autocast casts to on ``device_type`` (the CPU's default: bfloat16)."""
    return state.get_dtype(device_type)


def set_autocast_dtype(device_type: str, dtype: _dt.dtype) -> None:
    """Set the dtype autocast casts to on ``device_type``."""
    state.set_dtype(device_type, dtype)


def is_autocast_cache_enabled() -> bool:
    """Whether autocast's weight cache is on (stored: arraygrad casts at each use)."""
    return state.cache_enabled()


def set_autocast_cache_enabled(enabled: bool) -> None:
    """Turn autocast's weight cache on or off (see ``is_autocast_cache_enabled``)."""
    state.set_cache_enabled(_bool("set_autocast_cache_enabled", enabled))


def clear_autocast_cache() -> None:
    """Drop autocast's cached casts (arraygrad keeps none)."""
    state.clear_cache()


def autocast_increment_nesting() -> int:
    """Count one more autocast region; returns the depth."""
    return state.increment_nesting()


def autocast_decrement_nesting() -> int:
    """Count one autocast region fewer; returns the depth."""
    return state.decrement_nesting()


def _deprecated(old: str, new: str) -> None:
    warnings.warn(f"torch.{old} is deprecated. Please use torch.{new} instead.",
                  DeprecationWarning, stacklevel=3)


def is_autocast_cpu_enabled() -> bool:
    """Deprecated: ``is_autocast_enabled("cpu")``."""
    _deprecated("is_autocast_cpu_enabled()", "is_autocast_enabled('cpu')")
    return state.is_enabled("cpu")


def set_autocast_cpu_enabled(enabled: bool) -> None:
    """Deprecated: ``set_autocast_enabled("cpu", enabled)``."""
    _deprecated("set_autocast_cpu_enabled(enabled)", "set_autocast_enabled('cpu', enabled)")
    state.set_enabled("cpu", _bool("set_autocast_cpu_enabled", enabled))


def get_autocast_cpu_dtype() -> _dt.dtype:
    """Deprecated: ``get_autocast_dtype("cpu")``."""
    _deprecated("get_autocast_cpu_dtype()", "get_autocast_dtype('cpu')")
    return state.get_dtype("cpu")


def set_autocast_cpu_dtype(dtype: _dt.dtype) -> None:
    """Deprecated: ``set_autocast_dtype("cpu", dtype)``."""
    _deprecated("set_autocast_cpu_dtype(dtype)", "set_autocast_dtype('cpu', dtype)")
    state.set_dtype("cpu", dtype)


def get_autocast_gpu_dtype() -> _dt.dtype:
    """Deprecated: ``get_autocast_dtype("cuda")``."""
    _deprecated("get_autocast_gpu_dtype()", "get_autocast_dtype('cuda')")
    return state.get_dtype("cuda")


def set_autocast_gpu_dtype(dtype: _dt.dtype) -> None:
    """Deprecated: ``set_autocast_dtype("cuda", dtype)``."""
    _deprecated("set_autocast_gpu_dtype(dtype)", "set_autocast_dtype('cuda', dtype)")
    state.set_dtype("cuda", dtype)


def is_autocast_ipu_enabled() -> bool:
    """Deprecated: ``is_autocast_enabled("ipu")``."""
    _deprecated("is_autocast_ipu_enabled()", "is_autocast_enabled('ipu')")
    return state.is_enabled("ipu")


def set_autocast_ipu_enabled(enabled: bool) -> None:
    """Deprecated: ``set_autocast_enabled("ipu", enabled)``."""
    _deprecated("set_autocast_ipu_enabled(enabled)", "set_autocast_enabled('ipu', enabled)")
    state.set_enabled("ipu", _bool("set_autocast_ipu_enabled", enabled))


def get_autocast_ipu_dtype() -> _dt.dtype:
    """Deprecated: ``get_autocast_dtype("ipu")``."""
    _deprecated("get_autocast_ipu_dtype()", "get_autocast_dtype('ipu')")
    return state.get_dtype("ipu")


def set_autocast_ipu_dtype(dtype: _dt.dtype) -> None:
    """Deprecated: ``set_autocast_dtype("ipu", dtype)``."""
    _deprecated("set_autocast_ipu_dtype(dtype)", "set_autocast_dtype('ipu', dtype)")
    state.set_dtype("ipu", dtype)


def is_autocast_xla_enabled() -> bool:
    """Deprecated: ``is_autocast_enabled("xla")``."""
    _deprecated("is_autocast_xla_enabled()", "is_autocast_enabled('xla')")
    return state.is_enabled("xla")


def set_autocast_xla_enabled(enabled: bool) -> None:
    """Deprecated: ``set_autocast_enabled("xla", enabled)``."""
    _deprecated("set_autocast_xla_enabled(enabled)", "set_autocast_enabled('xla', enabled)")
    state.set_enabled("xla", _bool("set_autocast_xla_enabled", enabled))


def get_autocast_xla_dtype() -> _dt.dtype:
    """Deprecated: ``get_autocast_dtype("xla")`` (bfloat16 by default)."""
    _deprecated("get_autocast_xla_dtype()", "get_autocast_dtype('xla')")
    return state.get_dtype("xla")


def set_autocast_xla_dtype(dtype: _dt.dtype) -> None:
    """Deprecated: ``set_autocast_dtype("xla", dtype)``."""
    _deprecated("set_autocast_xla_dtype(dtype)", "set_autocast_dtype('xla', dtype)")
    state.set_dtype("xla", dtype)
