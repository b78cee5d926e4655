"""A device's runtime services: what ``arraygrad.cuda`` asks of a GPU backend beyond arrays.

A backend for an accelerator returns one ``DeviceRuntime`` per device from
``Backend.runtime()`` (the default, None, means "no runtime services"): its memory pool's
figures, the device's properties, and its streams and events. The core never imports the
device library; ``arraygrad.cuda`` turns these answers into PyTorch's (``memory_allocated``,
``get_device_properties``, ``torch.cuda.Stream``...).

Memory figures use PyTorch's ``memory_stats()`` keys, so ``arraygrad.cuda.memory_stats()``
returns them as they are: ``"allocated_bytes.all.current"``, ``"allocated_bytes.all.peak"``,
``"reserved_bytes.all.current"``, ``"reserved_bytes.all.peak"``.
"""

from __future__ import annotations

import abc
from typing import Any

__all__ = ["DeviceRuntime", "NativeEvent", "NativeStream"]


class NativeEvent(abc.ABC):
    """A device event (a marker in a stream's queue of work)."""

    @abc.abstractmethod
    def record(self, stream: "NativeStream") -> None:
        """Put the marker on ``stream``'s queue, behind the work queued so far."""

    @abc.abstractmethod
    def synchronize(self) -> None:
        """Wait on the host until the work before the marker is done."""

    @abc.abstractmethod
    def query(self) -> bool:
        """Whether the work before the marker is done."""

    @abc.abstractmethod
    def elapsed_ms(self, end: "NativeEvent") -> float:
        """Device milliseconds from this marker to ``end`` (both recorded and reached)."""


class NativeStream(abc.ABC):
    """A device stream (an in-order queue of device work)."""

    ptr: int = 0
    """The library's handle (``cudaStream_t`` as an int; 0 is the default stream)."""

    @abc.abstractmethod
    def synchronize(self) -> None:
        """Wait on the host until the stream's queued work is done."""

    @abc.abstractmethod
    def query(self) -> bool:
        """Whether the stream's queued work is done."""

    @abc.abstractmethod
    def wait_event(self, event: NativeEvent) -> None:
        """Make the stream's later work wait for ``event`` (no host wait)."""

    @abc.abstractmethod
    def make_current(self) -> Any:
        """Make this the device's current stream; returns a token for ``restore``."""

    @abc.abstractmethod
    def restore(self, token: Any) -> None:
        """Undo the ``make_current`` that returned ``token``."""


class DeviceRuntime(abc.ABC):
    """One device's runtime: memory pool, properties, streams and events."""

    @abc.abstractmethod
    def properties(self) -> dict[str, Any]:
        """The device's properties: at least ``name``, ``major``, ``minor``,
        ``total_memory`` (bytes) and ``multi_processor_count``."""

    @abc.abstractmethod
    def memory_stats(self) -> dict[str, int]:
        """The memory pool's figures, under PyTorch's ``memory_stats()`` keys (see the module
        docstring)."""

    @abc.abstractmethod
    def reset_peak_memory_stats(self) -> None:
        """Start the peaks over from the current figures."""

    @abc.abstractmethod
    def empty_cache(self) -> None:
        """Give the pool's unused cached blocks back to the device."""

    @abc.abstractmethod
    def mem_get_info(self) -> tuple[int, int]:
        """``(free, total)`` device memory in bytes, as the driver reports them."""

    @abc.abstractmethod
    def set_memory_fraction(self, fraction: float) -> None:
        """Cap the pool at ``fraction`` of the device's memory."""

    @abc.abstractmethod
    def memory_fraction(self) -> float:
        """The pool's cap as a fraction of the device's memory (1.0: none)."""

    @abc.abstractmethod
    def runtime_version(self) -> str:
        """The device runtime's version, ``"major.minor"`` (``torch.version.cuda``'s form)."""

    @abc.abstractmethod
    def current_stream(self) -> NativeStream:
        """The stream device work is queued on now."""

    @abc.abstractmethod
    def default_stream(self) -> NativeStream:
        """The device's default stream."""

    @abc.abstractmethod
    def new_stream(self, priority: int = 0) -> NativeStream:
        """A new stream (``priority``: lower is more urgent, PyTorch's convention)."""

    @abc.abstractmethod
    def external_stream(self, ptr: int) -> NativeStream:
        """A stream made elsewhere, from its handle."""

    @abc.abstractmethod
    def new_event(self, enable_timing: bool = False, blocking: bool = False,
                  interprocess: bool = False) -> NativeEvent:
        """A new, unrecorded event."""

    @abc.abstractmethod
    def can_access_peer(self, peer: int) -> bool:
        """Whether this device can read device ``peer``'s memory directly."""

    @abc.abstractmethod
    def nvtx_range_push(self, message: str) -> None:
        """Open a nested NVTX range named ``message`` (profilers show it)."""

    @abc.abstractmethod
    def nvtx_range_pop(self) -> None:
        """Close the innermost NVTX range."""

    @abc.abstractmethod
    def nvtx_mark(self, message: str) -> None:
        """An instantaneous NVTX marker named ``message``."""

    @abc.abstractmethod
    def profiler_start(self) -> None:
        """Start the CUDA profiler's collection (``cudaProfilerStart``)."""

    @abc.abstractmethod
    def profiler_stop(self) -> None:
        """Stop the CUDA profiler's collection (``cudaProfilerStop``)."""
