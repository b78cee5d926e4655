"""What a level computes its physical values with: the namespace "below" every level.

A level's rules call the function one level down on physical values. Which level that is
depends on the values, not on the level: levels made by separate ``vmap`` calls over the
same real backend meet when one call's recorded graph is differentiated inside another
call (``jacrev(jacrev(f))``: the outer ``vmap`` runs the backward of the inner one's ops
with batched cotangents; ``jacrev(jacfwd(f))``, ``vmap(hessian(f))`` likewise), so an
array of one level holds arrays of an earlier one that is not among the levels below it
when it was opened. ``BelowNamespace`` is the real backend's namespace with that choice
made per call: its function ``name`` hands the call to the deepest level among its array
arguments (which strips its batch and calls us again), else to the real backend. Arrays
nest by depth (a level's values hold only shallower levels' arrays), so this always ends.
"""

from __future__ import annotations

from typing import Any, Callable

from arraygrad.backends.wrapped_namespace import WrappedNamespace
from arraygrad.func._vmap._batched import BatchedArray, Level

__all__ = ["BelowNamespace", "deepest_level", "below_namespace"]

_SEQ = (list, tuple)


def deepest_level(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Level | None:
    """The deepest level of the batched arrays among ``args``/``kwargs`` (and in list or
    tuple arguments), None when there is none."""
    best: Level | None = None
    for a in args:
        t = type(a)
        if t is BatchedArray:
            if best is None or a.level.depth > best.depth:
                best = a.level
        elif t in _SEQ:
            for b in a:
                if type(b) is BatchedArray and (best is None or b.level.depth > best.depth):
                    best = b.level
    if kwargs:
        for a in kwargs.values():
            if type(a) is BatchedArray and (best is None or a.level.depth > best.depth):
                best = a.level
    return best


def _forward(path: tuple[str, ...], real: Callable[..., Any]) -> Callable[..., Any]:
    def below(*args: Any, **kwargs: Any) -> Any:
        level = deepest_level(args, kwargs)
        if level is None:
            return real(*args, **kwargs)
        fn: Any = level.xp
        for name in path:
            fn = getattr(fn, name)
        return fn(*args, **kwargs)
    below.__name__ = getattr(real, "__name__", path[-1])  # rules read it (``_REDUCED``)
    return below


class BelowNamespace(WrappedNamespace):
    """The real backend's Array API namespace ``real``, each function handing calls with
    batched arrays to the deepest level among them (see the module doc). Dtypes and
    constants are ``real``'s."""

    def _function(self, name: str, fn: Callable[..., Any]) -> Any:
        return _forward(tuple(name.split(".")), fn)

    def _extension(self, base: Any, prefix: str) -> "BelowNamespace":
        return BelowNamespace(base, prefix)


_made: dict[int, tuple[Any, BelowNamespace]] = {}


def below_namespace(real: Any) -> BelowNamespace:
    """The one ``BelowNamespace`` of the real namespace ``real`` (its functions are made
    once, on first use, for every level over it)."""
    entry = _made.get(id(real))
    if entry is None or entry[0] is not real:
        entry = (real, BelowNamespace(real))
        _made[id(real)] = entry
    return entry[1]
