"""``arraygrad.utils.dlpack``: PyTorch's ``torch.utils.dlpack``: ``to_dlpack`` (a tensor as a
DLPack capsule sharing its memory), ``from_dlpack`` (a tensor from an object with
``__dlpack__`` or from such a capsule) and the DLPack device types."""

from __future__ import annotations

import enum
from typing import Any

__all__ = ["DLDeviceType", "from_dlpack", "to_dlpack"]


class DLDeviceType(enum.IntEnum):
    """The DLPack specification's device types."""

    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17


def to_dlpack(tensor: Any) -> Any:
    """A DLPack capsule of ``tensor``'s memory (shared), for ``from_dlpack`` of any library;
    consume it once."""
    return tensor.detach().__dlpack__()


def from_dlpack(ext_tensor: Any) -> Any:
    """A tensor sharing memory with ``ext_tensor``: an object with ``__dlpack__`` (another
    library's array or tensor) or a capsule from ``to_dlpack``."""
    from arraygrad.creation import from_dlpack as from_protocol

    return from_protocol(ext_tensor)
