"""The array object's members that the standard names and PyTorch lacks:
``__array_namespace__`` (arraygrad's differentiable namespace) and ``to_device``."""

from __future__ import annotations

from types import ModuleType
from typing import Any

__all__ = ["METHODS", "SUPPORTED_VERSIONS"]

SUPPORTED_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12")


def __array_namespace__(self: Any, /, *, api_version: str | None = None) -> ModuleType:
    """``arraygrad.array_api``, the Array API namespace of tensors (``api_version`` one of
    the standard's releases it implements, the newest by default)."""
    if api_version is not None and api_version not in SUPPORTED_VERSIONS:
        raise ValueError(f"Unrecognized array API version: {api_version!r}; "
                         f"supported: {', '.join(SUPPORTED_VERSIONS)}")
    from arraygrad import array_api
    return array_api


def to_device(self: Any, device: Any, /, *, stream: Any = None) -> Any:
    """The tensor on ``device`` (itself when it is there already), as the standard."""
    if stream is not None:
        raise ValueError("to_device() takes no stream for arraygrad's devices")
    return self.to(device)


METHODS = {"__array_namespace__": __array_namespace__, "to_device": to_device}
