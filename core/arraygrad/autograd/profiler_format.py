"""How the profiler prints times, memory sizes and shares (PyTorch's formats)."""

from __future__ import annotations

__all__ = ["format_time", "format_memory", "format_time_share"]


def format_time(time_us: float) -> str:
    """``time_us`` as PyTorch's tables print it: seconds, milliseconds or microseconds."""
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def format_memory(nbytes: float) -> str:
    """``nbytes`` as PyTorch's tables print it (B, KB, MB, GB)."""
    kb = 1024
    for unit, size in (("GB", kb ** 3), ("MB", kb ** 2), ("KB", kb)):
        if abs(nbytes) >= size:
            return f"{nbytes / size:.2f} {unit}"
    return f"{nbytes} B"


def format_time_share(time_us: float, total_us: float) -> str:
    """``time_us`` as a percentage of ``total_us`` ("NaN" when the total is zero)."""
    if total_us == 0:
        return "NaN"
    return f"{time_us * 100.0 / total_us:.2f}%"
