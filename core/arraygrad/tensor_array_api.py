"""The array object's members that the Array API standard names and PyTorch lacks:
``__array_namespace__`` (arraygrad's differentiable namespace) and ``to_device``.

The namespace sits above the tensor (it is built on the package's ops), so this module does
not import it: ``bind`` is handed a loader by the package, whose lazy submodules include
``array_api``."""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

__all__ = ["bind", "SUPPORTED_VERSIONS"]

SUPPORTED_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12")


def _namespace_method(load: Callable[[], ModuleType]) -> Callable[..., ModuleType]:
    def __array_namespace__(self: Any, /, *, api_version: str | None = None) -> ModuleType:
        """``arraygrad.array_api``, the Array API namespace of tensors (``api_version`` one
        of the standard's releases it implements, the newest by default)."""
        if api_version is not None and api_version not in SUPPORTED_VERSIONS:
            raise ValueError(f"Unrecognized array API version: {api_version!r}; "
                             f"supported: {', '.join(SUPPORTED_VERSIONS)}")
        return load()

    return __array_namespace__


def to_device(self: Any, device: Any, /, *, stream: Any = None) -> Any:
    """The tensor on ``device`` (itself when it is there already), as the standard."""
    if stream is not None:
        raise ValueError("to_device() takes no stream for arraygrad's devices")
    return self.to(device)


def bind(cls: Any, load_namespace: Callable[[], ModuleType]) -> None:
    """Put ``__array_namespace__`` (returning ``load_namespace()``) and ``to_device`` on
    ``cls``."""
    cls.__array_namespace__ = _namespace_method(load_namespace)
    cls.to_device = to_device
