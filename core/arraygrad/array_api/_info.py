"""``__array_namespace_info__()``: the namespace's capabilities, devices and dtypes."""

from __future__ import annotations

from typing import Any

from arraygrad import dtypes as _dt
from arraygrad.array_api._data_types import isdtype
from arraygrad.device import device as _device, get_default_device

__all__ = ["__array_namespace_info__", "Info", "DTYPE_NAMES"]

DTYPE_NAMES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
               "uint64", "float32", "float64", "complex64", "complex128")


class Info:
    """The inspection object of the standard (``xp.__array_namespace_info__()``)."""

    __module__ = "arraygrad.array_api"

    def capabilities(self) -> dict[str, Any]:
        """Boolean indexing and data-dependent shapes are supported (eager arrays)."""
        return {"boolean indexing": True, "data-dependent shapes": True,
                "max dimensions": None}

    def default_device(self) -> Any:
        """The device arrays are created on by default."""
        return _device(get_default_device())

    def devices(self) -> list[Any]:
        """The devices the namespace can place arrays on (the default one)."""
        return [self.default_device()]

    def default_dtypes(self, *, device: Any = None) -> dict[str, _dt.dtype]:
        """The default real and complex floating, integral and indexing dtypes."""
        real = _dt.get_default_dtype()
        return {"real floating": real,
                "complex floating": _dt.complex128 if real == _dt.float64 else _dt.complex64,
                "integral": _dt.int64, "indexing": _dt.int64}

    def dtypes(self, *, device: Any = None, kind: Any = None) -> dict[str, _dt.dtype]:
        """The dtypes of the standard, those of ``kind`` when given, by name."""
        table = {name: getattr(_dt, name) for name in DTYPE_NAMES}
        if kind is None:
            return table
        return {name: d for name, d in table.items() if isdtype(d, kind)}


def __array_namespace_info__() -> Info:
    """The namespace's inspection object."""
    return Info()
