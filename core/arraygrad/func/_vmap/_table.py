"""The batching rule table and the helpers its rules share.

A batching rule computes an Array API function for a whole batch in one call of the
function one level down. It is registered under the function's name (``"sum"``,
``"linalg.inv"``) with ``@batching_rule("name", ...)`` and called as
``rule(level, fn, *args, **kwargs)``: ``fn`` is the level-below function of that name,
``args``/``kwargs`` the call's arguments, at least one of which is a ``BatchedArray`` of
``level`` (calls without one go straight to ``fn``). It returns what the function
returns, with batched arrays where the result depends on the batch.

The helpers speak of *physical* values (the batch dimension first) and *logical* shapes
(what the function sees): ``bval`` reads an argument's physical value (None when it is not
batched at this level), ``aligned`` lines batched operands up for broadcasting,
``batched`` wraps a result, ``shift`` maps a logical axis to its physical position.
"""

from __future__ import annotations

from typing import Any, Callable

from arraygrad.func._vmap._batched import BatchedArray, Level
from arraygrad.name_tables import registrar

__all__ = ["RULES", "batching_rule", "bval", "is_batched", "aligned", "batched", "shift",
           "materialize", "wrap_results", "logical_ndim", "is_array"]

Rule = Callable[..., Any]
RULES: dict[str, Rule] = {}
"""Function name -> batching rule (``"linalg.<name>"`` for the linalg extension)."""


batching_rule = registrar(RULES, "Register the decorated function as the batching rule of "
                                 "each of ``names``.")


def is_batched(x: Any, level: Level) -> bool:
    """Whether ``x`` is an array batched at ``level``."""
    return type(x) is BatchedArray and x.level is level


def bval(x: Any, level: Level) -> Any:
    """The physical value of ``x`` when batched at ``level``, else None."""
    return x.value if type(x) is BatchedArray and x.level is level else None


def is_array(x: Any) -> bool:
    """Whether ``x`` is an array (batched or not), not a scalar or a dtype (NumPy's dtype
    classes have a ``shape`` descriptor too)."""
    return hasattr(x, "shape") and not isinstance(x, type) and hasattr(x, "ndim")


_SCALARS = (float, int, bool, complex)


def logical_ndim(x: Any) -> int:
    """The number of dimensions the function sees (0 for Python scalars)."""
    if type(x) in _SCALARS:
        return 0
    return x.ndim if is_array(x) else 0


def batched(value: Any, level: Level) -> BatchedArray:
    """``value`` (batch dimension first) as a batched array of ``level``."""
    return BatchedArray(value, level)


def pad(value: Any, level: Level, ndim: int) -> Any:
    """A physical value with size-1 dimensions inserted after the batch dimension so that its
    logical part has ``ndim`` dimensions (right-aligned broadcasting then lines the batch
    dimensions of all operands up, and never against a logical one)."""
    extra = ndim - (value.ndim - 1)
    if extra <= 0:
        return value
    shape = tuple(value.shape)
    return level.base.reshape(value, (shape[0],) + (1,) * extra + shape[1:])


def aligned(level: Level, args: Any, ndim: int | None = None) -> list[Any]:
    """``args`` ready for a broadcasting call one level down: batched arrays become their
    physical values padded to the largest logical rank (``ndim`` if given); the rest (unbatched
    arrays, Python scalars) stay as they are and broadcast against the logical dimensions."""
    if ndim is None:
        if len(args) == 1:  # one operand: nothing to line up
            a = args[0]
            return [a.value if type(a) is BatchedArray and a.level is level else a]
        ndim = max([logical_ndim(a) for a in args], default=0)
    return [pad(a.value, level, ndim) if type(a) is BatchedArray and a.level is level else a
            for a in args]


def materialize(x: Any, level: Level) -> Any:
    """The physical value of any array at ``level``: an unbatched one is broadcast along a new
    leading batch dimension."""
    v = bval(x, level)
    if v is not None:
        return v
    base = level.base
    x = base.asarray(x) if not is_array(x) else x
    return base.broadcast_to(base.expand_dims(x, axis=0), (level.size,) + tuple(x.shape))


def shift(axis: int, ndim: int) -> int:
    """The physical position of logical ``axis`` (negative allowed) of an ``ndim``-d array."""
    if axis < -ndim or axis >= max(ndim, 1):
        raise IndexError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return (axis % ndim if ndim else 0) + 1


def wrap_results(out: Any, level: Level) -> Any:
    """A batched result: arrays become ``BatchedArray``s; tuples (and named tuples such as
    ``eigh``'s) and lists are rebuilt around their wrapped items."""
    if isinstance(out, tuple):
        items = [wrap_results(o, level) for o in out]
        return type(out)(*items) if hasattr(type(out), "_fields") else tuple(items)
    if isinstance(out, list):
        return [wrap_results(o, level) for o in out]
    if is_array(out):
        return BatchedArray(out, level)
    return out
