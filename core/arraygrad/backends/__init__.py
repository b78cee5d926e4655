"""Backends: the array libraries arraygrad computes with, found through plugins.

>>> import arraygrad as ag
>>> [(b.name, b.available, b.reason) for b in ag.backends.available()]  # doctest: +SKIP
[('cupy', False, 'no CUDA device'), ('numpy', True, '')]
"""

from arraygrad.backends.contract import Availability, Backend, DeviceEvent, Generator
from arraygrad.backends.scalar_operands import ScalarOperands
from arraygrad.backends.registry import (
    BackendInfo,
    BackendRegistrationError,
    available,
    backend_for_device,
    default_backend,
    get_backend,
    register_backend,
)
# PyTorch's ``torch.backends.cuda/cudnn/mps`` flag modules (documented no-ops here)
from arraygrad.backends import cuda, cudnn, mps

__all__ = [
    "Availability", "Backend", "BackendInfo", "BackendRegistrationError", "DeviceEvent", "Generator",
    "ScalarOperands",
    "available", "backend_for_device", "cuda", "cudnn", "mps", "default_backend", "get_backend", "register_backend",
]
