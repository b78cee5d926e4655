"""``RemovableHandle``: what every ``register_*hook`` returns.

Hooks live in a dict keyed by a process-unique id; the handle holds only a
weak reference to that dict, so a handle never keeps a tensor or node alive.
"""

from __future__ import annotations

import itertools
import weakref
from typing import Any

__all__ = ["RemovableHandle", "HookDict"]

_next_id = itertools.count()


class HookDict(dict[Any, Any]):
    """An insertion-ordered ``{id: hook}`` dict that handles can refer to weakly."""

    __slots__ = ("__weakref__",)


class RemovableHandle:
    """Removes its hook with ``remove()``; also a context manager that removes on exit.

    >>> h = t.register_hook(lambda g: g * 2)
    >>> h.remove()
    """

    __slots__ = ("_dicts", "id")

    def __init__(self, hooks_dict: Any = None, *more: Any, extra_dict: Any = None) -> None:
        """PyTorch's ``RemovableHandle(hooks_dict, *, extra_dict=None)``: ``remove()`` deletes
        this handle's id from ``hooks_dict`` and from ``extra_dict`` (a dict or a list of
        them); arraygrad's own callers may also pass the extra dicts positionally. Every dict
        is held weakly (a plain ``dict`` cannot be: pass an ``OrderedDict``, as PyTorch)."""
        self.id = next(_next_id)
        extras = [] if extra_dict is None else (
            list(extra_dict) if isinstance(extra_dict, (list, tuple)) else [extra_dict])
        dicts = [d for d in (hooks_dict, *more, *extras) if d is not None]
        self._dicts = tuple(weakref.ref(d) for d in dicts)

    def add(self, hooks: HookDict, fn: Any) -> "RemovableHandle":
        """Store ``fn`` under this handle's id in ``hooks`` (returns self)."""
        hooks[self.id] = fn
        return self

    def remove(self) -> None:
        """Remove the hook; removing twice is harmless."""
        for ref in self._dicts:
            d = ref()
            if d is not None:
                d.pop(self.id, None)

    def __enter__(self) -> "RemovableHandle":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()

    def __repr__(self) -> str:
        # named from the class itself, so the text follows the module if it moves
        return f"<{type(self).__module__}.{type(self).__qualname__} id={self.id}>"
