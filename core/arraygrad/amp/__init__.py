"""``arraygrad.amp``: automatic mixed precision (``torch.amp``): ``autocast`` regions and the
``GradScaler`` (see ``amp.autocast_mode``, ``amp.grad_scaler`` and ``amp.state``).

The ops import ``amp.state``, so this package imports only what is light at import time;
``GradScaler`` (which builds tensors) is loaded on first use.
"""

from __future__ import annotations

from typing import Any

from arraygrad.amp import autocast_mode
from arraygrad.amp.autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available

__all__ = ["autocast", "custom_fwd", "custom_bwd", "is_autocast_available", "GradScaler",
           "autocast_mode", "grad_scaler"]


def __getattr__(name: str) -> Any:
    """``GradScaler`` and ``grad_scaler``, imported on first use."""
    if name in ("GradScaler", "grad_scaler"):
        import importlib

        module = importlib.import_module("arraygrad.amp.grad_scaler")
        return module if name == "grad_scaler" else module.GradScaler
    raise AttributeError(f"module 'arraygrad.amp' has no attribute {name!r}")
