"""``arraygrad.cuda.streams``: CUDA streams and events with ``torch.cuda``'s signatures, and the
current-stream functions (``current_stream``, ``stream``, ``set_stream``...).

They are the CUDA backend's own (CuPy's ``cupy.cuda.Stream`` and ``Event``, through
``Backend.runtime()``): arraygrad's CUDA work is queued on the current stream, so ``with
arraygrad.cuda.stream(s):`` runs the block's work on ``s``. Without a usable CUDA backend,
making one raises PyTorch's CPU build's RuntimeError, and the current-stream functions its
AssertionError.
"""

from __future__ import annotations

from typing import Any

from arraygrad import streams as _generic
from arraygrad.cuda import _device
from arraygrad.device import device

__all__ = ["Stream", "ExternalStream", "Event", "StreamContext", "stream", "current_stream",
           "default_stream", "set_stream", "get_stream_from_external"]


def _cuda(index: int) -> device:
    return device("cuda", index)


class Stream(_generic.Stream):
    """A CUDA stream of device ``device`` (the current one by default); lower ``priority`` is
    more urgent. ``with stream:`` (or ``arraygrad.cuda.stream(stream)``) makes it current."""

    def __init__(self, device: Any = None, priority: int = 0, **kwargs: Any) -> None:
        if _device.usable() is None:
            raise RuntimeError("torch.cuda.Stream requires CUDA support: arraygrad has no "
                               "usable CUDA backend here")
        index = _device.index_of(device)
        self.device = _cuda(index)
        self._native = _device.runtime(index).new_stream(int(priority))
        self._token = []

    @classmethod
    def _wrap_cuda(cls, native: Any, index: int) -> "Stream":
        stream = cls.__new__(cls)
        stream.device, stream._native, stream._token = _cuda(index), native, []
        return stream

    @property
    def cuda_stream(self) -> int:
        """The ``cudaStream_t`` handle as an int."""
        return self.stream_id

    def __repr__(self) -> str:
        return f"<arraygrad.cuda.Stream device={self.device} cuda_stream={self.cuda_stream:#x}>"


class ExternalStream(Stream):
    """A CUDA stream made outside arraygrad, from its handle ``stream_ptr``."""

    def __init__(self, stream_ptr: int, device: Any = None, **kwargs: Any) -> None:
        index = _device.index_of(device)
        self.device = _cuda(index)
        self._native = _device.runtime(index).external_stream(int(stream_ptr))
        self._token = []


class Event(_generic.Event):
    """A CUDA event on the current device: ``record`` it on a stream, ``wait``, ``query``,
    ``synchronize``, and (with ``enable_timing=True``) ``elapsed_time`` in milliseconds."""

    def __init__(self, enable_timing: bool = False, blocking: bool = False,
                 interprocess: bool = False, external: bool = False) -> None:
        if _device.usable() is None:
            raise RuntimeError("torch.cuda.Event requires CUDA support: arraygrad has no "
                               "usable CUDA backend here")
        index = _device.index_of(None)
        self.device = _cuda(index)
        self.enable_timing = bool(enable_timing)
        self._native = _device.runtime(index).new_event(bool(enable_timing), bool(blocking),
                                                        bool(interprocess))
        self._recorded = False

    def __repr__(self) -> str:
        return f"<arraygrad.cuda.Event {'recorded' if self._recorded else 'uninitialized'}>"


class StreamContext:
    """Makes ``stream`` the current stream (and its device the current device) inside a
    ``with`` block; a ``None`` stream, or no usable CUDA backend, does nothing (as PyTorch)."""

    def __init__(self, stream: Stream | None) -> None:
        self.stream = stream
        self._device: Any = None

    def __enter__(self) -> None:
        if self.stream is None or _device.usable() is None:
            return
        from arraygrad.cuda.selection import device as device_context

        self._device = device_context(self.stream.device.index)
        self._device.__enter__()
        self.stream.__enter__()

    def __exit__(self, *exc: Any) -> None:
        if self._device is None:
            return
        assert self.stream is not None
        self.stream.__exit__(*exc)
        self._device.__exit__(*exc)
        self._device = None


def stream(stream: Stream | None) -> StreamContext:
    """``with arraygrad.cuda.stream(s):`` queues the block's CUDA work on ``s``."""
    return StreamContext(stream)


def current_stream(device: Any = None) -> Stream:
    """The stream CUDA work of ``device`` (the current device) is queued on now."""
    index = _device.index_of(device)
    return Stream._wrap_cuda(_device.runtime(index).current_stream(), index)


def default_stream(device: Any = None) -> Stream:
    """The default stream of ``device`` (the current device)."""
    index = _device.index_of(device)
    return Stream._wrap_cuda(_device.runtime(index).default_stream(), index)


def set_stream(stream: _generic.Stream | None) -> None:
    """Make ``stream`` current from now on (``None`` does nothing, as PyTorch)."""
    if stream is None:
        return
    _device.require()
    stream._native.make_current()  # type: ignore[union-attr]


def get_stream_from_external(data_ptr: int, device: Any = None) -> Stream:
    """A stream made outside arraygrad (a ``cudaStream_t`` handle) as an ``ExternalStream``."""
    _device.require()
    return ExternalStream(data_ptr, device)
