"""``arraygrad.types``: PyTorch's ``torch.types``, the type aliases programs annotate with
(``Number``, ``Device``, ``FileLike``...), over arraygrad's classes."""

from __future__ import annotations

import os
from typing import IO, Union

from arraygrad.device import device as _device
from arraygrad.storage import UntypedStorage
from arraygrad.symbolic import SymBool, SymFloat, SymInt
from arraygrad.tensor import Size, Tensor

__all__ = ["BoolLikeType", "Device", "FileLike", "FloatLikeType", "IntLikeType", "Number",
           "PySymType", "Size", "Storage", "SymBool", "SymFloat", "SymInt", "Tensor",
           "py_sym_types"]

Number = Union[int, float, bool]
"""A Python number an op takes as an operand."""
Device = Union[_device, str, int, None]
"""What a ``device=`` argument accepts."""
FileLike = Union[str, "os.PathLike[str]", IO[bytes]]
"""What ``save``/``load`` accept as a file."""
IntLikeType = Union[int, SymInt]
FloatLikeType = Union[float, SymFloat]
BoolLikeType = Union[bool, SymBool]
PySymType = Union[SymInt, SymFloat, SymBool]
py_sym_types = (SymInt, SymFloat, SymBool)
"""The symbolic scalar classes, for ``isinstance``."""
Storage = UntypedStorage
"""A tensor's storage class."""
