"""``arraygrad.cuda`` without a usable CUDA backend answers as PyTorch's CPU build does: each
function's value, or its error class, compared with torch 2.13 CPU where it is installed."""

from __future__ import annotations

import warnings

import pytest

import arraygrad as ag

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
pytestmark = pytest.mark.skipif(ag.cuda.is_available(), reason="a CUDA backend is usable here")


def _outcome(fn, *args, **kwargs):
    """``("value", result)`` or ``("raises", error class)``."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return "value", fn(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - the class is the measurement
        return "raises", type(exc)


# (name, args): calls whose values or error classes must equal PyTorch's CPU build's
CALLS = [
    ("is_available", ()), ("device_count", ()), ("is_initialized", ()), ("empty_cache", ()),
    ("memory_allocated", ()), ("max_memory_allocated", ()), ("memory_reserved", ()),
    ("max_memory_reserved", ()), ("memory_cached", ()), ("max_memory_cached", ()),
    ("memory_stats_as_nested_dict", ()), ("host_memory_stats_as_nested_dict", ()),
    ("is_bf16_supported", ()), ("is_tf32_supported", ()), ("get_arch_list", ()),
    ("get_gencode_flags", ()), ("get_rng_state_all", ()), ("manual_seed", (1,)),
    ("manual_seed_all", (1,)), ("seed", ()), ("seed_all", ()), ("set_rng_state_all", ([],)),
    ("set_device", (-1,)), ("set_stream", (None,)),
    ("current_device", ()), ("synchronize", ()), ("init", ()), ("get_device_name", ()),
    ("get_device_capability", ()), ("get_device_properties", ()), ("mem_get_info", ()),
    ("initial_seed", ()), ("get_rng_state", ()), ("current_stream", ()),
    ("default_stream", ()), ("ipc_collect", ()), ("get_sync_debug_mode", ()),
    ("set_sync_debug_mode", (0,)), ("set_per_process_memory_fraction", (0.5,)),
    ("get_per_process_memory_fraction", ()), ("can_device_access_peer", (0, 1)),
    ("get_stream_from_external", (0,)), ("reset_peak_memory_stats", ()),
    ("reset_max_memory_allocated", ()), ("reset_accumulated_memory_stats", ()),
    ("reset_peak_host_memory_stats", ()), ("reset_accumulated_host_memory_stats", ()),
    ("memory_summary", ()), ("Stream", ()), ("Event", ()), ("set_device", ("cpu",)),
    ("set_device", (None,)),
]


@needs_torch
@pytest.mark.parametrize("name,args", CALLS, ids=[f"{n}{a}" for n, a in CALLS])
def test_cuda_function_as_pytorch_cpu_build(name, args):
    theirs = _outcome(getattr(torch.cuda, name), *args)
    ours = _outcome(getattr(ag.cuda, name), *args)
    assert ours[0] == theirs[0], (ours, theirs)
    if ours[0] == "raises":
        assert issubclass(ours[1], theirs[1]) or ours[1] is theirs[1], (ours, theirs)
    else:
        assert ours[1] == theirs[1]


def test_cuda_answers_without_torch():
    """The same answers, stated, for runs without PyTorch."""
    assert ag.cuda.is_available() is False and ag.cuda.device_count() == 0
    assert ag.cuda.memory_allocated() == 0 and ag.cuda.max_memory_allocated() == 0
    assert ag.cuda.empty_cache() is None and dict(ag.cuda.memory_stats()) == {}
    assert ag.cuda.default_generators == () and ag.cuda.get_rng_state_all() == []
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        ag.cuda.current_device()
    with pytest.raises(AttributeError):
        ag.cuda.reset_peak_memory_stats()
    with pytest.raises(RuntimeError, match="requires CUDA support"):
        ag.cuda.Stream()


def test_device_index_errors_are_pytorchs():
    with pytest.raises(ValueError, match="Expected a cuda device, but got: cpu"):
        ag.cuda.set_device("cpu")
    with pytest.raises(ValueError, match="specified index"):
        ag.cuda.set_device(None)


@needs_torch
def test_context_managers_as_cpu_build():
    with ag.cuda.device(None), ag.cuda.stream(None), ag.cuda.device_of(ag.ones(1)):
        pass
    with torch.cuda.device_of(torch.ones(1)), torch.cuda.stream(None):
        pass
    with pytest.raises(AssertionError):
        with ag.cuda.device(0):
            pass


@needs_torch
def test_legacy_cuda_types_as_cpu_build():
    with pytest.raises(TypeError, match="not available"):
        torch.cuda.FloatTensor([1.0])
    with pytest.raises(TypeError, match="not available"):
        ag.cuda.FloatTensor([1.0])
    assert not isinstance(ag.ones(1), ag.cuda.FloatTensor)
    assert isinstance(ag.ones(1), ag.FloatTensor)


def test_error_classes_are_runtime_errors_as_pytorchs():
    assert issubclass(ag.cuda.OutOfMemoryError, RuntimeError)
    assert ag.cuda.OutOfMemoryError is ag.OutOfMemoryError
    assert issubclass(ag.AcceleratorError, RuntimeError) and issubclass(ag.cuda.CudaError, RuntimeError)
    assert not issubclass(ag.cuda.DeferredCudaCallError, RuntimeError)
    assert ag.cuda.cudaStatus.SUCCESS == 0 and ag.cuda.cudaStatus.ERROR_NOT_READY == 34


def test_nvtx_and_profiler_refuse_as_cpu_build():
    with pytest.raises(RuntimeError, match="NVTX functions not installed"):
        ag.cuda.nvtx.range_push("a")
    with pytest.raises(AssertionError):
        ag.cuda.profiler.start()


def test_nvml_readings_need_pynvml():
    pytest.importorskip("pytest")
    try:
        import pynvml  # noqa: F401
    except ImportError:
        with pytest.raises(ModuleNotFoundError, match="nvidia-ml-py"):
            ag.cuda.utilization()
        assert ag.cuda.list_gpu_processes() == "pynvml module not found, please install nvidia-ml-py"


def test_listed_names_say_why():
    with pytest.raises(AttributeError, match="caching-allocator"):
        ag.cuda.MemPool  # noqa: B018
    with pytest.raises(AttributeError, match="CUDA-graph"):
        ag.cuda.CUDAGraph  # noqa: B018
