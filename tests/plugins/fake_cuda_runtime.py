"""The CUDA runtime part of the fake ``cupy`` (``fake_cupy.FakeCuda``): the default memory
pool with CuPy's memory hooks, device properties, ``memGetInfo``, streams, NVTX and the
profiler switches, for ``arraygrad.cuda``'s runtime services (``arraygrad_cupy.runtime``).

Allocations are simulated: ``fake.allocate(nbytes)`` takes ``nbytes`` from the current
device's pool (growing its reserve when needed) and ``fake.release(nbytes)`` gives them
back, each calling the installed ``MemoryHook``s as CuPy's pool does.
"""

from __future__ import annotations

import threading
import types
from typing import Any

__all__ = ["install_runtime"]

TOTAL_MEMORY = 80 * 1024 ** 3  # each fake device: an 80 GiB GPU


class _Pool:
    """One device's ``cupy.cuda.SingleDeviceMemoryPool``: used and held bytes, and a limit."""

    def __init__(self) -> None:
        self.used = 0
        self.total = 0
        self.limit = 0


def install_runtime(fake: Any, cupy: types.ModuleType, device_arrays: bool) -> None:
    """Add the runtime names to the fake ``cupy`` module (and ``fake.allocate``...)."""
    pools = [_Pool() for _ in range(max(fake.n_devices, 1))]
    hooks = threading.local()
    fake.pools = pools
    fake.nvtx = []

    def active_hooks() -> list:
        return list(getattr(hooks, "stack", []))

    class MemoryHook:
        """``cupy.cuda.MemoryHook``: ``with hook:`` (or ``__enter__``) installs it on the thread."""

        name = "MemoryHook"

        def __enter__(self):
            if not hasattr(hooks, "stack"):
                hooks.stack = []
            hooks.stack.append(self)
            return self

        def __exit__(self, *exc):
            hooks.stack.remove(self)

        def alloc_preprocess(self, **kw): pass
        def alloc_postprocess(self, **kw): pass
        def malloc_preprocess(self, **kw): pass
        def malloc_postprocess(self, **kw): pass
        def free_preprocess(self, **kw): pass
        def free_postprocess(self, **kw): pass

    class MemoryPoolView:
        """``cupy.get_default_memory_pool()``: the current device's pool's figures."""

        def used_bytes(self):
            return pools[fake.current].used

        def total_bytes(self):
            return pools[fake.current].total

        def free_all_blocks(self):
            pool = pools[fake.current]
            fake.log.append(("pool.free_all_blocks", fake.current))
            pool.total = pool.used

        def set_limit(self, size=None, fraction=None):
            pools[fake.current].limit = int(TOTAL_MEMORY * fraction) if fraction is not None \
                else int(size or 0)

        def get_limit(self):
            return pools[fake.current].limit

    view = MemoryPoolView()

    def allocate(nbytes: int) -> None:
        device, pool = fake.current, pools[fake.current]
        if pool.total - pool.used < nbytes:
            pool.total = pool.used + nbytes
            for h in active_hooks():
                h.alloc_postprocess(device_id=device, mem_size=nbytes, mem_ptr=0)
        pool.used += nbytes
        for h in active_hooks():
            h.malloc_postprocess(device_id=device, size=nbytes, mem_size=nbytes, mem_ptr=0,
                                 pmem_id=0)

    def release(nbytes: int) -> None:
        device, pool = fake.current, pools[fake.current]
        pool.used -= nbytes
        for h in active_hooks():
            h.free_postprocess(device_id=device, mem_size=nbytes, mem_ptr=0, pmem_id=0)

    fake.allocate, fake.release = allocate, release
    cupy.get_default_memory_pool = lambda: view
    cupy.cuda.MemoryHook = MemoryHook

    runtime = cupy.cuda.runtime
    runtime.memGetInfo = lambda: (TOTAL_MEMORY - pools[fake.current].total, TOTAL_MEMORY)
    runtime.getDeviceProperties = lambda i: {
        "name": f"Fake GPU {i}".encode(), "major": 9, "minor": 0, "totalGlobalMem": TOTAL_MEMORY,
        "multiProcessorCount": 132, "l2CacheSize": 50 * 1024 ** 2, "integrated": 0,
        "isMultiGpuBoard": 0}
    runtime.runtimeGetVersion = lambda: 12040
    runtime.deviceCanAccessPeer = lambda a, b: int(a != b)

    cupy.cuda.nvtx = types.SimpleNamespace(
        RangePush=lambda msg, id_color=-1: fake.nvtx.append(("push", msg)),
        RangePop=lambda: fake.nvtx.append(("pop", None)),
        Mark=lambda msg, id_color=-1: fake.nvtx.append(("mark", msg)))
    cupy.cuda.profiler = types.SimpleNamespace(start=lambda: fake.log.append(("profiler.start", 0)),
                                               stop=lambda: fake.log.append(("profiler.stop", 0)))
    if device_arrays:  # the graph fakes bring their own streams
        return

    fake.streams = []

    class Stream:
        """``cupy.cuda.Stream``: current inside ``with``; always done (the fake is synchronous)."""

        null: Any = None

        def __init__(self, null=False, non_blocking=False, ptds=False, priority=None):
            self.ptr = 0 if null else id(self)
            self.priority = priority
            self.done = True
            self.waited = []

        def __enter__(self):
            fake.streams.append(self)
            return self

        def __exit__(self, *exc):
            fake.streams.pop()

        def synchronize(self):
            fake.log.append(("stream.synchronize", fake.current))

        def wait_event(self, event):
            self.waited.append(event)

        def record(self, event=None):
            event = fake.Event() if event is None else event
            event.record(self)
            return event

    Stream.null = Stream(null=True)

    class ExternalStream(Stream):
        def __init__(self, ptr, device_id=-1):
            super().__init__()
            self.ptr = ptr

    cupy.cuda.Stream = Stream
    cupy.cuda.ExternalStream = ExternalStream
    cupy.cuda.get_current_stream = lambda: fake.streams[-1] if fake.streams else Stream.null
