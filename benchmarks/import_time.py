"""How long ``import arraygrad`` takes in a fresh interpreter, beside ``import numpy`` and
``import torch`` (when installed): the median of a few runs each. A benchmark, not a test: a
loaded machine slows it (``make bench`` prints it; ``--only import_time``)."""

from __future__ import annotations

import statistics
import subprocess
import sys

_CHILD = ("import time; t0 = time.perf_counter(); import {module}; "
          "print(time.perf_counter() - t0)")


def import_seconds(module: str, runs: int = 5) -> float | None:
    """The median seconds of ``import module`` over ``runs`` fresh processes (None if absent)."""
    times = []
    for _ in range(runs):
        done = subprocess.run([sys.executable, "-c", _CHILD.format(module=module)],
                              capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            return None
        times.append(float(done.stdout.strip()))
    return statistics.median(times)


def import_time(quick: bool = False) -> dict:
    """``{module: median seconds}`` for arraygrad, numpy and torch."""
    runs = 3 if quick else 7
    return {m: import_seconds(m, runs) for m in ("arraygrad", "numpy", "torch")}


def report(results: dict) -> list[str]:
    """Lines for ``bench.py``'s table."""
    ours, torch = results.get("arraygrad"), results.get("torch")
    ratio = f"  {ours / torch:.2f}x torch" if ours and torch else ""
    parts = ", ".join(f"{m} {s * 1000:.0f} ms" for m, s in results.items() if s is not None)
    return [f"{'import_time':<18} {parts}{ratio} (median of fresh processes)"]
