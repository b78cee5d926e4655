"""The standard's creation functions where their signatures differ from PyTorch's: ``eye``'s
``k``, ``linspace``'s ``endpoint``, ``tril``/``triu``'s ``k``, ``meshgrid``'s default
``indexing="xy"``, ``arange``'s positional ``stop``, and ``asarray`` of nested sequences
that hold 0-d arrays."""

from __future__ import annotations

from typing import Any

import arraygrad as _ag
from arraygrad import dtypes as _dt
from arraygrad.tensor import Tensor

__all__ = ["arange", "asarray", "empty", "empty_like", "eye", "from_dlpack", "full",
           "full_like", "linspace", "meshgrid", "ones", "ones_like", "tril", "triu", "zeros",
           "zeros_like"]


def arange(start: Any, /, stop: Any = None, step: Any = 1, *, dtype: _dt.dtype | None = None,
           device: Any = None) -> Tensor:
    """Evenly spaced values in ``[start, stop)``."""
    if stop is None:
        start, stop = 0, start
    if step and (stop - start) * step <= 0:  # an empty range (PyTorch raises for these)
        if dtype is None:
            floating = any(isinstance(v, float) for v in (start, stop, step))
            dtype = _dt.get_default_dtype() if floating else _dt.int64
        return _ag.empty((0,), dtype=dtype, device=device)
    return _ag.arange(start, stop, step, dtype=dtype, device=device)


def _unwrap(obj: Any) -> Any:
    # 0-d arrays inside nested lists become Python numbers (the standard allows them there)
    if isinstance(obj, (list, tuple)):
        return [_unwrap(o) for o in obj]
    if isinstance(obj, Tensor):
        if obj.ndim:
            raise TypeError("asarray() takes 0-d arrays only inside nested sequences")
        return obj.item()
    return obj


def asarray(obj: Any, /, *, dtype: _dt.dtype | None = None, device: Any = None,
            copy: bool | None = None) -> Tensor:
    """An array from an array, a scalar, a nested sequence or a buffer (``copy=False``
    raises ValueError where a copy is needed)."""
    if isinstance(obj, (list, tuple)):
        if copy is False:
            raise ValueError("asarray(copy=False) cannot share the memory of a Python sequence")
        obj = _unwrap(obj)
    return _ag.asarray(obj, dtype=dtype, device=device, copy=copy)


def empty(shape: Any, *, dtype: _dt.dtype | None = None, device: Any = None) -> Tensor:
    """An uninitialised array of ``shape``."""
    return _ag.empty(shape, dtype=dtype, device=device)


def zeros(shape: Any, *, dtype: _dt.dtype | None = None, device: Any = None) -> Tensor:
    """An array of zeros of ``shape``."""
    return _ag.zeros(shape, dtype=dtype, device=device)


def ones(shape: Any, *, dtype: _dt.dtype | None = None, device: Any = None) -> Tensor:
    """An array of ones of ``shape``."""
    return _ag.ones(shape, dtype=dtype, device=device)


def full(shape: Any, fill_value: Any, *, dtype: _dt.dtype | None = None,
         device: Any = None) -> Tensor:
    """An array of ``shape`` filled with ``fill_value``."""
    return _ag.full(shape, fill_value, dtype=dtype, device=device)


def _like(fn: Any, x: Tensor, dtype: Any, device: Any, *args: Any) -> Tensor:
    return fn(x, *args, dtype=dtype if dtype is not None else x.dtype,
              device=device if device is not None else x.device)


def empty_like(x: Tensor, /, *, dtype: _dt.dtype | None = None, device: Any = None) -> Tensor:
    """An uninitialised array shaped as ``x``."""
    return _like(_ag.empty_like, x, dtype, device)


def zeros_like(x: Tensor, /, *, dtype: _dt.dtype | None = None, device: Any = None) -> Tensor:
    """Zeros shaped as ``x``."""
    return _like(_ag.zeros_like, x, dtype, device)


def ones_like(x: Tensor, /, *, dtype: _dt.dtype | None = None, device: Any = None) -> Tensor:
    """Ones shaped as ``x``."""
    return _like(_ag.ones_like, x, dtype, device)


def full_like(x: Tensor, /, fill_value: Any, *, dtype: _dt.dtype | None = None,
              device: Any = None) -> Tensor:
    """``fill_value`` shaped as ``x``."""
    return _like(_ag.full_like, x, dtype, device, fill_value)


def tril(x: Tensor, /, *, k: int = 0) -> Tensor:
    """The lower triangle of the last two dimensions, from diagonal ``k``."""
    return _ag.tril(x, k)


def triu(x: Tensor, /, *, k: int = 0) -> Tensor:
    """The upper triangle of the last two dimensions, from diagonal ``k``."""
    return _ag.triu(x, k)


def eye(n_rows: int, n_cols: int | None = None, /, *, k: int = 0,
        dtype: _dt.dtype | None = None, device: Any = None) -> Tensor:
    """Ones on diagonal ``k`` of an ``n_rows x n_cols`` array, zeros elsewhere."""
    n_cols = n_rows if n_cols is None else n_cols
    ones_ = _ag.ones((n_rows, n_cols), dtype=dtype, device=device)
    return _ag.tril(_ag.triu(ones_, k), k)  # the band between k and k is diagonal k alone


def linspace(start: Any, stop: Any, /, num: int, *, dtype: _dt.dtype | None = None,
             device: Any = None, endpoint: bool = True) -> Tensor:
    """``num`` evenly spaced values from ``start`` to ``stop`` (excluded without
    ``endpoint``)."""
    if dtype is None and (isinstance(start, complex) or isinstance(stop, complex)):
        dtype = _dt.complex128 if _dt.get_default_dtype() == _dt.float64 else _dt.complex64
    if endpoint or num == 0:
        return _ag.linspace(start, stop, num, dtype=dtype, device=device)
    return _ag.linspace(start, stop, num + 1, dtype=dtype, device=device)[:-1]


def meshgrid(*arrays: Tensor, indexing: str = "xy") -> list[Tensor]:
    """Coordinate arrays from 1-D arrays (``indexing="xy"`` by default, as the standard)."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid indexing must be 'xy' or 'ij', got {indexing!r}")
    return list(_ag.meshgrid(*arrays, indexing=indexing))


def from_dlpack(x: Any, /, *, device: Any = None, copy: bool | None = None) -> Tensor:
    """An array from an object with ``__dlpack__``."""
    return _ag.from_dlpack(x, device=device, copy=copy)
