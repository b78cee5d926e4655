"""``arraygrad.cuda``: ``torch.cuda`` for arraygrad's CUDA backend (CuPy).

With a usable CUDA backend, the devices, memory figures, streams, events and generators
are the backend's (CuPy's devices and memory pool, through ``Backend.runtime()``). Without
one, every function answers as PyTorch's CPU build does: ``is_available()`` False,
``device_count()`` 0, zero memory figures, no-op seeding and cache emptying, and PyTorch's
error class (mostly AssertionError: "Torch not compiled with CUDA enabled") where it raises.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any, Union

from arraygrad.cuda import _device
from arraygrad.cuda import memory as _memory
from arraygrad.cuda.memory import (
    empty_cache, get_per_process_memory_fraction, host_memory_stats,
    host_memory_stats_as_nested_dict, list_gpu_processes, max_memory_allocated,
    max_memory_cached, max_memory_reserved, mem_get_info, memory_allocated, memory_cached,
    memory_reserved, memory_stats, memory_stats_as_nested_dict, memory_summary,
    reset_accumulated_host_memory_stats, reset_accumulated_memory_stats,
    reset_max_memory_allocated, reset_max_memory_cached, reset_peak_host_memory_stats,
    reset_peak_memory_stats, set_per_process_memory_fraction,
)
from arraygrad.cuda.nvml import (
    clock_rate, device_memory_used, memory_usage, power_draw, temperature, utilization,
)
from arraygrad.cuda.selection import current_device, device, device_of, set_device
from arraygrad.cuda.random import (
    get_rng_state, get_rng_state_all, initial_seed, manual_seed, manual_seed_all, seed,
    seed_all, set_rng_state, set_rng_state_all,
)
from arraygrad.cuda.streams import (
    Event, ExternalStream, Stream, StreamContext, current_stream, default_stream,
    get_stream_from_external, set_stream, stream,
)
from arraygrad.device import device as _device_cls
from arraygrad.device_errors import AcceleratorError, OutOfMemoryError
from arraygrad.legacy_types import cuda_types as _cuda_types

if TYPE_CHECKING:
    from arraygrad.device import DeviceLike

__all__ = [
    "is_available", "device_count", "is_initialized", "init", "current_device", "set_device",
    "device", "device_of", "synchronize", "get_device_name", "get_device_capability",
    "get_device_properties", "get_arch_list", "get_gencode_flags", "is_bf16_supported",
    "is_tf32_supported", "can_device_access_peer", "ipc_collect", "get_sync_debug_mode",
    "set_sync_debug_mode", "check_error", "cudaStatus", "CudaError", "DeferredCudaCallError",
    "OutOfMemoryError", "AcceleratorError", "Device", "has_half", "has_magma",
    "Stream", "ExternalStream", "Event", "StreamContext", "stream", "current_stream",
    "default_stream", "set_stream", "get_stream_from_external",
    "manual_seed", "manual_seed_all", "seed", "seed_all", "initial_seed", "get_rng_state",
    "get_rng_state_all", "set_rng_state", "set_rng_state_all",
    "utilization", "memory_usage", "temperature", "power_draw", "clock_rate",
    "device_memory_used",
]
__all__ += _memory.__all__

Device = Union[_device_cls, str, int, None]
"""What a ``device`` argument of ``arraygrad.cuda`` accepts (``torch.cuda.Device``)."""

has_half = True
"""Whether half precision is supported (``torch.cuda.has_half``): float16 is."""

has_magma = False
"""Whether MAGMA is linked in: arraygrad links no GPU library of its own."""

_sync_debug_mode = [0]


def is_available() -> bool:
    """Whether a usable CUDA backend (CuPy on a GPU) is present."""
    return _device.usable() is not None


def device_count() -> int:
    """The number of CUDA devices (0 without a usable CUDA backend)."""
    return _device.count()


def is_initialized() -> bool:
    """Whether CUDA has been started (by ``init()`` or by a call that needed a device) and its
    backend is still usable (a backend unregistered since started nothing that remains)."""
    return _device.initialized[0] and _device.usable() is not None


def init() -> None:
    """Start CUDA now (arraygrad starts it on first use anyway); AssertionError without a
    usable CUDA backend."""
    _device.require()


def synchronize(device: DeviceLike | None = None) -> None:
    """Wait until all queued work on the CUDA device (the current one) is done;
    AssertionError without a usable CUDA backend."""
    _device.backend(device).synchronize()


class _CudaDeviceProperties:
    """A CUDA device's properties (``torch.cuda.get_device_properties``)."""

    def __init__(self, props: dict[str, Any]) -> None:
        self.__dict__.update(props)

    def __repr__(self) -> str:
        d = self.__dict__
        return (f"_CudaDeviceProperties(name='{d['name']}', major={d['major']}, "
                f"minor={d['minor']}, total_memory={d['total_memory'] // (1024 * 1024)}MB, "
                f"multi_processor_count={d['multi_processor_count']})")


def get_device_properties(device: DeviceLike | None = None) -> _CudaDeviceProperties:
    """The CUDA device's properties: ``name``, ``major``, ``minor``, ``total_memory``,
    ``multi_processor_count``... AssertionError without a usable CUDA backend."""
    return _CudaDeviceProperties(_device.runtime(device).properties())


def get_device_name(device: DeviceLike | None = None) -> str:
    """The CUDA device's name (``"NVIDIA H100 80GB HBM3"``)."""
    return str(get_device_properties(device).name)  # type: ignore[attr-defined]


def get_device_capability(device: DeviceLike | None = None) -> tuple[int, int]:
    """The CUDA device's compute capability ``(major, minor)``."""
    props = get_device_properties(device)
    return int(props.major), int(props.minor)  # type: ignore[attr-defined]


def get_arch_list() -> list[str]:
    """The architectures PyTorch's kernels are built for: arraygrad builds none (its
    backend's library compiles for the device it finds), so ``[]`` as a CPU build."""
    return []


def get_gencode_flags() -> str:
    """The NVCC gencode flags of the build: none (``""``), see ``get_arch_list``."""
    return ""


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """Whether the CUDA backend here has a bfloat16 dtype (False without a usable CUDA
    backend, as a CPU build; CuPy has none)."""
    from arraygrad import dtypes

    backend = _device.usable()
    return backend is not None and dtypes.bfloat16 in backend.supported_dtypes()


def is_tf32_supported() -> bool:
    """Whether TF32 matrix products are supported: False (arraygrad does not choose
    reduced-precision kernels; a CPU build says False too)."""
    return False


def can_device_access_peer(device: DeviceLike | None, peer_device: DeviceLike | None) -> bool:
    """Whether CUDA device ``device`` can read ``peer_device``'s memory directly."""
    runtime = _device.runtime(device)
    peer = _device.index_of(peer_device)
    if not 0 <= peer < _device.count():
        raise AssertionError("Invalid peer device id")
    return runtime.can_access_peer(peer)


def ipc_collect() -> None:
    """Free CUDA memory other processes released after sharing it: arraygrad shares none
    between processes, so there is nothing to collect; AssertionError without CUDA."""
    _device.require()


def get_sync_debug_mode() -> int:
    """The synchronization debug mode (0: off); AssertionError without CUDA."""
    _device.require()
    return _sync_debug_mode[0]


def set_sync_debug_mode(debug_mode: int | str) -> None:
    """Store the synchronization debug mode ("default"/0, "warn"/1, "error"/2). arraygrad
    does not watch for synchronizing calls, so the mode is answered back but warns of
    nothing (docs/differences.md); AssertionError without CUDA."""
    _device.require()
    names = {"default": 0, "warn": 1, "error": 2}
    if isinstance(debug_mode, str):
        if debug_mode not in names:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, "
                               f"`warn`, `error`, but got {debug_mode}")
        debug_mode = names[debug_mode]
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    _sync_debug_mode[0] = int(debug_mode)


class cudaStatus(enum.IntEnum):
    """The CUDA status codes PyTorch names (``torch.cuda.cudaStatus``)."""

    SUCCESS = 0
    ERROR_NOT_READY = 34


class CudaError(RuntimeError):
    """A CUDA runtime error, with its code (``torch.cuda.CudaError``)."""

    def __init__(self, code: int) -> None:
        self.code = int(code)
        super().__init__(f"CUDA error {self.code}")


class DeferredCudaCallError(Exception):
    """A call queued until CUDA started failed when it ran (``torch.cuda.DeferredCudaCallError``)."""


def check_error(res: int) -> None:
    """Raise ``CudaError(res)`` unless ``res`` is ``cudaStatus.SUCCESS``; AssertionError
    without a usable CUDA backend."""
    _device.require()
    if res != cudaStatus.SUCCESS:
        raise CudaError(res)


_LAZY = {"amp": "arraygrad.cuda.amp", "memory": "arraygrad.cuda.memory",
         "random": "arraygrad.cuda.random", "streams": "arraygrad.cuda.streams",
         "nvtx": "arraygrad.cuda.nvtx", "profiler": "arraygrad.cuda.profiler",
         "sparse": "arraygrad.cuda.sparse"}


def __getattr__(name: str) -> Any:
    """The legacy typed constructors (``arraygrad.cuda.FloatTensor``), the per-device
    ``default_generators``, the ``amp`` submodule, and the census's reasons for the rest."""
    import importlib

    if name in _LAZY:
        return importlib.import_module(_LAZY[name])
    if name in _cuda_types:
        return _cuda_types[name]
    if name == "default_generators":
        from arraygrad.random import device_generator

        return tuple(device_generator(f"cuda:{i}") for i in range(_device.count()))
    from arraygrad.absences import missing_attribute
    raise missing_attribute("torch.cuda", name, "arraygrad.cuda")
