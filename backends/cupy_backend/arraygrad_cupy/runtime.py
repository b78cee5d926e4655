"""The CUDA runtime services of the CuPy backend (``Backend.runtime()``): CuPy's memory pool,
the device's properties, streams and events, for ``arraygrad.cuda``.

Memory figures are those of CuPy's default memory pool on the device: allocated bytes are
the pool's ``used_bytes()``, reserved bytes its ``total_bytes()``. Peaks are kept by a
``cupy.cuda.MemoryHook`` installed, on the calling thread, at the first memory query (CuPy's
hooks are per thread, and cost a Python call per allocation, so a program that never asks
pays nothing): the peaks count from that first query.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

from arraygrad.backends.device_runtime import DeviceRuntime, NativeEvent, NativeStream

__all__ = ["CupyRuntime"]


class _Peaks:
    """One device's running figures and their peaks, in bytes."""

    __slots__ = ("allocated", "peak_allocated", "peak_reserved")

    def __init__(self, allocated: int, reserved: int) -> None:
        self.allocated = allocated
        self.peak_allocated = allocated
        self.peak_reserved = reserved


class _Tracker:
    """The peaks of one ``cupy`` module's devices, and the threads its hook is on."""

    def __init__(self, cp: Any) -> None:
        self.cp = cp
        self.peaks: dict[int, _Peaks] = {}  # device index -> figures, once the hook is on
        self.hooked = threading.local()  # .hook: the hook installed on this thread
        self.lock = threading.Lock()

    def install(self) -> None:
        """Put the peak hook on the calling thread, once."""
        if getattr(self.hooked, "hook", None) is None:
            hook = _make_hook(self.cp, self.peaks)
            hook.__enter__()  # CuPy's hooks are per thread: on for this thread from now on
            self.hooked.hook = hook


_trackers: "weakref.WeakKeyDictionary[Any, _Tracker]" = weakref.WeakKeyDictionary()
_trackers_lock = threading.Lock()


def _tracker(cp: Any) -> _Tracker:
    with _trackers_lock:
        found = _trackers.get(cp)
        if found is None:
            found = _trackers[cp] = _Tracker(cp)
        return found


def _make_hook(cp: Any, peaks: dict[int, _Peaks]) -> Any:
    """A ``cupy.cuda.MemoryHook`` keeping each device's allocated bytes and peaks."""

    class PeakHook(cp.cuda.MemoryHook):
        name = "arraygrad_peaks"

        def malloc_postprocess(self, **kw: Any) -> None:
            figures = peaks.get(kw["device_id"])
            if figures is not None:
                figures.allocated += kw["mem_size"]
                if figures.allocated > figures.peak_allocated:
                    figures.peak_allocated = figures.allocated

        def free_postprocess(self, **kw: Any) -> None:
            figures = peaks.get(kw["device_id"])
            if figures is not None:
                figures.allocated -= kw["mem_size"]

        def alloc_postprocess(self, **kw: Any) -> None:
            # a new block from the device (rare): the pool's reserve grew
            figures = peaks.get(kw["device_id"])
            if figures is not None:
                reserved = cp.get_default_memory_pool().total_bytes()
                if reserved > figures.peak_reserved:
                    figures.peak_reserved = reserved

    return PeakHook()


class _Event(NativeEvent):
    def __init__(self, cp: Any, index: int, enable_timing: bool, blocking: bool,
                 interprocess: bool) -> None:
        self._cp = cp
        with cp.cuda.Device(index):
            self.event = cp.cuda.Event(block=blocking, disable_timing=not enable_timing,
                                       interprocess=interprocess)

    def record(self, stream: NativeStream) -> None:
        self.event.record(stream.stream)  # type: ignore[attr-defined]

    def synchronize(self) -> None:
        self.event.synchronize()

    def query(self) -> bool:
        return bool(self.event.done)

    def elapsed_ms(self, end: NativeEvent) -> float:
        return float(self._cp.cuda.get_elapsed_time(self.event, end.event))  # type: ignore[attr-defined]


class _Stream(NativeStream):
    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.ptr = int(stream.ptr)

    def synchronize(self) -> None:
        self.stream.synchronize()

    def query(self) -> bool:
        return bool(self.stream.done)

    def wait_event(self, event: NativeEvent) -> None:
        self.stream.wait_event(event.event)  # type: ignore[attr-defined]

    def make_current(self) -> Any:
        return self.stream.__enter__()

    def restore(self, token: Any) -> None:
        self.stream.__exit__(None, None, None)


class CupyRuntime(DeviceRuntime):
    """CuPy's runtime services for CUDA device ``index``."""

    def __init__(self, cp: Any, index: int) -> None:
        self._cp = cp
        self._index = index

    def _device(self) -> Any:
        return self._cp.cuda.Device(self._index)

    def properties(self) -> dict[str, Any]:
        """``cudaGetDeviceProperties``, under PyTorch's attribute names."""
        raw = self._cp.cuda.runtime.getDeviceProperties(self._index)
        name = raw.get("name", b"")
        return {
            "name": name.decode() if isinstance(name, bytes) else str(name),
            "major": int(raw["major"]), "minor": int(raw["minor"]),
            "total_memory": int(raw["totalGlobalMem"]),
            "multi_processor_count": int(raw["multiProcessorCount"]),
            "is_integrated": int(raw.get("integrated", 0)),
            "is_multi_gpu_board": int(raw.get("isMultiGpuBoard", 0)),
            "L2_cache_size": int(raw.get("l2CacheSize", 0)),
        }

    def _pool_figures(self) -> tuple[int, int]:
        with self._device():
            pool = self._cp.get_default_memory_pool()
            return int(pool.used_bytes()), int(pool.total_bytes())

    def _peaks(self) -> _Peaks:
        """This device's figures, installing the peak hook on this thread first if needed."""
        tracker = _tracker(self._cp)
        tracker.install()
        figures = tracker.peaks.get(self._index)
        if figures is None:
            with tracker.lock:
                figures = tracker.peaks.get(self._index)
                if figures is None:
                    figures = tracker.peaks[self._index] = _Peaks(*self._pool_figures())
        return figures

    def memory_stats(self) -> dict[str, int]:
        """The pool's allocated and reserved bytes, now and at their peaks."""
        figures = self._peaks()
        allocated, reserved = self._pool_figures()
        figures.allocated = allocated  # the pool's own count (a thread without the hook...)
        figures.peak_allocated = max(figures.peak_allocated, allocated)
        figures.peak_reserved = max(figures.peak_reserved, reserved)
        return {"allocated_bytes.all.current": allocated,
                "allocated_bytes.all.peak": figures.peak_allocated,
                "reserved_bytes.all.current": reserved,
                "reserved_bytes.all.peak": figures.peak_reserved}

    def reset_peak_memory_stats(self) -> None:
        """Peaks start over from the pool's figures now."""
        figures = self._peaks()
        allocated, reserved = self._pool_figures()
        figures.allocated = figures.peak_allocated = allocated
        figures.peak_reserved = reserved

    def empty_cache(self) -> None:
        """``MemoryPool.free_all_blocks()`` on this device."""
        with self._device():
            self._cp.get_default_memory_pool().free_all_blocks()

    def mem_get_info(self) -> tuple[int, int]:
        """``cudaMemGetInfo`` on this device."""
        with self._device():
            free, total = self._cp.cuda.runtime.memGetInfo()
        return int(free), int(total)

    def set_memory_fraction(self, fraction: float) -> None:
        """``MemoryPool.set_limit(fraction=...)`` on this device."""
        with self._device():
            self._cp.get_default_memory_pool().set_limit(fraction=fraction)

    def memory_fraction(self) -> float:
        """The pool's limit over the device's memory (1.0 without a limit)."""
        with self._device():
            limit = int(self._cp.get_default_memory_pool().get_limit())
        total = self.properties()["total_memory"]
        return 1.0 if limit == 0 or total == 0 else limit / total

    def runtime_version(self) -> str:
        """``cudaRuntimeGetVersion`` as ``"major.minor"`` (12040 is ``"12.4"``)."""
        version = int(self._cp.cuda.runtime.runtimeGetVersion())
        return f"{version // 1000}.{version % 1000 // 10}"

    def current_stream(self) -> NativeStream:
        with self._device():
            return _Stream(self._cp.cuda.get_current_stream())

    def default_stream(self) -> NativeStream:
        return _Stream(self._cp.cuda.Stream.null)

    def new_stream(self, priority: int = 0) -> NativeStream:
        cp = self._cp
        with self._device():
            if priority:
                return _Stream(cp.cuda.Stream(non_blocking=True, priority=priority))
            return _Stream(cp.cuda.Stream(non_blocking=True))

    def external_stream(self, ptr: int) -> NativeStream:
        with self._device():
            return _Stream(self._cp.cuda.ExternalStream(ptr))

    def new_event(self, enable_timing: bool = False, blocking: bool = False,
                  interprocess: bool = False) -> NativeEvent:
        return _Event(self._cp, self._index, enable_timing, blocking, interprocess)

    def can_access_peer(self, peer: int) -> bool:
        """``cudaDeviceCanAccessPeer``."""
        return bool(self._cp.cuda.runtime.deviceCanAccessPeer(self._index, peer))

    def nvtx_range_push(self, message: str) -> None:
        """``cupy.cuda.nvtx.RangePush``."""
        self._cp.cuda.nvtx.RangePush(message)

    def nvtx_range_pop(self) -> None:
        """``cupy.cuda.nvtx.RangePop``."""
        self._cp.cuda.nvtx.RangePop()

    def nvtx_mark(self, message: str) -> None:
        """``cupy.cuda.nvtx.Mark``."""
        self._cp.cuda.nvtx.Mark(message)

    def profiler_start(self) -> None:
        """``cupy.cuda.profiler.start`` (``cudaProfilerStart``)."""
        self._cp.cuda.profiler.start()

    def profiler_stop(self) -> None:
        """``cupy.cuda.profiler.stop`` (``cudaProfilerStop``)."""
        self._cp.cuda.profiler.stop()
