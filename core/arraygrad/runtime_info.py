"""What this arraygrad has and where things live: PyTorch's build flags (``has_lapack``...),
``get_device_module`` and ``typename``."""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType
from typing import Any

__all__ = ["has_lapack", "has_mkl", "has_openmp", "has_spectral", "is_vulkan_available",
           "get_device_module", "typename"]

has_lapack = True
"""Whether LAPACK's solvers are there: arraygrad's linear algebra (``arraygrad.linalg``) runs
on the array library's own (NumPy's LAPACK)."""

has_mkl = False
"""Whether MKL is linked in: arraygrad links no native library of its own."""

has_openmp = False
"""Whether OpenMP parallelism is built in: arraygrad has no native kernels of its own."""

has_spectral = importlib.util.find_spec("arraygrad.fft") is not None
"""Whether FFTs are there (``arraygrad.fft``)."""


def is_vulkan_available() -> bool:
    """False: no arraygrad backend serves Vulkan."""
    return False


_DEVICE_TYPES = ("cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, "
                 "lazy, vulkan, mps, meta, hpu, mtia, privateuseone")
_MODULES = {"cpu": "arraygrad.cpu", "cuda": "arraygrad.cuda", "mps": "arraygrad.mps",
            "xpu": "arraygrad.xpu", "mtia": "arraygrad.mtia"}


def get_device_module(device: Any = None) -> ModuleType:
    """The device module of ``device`` (``"cuda"``, ``"cuda:1"``, a device): ``arraygrad.cuda``,
    ``arraygrad.cpu``...; without one, the current accelerator's (the CPU's without one)."""
    from arraygrad.device import device as device_cls

    if device is None:
        from arraygrad import accelerator

        found = accelerator.current_accelerator()
        kind = "cpu" if found is None else found.type
    elif isinstance(device, device_cls):
        kind = device.type
    elif isinstance(device, str):
        kind = device.partition(":")[0]
    else:
        raise RuntimeError(f"Invalid value of device '{device}', expect torch.device, str, or None")
    if kind not in _MODULES:
        if kind not in _DEVICE_TYPES.split(", "):
            raise RuntimeError(f"Expected one of {_DEVICE_TYPES} device type at start of device "
                               f"string: {kind}")
        raise RuntimeError(f"Device '{kind}' does not have a corresponding module registered "
                           "as 'torch.{kind}'.")
    return importlib.import_module(_MODULES[kind])


def typename(obj: Any, /) -> str:
    """The type name of ``obj``: a tensor's legacy name (``"arraygrad.FloatTensor"``,
    ``"arraygrad.cuda.FloatTensor"``), else ``module.QualifiedName`` (``"int"`` for builtins)."""
    from arraygrad.tensor import Tensor

    if isinstance(obj, Tensor):
        return str(obj.type())
    module = getattr(obj, "__module__", "") or ""
    qualname = ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    if module in ("", "builtins"):
        return qualname
    return f"{module}.{qualname}"
