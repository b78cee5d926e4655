"""``arraygrad.cuda.memory``: the CUDA memory figures of ``torch.cuda.memory``.

With a usable CUDA backend they are its memory pool's (CuPy's default pool: allocated bytes
are the bytes its arrays use, reserved bytes what the pool holds from the device), through
``Backend.runtime()``. Without one, each function answers as PyTorch's CPU build does:
zeros and empty statistics where it answers, its error class where it raises.
"""

from __future__ import annotations

import warnings
from collections import OrderedDict
from typing import Any

from arraygrad.cuda import _device

__all__ = [
    "empty_cache", "memory_stats", "memory_stats_as_nested_dict", "memory_allocated",
    "max_memory_allocated", "memory_reserved", "max_memory_reserved", "memory_cached",
    "max_memory_cached", "reset_peak_memory_stats", "reset_max_memory_allocated",
    "reset_max_memory_cached", "reset_accumulated_memory_stats", "host_memory_stats",
    "host_memory_stats_as_nested_dict", "reset_peak_host_memory_stats",
    "reset_accumulated_host_memory_stats", "memory_summary", "mem_get_info",
    "set_per_process_memory_fraction", "get_per_process_memory_fraction", "list_gpu_processes",
]


def _no_stats(name: str) -> AttributeError:
    """What PyTorch's CPU build raises for the statistics resets: an AttributeError."""
    return AttributeError(f"{name}: arraygrad has no usable CUDA backend, so no CUDA memory "
                          "statistics (PyTorch's CPU build raises AttributeError here too)")


def empty_cache() -> None:
    """Give the memory pool's unused cached blocks back to the device (``free_all_blocks``);
    nothing to do without a usable CUDA backend."""
    if _device.usable() is not None:
        _device.runtime().empty_cache()


def memory_stats(device: Any = None) -> dict[str, Any]:
    """The memory pool's statistics under PyTorch's keys (``"allocated_bytes.all.current"``,
    ``".peak"``, ``"reserved_bytes.all.current"``, ``".peak"``), sorted; empty without a
    usable CUDA backend."""
    if _device.usable() is None:
        return OrderedDict()
    return OrderedDict(sorted(_device.runtime(device).memory_stats().items()))


def memory_stats_as_nested_dict(device: Any = None) -> dict[str, Any]:
    """``memory_stats`` nested at its dots: ``{"allocated_bytes": {"all": {"current": n}}}``."""
    nested: dict[str, Any] = {}
    for key, value in memory_stats(device).items():
        *path, leaf = key.split(".")
        node = nested
        for part in path:
            node = node.setdefault(part, {})
        node[leaf] = value
    return nested


def _stat(device: Any, key: str) -> int:
    return int(memory_stats(device).get(key, 0))


def memory_allocated(device: Any = None) -> int:
    """Bytes the device's tensors use now (0 without a usable CUDA backend)."""
    return _stat(device, "allocated_bytes.all.current")


def max_memory_allocated(device: Any = None) -> int:
    """The peak of ``memory_allocated`` since the peaks were first read or last reset."""
    return _stat(device, "allocated_bytes.all.peak")


def memory_reserved(device: Any = None) -> int:
    """Bytes the memory pool holds from the device now (used or cached)."""
    return _stat(device, "reserved_bytes.all.current")


def max_memory_reserved(device: Any = None) -> int:
    """The peak of ``memory_reserved`` since the peaks were first read or last reset."""
    return _stat(device, "reserved_bytes.all.peak")


def memory_cached(device: Any = None) -> int:
    """Deprecated name of ``memory_reserved`` (PyTorch's FutureWarning)."""
    warnings.warn("torch.cuda.memory_cached has been renamed to torch.cuda.memory_reserved",
                  FutureWarning, stacklevel=2)
    return memory_reserved(device)


def max_memory_cached(device: Any = None) -> int:
    """Deprecated name of ``max_memory_reserved`` (PyTorch's FutureWarning)."""
    warnings.warn("torch.cuda.max_memory_cached has been renamed to "
                  "torch.cuda.max_memory_reserved", FutureWarning, stacklevel=2)
    return max_memory_reserved(device)


def reset_peak_memory_stats(device: Any = None) -> None:
    """Start the peaks over from the current figures; AttributeError without a usable CUDA
    backend, as PyTorch's CPU build."""
    if _device.usable() is None:
        raise _no_stats("reset_peak_memory_stats")
    _device.runtime(device).reset_peak_memory_stats()


def reset_max_memory_allocated(device: Any = None) -> None:
    """Deprecated: ``reset_peak_memory_stats`` (which resets every peak), with PyTorch's
    FutureWarning."""
    warnings.warn("torch.cuda.reset_max_memory_allocated now calls "
                  "torch.cuda.reset_peak_memory_stats, which resets /all/ peak memory stats.",
                  FutureWarning, stacklevel=2)
    reset_peak_memory_stats(device)


def reset_max_memory_cached(device: Any = None) -> None:
    """Deprecated: ``reset_peak_memory_stats``, with PyTorch's FutureWarning."""
    warnings.warn("torch.cuda.reset_max_memory_cached now calls "
                  "torch.cuda.reset_peak_memory_stats, which resets /all/ peak memory stats.",
                  FutureWarning, stacklevel=2)
    reset_peak_memory_stats(device)


def reset_accumulated_memory_stats(device: Any = None) -> None:
    """Reset the accumulated counters: arraygrad keeps none (its statistics are current and
    peak figures), so this only checks for a usable CUDA backend (AttributeError without
    one, as PyTorch's CPU build)."""
    if _device.usable() is None:
        raise _no_stats("reset_accumulated_memory_stats")
    _device.backend(device)


def host_memory_stats() -> dict[str, Any]:
    """Statistics of pinned host memory: empty (arraygrad allocates no pinned memory)."""
    return OrderedDict()


def host_memory_stats_as_nested_dict() -> dict[str, Any]:
    """``host_memory_stats`` nested: empty."""
    return {}


def reset_peak_host_memory_stats() -> None:
    """Nothing to reset (no pinned host memory); AttributeError without a usable CUDA
    backend, as PyTorch's CPU build."""
    if _device.usable() is None:
        raise _no_stats("reset_peak_host_memory_stats")


def reset_accumulated_host_memory_stats() -> None:
    """Nothing to reset (no pinned host memory); AttributeError without a usable CUDA
    backend, as PyTorch's CPU build."""
    if _device.usable() is None:
        raise _no_stats("reset_accumulated_host_memory_stats")


def _bytes(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.2f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return str(n)  # unreachable


def memory_summary(device: Any = None, abbreviated: bool = False) -> str:
    """A printable table of the memory statistics. Without a usable CUDA backend there are
    none, and this raises PyTorch's CPU build's KeyError."""
    stats = memory_stats(device)
    rows = [("Allocated memory", "allocated_bytes.all"), ("Reserved memory", "reserved_bytes.all")]
    lines = ["=" * 60, f" arraygrad CUDA memory summary, device {_device.index_of(device)}",
             "-" * 60, f" {'Metric':<24}{'Cur Usage':>17}{'Peak Usage':>17}", "-" * 60]
    for title, key in rows:
        lines.append(f" {title:<24}{_bytes(stats[key + '.current']):>17}"
                     f"{_bytes(stats[key + '.peak']):>17}")
    lines.append("=" * 60)
    return "\n".join(lines) + "\n"


def mem_get_info(device: Any = None) -> tuple[int, int]:
    """``(free, total)`` bytes of the device's memory, as the driver reports them;
    AssertionError without a usable CUDA backend."""
    return _device.runtime(device).mem_get_info()


def set_per_process_memory_fraction(fraction: float, device: Any = None) -> None:
    """Cap the memory pool at ``fraction`` of the device's memory (CuPy's pool limit);
    AssertionError without a usable CUDA backend."""
    rt = _device.runtime(device)
    if not isinstance(fraction, float):
        raise TypeError("Invalid type for fraction argument, must be `float`")
    if not 0 <= fraction <= 1:
        raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1")
    rt.set_memory_fraction(fraction)


def get_per_process_memory_fraction(device: Any = None) -> float:
    """The memory pool's cap as a fraction of the device's memory (1.0: no cap)."""
    return _device.runtime(device).memory_fraction()


def list_gpu_processes(device: Any = None) -> str:
    """The processes using the device and their memory, from NVML (``pynvml``), as PyTorch
    (its answer without ``pynvml`` included)."""
    import importlib

    try:
        pynvml = importlib.import_module("pynvml")
    except ModuleNotFoundError:
        return "pynvml module not found, please install nvidia-ml-py"
    index = _device.index_of(device)
    pynvml.nvmlInit()
    handle = pynvml.nvmlDeviceGetHandleByIndex(index)
    procs = pynvml.nvmlDeviceGetComputeRunningProcesses(handle)
    lines = [f"GPU:{index}"]
    if not procs:
        lines.append("no processes are running")
    for p in procs:
        lines.append(f"process {p.pid:>10d} uses {p.usedGpuMemory / (1024 * 1024):>12.3f} MB GPU memory")
    return "\n".join(lines)
