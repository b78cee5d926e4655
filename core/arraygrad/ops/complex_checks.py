"""The ops PyTorch refuses complex tensors to, refused here the same way (the array library
would compute something: NumPy orders complex numbers lexicographically, rounds their parts).

``refuse_complex_forward(op, *operands)``: PyTorch's NotImplementedError when an operand is
a complex tensor; ``message`` gives PyTorch's own words where they are not the kernel form
``"<op>_cpu" not implemented for 'ComplexFloat'``.
"""

from __future__ import annotations

from typing import Any

from arraygrad import dtypes as _dt
from arraygrad.tensor import Tensor

__all__ = ["refuse_complex_forward"]


def refuse_complex_forward(op: str, *operands: Any, message: str | None = None,
                           error: type[Exception] = NotImplementedError) -> None:
    """Raise PyTorch's error (``error``, NotImplementedError unless given) when one of
    ``operands`` is a complex tensor; nothing otherwise (one set lookup per tensor)."""
    for t in operands:
        if isinstance(t, Tensor) and t._data.dtype in t._backend.complex_natives:
            if message is None:
                name = _dt.scalar_type_name(t.dtype)
                raise error(f"\"{op}_cpu\" not implemented for '{name}'")
            raise error(message)
