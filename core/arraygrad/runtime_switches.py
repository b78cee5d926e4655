"""Process-wide switches PyTorch programs set in their first lines: float32 matmul precision,
denormal flushing, warn-always, anomaly detection. Each is stored and answered back as in
PyTorch; what each changes in arraygrad is said on each function (docs/differences.md)."""

from __future__ import annotations

import warnings

from arraygrad.autograd.anomaly_mode import (
    is_anomaly_check_nan_enabled, is_anomaly_enabled, state as _anomaly,
)

__all__ = ["get_float32_matmul_precision", "set_float32_matmul_precision", "set_flush_denormal",
           "set_warn_always", "is_warn_always_enabled", "set_anomaly_enabled",
           "is_anomaly_enabled", "is_anomaly_check_nan_enabled"]

_switches = {"matmul_precision": "highest", "warn_always": False}


def get_float32_matmul_precision() -> str:
    """The float32 matrix-product precision: ``"highest"``, ``"high"`` or ``"medium"``."""
    return str(_switches["matmul_precision"])


def set_float32_matmul_precision(precision: str) -> None:
    """Store the float32 matrix-product precision (PyTorch's warning, and no change, for
    another value). arraygrad's float32 products are always computed in float32 (its
    backends choose no TF32 or bfloat16 kernels), which is what ``"highest"`` asks for."""
    if not isinstance(precision, str):
        raise RuntimeError(f"set_float32_matmul_precision expects a str, but got "
                           f"{type(precision).__name__}")
    if precision not in ("highest", "high", "medium"):
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current "
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    _switches["matmul_precision"] = precision


def set_flush_denormal(mode: bool) -> bool:
    """Flush denormal floats to zero on the CPU, where supported; returns whether it is.
    arraygrad's array libraries give it no control of the CPU's flush-to-zero mode, so it
    returns False and changes nothing, as PyTorch on a CPU without the support."""
    if not isinstance(mode, bool):
        raise TypeError(f"set_flush_denormal(): argument 'mode' must be bool, not "
                        f"{type(mode).__name__}")
    return False


def set_warn_always(b: bool, /) -> None:
    """Store the warn-always switch (PyTorch then repeats its warn-once warnings). arraygrad's
    warnings are Python warnings, shown as the ``warnings`` filters say: the switch is
    answered back by ``is_warn_always_enabled``."""
    if not isinstance(b, bool):
        raise RuntimeError(f"setWarnOnlyOnce expects a bool, but got {type(b).__name__}")
    _switches["warn_always"] = b


def is_warn_always_enabled() -> bool:
    """The warn-always switch."""
    return bool(_switches["warn_always"])


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Turn autograd's anomaly detection on or off for the process (``detect_anomaly``'s
    switch, without the ``with`` block)."""
    _anomaly.enabled, _anomaly.check_nan = bool(enabled), bool(check_nan)
