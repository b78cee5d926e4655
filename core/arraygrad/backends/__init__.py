"""Backends: the array libraries arraygrad computes with, found through plugins.

>>> import arraygrad as ag
>>> [(b.name, b.available, b.reason) for b in ag.backends.available()]  # doctest: +SKIP
[('cupy', False, 'no CUDA device'), ('numpy', True, '')]
"""

from typing import Any

from arraygrad.backends.contract import Availability, Backend, DeviceEvent, Generator
from arraygrad.backends.scalar_operands import ScalarOperands
from arraygrad.backends.materialization import materialize, materialize_every, set_materialize_every
from arraygrad.backends.registry import (
    BackendInfo,
    BackendRegistrationError,
    available,
    backend_for_device,
    default_backend,
    get_backend,
    register_backend,
)
# PyTorch's ``torch.backends`` flag modules (documented no-ops here) and their shared switches
from arraygrad.backends import cuda, cudnn, mps  # noqa: E402
from arraygrad.backends.flag_state import disable_global_flags, flags_frozen  # noqa: E402
from arraygrad.backends.global_flags import flags, install as _install_flags, set_flags  # noqa: E402

__all__ = [
    "Availability", "Backend", "BackendInfo", "BackendRegistrationError", "DeviceEvent", "Generator",
    "ScalarOperands",
    "available", "backend_for_device", "materialize", "materialize_every", "set_materialize_every", "default_backend", "get_backend", "register_backend",
    "cpu", "cuda", "cudnn", "cusparselt", "kleidiai", "mha", "miopen", "mkl", "mkldnn", "mps",
    "nnpack", "openmp", "opt_einsum", "disable_global_flags", "flags_frozen", "flags",
    "set_flags",
]
_install_flags(__name__)  # backends.fp32_precision

# the other flag modules load on first use (``import arraygrad`` stays fast)
_LAZY = ("cpu", "cusparselt", "kleidiai", "mha", "miopen", "mkl", "mkldnn", "nnpack", "openmp",
         "opt_einsum")


def __getattr__(name: str) -> Any:
    """``backends.mkldnn`` and the other flag modules, imported on first use."""
    if name in _LAZY:
        import importlib

        return importlib.import_module(f"arraygrad.backends.{name}")
    from arraygrad.absences import missing_attribute
    raise missing_attribute("torch.backends", name, "arraygrad.backends")
