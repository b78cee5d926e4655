"""The shape-rule table and the two helpers every rule uses.

A rule computes one Array API function on meta arrays: it is registered under the
function's name (``"sum"``, ``"linalg.inv"``) with ``@shape_rule("name", ...)`` and called
as ``rule(fn, *args, **kwargs)``, ``fn`` being the CPU namespace's function of that name.
It returns what the function returns, with ``MetaArray``s for arrays. Most rules ``probe``
``fn`` on tiny stand-ins (the CPU backend's argument checks, the result's dtype) and then
give the result the shape the function's own rule says.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from arraygrad.name_tables import registrar

from arraygrad_meta.array import MetaArray
from arraygrad_meta.standins import replaced, tiny

__all__ = ["RULES", "shape_rule", "probe", "shaped", "meta_shapes"]

Rule = Callable[..., Any]
RULES: dict[str, Rule] = {}
"""Function name -> shape rule (``"linalg.<name>"`` for the linalg extension)."""


shape_rule = registrar(RULES, "Register the decorated function as the shape rule of each of "
                              "``names``.")


def probe(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``fn`` on tiny stand-ins of the meta arguments (floating-point warnings off: the
    stand-ins' values are not the data's)."""
    with np.errstate(all="ignore"):
        return fn(*replaced(args, tiny), **{k: replaced(v, tiny) for k, v in kwargs.items()})


def shaped(found: Any, shape: Any) -> MetaArray:
    """A meta array of ``shape`` with the dtype of ``found`` (a probe's result)."""
    return MetaArray(shape, found.dtype)


def meta_shapes(*values: Any) -> list[tuple[int, ...]]:
    """The shapes of the arrays among ``values`` (Python numbers are left out)."""
    return [tuple(v.shape) for v in values if hasattr(v, "shape") and hasattr(v, "dtype")
            and not isinstance(v, type)]
