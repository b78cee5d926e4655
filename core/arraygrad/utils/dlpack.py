"""``arraygrad.utils.dlpack``: PyTorch's ``torch.utils.dlpack``: ``to_dlpack`` (a tensor as a
DLPack capsule sharing its memory), ``from_dlpack`` (a tensor from an object with
``__dlpack__`` or from such a capsule) and the DLPack device types."""

from __future__ import annotations

import ctypes
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


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLTensorHead(ctypes.Structure):
    # the start of DLPack's DLTensor (and of DLManagedTensor, which begins with one)
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice)]


class _Capsule:
    """A DLPack capsule made consumable by ``from_dlpack``: its device read from the capsule's
    DLTensor, ``__dlpack__`` handing the capsule itself over (once, as the protocol says)."""

    def __init__(self, capsule: Any) -> None:
        get_name = ctypes.pythonapi.PyCapsule_GetName
        get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
        name = get_name(capsule)
        if name not in (b"dltensor", b"dltensor_versioned"):
            raise TypeError(f"from_dlpack: expected a DLPack capsule named 'dltensor', got "
                            f"{name!r} (a capsule can be consumed only once)")
        get = ctypes.pythonapi.PyCapsule_GetPointer
        get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
        address = get(capsule, name)
        if name == b"dltensor_versioned":  # DLManagedTensorVersioned: version (2 x u32) first
            address += 8
        head = _DLTensorHead.from_address(address)
        self._device = (int(head.device.device_type), int(head.device.device_id))
        self._capsule = capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        return self._device

    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any:
        return self._capsule


def is_capsule(obj: Any) -> bool:
    """Whether ``obj`` is a PyCapsule (the legacy DLPack exchange object)."""
    return type(obj).__name__ == "PyCapsule"


def to_dlpack(tensor: Any) -> Any:
    """A DLPack capsule of ``tensor``'s memory (shared), for ``from_dlpack`` of any library;
    consume it once."""
    return tensor.detach().__dlpack__()


def from_dlpack(ext_tensor: Any) -> Any:
    """A tensor sharing memory with ``ext_tensor``: an object with ``__dlpack__`` (another
    library's array or tensor) or a capsule from ``to_dlpack``."""
    from arraygrad.creation import from_dlpack as from_protocol

    return from_protocol(ext_tensor)
