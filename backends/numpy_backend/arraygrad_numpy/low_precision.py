"""float16 and bfloat16 on NumPy, computed as PyTorch's CPU does; bfloat16 through
``ml_dtypes`` (what JAX uses).

``ml_dtypes`` gives NumPy a ``bfloat16`` dtype whose ufuncs compute each element in float32
and round the result to bfloat16 (round-to-nearest-even), as PyTorch's CPU kernels do (NumPy's
float16 ufuncs do the same). Where NumPy's own machinery would differ from PyTorch, the
namespace functions below step in:

- reductions and scans (``sum``, ``mean``, ``std``, ``var``, ``cumulative_*``) of
  float16/bfloat16 accumulate in float32 and round once (NumPy would accumulate in the
  low precision), as PyTorch's accumulation type;
- products (``matmul``, ``vecdot``, ``tensordot``) multiply in float32 with BLAS and round
  once, as PyTorch's CPU GEMM accumulates in float32 (NumPy would return float32 for
  bfloat16, and loop without BLAS for float16);
- ``linalg`` computes float16/bfloat16 in float32 and rounds back (NumPy's has no float16
  and widens bfloat16 to float64);
- ``where`` and ``clip`` keep bfloat16 next to Python numbers (NumPy would widen);
- ``sort``, ``argsort``, ``searchsorted`` order bfloat16 as float32 (NaN last);
- ``isdtype`` and ``finfo`` know bfloat16 is a real floating dtype.

Without ``ml_dtypes`` the backend has no bfloat16 (``BF16`` is None) and says so.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

try:
    import ml_dtypes as _ml_dtypes
except ImportError:  # the backend then lacks bfloat16 (its conformance declaration says so)
    _ml_dtypes = None

__all__ = ["BF16", "LOW", "MISSING_REASON", "install", "reduced_in_float32", "to_bfloat16"]

BF16: Any = np.dtype(_ml_dtypes.bfloat16) if _ml_dtypes is not None else None
"""NumPy's bfloat16 dtype (``ml_dtypes.bfloat16``), or None without ``ml_dtypes``."""

MISSING_REASON = ("the numpy backend's bfloat16 comes from the ml_dtypes package, which is not "
                  "installed (pip install 'arraygrad[numpy]')")

_F32 = np.dtype(np.float32)
_F16 = np.dtype(np.float16)
LOW = frozenset(d for d in (_F16, BF16) if d is not None)
"""The low-precision dtypes computed in float32 here (float16, and bfloat16 with ml_dtypes)."""


_NAN_BITS = np.uint16(0xFFFF)


def to_bfloat16(x: Any) -> Any:
    """``x`` (a NumPy array) converted to bfloat16 bit for bit as PyTorch's ``.to(bfloat16)``:
    round to nearest even through float32 (a float64 rounds to float32 first, as PyTorch's
    conversion does), NaN from float32/float64 as 0xFFFF (PyTorch's vectorised conversion),
    no warning for NaN."""
    src = x.dtype
    if src.kind != "f" or src is _F16:  # integers, bool, float16: exact or one rounding
        with np.errstate(invalid="ignore"):
            return x.astype(BF16)
    with np.errstate(invalid="ignore", over="ignore"):  # NaN and past-float32 values: silent
        f = x if src is _F32 else x.astype(_F32)
        out = f.astype(BF16)
    nan = f != f
    if nan.any():
        out.view(np.uint16)[nan] = _NAN_BITS
    return out


def _is_bf16(x: Any) -> bool:
    return getattr(x, "dtype", None) is BF16


def _rounded(out: Any, low: Any) -> Any:
    """A float32 result rounded to ``low`` (float16/bfloat16), overflowing to inf silently as
    PyTorch's conversion does."""
    with np.errstate(over="ignore"):
        return np.asarray(out).astype(low)


def reduced_in_float32(reduce: Callable[..., Any], x: Any, axis: Any, keepdims: bool) -> Any:
    """``reduce(x)`` of float16/bfloat16 ``x`` accumulated in float32, rounded once."""
    return _rounded(reduce(x.astype(_F32), axis=axis, keepdims=keepdims), x.dtype)


def _accumulating(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn(x, ...)`` for a reduction or scan: float16/bfloat16 input accumulates in float32
    and the result is rounded once (PyTorch's accumulation type); other dtypes call ``fn``
    as is."""
    def wrapped(x: Any, /, *args: Any, **kwargs: Any) -> Any:
        low = x.dtype
        if (low is BF16 or low is _F16) and kwargs.get("dtype") in (None, low):
            kwargs.pop("dtype", None)
            return _rounded(fn(x.astype(_F32), *args, **kwargs), low)
        return fn(x, *args, **kwargs)

    wrapped.__name__ = wrapped.__qualname__ = getattr(fn, "__name__", "reduction")
    wrapped.__doc__ = fn.__doc__
    return wrapped


def _matmul(matmul: Callable[..., Any]) -> Callable[..., Any]:
    """``matmul`` as ``_product`` with two arguments only: the hottest product, one dtype read
    and one set lookup per call."""
    def wrapped(a: Any, b: Any, /) -> Any:
        low = a.dtype
        if low in LOW and b.dtype is low:
            return _rounded(matmul(a.astype(_F32), b.astype(_F32)), low)
        return matmul(a, b)

    wrapped.__name__ = wrapped.__qualname__ = "matmul"
    wrapped.__doc__ = matmul.__doc__
    return wrapped


def _product(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn(a, b, ...)`` for a product: float16/bfloat16 operands multiply in float32 (BLAS)
    and the result is rounded once; other dtypes call ``fn`` as is (two dtype tests per
    call)."""
    def wrapped(a: Any, b: Any, /, *args: Any, **kwargs: Any) -> Any:
        low = a.dtype
        if (low is BF16 or low is _F16) and b.dtype is low:
            return _rounded(fn(a.astype(_F32), b.astype(_F32), *args, **kwargs), low)
        return fn(a, b, *args, **kwargs)

    wrapped.__name__ = wrapped.__qualname__ = getattr(fn, "__name__", "product")
    wrapped.__doc__ = fn.__doc__
    return wrapped


def _rounded_back(out: Any, *args: Any) -> Any:
    """``out`` as bfloat16 when an argument is a bfloat16 array and none is a wider floating
    array (NumPy widens bfloat16 next to Python numbers); ``out`` itself otherwise."""
    if out.dtype is BF16 or out.dtype.kind != "f" or not any(_is_bf16(a) for a in args):
        return out
    if any(isinstance(a, np.ndarray) and a.dtype.kind == "f" for a in args):
        return out  # a wider floating array: NumPy's promotion is the answer
    return out.astype(BF16)


def _where(where: Callable[..., Any]) -> Callable[..., Any]:
    def wrapped(condition: Any, x1: Any, x2: Any, /) -> Any:
        out = where(condition, x1, x2)
        # no bfloat16 operand, the common case: nothing to round back, and no generator
        # over the arguments (masked_fill and NLL call this on every step)
        if getattr(x1, "dtype", None) is not BF16 and getattr(x2, "dtype", None) is not BF16:
            return out
        return _rounded_back(out, x1, x2)

    wrapped.__name__ = wrapped.__qualname__ = "where"
    wrapped.__doc__ = where.__doc__
    return wrapped


def _clip(clip: Callable[..., Any]) -> Callable[..., Any]:
    def wrapped(x: Any, /, min: Any = None, max: Any = None, **kwargs: Any) -> Any:
        return _rounded_back(clip(x, min, max, **kwargs), x, min, max)

    wrapped.__name__ = wrapped.__qualname__ = "clip"
    wrapped.__doc__ = clip.__doc__
    return wrapped


def _isdtype(isdtype: Callable[..., bool]) -> Callable[..., bool]:
    kinds = {"real floating", "numeric"}

    def wrapped(dtype: Any, kind: Any) -> bool:
        if dtype is BF16 or dtype is getattr(_ml_dtypes, "bfloat16", None):
            kinds_asked = kind if isinstance(kind, tuple) else (kind,)
            return any(k in kinds or k is BF16 or k is _ml_dtypes.bfloat16 for k in kinds_asked)
        return isdtype(dtype, kind)

    wrapped.__name__ = wrapped.__qualname__ = "isdtype"
    wrapped.__doc__ = isdtype.__doc__
    return wrapped


def _low_of(args: Any) -> Any:
    for a in args:
        dt = getattr(a, "dtype", None)
        if dt is BF16 or dt is _F16:
            return dt
    return None


def _linalg_function(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A ``linalg`` function: float16/bfloat16 arrays computed in float32, floating results
    rounded back (NumPy's linalg has no float16 and widens bfloat16 to float64); a named
    tuple of results keeps its type."""
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        low = _low_of(args)
        if low is None:
            return fn(*args, **kwargs)
        out = fn(*(a.astype(_F32) if getattr(a, "dtype", None) is low else a for a in args),
                 **kwargs)

        def back(r: Any) -> Any:
            return _rounded(r, low) if getattr(r, "dtype", None) is not None and \
                r.dtype.kind == "f" else r
        if isinstance(out, tuple):
            items = [back(r) for r in out]
            return type(out)(*items) if hasattr(out, "_fields") else tuple(items)
        return back(out)

    wrapped.__name__ = wrapped.__qualname__ = getattr(fn, "__name__", "linalg")
    wrapped.__doc__ = fn.__doc__
    return wrapped


def _linalg_namespace(linalg: Any) -> Any:
    import types

    ns = types.ModuleType(linalg.__name__, linalg.__doc__)
    for name, value in vars(linalg).items():
        if callable(value) and not isinstance(value, type) and not name.startswith("_"):
            value = _linalg_function(value)
        setattr(ns, name, value)
    return ns


def _finfo(finfo: Callable[..., Any]) -> Callable[..., Any]:
    def wrapped(type: Any, /) -> Any:
        if type is BF16 or getattr(type, "dtype", None) is BF16:
            return _ml_dtypes.finfo(_ml_dtypes.bfloat16)
        return finfo(type)

    wrapped.__name__ = wrapped.__qualname__ = "finfo"
    wrapped.__doc__ = finfo.__doc__
    return wrapped


def _sorting(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``sort``/``argsort``/``searchsorted``...: bfloat16 sorted as float32 (exact), where NaN
    sorts last (``ml_dtypes``' comparisons leave NaN in place)."""
    def wrapped(x: Any, /, *args: Any, **kwargs: Any) -> Any:
        if getattr(x, "dtype", None) is not BF16:
            return fn(x, *args, **kwargs)
        out = fn(x.astype(_F32), *(a.astype(_F32) if _is_bf16(a) else a for a in args),
                 **kwargs)
        return _rounded(out, BF16) if getattr(out, "dtype", None) is _F32 else out

    wrapped.__name__ = wrapped.__qualname__ = getattr(fn, "__name__", "sort")
    wrapped.__doc__ = fn.__doc__
    return wrapped


def install(ns: Any) -> None:
    """Give the namespace ``ns`` its ``bfloat16`` (without ``ml_dtypes``: none) and the
    functions above."""
    if BF16 is not None:
        ns.bfloat16 = BF16
        ns.where = _where(ns.where)
        ns.clip = _clip(ns.clip)
        ns.isdtype = _isdtype(ns.isdtype)
        ns.finfo = _finfo(ns.finfo)
        for name in ("sort", "argsort", "searchsorted"):
            setattr(ns, name, _sorting(getattr(ns, name)))
    ns.linalg = _linalg_namespace(ns.linalg)
    # (not prod: PyTorch's rounds each partial product, as NumPy's does)
    # (``sum`` is the backend's own reduction, which does it itself: one call less)
    for name in ("mean", "std", "var", "cumulative_sum", "cumulative_prod"):
        if hasattr(ns, name):
            setattr(ns, name, _accumulating(getattr(ns, name)))
    ns.matmul = _matmul(ns.matmul)
    for name in ("vecdot", "tensordot"):
        setattr(ns, name, _product(getattr(ns, name)))
