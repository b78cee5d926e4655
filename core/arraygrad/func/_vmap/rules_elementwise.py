"""Batching rules: elementwise functions (broadcasting).

Batched operands are lined up (``aligned``: size-1 dimensions after the batch dimension
up to the largest logical rank) so right-aligned broadcasting never pairs the batch
dimension with a logical one; unbatched operands and Python scalars broadcast as they
are. The function is then called once, on the physical values.
"""

from __future__ import annotations

from typing import Any, Callable

from arraygrad.func._vmap._batched import Level
from arraygrad.func._vmap._table import aligned, batched, batching_rule, is_array

UNARY = ("abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "bitwise_invert", "ceil",
         "conj", "cos", "cosh", "exp", "expm1", "floor", "imag", "isfinite", "isinf", "isnan",
         "log", "log1p", "log2", "log10", "logical_not", "negative", "positive", "real", "round",
         "sign", "signbit", "sin", "sinh", "square", "sqrt", "tan", "tanh", "trunc", "reciprocal",
         "astype", "asarray", "zeros_like", "ones_like", "empty_like", "full_like", "copy")
BINARY = ("add", "atan2", "bitwise_and", "bitwise_left_shift", "bitwise_or",
          "bitwise_right_shift", "bitwise_xor", "copysign", "divide", "equal", "floor_divide",
          "greater", "greater_equal", "hypot", "less", "less_equal", "logaddexp", "logical_and",
          "logical_or", "logical_xor", "maximum", "minimum", "multiply", "not_equal", "pow",
          "remainder", "subtract", "nextafter", "where", "clip", "heaviside", "fmod", "fmax",
          "fmin", "float_power", "arctan2", "power", "true_divide")


@batching_rule(*UNARY, *BINARY)
def elementwise(level: Level, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Any arrays among the positional and keyword arguments (``clip``'s ``min``/``max``)
    broadcast together; the rest (dtypes, Python scalars) pass through."""
    names = [k for k, v in kwargs.items() if is_array(v)]
    lined = aligned(level, list(args) + [kwargs[k] for k in names])
    if names:
        kwargs = dict(kwargs, **dict(zip(names, lined[len(args):])))
    return batched(fn(*lined[:len(args)], **kwargs), level)
