"""``arraygrad.cuda.profiler``: start and stop an external CUDA profiler's collection
(``cudaProfilerStart``/``Stop``, through CuPy). Without a usable CUDA backend each raises
PyTorch's CPU build's AssertionError."""

from __future__ import annotations

import contextlib
from typing import Iterator

from arraygrad.cuda import _device

__all__ = ["start", "stop", "profile"]


def start() -> None:
    """Start the profiler's collection."""
    _device.runtime().profiler_start()


def stop() -> None:
    """Stop the profiler's collection."""
    _device.runtime().profiler_stop()


@contextlib.contextmanager
def profile() -> Iterator[None]:
    """Collect around the ``with`` block."""
    start()
    try:
        yield
    finally:
        stop()
