"""``arraygrad.Stream`` and ``arraygrad.Event``: PyTorch's device-generic streams and events.

A stream is an in-order queue of device work; an event a marker in one. On the CPU, where
work runs as it is called, they are what PyTorch's are there: a stream is always done and
synchronizing does nothing, and events cannot be recorded ("cpu backend doesn't support
events."). On a device whose backend has runtime services (``Backend.runtime()``: CUDA through
CuPy) they are that device's own streams and events. ``arraygrad.cuda.Stream`` and
``arraygrad.cuda.Event`` are the CUDA flavours, with ``torch.cuda``'s signatures.
"""

from __future__ import annotations

from typing import Any

from arraygrad.device import DeviceLike, as_device, device

__all__ = ["Stream", "Event"]


def _backend(dev: device) -> Any:
    """``dev``'s backend when it has runtime services; RuntimeError otherwise."""
    from arraygrad.backends.registry import backend_for_device

    try:
        backend = backend_for_device(dev)
    except RuntimeError as exc:
        raise RuntimeError(f"arraygrad has no usable backend for {dev.type} streams and "
                           f"events ({exc})") from None
    if backend.runtime() is None:
        raise RuntimeError(f"backend {backend.name!r} ({dev}) has no streams or events")
    return backend


def _runtime(dev: device) -> Any:
    """The runtime services of ``dev``'s backend; RuntimeError when it has none."""
    return _backend(dev).runtime()


def _default_device(dev: DeviceLike | None) -> device:
    """``dev``, or the current accelerator (the CPU without one), as PyTorch's default."""
    if dev is not None:
        return as_device(dev)
    from arraygrad.backends import registry

    # the accelerator is CUDA when a CUDA backend is usable (``arraygrad.accelerator``)
    cuda = any(b.device_type == "cuda" and b.is_available() for b in registry._registry().values())
    return device("cuda") if cuda else device("cpu")


_CPU_EVENTS = "cpu backend doesn't support events."


class Stream:
    """An in-order queue of device work (``torch.Stream``); ``with stream:`` queues the
    block's device work on it."""

    def __init__(self, device: DeviceLike | None = None, *, priority: int = 0) -> None:
        self.device = _default_device(device)
        self._native = None
        if self.device.type != "cpu":
            backend = _backend(self.device)
            self.device = backend.device  # "cuda" is the current CUDA device, as PyTorch
            self._native = backend.runtime().new_stream(int(priority))
        self._token: list[Any] = []

    @property
    def device_index(self) -> int:
        """The device's index (-1 on the CPU, as PyTorch)."""
        return -1 if self.device.index is None else self.device.index

    @property
    def stream_id(self) -> int:
        """The stream's handle as an int (0: the default stream; the CPU's is 0)."""
        return 0 if self._native is None else self._native.ptr

    def query(self) -> bool:
        """Whether all the work queued on the stream is done."""
        return True if self._native is None else self._native.query()

    def synchronize(self) -> None:
        """Wait on the host until the stream's queued work is done."""
        if self._native is not None:
            self._native.synchronize()

    def wait_event(self, event: "Event") -> None:
        """Make the stream's later work wait for ``event`` (no host wait)."""
        if self._native is not None and event._native is not None:
            self._native.wait_event(event._native)

    def wait_stream(self, stream: "Stream") -> None:
        """Make the stream's later work wait for the work queued on ``stream`` so far."""
        self.wait_event(stream.record_event())

    def record_event(self, event: "Event | None" = None) -> "Event":
        """Record ``event`` (a new one by default) on the stream; returns it."""
        if self._native is None:
            raise RuntimeError(_CPU_EVENTS)
        if event is None:
            event = Event(self.device)
        event.record(self)
        return event

    def __enter__(self) -> "Stream":
        if self._native is not None:
            self._token.append(self._native.make_current())
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._native is not None:
            self._native.restore(self._token.pop())

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Stream) and self.device == other.device
                and self.stream_id == other.stream_id)

    def __hash__(self) -> int:
        return hash((self.device, self.stream_id))

    def __repr__(self) -> str:
        return (f"arraygrad.Stream device_type={self.device.type}, "
                f"device_index={self.device_index}, stream_id={self.stream_id}")


class Event:
    """A marker in a stream's queue of work, for waiting on and timing (``torch.Event``)."""

    def __init__(self, device: DeviceLike | None = None, *, enable_timing: bool = False,
                 blocking: bool = False, interprocess: bool = False) -> None:
        self.device = _default_device(device)
        self.enable_timing = bool(enable_timing)
        self._native = None
        if self.device.type != "cpu":
            backend = _backend(self.device)
            self.device = backend.device
            self._native = backend.runtime().new_event(bool(enable_timing), bool(blocking),
                                                       bool(interprocess))
        self._recorded = False

    def record(self, stream: Stream | None = None) -> None:
        """Put the marker on ``stream`` (the device's current stream by default)."""
        if self._native is None:
            raise RuntimeError(_CPU_EVENTS)
        native = _runtime(self.device).current_stream() if stream is None else stream._native
        self._native.record(native)
        self._recorded = True

    def wait(self, stream: Stream | None = None) -> None:
        """Make ``stream``'s (the current stream's) later work wait for this event."""
        if self._native is None:
            return
        if stream is None:
            _runtime(self.device).current_stream().wait_event(self._native)
        else:
            stream.wait_event(self)

    def query(self) -> bool:
        """Whether the work before the marker is done (True if never recorded)."""
        return True if self._native is None or not self._recorded else self._native.query()

    def synchronize(self) -> None:
        """Wait on the host until the work before the marker is done."""
        if self._native is not None and self._recorded:
            self._native.synchronize()

    def elapsed_time(self, end_event: "Event") -> float:
        """Milliseconds from this event to ``end_event``, both recorded and reached."""
        if not (self._recorded and end_event._recorded):
            raise ValueError("Both events must be recorded before calculating elapsed time.")
        return self._native.elapsed_ms(end_event._native)  # type: ignore[union-attr]

    def __repr__(self) -> str:
        index = -1 if self.device.index is None else self.device.index
        return (f"arraygrad.Event device_type={self.device.type}, device_index={index}, "
                f"event_flag={int(self.enable_timing)}")
