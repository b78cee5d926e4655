"""``make_tensor``: a tensor of a shape, dtype and device filled with values drawn uniformly
from ``[low, high)``, PyTorch's defaults for the range per dtype (bool ``[0, 2)``, integers
``[-9, 10)``, floating ``[-9, 9)``)."""

from __future__ import annotations

import collections.abc
import math
import warnings
from typing import Any

from arraygrad import dtypes as _dt
from arraygrad.tensor import Tensor

_INTEGRAL = (_dt.int32, _dt.int64)
_FLOATING = (_dt.float16, _dt.float32, _dt.float64)


def _low_high(dtype: _dt.dtype, low: float | None, high: float | None, *,
              lowest_inclusive: float, highest_exclusive: float, default_low: float,
              default_high: float) -> tuple[float, float]:
    """The range to draw from: the defaults where not given, checked, clamped to the dtype."""
    low = low if low is not None else default_low
    high = high if high is not None else default_high
    if any(isinstance(value, float) and math.isnan(value) for value in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    if low == high and dtype in _FLOATING:
        warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or complex "
                      "types is deprecated since 2.1 and will be removed in 2.3. Use "
                      "`torch.full(...)` instead.", FutureWarning, stacklevel=3)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest_inclusive or low >= highest_exclusive:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), "
                         f"but {dtype} only supports [{lowest_inclusive}, {highest_exclusive})")
    low = min(max(low, lowest_inclusive), highest_exclusive)
    high = min(max(high, lowest_inclusive), highest_exclusive)
    if dtype is _dt.bool or dtype in _INTEGRAL:
        return math.ceil(low), math.ceil(high)
    return low, high


def make_tensor(*shape: Any, dtype: _dt.dtype, device: Any, low: float | None = None,
                high: float | None = None, requires_grad: bool = False,
                noncontiguous: bool = False, exclude_zero: bool = False,
                memory_format: Any = None) -> Tensor:
    """A tensor of ``shape`` (integers, or one sequence of them) with values drawn uniformly from
    ``[low, high)``, as ``torch.testing.make_tensor``.

    ``noncontiguous`` returns a non-contiguous view (every second element of a tensor twice as
    wide) when there are two elements or more; ``exclude_zero`` replaces zeros by 1 (bool and
    integers) or the dtype's ``finfo.tiny``; ``requires_grad`` is for floating dtypes only
    (ValueError otherwise). ``memory_format`` is accepted and gives a contiguous tensor
    (arraygrad has no channels-last layout); it excludes ``noncontiguous`` as in PyTorch.
    """
    import arraygrad

    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = tuple(shape[0])
    dims = tuple(int(s) for s in shape)
    if noncontiguous and memory_format is not None:
        raise ValueError("The parameters `noncontiguous` and `memory_format` are mutually "
                         f"exclusive, but got noncontiguous={noncontiguous} and "
                         f"memory_format={memory_format}")
    if requires_grad and (dtype is _dt.bool or dtype in _INTEGRAL):
        raise ValueError("`requires_grad=True` is not supported for boolean and integral "
                         f"dtypes, but got dtype={dtype}")
    noncontiguous = noncontiguous and math.prod(dims) > 1
    if noncontiguous:
        dims = (*dims[:-1], 2 * dims[-1])
    result: Tensor
    if dtype is _dt.bool:
        lo, hi = _low_high(dtype, low, high, lowest_inclusive=0, highest_exclusive=2,
                           default_low=0, default_high=2)
        result = arraygrad.randint(int(lo), int(hi), dims, device=device, dtype=dtype)
    elif dtype in _INTEGRAL:
        info = arraygrad.iinfo(dtype)
        lo, hi = _low_high(dtype, low, high, lowest_inclusive=info.min,
                           highest_exclusive=info.max + (1 if dtype is not _dt.int64 else 0),
                           default_low=-9, default_high=10)
        result = arraygrad.randint(int(lo), int(hi), dims, device=device, dtype=dtype)
    elif dtype in _FLOATING:
        finfo = arraygrad.finfo(dtype)
        lo, hi = _low_high(dtype, low, high, lowest_inclusive=finfo.min,
                           highest_exclusive=finfo.max, default_low=-9, default_high=9)
        result = arraygrad.empty(dims, device=device, dtype=dtype)
        if hi - lo >= finfo.max:  # the width itself would overflow: draw half and double
            result.uniform_(lo / 2, hi / 2).mul_(2)
        else:
            result.uniform_(lo, hi)
    else:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by "
                        "torch.testing.make_tensor().")
    if noncontiguous:
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone()
    if exclude_zero:
        zero = result == 0
        if bool(zero.any()):
            fill = 1 if (dtype is _dt.bool or dtype in _INTEGRAL) else arraygrad.finfo(dtype).tiny
            result[zero] = fill
    if dtype in _FLOATING:
        result.requires_grad = requires_grad
    return result
