"""``checkpoint_memory``: what activation checkpointing saves. Peak memory of one training
step (forward, backward, SGD update) of a 20-layer ReLU MLP (width 128, batch 2048, float32:
activations, 1 MB a layer, outweigh the weights' gradients), plain and with
``utils.checkpoint``, and the step's time.

Method: ``tracemalloc``, which NumPy reports its array buffers to (so with the NumPy
backend it sees every activation, gradient and saved tensor; PyTorch's allocator is not
traced, so there is no torch row). Each variant runs one untimed step first (optimizer
state, caches), then the traced memory is reset and the peak *above the memory held before
the step* (parameters, inputs) is taken over one step. Variants:

- ``plain``: the model called directly: every layer's activations are kept for backward.
- ``sequential_4``: ``checkpoint_sequential(model, 4, x, use_reentrant=False)``: the
  classic sqrt(n) trade (4 segments of 5 blocks: the segments' inputs are kept, and in
  backward one segment's activations at a time; the last segment runs plain).
- ``sequential_5``: 5 segments of 4 blocks.

The last segment runs plain, and arraygrad's engine frees a pass's saved values when the
pass ends (PyTorch frees each node's as it runs), so the last segment's activations are
still held while the others are recomputed: few long segments save little here
(``checkpoint_sequential(model, 2, ...)`` keeps about as much as plain).

(Checkpointing each Linear+ReLU block alone would save nothing here: the plain graph already
keeps only one tensor a layer, the ReLU output that is the next Linear's input, which is
exactly a block input.)

The ratio ``plain / checkpointed`` is the memory saved; the time column shows its cost
(about one extra forward). Also run by ``make bench`` (``benchmarks/bench.py``)::

    python benchmarks/checkpoint_memory.py [--quick]
"""

from __future__ import annotations

import statistics
import time
import tracemalloc
from typing import Any, Callable

LAYERS, WIDTH, BATCH = 20, 128, 2048


def _model(ag: Any) -> Any:
    ag.manual_seed(0)
    blocks = [ag.nn.Sequential(ag.nn.Linear(WIDTH, WIDTH), ag.nn.ReLU()) for _ in range(LAYERS)]
    return ag.nn.Sequential(*blocks)


def _step(variant: str, batch: int = BATCH) -> Callable[[], None]:
    import arraygrad as ag
    from arraygrad.utils.checkpoint import checkpoint_sequential

    model = _model(ag)
    opt = ag.optim.SGD(model.parameters(), lr=1e-3)
    x = ag.randn(batch, WIDTH)

    def forward() -> Any:
        if variant == "plain":
            return model(x)
        segments = int(variant.rsplit("_", 1)[1])
        return checkpoint_sequential(model, segments, x, use_reentrant=False)

    def step() -> None:
        opt.zero_grad()
        loss = (forward() ** 2).mean()
        loss.backward()
        opt.step()

    return step


def _measure(step: Callable[[], None], repeats: int = 3) -> tuple[float, float]:
    """(peak MB above the memory held before the step, median seconds of ``repeats``
    untraced steps)."""
    step()
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    step()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    return (peak - base) / 2**20, statistics.median(times)


def checkpoint_memory(quick: bool = False) -> dict:
    """``{variant: {"peak_mb": ..., "seconds": ...}}`` for plain, sequential_4, sequential_5
    (``quick``: a quarter of the batch, one timed step)."""
    out = {}
    for variant in ("plain", "sequential_4", "sequential_5"):
        mb, s = _measure(_step(variant, BATCH // 4 if quick else BATCH), 1 if quick else 3)
        out[variant] = {"peak_mb": mb, "seconds": s}
    return out


def report(results: dict) -> list[str]:
    """The lines ``make bench`` prints."""
    plain = results["plain"]
    lines = []
    for variant, r in results.items():
        lines.append(f"{'checkpoint_memory':<18} {variant:<12} peak {r['peak_mb']:6.1f} MB "
                     f"(plain / this {plain['peak_mb'] / r['peak_mb']:.2f}x), "
                     f"step {r['seconds'] * 1e3:7.1f} ms (this / plain "
                     f"{r['seconds'] / plain['seconds']:.2f}x)")
    return lines


if __name__ == "__main__":
    import sys

    for line in report(checkpoint_memory(quick="--quick" in sys.argv)):
        print(line)
