"""``memory_mlp``: peak traced memory (tracemalloc, which NumPy reports its buffers to) of one
``mlp_step`` after warm-up, arraygrad against the hand-written NumPy step."""

from __future__ import annotations

import tracemalloc

from workloads import mlp


def _peak(step) -> float:
    step()  # warm-up: lazily built state (optimizer buffers, caches) is not a step's cost
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    step()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return (peak - base) / 2**20


def memory_mlp() -> dict:
    """``{impl: peak MB}`` for numpy and arraygrad (torch's allocator is not traced)."""
    import arraygrad

    sizes, batch = (784, 512, 512, 10), 128
    return {"numpy": _peak(mlp._numpy(sizes, batch)),
            "arraygrad": _peak(mlp._framework(arraygrad, sizes, batch))}
