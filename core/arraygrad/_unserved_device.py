"""What the modules of the accelerators no arraygrad backend serves share (``arraygrad.mps``,
``arraygrad.mtia``, ``arraygrad.xpu``): the answers of a PyTorch build without that
accelerator."""

from __future__ import annotations

from typing import Any, Callable

__all__ = ["cannot_execute", "device_count", "is_available", "is_initialized", "manual_seed",
           "manual_seed_all", "module_getattr"]


def is_available() -> bool:
    """False: no arraygrad backend serves this accelerator."""
    return False


def device_count() -> int:
    """0: there is no such device."""
    return 0


def is_initialized() -> bool:
    """False: the accelerator never starts."""
    return False


def manual_seed(seed: int) -> None:
    """Does nothing (there is no generator of this accelerator to seed), as PyTorch without
    the accelerator."""


def manual_seed_all(seed: int) -> None:
    """Does nothing."""


def cannot_execute(kind: str, call: str) -> RuntimeError:
    """PyTorch's RuntimeError for ``call`` without the ``kind`` backend (``mps``, ``mtia``)."""
    return RuntimeError(f"Cannot execute {call}() without {kind.upper()} backend (no arraygrad "
                        f"backend serves {kind} devices).")


def module_getattr(kind: str) -> Callable[[str], Any]:
    """The ``__getattr__`` of ``arraygrad.<kind>``: an AttributeError that says why."""

    def __getattr__(name: str) -> Any:
        raise AttributeError(f"module 'arraygrad.{kind}' has no attribute {name!r} (no "
                             f"arraygrad backend serves {kind} devices)")

    return __getattr__
