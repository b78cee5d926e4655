"""The loop-and-stack fallback: the batching rule of Array API functions without one.

The function runs once per sample on the per-sample slices of its batched arguments and the
results are stacked along a new batch dimension. Correct for any function, but slow, so it
warns once per function, naming it and the arraygrad op computing it (read from the stack).
"""

from __future__ import annotations

import sys
import warnings
from typing import Any, Callable

from arraygrad.func._vmap import _table
from arraygrad.func._vmap._batched import BatchedArray, Level

__all__ = ["fallback", "fallback_functions"]

_warned: set[str] = set()


def fallback_functions() -> set[str]:
    """The functions that took the loop-and-stack fallback so far in this process."""
    return set(_warned)


def _op_name() -> str:
    """The arraygrad op computing right now, read from the call stack (for the fallback's
    warning): the innermost frame in ``arraygrad.ops``/``nn``/plugins outside this package."""
    frame: Any = sys._getframe(2)
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if not module.startswith("arraygrad.func._vmap") and (
                module.startswith(("arraygrad.ops", "arraygrad.nn", "arraygrad.linalg",
                                   "arraygrad.special", "arraygrad.creation"))
                or not module.startswith("arraygrad")):
            return f"{module}.{frame.f_code.co_name}"
        frame = frame.f_back
    return "?"


def _slice(x: Any, level: Level, i: int) -> Any:
    if type(x) is BatchedArray and x.level is level:
        return x.value[i]
    if type(x) in (list, tuple):
        return type(x)(_slice(y, level, i) for y in x)
    return x


def _stack(results: list[Any], level: Level) -> Any:
    first = results[0]
    if isinstance(first, tuple):
        items = [_stack([r[k] for r in results], level) for k in range(len(first))]
        return type(first)(*items) if hasattr(type(first), "_fields") else tuple(items)
    if isinstance(first, list):
        return [_stack([r[k] for r in results], level) for k in range(len(first))]
    if not _table.is_array(first):
        return first
    base = level.base
    return BatchedArray(base.stack([base.asarray(r) for r in results], axis=0), level)


def fallback(level: Level, name: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``fn`` once per sample on the per-sample slices of its batched arguments, the results
    stacked along a new batch dimension: the rule of functions without one (slow: warns once)."""
    if name not in _warned:
        _warned.add(name)
        warnings.warn(
            f"vmap: there is no batching rule for the array function {name!r} (computing "
            f"{_op_name()}), so it runs once per sample (a Python loop over the batch). "
            "Performance will be slow; add a batching rule (see docs/vmap.md).",
            UserWarning, stacklevel=3)
    results = [fn(*_slice(args, level, i), **{k: _slice(v, level, i) for k, v in kwargs.items()})
               for i in range(level.size)]
    return _stack(results, level)
