"""The device readings ``torch.cuda`` takes from NVIDIA's management library (``pynvml``, the
``nvidia-ml-py`` package): utilization, memory traffic, temperature, power, clock, memory
used. As in PyTorch, each raises ModuleNotFoundError when ``pynvml`` is not installed."""

from __future__ import annotations

import importlib
from typing import Any

from arraygrad.cuda import _device

__all__ = ["utilization", "memory_usage", "temperature", "power_draw", "clock_rate",
           "device_memory_used"]


def _handle(device: Any) -> tuple[Any, Any]:
    """``(pynvml, the device's NVML handle)``; PyTorch's errors without pynvml or a driver."""
    try:
        pynvml = importlib.import_module("pynvml")
    except ImportError as exc:
        raise ModuleNotFoundError(
            "nvidia-ml-py does not seem to be installed or it can't be imported.") from exc
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError_DriverNotLoaded as exc:
        raise RuntimeError("cuda driver can't be loaded, is cuda enabled?") from exc
    return pynvml, pynvml.nvmlDeviceGetHandleByIndex(_device.index_of(device))


def utilization(device: Any = None) -> int:
    """Percent of the last sample period in which a kernel ran on the device (``nvidia-smi``)."""
    pynvml, handle = _handle(device)
    return int(pynvml.nvmlDeviceGetUtilizationRates(handle).gpu)


def memory_usage(device: Any = None) -> int:
    """Percent of the last sample period in which device memory was read or written."""
    pynvml, handle = _handle(device)
    return int(pynvml.nvmlDeviceGetUtilizationRates(handle).memory)


def temperature(device: Any = None) -> int:
    """The GPU sensor's temperature in degrees Celsius."""
    pynvml, handle = _handle(device)
    return int(pynvml.nvmlDeviceGetTemperature(handle, 0))  # NVML_TEMPERATURE_GPU


def power_draw(device: Any = None) -> int:
    """The device's power draw in milliwatts (Fermi or newer)."""
    pynvml, handle = _handle(device)
    return int(pynvml.nvmlDeviceGetPowerUsage(handle))


def clock_rate(device: Any = None) -> int:
    """The streaming-multiprocessor clock in MHz."""
    pynvml, handle = _handle(device)
    return int(pynvml.nvmlDeviceGetClockInfo(handle, 1))  # NVML_CLOCK_SM


def device_memory_used(device: Any = None) -> int:
    """Device memory in use in bytes, all processes together (``nvidia-smi``)."""
    pynvml, handle = _handle(device)
    return int(pynvml.nvmlDeviceGetMemoryInfo(handle).used)
