"""Stand-ins: NumPy arrays that take a meta array's place in a call to the CPU namespace.

Two kinds, both free of the meta array's size:

* ``tiny``: all dimensions 1 (same ``ndim`` and dtype). A call on tiny stand-ins checks the
  arguments the way the CPU backend does (axes in range, dtypes allowed) and gives the
  result's dtype, its ``ndim`` and, for named tuples, its type; the rules compute the shape.
  Values: 1 for floating dtypes (every ``linalg`` function accepts a 1x1 one), 0 for
  integers and bool (a valid index into any size-1 dimension).
* ``full``: the meta array's whole shape over one element (zero strides). A function that
  returns a view (``reshape``, ``permute_dims``, basic indexing...) of it allocates nothing,
  so the CPU namespace itself computes the shape; other functions allocate their result
  (the fallback, ``namespace``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygrad_meta.array import MetaArray

__all__ = ["tiny", "full", "replaced", "meta_of", "is_meta"]

_tiny_cache: dict[tuple[int, Any], Any] = {}


def is_meta(x: Any) -> bool:
    """Whether ``x`` is a meta array."""
    return type(x) is MetaArray


def tiny(x: MetaArray) -> Any:
    """A read-only NumPy array of ``x``'s dtype and ``ndim`` with every dimension 1."""
    key = (x.ndim, x.dtype)
    found = _tiny_cache.get(key)
    if found is None:
        value = 1 if x.dtype.kind in "fc" else 0
        found = np.full((1,) * x.ndim, value, dtype=x.dtype)
        found.setflags(write=False)
        _tiny_cache[key] = found
    return found


def full(x: MetaArray) -> Any:
    """A read-only NumPy array of ``x``'s shape and dtype, one element seen everywhere."""
    value = 1 if x.dtype.kind in "fc" else 0
    return np.broadcast_to(np.asarray(value, dtype=x.dtype), x.shape)


def replaced(value: Any, make: Any) -> Any:
    """``value`` with every meta array in it (in tuples and lists too) replaced by ``make(x)``."""
    if type(value) is MetaArray:
        return make(value)
    if type(value) in (tuple, list):
        return type(value)(replaced(v, make) for v in value)
    return value


def meta_of(result: Any) -> Any:
    """A NumPy result as meta arrays: arrays and NumPy scalars by shape and dtype; tuples
    (named ones too) and lists item by item; anything else (Python numbers, dtypes) as is."""
    if isinstance(result, (np.ndarray, np.generic)):
        return MetaArray(result.shape, result.dtype)
    if isinstance(result, tuple):
        items = [meta_of(r) for r in result]
        return type(result)(*items) if hasattr(type(result), "_fields") else tuple(items)
    if isinstance(result, list):
        return [meta_of(r) for r in result]
    return result
