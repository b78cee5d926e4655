"""``torch.jit.isinstance``: a deep ``isinstance`` for TorchScript's container types
(``List[int]``, ``Dict[str, Tensor]``, ``Tuple[int, str]``, ``Optional[...]``, ``Union``)."""

from __future__ import annotations

import builtins
import collections.abc
import types
import typing
import warnings
from typing import Any

_is = builtins.isinstance  # this module's own isinstance shadows the builtin


def _matches(obj: Any, target: Any) -> bool:
    if target is Any:
        return True
    if target is None or target is type(None):
        return obj is None
    origin = typing.get_origin(target)
    args = typing.get_args(target)
    if origin is None:
        if not _is(target, type):
            raise RuntimeError("The second argument to `torch.jit.isinstance` must be a type or a "
                               "tuple of types")
        return _is(obj, target)
    if origin in (typing.Union, types.UnionType):
        return any(_matches(obj, a) for a in args)
    if origin is list:
        if not _is(obj, list):
            return False
        if not obj:
            _warn_empty()
        return not args or all(_matches(x, args[0]) for x in obj)
    if origin is dict:
        if not _is(obj, dict):
            return False
        if not obj:
            _warn_empty()
        return not args or all(_matches(k, args[0]) and _matches(v, args[1])
                               for k, v in obj.items())
    if origin is tuple:
        if not _is(obj, tuple):
            return False
        if not args:
            return True
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_matches(x, args[0]) for x in obj)
        return len(obj) == len(args) and all(_matches(x, a) for x, a in zip(obj, args))
    if _is(origin, type) and issubclass(origin, collections.abc.Iterable):
        return _is(obj, origin)
    raise RuntimeError("The second argument to `torch.jit.isinstance` must be a type or a tuple "
                       "of types")


def _warn_empty() -> None:
    warnings.warn("The inner type of a container is lost when calling torch.jit.isinstance in "
                  "eager mode. For example, List[int] would become list and therefore falsely "
                  "return True for List[float] or List[str].", stacklevel=4)


def isinstance(obj: Any, target_type: Any) -> bool:  # noqa: A001 - PyTorch's name
    """Whether ``obj`` is of ``target_type``, looking inside containers: ``List[int]`` holds
    only ints, ``Dict[str, Tensor]`` only str keys and tensor values; a tuple of types matches
    any of them."""
    if type(target_type) is tuple:
        return any(_matches(obj, t) for t in target_type)
    return _matches(obj, target_type)
