"""Sequence factories with PyTorch's numbers: ``logspace``, the deprecated inclusive
``range``, and the window functions (``hann``, ``hamming``, ``blackman``, ``bartlett``,
``kaiser``) with PyTorch's ``periodic=True`` default.

Each is computed as PyTorch's CPU kernel does, in the result's dtype (float64 for an integer
``logspace``): ``logspace`` from both ends towards the middle (``start + i*step`` for the first
half, ``end - (steps-1-i)*step`` for the rest), the windows from ``arange`` times a scalar.
They are factories: results are leaves (``requires_grad=`` makes them require grad).
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Callable

from arraygrad import dtypes as _dt
from arraygrad.tensor import Tensor, wrap

__all__ = ["logspace", "range", "hann_window", "hamming_window", "blackman_window",
           "bartlett_window", "kaiser_window", "FUNCTIONS"]

_builtin_range = range


def factory_backend(op: str, dtype: Any, layout: Any, device: Any, pin_memory: Any) -> Any:
    """``(backend, dtype)`` for a factory, after PyTorch's checks of ``layout`` (strided only)
    and ``pin_memory`` (needs a CUDA backend)."""
    from arraygrad.creation import _backend, _options

    if layout is not None or pin_memory:
        _options(op, layout, pin_memory)  # the factories' one check of both (``layouts``)
    return _backend(device), dtype or _dt.get_default_dtype()


def _finish(data: Any, backend: Any, dtype: _dt.dtype, requires_grad: bool) -> Tensor:
    out = wrap(backend.xp.astype(data, backend.native_dtype(dtype)), backend)
    if requires_grad:
        out.requires_grad_(True)
    return out


def _work(backend: Any, dtype: _dt.dtype) -> Any:
    """The native dtype a sequence is computed in: the result's, float64 for integers."""
    return backend.native_dtype(dtype if dtype.is_floating_point else _dt.float64)


def symmetric_steps(xp: Any, start: float, end: float, steps: int, native: Any) -> Any:
    """PyTorch's ``linspace`` values in ``native``: ``start + i*step`` for the first half,
    ``end - (steps-1-i)*step`` for the second (so both ends are exact)."""
    i = xp.arange(steps, dtype=native)
    first, last = xp.asarray(start, dtype=native), xp.asarray(end, dtype=native)
    step = (last - first) / (steps - 1) if steps > 1 else xp.asarray(0.0, dtype=native)
    halfway = steps // 2
    return xp.where(i < halfway, first + step * i, last - step * (steps - 1 - i))


def logspace(start: Any, end: Any, steps: int, base: float = 10.0, *, out: Any = None,
             dtype: Any = None, layout: Any = None, device: Any = None, pin_memory: Any = False,
             requires_grad: bool = False) -> Tensor:
    """``steps`` values from ``base**start`` to ``base**end``, evenly spaced in the
    exponent (``torch.logspace``)."""
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    backend, d = factory_backend("logspace", dtype, layout, device, pin_memory)
    xp = backend.xp
    native = _work(backend, d)
    first, last = (float(v.item()) if isinstance(v, Tensor) else float(v) for v in (start, end))
    if not d.is_floating_point:  # PyTorch converts the ends to the integer dtype first
        first, last = float(math.trunc(first)), float(math.trunc(last))
    if steps == 1:  # the one value is base**start
        last = first
    exponent = symmetric_steps(xp, first, last, int(steps), native)
    result = _finish(xp.pow(xp.asarray(float(base), dtype=native), exponent), backend, d,
                     requires_grad)
    return result if out is None else _write_out("logspace", result, out)


def _write_out(op: str, result: Tensor, out: Any) -> Any:
    from arraygrad.ops.out_arg import write_out

    return write_out(op, result, out)


def range(start: Any, end: Any, step: Any = 1, *, out: Any = None, dtype: Any = None,
          layout: Any = None, device: Any = None, pin_memory: Any = False,
          requires_grad: bool = False) -> Tensor:
    """``start, start+step, ...`` up to and including ``end`` (deprecated in PyTorch: warns;
    use ``arange``). The default dtype is the default float dtype, whatever the arguments."""
    warnings.warn("torch.range is deprecated and will be removed in a future release because "
                  "its behavior is inconsistent with Python's range builtin. Instead, use "
                  "torch.arange, which produces values in [start, end).", UserWarning, stacklevel=2)
    lo, hi, st = (float(v.item()) if isinstance(v, Tensor) else float(v)
                  for v in (start, end, step))
    if st == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"unsupported range: {lo} -> {hi}")
    if (st > 0 and hi < lo) or (st < 0 and hi > lo):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    backend, d = factory_backend("range", dtype, layout, device, pin_memory)
    xp = backend.xp
    n = int(math.floor((hi - lo) / st)) + 1
    # as PyTorch: each value computed in double, then converted
    native = backend.native_dtype(_dt.float64 if _dt.float64 in backend.supported_dtypes() else d)
    data = xp.asarray(lo, dtype=native) + xp.asarray(st, dtype=native) * xp.arange(n, dtype=native)
    result = _finish(data, backend, d, requires_grad)
    return result if out is None else _write_out("range", result, out)


def _window(op: str, window_length: int, periodic: bool, dtype: Any, layout: Any, device: Any,
            pin_memory: Any, requires_grad: bool, body: Callable[[Any, Any, int], Any]) -> Tensor:
    """PyTorch's window scaffold: checks, the lengths 0 and 1, ``periodic`` computed as one
    longer window without its last value. ``body(backend, arange, length)`` makes the window."""
    if window_length < 0:
        raise RuntimeError(f"{op} requires non-negative window_length, got "
                           f"window_length={window_length}")
    backend, d = factory_backend(op, dtype, layout, device, pin_memory)
    if not d.is_floating_point:
        raise RuntimeError(f"{op} expects floating point dtypes, got: {d}")
    xp = backend.xp
    native = backend.native_dtype(d)
    if window_length <= 1:
        data = xp.ones((window_length,), dtype=native)
    else:
        length = window_length + 1 if periodic else window_length
        data = body(backend, xp.arange(length, dtype=native), length)[:window_length]
    return _finish(data, backend, d, requires_grad)


def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54,
                   beta: float = 0.46, *, dtype: Any = None, layout: Any = None,
                   device: Any = None, pin_memory: Any = False,
                   requires_grad: bool = False) -> Tensor:
    """The generalized Hamming window ``alpha - beta * cos(2 pi n / (N - 1))``."""
    return _window("hamming_window", window_length, periodic, dtype, layout, device, pin_memory,
                   requires_grad,
                   lambda b, n, N: alpha - beta * b.xp.cos(n * (math.pi * 2.0 / (N - 1))))


def hann_window(window_length: int, periodic: bool = True, *, dtype: Any = None,
                layout: Any = None, device: Any = None, pin_memory: Any = False,
                requires_grad: bool = False) -> Tensor:
    """The Hann window ``0.5 - 0.5 * cos(2 pi n / (N - 1))``."""
    return _window("hann_window", window_length, periodic, dtype, layout, device, pin_memory,
                   requires_grad,
                   lambda b, n, N: 0.5 - 0.5 * b.xp.cos(n * (math.pi * 2.0 / (N - 1))))


def _blackman(backend: Any, n: Any, N: int) -> Any:
    xp = backend.xp
    w = n * (math.pi / (N - 1))
    return xp.cos(w * 4) * 0.08 - xp.cos(w * 2) * 0.5 + 0.42


def blackman_window(window_length: int, periodic: bool = True, *, dtype: Any = None,
                    layout: Any = None, device: Any = None, pin_memory: Any = False,
                    requires_grad: bool = False) -> Tensor:
    """The Blackman window ``0.42 - 0.5 cos(2 pi n/(N-1)) + 0.08 cos(4 pi n/(N-1))``."""
    return _window("blackman_window", window_length, periodic, dtype, layout, device,
                   pin_memory, requires_grad, _blackman)


def _bartlett(backend: Any, n: Any, N: int) -> Any:
    xp = backend.xp
    w = n * (2.0 / (N - 1))
    first_half = ((N - 1) >> 1) + 1
    return xp.where(n < first_half, w, 2 - w)


def bartlett_window(window_length: int, periodic: bool = True, *, dtype: Any = None,
                    layout: Any = None, device: Any = None, pin_memory: Any = False,
                    requires_grad: bool = False) -> Tensor:
    """The Bartlett (triangular) window, rising from 0 to 1 and back."""
    return _window("bartlett_window", window_length, periodic, dtype, layout, device,
                   pin_memory, requires_grad, _bartlett)


def _i0(xp: Any, x: Any) -> Any:
    """The modified Bessel function I0 (its power series, to float64 precision), for the
    Kaiser window's arguments (0 <= x <= beta)."""
    term = xp.ones_like(x)
    total = xp.ones_like(x)
    quarter = x * x / 4.0
    for k in _builtin_range(1, 500):
        term = term * quarter / (k * k)
        total = total + term
        if bool(xp.all(term <= total * 1e-17)):
            break
    return total


def kaiser_window(window_length: int, periodic: bool = True, beta: float = 12.0, *,
                  dtype: Any = None, layout: Any = None, device: Any = None,
                  pin_memory: Any = False, requires_grad: bool = False) -> Tensor:
    """The Kaiser window ``I0(beta * sqrt(1 - ((n - a) / a)**2)) / I0(beta)``, ``a = (N-1)/2``."""
    def body(backend: Any, n: Any, N: int) -> Any:
        xp = backend.xp
        wide = _work(backend, _dt.float64 if _dt.float64 in backend.supported_dtypes()
                     else backend.arraygrad_dtype(n.dtype))
        x = xp.astype(n, wide)
        alpha = (N - 1) / 2.0
        arg = beta * xp.sqrt(xp.abs(1 - ((x - alpha) / alpha) ** 2))
        return xp.astype(_i0(xp, arg) / _i0(xp, xp.asarray(float(beta), dtype=wide)), n.dtype)

    return _window("kaiser_window", window_length, periodic, dtype, layout, device, pin_memory,
                   requires_grad, body)


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "logspace": logspace, "range": range, "hann_window": hann_window,
    "hamming_window": hamming_window, "blackman_window": blackman_window,
    "bartlett_window": bartlett_window, "kaiser_window": kaiser_window,
}
