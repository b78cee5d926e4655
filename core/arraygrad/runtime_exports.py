"""The runtime names ``torch`` has at its top level, gathered for one star import in
``arraygrad/__init__.py``: autocast switches, devices' errors, streams and events, the
determinism, thread and print switches, build flags and device modules."""

from __future__ import annotations

from arraygrad.amp.autocast_mode import autocast
from arraygrad.amp.switches import (
    autocast_decrement_nesting, autocast_increment_nesting, clear_autocast_cache,
    get_autocast_cpu_dtype, get_autocast_dtype, get_autocast_gpu_dtype, get_autocast_ipu_dtype,
    get_autocast_xla_dtype, is_autocast_cache_enabled, is_autocast_cpu_enabled,
    is_autocast_enabled, is_autocast_ipu_enabled, is_autocast_xla_enabled,
    set_autocast_cache_enabled, set_autocast_cpu_dtype, set_autocast_cpu_enabled,
    set_autocast_dtype, set_autocast_enabled, set_autocast_gpu_dtype, set_autocast_ipu_dtype,
    set_autocast_ipu_enabled, set_autocast_xla_dtype, set_autocast_xla_enabled,
)
from arraygrad.determinism import (
    are_deterministic_algorithms_enabled, get_deterministic_debug_mode,
    is_deterministic_algorithms_warn_only_enabled, set_deterministic_debug_mode,
    use_deterministic_algorithms,
)
from arraygrad.device_errors import AcceleratorError, OutOfMemoryError
from arraygrad.random import default_generator, thread_safe_generator
from arraygrad.runtime_info import (
    get_device_module, has_lapack, has_mkl, has_openmp, has_spectral, is_vulkan_available,
    typename,
)
from arraygrad.runtime_switches import (
    get_float32_matmul_precision, is_anomaly_check_nan_enabled, is_anomaly_enabled,
    is_warn_always_enabled, set_anomaly_enabled, set_float32_matmul_precision,
    set_flush_denormal, set_warn_always,
)
from arraygrad.streams import Event, Stream
from arraygrad.tensor_str import set_printoptions
from arraygrad.threads import (
    get_num_interop_threads, get_num_threads, init_num_threads, set_num_interop_threads,
    set_num_threads,
)

__all__ = [
    "autocast", "autocast_decrement_nesting", "autocast_increment_nesting", "clear_autocast_cache",
    "get_autocast_cpu_dtype", "get_autocast_dtype", "get_autocast_gpu_dtype",
    "get_autocast_ipu_dtype", "get_autocast_xla_dtype", "is_autocast_cache_enabled",
    "is_autocast_cpu_enabled", "is_autocast_enabled", "is_autocast_ipu_enabled",
    "is_autocast_xla_enabled", "set_autocast_cache_enabled", "set_autocast_cpu_dtype",
    "set_autocast_cpu_enabled", "set_autocast_dtype", "set_autocast_enabled",
    "set_autocast_gpu_dtype", "set_autocast_ipu_dtype", "set_autocast_ipu_enabled",
    "set_autocast_xla_dtype", "set_autocast_xla_enabled",
    "are_deterministic_algorithms_enabled", "get_deterministic_debug_mode",
    "is_deterministic_algorithms_warn_only_enabled", "set_deterministic_debug_mode",
    "use_deterministic_algorithms", "AcceleratorError", "OutOfMemoryError", "default_generator",
    "get_device_module", "has_lapack", "has_mkl", "has_openmp", "has_spectral",
    "is_vulkan_available", "thread_safe_generator", "typename", "get_float32_matmul_precision",
    "is_anomaly_check_nan_enabled", "is_anomaly_enabled", "is_warn_always_enabled",
    "set_anomaly_enabled", "set_float32_matmul_precision", "set_flush_denormal",
    "set_warn_always", "Event", "Stream", "set_printoptions", "get_num_interop_threads",
    "get_num_threads", "init_num_threads", "set_num_interop_threads", "set_num_threads",
]
