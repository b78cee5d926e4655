"""``case(...)``: the short form the case tables are written in."""

from __future__ import annotations

from typing import Any, Callable

from arraygrad.conformance.case import OpCase


__all__ = ["case"]


def case(op: str, variant: str, fn: Callable[..., Any], shapes: Any, kind: Any = "float",
         zeros: Any = (), consts: Any = (),
         low: Any = None, high: Any = None, **kw: Any) -> Any:
    """An ``OpCase`` named ``op/variant`` whose inputs are float tensors of ``shapes``.

    ``kind`` (with ``low``/``high``) is the ``InputMaker`` kind of every float input; ``zeros`` puts zeros
    at flat positions of the first; ``consts`` are extra constant inputs (index
    tensors, masks) given as nested lists, appended after the float inputs.
    """
    shapes = tuple(tuple(s) for s in shapes)
    consts = tuple(consts)

    def inputs(make: Any) -> Any:
        xs = [make(s, low, high, kind=kind, zeros=zeros if i == 0 else ()) for i, s in enumerate(shapes)]
        return tuple(xs) + tuple(make.tensor(c) for c in consts)

    return OpCase(op, f"{op}/{variant}", fn, inputs, **kw)
