"""``arraygrad.cpu``: the CPU as a device module (``torch.cpu``), for device-agnostic code:
always available, one device, work done as it is called (streams and events are no-ops)."""

from __future__ import annotations

from typing import Any

__all__ = ["is_available", "is_initialized", "device_count", "current_device", "set_device",
           "synchronize", "current_stream", "stream", "Stream", "Event", "StreamContext", "amp"]


def is_available() -> bool:
    """Always True."""
    return True


def is_initialized() -> bool:
    """Always True."""
    return True


def device_count() -> int:
    """Always 1."""
    return 1


def current_device() -> str:
    """Always ``"cpu"``."""
    return "cpu"


def set_device(device: Any) -> None:
    """Does nothing: there is one CPU device (as ``torch.cpu.set_device``)."""


def synchronize(device: Any = None) -> None:
    """Does nothing: CPU work is done when its call returns."""


class Stream:
    """The CPU's stream, for device-agnostic code: its methods do nothing."""

    def __init__(self, priority: int = -1) -> None:
        self.priority = priority

    def wait_stream(self, stream: Any) -> None:
        """Nothing to wait for."""

    def wait_event(self, event: Any) -> None:
        """Nothing to wait for."""

    def record_event(self, event: Any = None) -> None:
        """Nothing to record."""


class Event:
    """The CPU's event, for device-agnostic code: always reached."""

    def query(self) -> bool:
        """Always True."""
        return True

    def record(self, stream: Any = None) -> None:
        """Nothing to record."""

    def synchronize(self) -> None:
        """Nothing to wait for."""

    def wait(self, stream: Any = None) -> None:
        """Nothing to wait for."""


_current = Stream()


def current_stream(device: Any = None) -> Stream:
    """The CPU's one stream."""
    return _current


class StreamContext:
    """A ``with`` block on a CPU stream: nothing changes."""

    def __init__(self, stream: Stream | None) -> None:
        self.stream = stream

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None


def stream(stream: Stream | None) -> StreamContext:
    """``with arraygrad.cpu.stream(s):`` (nothing changes on the CPU)."""
    return StreamContext(stream)


def __getattr__(name: str) -> Any:
    if name == "amp":
        import importlib

        return importlib.import_module("arraygrad.cpu.amp")
    raise AttributeError(f"module 'arraygrad.cpu' has no attribute {name!r}")
