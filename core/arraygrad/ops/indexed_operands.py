"""Ops that read or write their input at positions, or with values, that other tensors give
(indices, masks, grids, sources): ``@indexed_by("index", "src")`` names those arguments.

Such an op computes on its input's backend. A transform that gives those tensors per-sample
values while the input is shared (``vmap``: batched indices of a captured input) installs a
hook, ``transform_state.indexed_input``, that moves the input to where they live before the
op runs (``func._vmap.rules_indexing.lift_indexed``). Without one (outside every transform)
the op runs as it is, after one attribute test.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, TypeVar

from arraygrad import transform_state as _transforms

__all__ = ["indexed_by"]

F = TypeVar("F", bound=Callable[..., Any])


def indexed_by(*names: str) -> Callable[[F], F]:
    """Declare that the decorated op's first parameter is read or written at (or with) its
    parameters ``names``; a running transform's hook may replace the first argument before
    the op runs (see the module doc). The op's signature and docstring are kept."""
    def decorate(fn: F) -> F:
        params = list(inspect.signature(fn).parameters)
        first = params[0]
        slots = [(params.index(n), n) for n in names]

        @functools.wraps(fn)
        def op(*args: Any, **kwargs: Any) -> Any:
            hook = _transforms.indexed_input
            if hook is None:
                return fn(*args, **kwargs)
            others = tuple(args[i] if i < len(args) else kwargs.get(n) for i, n in slots)
            if args:
                args = (hook(args[0], others),) + args[1:]
            elif first in kwargs:
                kwargs[first] = hook(kwargs[first], others)
            return fn(*args, **kwargs)
        return op  # type: ignore[return-value]
    return decorate
