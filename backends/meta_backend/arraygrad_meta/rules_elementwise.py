"""Shape rules of the functions whose result is shaped like their inputs: elementwise
(broadcast), reductions (``axis``/``keepdims``), scans and sorts (the input's shape)."""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygrad_meta.array import MetaArray
from arraygrad_meta.table import meta_shapes, probe, shape_rule, shaped

__all__ = ["ELEMENTWISE", "reduced_shape"]

ELEMENTWISE = (
    # the standard's elementwise functions
    "abs", "acos", "acosh", "add", "asin", "asinh", "atan", "atan2", "atanh", "bitwise_and",
    "bitwise_left_shift", "bitwise_invert", "bitwise_or", "bitwise_right_shift", "bitwise_xor",
    "ceil", "clip", "conj", "copysign", "cos", "cosh", "divide", "equal", "exp", "expm1", "floor",
    "floor_divide", "greater", "greater_equal", "hypot", "imag", "isfinite", "isinf", "isnan",
    "less", "less_equal", "log", "log1p", "log2", "log10", "logaddexp", "logical_and",
    "logical_not", "logical_or", "logical_xor", "maximum", "minimum", "multiply", "negative",
    "nextafter", "not_equal", "positive", "pow", "real", "reciprocal", "remainder", "round",
    "sign", "signbit", "sin", "sinh", "square", "sqrt", "subtract", "tan", "tanh", "trunc",
    "where",
    # NumPy's spellings and extras the CPU namespace has
    "absolute", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2", "arctanh",
    "bitwise_not", "invert", "left_shift", "right_shift", "power", "mod", "fmod", "true_divide",
    "fmax", "fmin", "float_power", "exp2", "logaddexp2", "cbrt", "rint", "fabs", "heaviside",
    "ldexp", "gcd", "lcm", "deg2rad", "rad2deg", "degrees", "radians", "sinc", "spacing",
    "nan_to_num", "isclose", "conjugate", "i0", "isneginf", "isposinf", "fix", "around",
)


@shape_rule(*ELEMENTWISE)
def elementwise(fn: Any, *args: Any, **kwargs: Any) -> MetaArray:
    """The arrays' broadcast shape; the dtype of ``fn`` on tiny stand-ins."""
    found = probe(fn, *args, **kwargs)
    return shaped(found, np.broadcast_shapes(*meta_shapes(*args, *kwargs.values())))


def _axes(ndim: int, axis: Any) -> set[int]:
    """The reduced axes, non-negative (None: all; an int or a tuple, checked by a probe)."""
    if axis is None:
        return set(range(ndim))
    return {a % ndim for a in (axis if isinstance(axis, (tuple, list)) else (axis,))} if ndim \
        else set()


def reduced_shape(shape: tuple[int, ...], axis: Any, keepdims: bool) -> tuple[int, ...]:
    """``shape`` reduced over ``axis``."""
    axes = _axes(len(shape), axis)
    if keepdims:
        return tuple(1 if i in axes else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in axes)


_WITHOUT_IDENTITY = ("max", "min", "argmax", "argmin", "amax", "amin", "nanmax", "nanmin",
                     "nanargmax", "nanargmin")


@shape_rule(*_WITHOUT_IDENTITY)
def reduction_without_identity(fn: Any, x: MetaArray, *args: Any, axis: Any = None,
                               **kwargs: Any) -> MetaArray:
    """A reduction that has no value for an empty set (``max``...): NumPy's ValueError when
    a reduced axis is empty, else ``reduction``'s shape."""
    if args:
        axis, args = args[0], args[1:]
    found = reduction(fn, x, *args, axis=axis, **kwargs)
    if any(x.shape[a] == 0 for a in _axes(x.ndim, axis)):
        raise ValueError(f"zero-size array to reduction operation {fn.__name__} which has no "
                         "identity")
    return found


@shape_rule("sum", "prod", "mean", "std", "var", "all", "any", "count_nonzero", "nansum",
            "nanprod", "nanmean", "nanstd", "nanvar", "linalg.vector_norm")
def reduction(fn: Any, x: MetaArray, *args: Any, axis: Any = None, keepdims: bool = False,
              **kwargs: Any) -> MetaArray:
    """``x``'s shape without (or with size 1 at, ``keepdims``) the reduced axes."""
    if args:  # NumPy's positional axis (``sum(x, 0)``)
        axis, args = args[0], args[1:]
    if "correction" in kwargs:  # std/var: a tiny stand-in has too few elements to correct
        kwargs["correction"] = 0
    found = probe(fn, x, *args, axis=axis, keepdims=keepdims, **kwargs)
    return shaped(found, reduced_shape(x.shape, axis, keepdims))


@shape_rule("linalg.matrix_norm")
def matrix_norm(fn: Any, x: MetaArray, *, keepdims: bool = False, **kwargs: Any) -> MetaArray:
    """The last two dimensions reduced."""
    found = probe(fn, x, keepdims=keepdims, **kwargs)
    return shaped(found, reduced_shape(x.shape, (-2, -1), keepdims))


@shape_rule("linalg.trace")
def trace(fn: Any, x: MetaArray, **kwargs: Any) -> MetaArray:
    """The batch dimensions (the last two are the matrix)."""
    return shaped(probe(fn, x, **kwargs), x.shape[:-2])


@shape_rule("sort", "argsort", "roll", "tril", "triu", "linalg.inv", "linalg.cholesky",
            "linalg.matrix_power", "astype")
def same_shape(fn: Any, x: MetaArray, *args: Any, **kwargs: Any) -> MetaArray:
    """``x``'s shape; the dtype of ``fn`` on a tiny stand-in."""
    return shaped(probe(fn, x, *args, **kwargs), x.shape)


@shape_rule("cumulative_sum", "cumulative_prod")
def cumulative(fn: Any, x: MetaArray, *, axis: Any = None, dtype: Any = None,
               include_initial: bool = False) -> MetaArray:
    """``x``'s shape, one longer along ``axis`` with ``include_initial``."""
    found = probe(fn, x, axis=axis, dtype=dtype, include_initial=include_initial)
    shape = list(x.shape)
    if include_initial and shape:
        shape[(0 if axis is None else axis) % len(shape)] += 1
    return shaped(found, shape)
