"""Two more range factories: ``logspace`` and PyTorch's deprecated inclusive ``range``.

Both compute in float64 where the backend has it (as ``linspace`` does) and cast to the
result dtype last.
"""

from __future__ import annotations

import builtins
import math
import warnings
from typing import Any

from arraygrad import dtypes as _dt
from arraygrad.creation import _finish, _options, _widest_float, backend_of, linspace
from arraygrad.device import DeviceLike
from arraygrad.ops.out_arg import accepts_out
from arraygrad.tensor import Tensor

__all__ = ["logspace", "range"]


def _value(v: Any) -> Any:
    return v.item() if isinstance(v, Tensor) else v


def logspace(start: Any, end: Any, steps: int, base: float = 10.0, *,
              dtype: _dt.dtype | None = None, layout: Any = None,
              device: DeviceLike | None = None, requires_grad: bool = False,
              pin_memory: bool = False) -> Tensor:
    """``steps`` values ``base ** e`` for exponents ``e`` evenly spaced from ``start`` to
    ``end`` inclusive (``torch.logspace``)."""
    if layout is not None or pin_memory:
        _options("logspace", layout, pin_memory)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    d = dtype or _dt.get_default_dtype()
    backend = backend_of(device)
    work = _widest_float(backend, d)
    exponents = linspace(float(_value(start)), float(_value(end)), steps, dtype=work,
                         device=device)
    data = backend.xp.pow(backend.xp.asarray(float(base), dtype=backend.native_dtype(work)),
                          exponents._data)
    return _finish(backend.xp.astype(data, backend.native_dtype(d)), backend, requires_grad)


def range(  # noqa: A001 - PyTorch's name
        start: Any = 0, end: Any = None, step: Any = 1, *, dtype: _dt.dtype | None = None,
           layout: Any = None, device: DeviceLike | None = None, requires_grad: bool = False,
           pin_memory: bool = False) -> Tensor:
    """Values from ``start`` to ``end`` *inclusive* by ``step``, in the default float dtype
    unless ``dtype`` says otherwise: PyTorch's deprecated ``torch.range`` (use ``arange``)."""
    warnings.warn("torch.range is deprecated and will be removed in a future release because "
                  "its behavior is inconsistent with Python's range builtin. Instead, use "
                  "torch.arange, which produces values in [start, end).", UserWarning,
                  stacklevel=3)  # the caller's line, past the out= wrapper
    if end is None:
        raise TypeError('range() missing 1 required positional arguments: "end"')
    if layout is not None or pin_memory:
        _options("range", layout, pin_memory)
    start, end, step = (_value(v) for v in (start, end, step))
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    d = dtype or _dt.get_default_dtype()
    backend = backend_of(device)
    n = int(math.floor((end - start) / step)) + 1
    work = backend.native_dtype(_widest_float(backend, d))
    xp = backend.xp
    data = xp.asarray(start, dtype=work) + xp.arange(builtins.max(n, 0), dtype=work) * step
    return _finish(xp.astype(data, backend.native_dtype(d)), backend, requires_grad)


logspace = accepts_out(logspace)  # PyTorch's out= (ops.out_arg)
range = accepts_out(range)  # noqa: A001
