"""DLPack capsules (``to_dlpack``'s exchange objects) made consumable by ``from_dlpack``,
which takes objects with ``__dlpack__``: the capsule's device is read from its DLTensor."""

from __future__ import annotations

import ctypes
from typing import Any


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
