"""The FLOPs the profiler attributes to an op (``with_flops``), from its inputs' and result's
shapes, with PyTorch's formulas: a matrix product counts two operations per multiply-add
(``2 m k n``, times the batch), a convolution two per multiply-add of every output element,
an elementwise ``add``/``mul`` one per result element. Other ops get none (the table prints
``--``), as in PyTorch."""

from __future__ import annotations

import math
from typing import Any, Callable

__all__ = ["flops_of"]


def _shape(x: Any) -> tuple[int, ...] | None:
    shape = getattr(x, "shape", None)
    return tuple(shape) if shape is not None and hasattr(x, "_data") else None


def _matmul(args: tuple[Any, ...], result: Any) -> int | None:
    a, b = (_shape(x) for x in args[:2]) if len(args) >= 2 else (None, None)
    out = _shape(result)
    if a is None or b is None or out is None or not a or not b:
        return None
    k = a[-1]
    return 2 * k * math.prod(out)  # each result element: k multiply-adds


def _addmm(args: tuple[Any, ...], result: Any) -> int | None:
    return _matmul(args[1:3], result)  # addmm(input, mat1, mat2)


def _linear(args: tuple[Any, ...], result: Any) -> int | None:
    x, out = (_shape(args[0]) if args else None), _shape(result)
    if x is None or out is None or not x:
        return None
    return 2 * x[-1] * math.prod(out)


def _conv(args: tuple[Any, ...], result: Any) -> int | None:
    w, out = (_shape(args[1]) if len(args) > 1 else None), _shape(result)
    if w is None or out is None:
        return None
    # weight (out_channels, in_channels / groups, *kernel): per output element
    return 2 * math.prod(out) * math.prod(w[1:])


def _elementwise(args: tuple[Any, ...], result: Any) -> int | None:
    out = _shape(result)
    return None if out is None else math.prod(out)


_FORMULAS: dict[str, Callable[[tuple[Any, ...], Any], int | None]] = {
    "matmul": _matmul, "mm": _matmul, "bmm": _matmul, "addmm": _addmm, "baddbmm": _addmm,
    "linear": _linear, "conv1d": _conv, "conv2d": _conv, "conv3d": _conv,
    "add": _elementwise, "mul": _elementwise,
}


def flops_of(name: str, args: tuple[Any, ...], result: Any) -> int | None:
    """The FLOPs of op ``name`` called with ``args`` giving ``result``; None when it has no
    formula."""
    formula = _FORMULAS.get(name)
    return None if formula is None else formula(args, result)
