"""CUDA graphs: a replay function captured once and launched as one graph afterwards.

``CupyBackend.capture(replay)`` returns a ``CudaGraphReplay``. Its first call runs
``replay()`` as it is (the warm-up: this call's own work, which also compiles
CuPy's kernels and creates library handles, things a capture cannot do), then
captures a second run of ``replay`` on a side stream: CUDA records the kernels,
with their pointers and scalar arguments, instead of running them. Every later
call launches that graph on the caller's current stream: one launch instead of one
per kernel, which is the cost of small GPU steps.

Memory: what ``replay`` allocates during the capture comes from a private
``cupy.cuda.MemoryPool`` kept as long as the graph lives, so no other allocation
can take the blocks the graph writes at every launch (temporaries freed during the
capture go back to that pool only, and CUDA orders their reuse within the graph);
the arrays the captured run returned are held and returned by every launch.

When the capture fails (``replay`` read a value on the host, or called something
a capturing stream refuses), the failed capture is ended and discarded, a warning
says why, and later calls run ``replay()`` as it is.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

__all__ = ["CudaGraphReplay"]


class CudaGraphReplay:
    """``replay`` on CUDA device ``index``: run once as it is, then captured and launched as
    a CUDA graph (see the module docstring for what ``replay`` may do)."""

    def __init__(self, replay: Callable[[], Any], index: int, cupy: Any) -> None:
        self._replay = replay
        self._index = index
        self._cp = cupy
        self.graph: Any = None  # the captured graph, once the first call has made it
        self._outputs: Any = None  # what the captured run returned: rewritten by each launch
        self._pool: Any = None  # the capture's private memory pool (kept with the graph)
        self._stream: Any = None
        self.failed: str | None = None  # why the capture failed, if it did

    def __call__(self) -> Any:
        graph = self.graph
        if graph is not None:
            cp = self._cp
            with cp.cuda.Device(self._index):
                graph.launch(stream=cp.cuda.get_current_stream())
            return self._outputs
        if self.failed is not None:
            return self._replay()
        return self._warm_up_and_capture()

    def _warm_up_and_capture(self) -> Any:
        cp = self._cp
        with cp.cuda.Device(self._index):
            result = self._replay()  # this call's work, on the caller's stream
            try:
                self._capture(cp)
            except Exception as exc:  # noqa: BLE001 - any failure means "no graph"
                self.failed = f"{type(exc).__name__}: {exc}"
                warnings.warn(f"CUDA graph capture failed ({self.failed}); replaying without "
                              "a graph", RuntimeWarning, stacklevel=3)
        return result

    def _capture(self, cp: Any) -> None:
        caller = cp.cuda.get_current_stream()
        stream = cp.cuda.Stream(non_blocking=True)
        stream.wait_event(caller.record())  # the graph's inputs are this call's results
        pool = cp.cuda.MemoryPool()
        with stream, cp.cuda.using_allocator(pool.malloc):
            stream.begin_capture()
            try:
                outputs = self._replay()
            finally:
                # a capture is always ended, or the stream stays unusable; a capture
                # invalidated by a refused call raises here or returned garbage above
                graph = stream.end_capture()
        self.graph, self._outputs, self._pool, self._stream = graph, outputs, pool, stream
