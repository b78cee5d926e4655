"""Writes on a backend whose arrays cannot be written into (``Backend.mutable_arrays = False``).

A write there makes a new array, and the tensor is rebound to it. Memory is never shared, so
the views of a tensor would keep the old values: on such a backend each view is remembered
(weakly) under its root base, and every rebinding of the root, or of one of its views, has
the others replayed from the root (``ViewInfo.replay``), as PyTorch's shared memory would
show them. Mutable backends never reach this module's bookkeeping (``views.make_view`` asks
the backend first), so NumPy's hot path is unchanged.
"""

from __future__ import annotations

import functools
import weakref
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arraygrad.tensor import Tensor

__all__ = ["rebind", "remember_view", "refresh_views"]

# id(root base) -> {id(view): weak reference to the view}. Keyed by ids, not by the tensors:
# a tensor's ``==`` is elementwise, which weak dictionaries and sets would call.
_VIEWS: dict[int, dict[int, Any]] = {}


def remember_view(view: Tensor) -> None:
    """Note ``view`` (just made by ``make_view``) under its root base."""
    root = view._base
    views = _VIEWS.get(id(root))
    if views is None:
        views = _VIEWS[id(root)] = {}
        weakref.finalize(root, _VIEWS.pop, id(root), None)
    key = id(view)
    views[key] = weakref.ref(view, functools.partial(_forget, views, key))


def _forget(views: dict[int, Any], key: int, _ref: Any) -> None:
    """A remembered view died: drop its entry."""
    views.pop(key, None)


def rebind(t: Tensor, data: Any) -> None:
    """``t[...] = data`` without writing: ``t`` takes a new array of its own dtype and shape,
    and the other views of its root base are rebuilt from the root."""
    xp = t._backend.xp
    old = t._data
    if not hasattr(data, "shape"):
        data = xp.asarray(data, dtype=old.dtype)
    if data.dtype != old.dtype:
        data = xp.astype(data, old.dtype)
    if tuple(data.shape) != tuple(old.shape):
        data = xp.broadcast_to(data, tuple(old.shape))
    t._data = data
    if t._base is None:
        refresh_views(t)
    owner = t.__dict__.get("_data_of")
    if owner is not None:  # ``t`` is ``owner.data``: the same memory, on a mutable backend
        rebind(owner, data)


def refresh_views(root: Tensor) -> None:
    """Replay every live view of ``root`` from its current array."""
    views = _VIEWS.get(id(root))
    if not views:
        return
    from arraygrad.autograd.grad_mode import no_grad

    with no_grad():
        for ref in list(views.values()):
            view = ref()
            if view is not None and view._base is root:
                view._data = view._view.replay(root)._data
