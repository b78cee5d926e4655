"""``argnums`` of the transforms: which positional arguments are differentiated.

An int (negative counts from the end) or a non-empty tuple of distinct ints;
PyTorch's messages when it is anything else or out of range.
"""

from __future__ import annotations

from typing import Any, Union

__all__ = ["Argnums", "slice_argnums", "replace_args", "wrap_argnums"]

Argnums = Union[int, tuple[int, ...]]


def _wrap_argnum(argnum: Any, num_args: int) -> int:
    if not isinstance(argnum, int):
        raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    if 0 <= argnum < num_args:
        return argnum
    if -num_args <= argnum < 0:
        return argnum + num_args
    raise RuntimeError(f"Got argnum={argnum}, but only {num_args} positional inputs")


def wrap_argnums(argnums: Any, num_args: int) -> Argnums:
    """``argnums`` checked against ``num_args`` arguments, negative entries made positive."""
    if not isinstance(argnums, (int, tuple)):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    if isinstance(argnums, int):
        return _wrap_argnum(argnums, num_args)
    wrapped = tuple(_wrap_argnum(a, num_args) for a in argnums)
    if not wrapped:
        raise RuntimeError("argnums must be non-empty")
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    return wrapped


def slice_argnums(args: tuple[Any, ...], argnums: Argnums) -> Any:
    """The argument at ``argnums`` (an int) or the tuple of those at ``argnums`` (a tuple)."""
    if isinstance(argnums, int):
        return args[argnums]
    return tuple(args[i] for i in argnums)


def replace_args(args: tuple[Any, ...], argnums: Argnums, new: Any) -> tuple[Any, ...]:
    """``args`` with the argument(s) at (wrapped) ``argnums`` replaced by ``new``, which is
    shaped as ``slice_argnums`` returns them."""
    if isinstance(argnums, int):
        return tuple(new if i == argnums else a for i, a in enumerate(args))
    at = dict(zip(argnums, new))
    return tuple(at.get(i, a) for i, a in enumerate(args))
