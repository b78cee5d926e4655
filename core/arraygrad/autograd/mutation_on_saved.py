"""``allow_mutation_on_saved_tensors``: modify a tensor saved for backward in place, and
still differentiate with the value it had when saved.

Inside the context, every value saved for backward is packed (``saved_tensors_hooks``) as a
handle to the tensor, noted by its *storage*: the version counter it shares with its views
and aliases, and the version it had. Every in-place write (``ops.inplace.before_write``
calls ``before_write`` here first) clones the saved tensors of the storage being written,
at their saved version, before the write; backward then unpacks the clone. As PyTorch's,
the forward and the backward must both run inside the (one, not nested) context.

>>> with allow_mutation_on_saved_tensors():
...     b = a.clone()
...     out = (b ** 2).sum()
...     b.sin_()          # b was saved by pow: its old value is cloned first
...     out.backward()    # 2 * (old b), not an error
"""

from __future__ import annotations

import contextlib
import weakref
from collections import defaultdict
from typing import TYPE_CHECKING, Iterator, MutableMapping

from arraygrad.autograd.saved_hooks import saved_tensors_hooks

if TYPE_CHECKING:
    from arraygrad.tensor import Tensor

__all__ = ["allow_mutation_on_saved_tensors", "before_write"]

# (id of the tensor, id of its version counter, version) and (counter id, version)
_TID = tuple[int, int, int]
_SID = tuple[int, int]

_ERROR = ("Trying to backward outside of the 'allow_mutation_on_saved_tensors' context"
          "in which the graph was originally recorded.")


class _Handle:
    """What the graph holds for a saved tensor: a key to the original (or its clone)."""

    __slots__ = ("__weakref__",)


class _AllowMutationOnSavedContext:
    """The state of one ``allow_mutation_on_saved_tensors`` block (cleared on exit)."""

    def __init__(self) -> None:
        self.cloned: MutableMapping[_Handle, Tensor] = weakref.WeakKeyDictionary()
        self.original: MutableMapping[_Handle, Tensor] = weakref.WeakKeyDictionary()
        self.tid_to_weakhandle: MutableMapping[_TID, _Handle] = weakref.WeakValueDictionary()
        self.sid_to_tid: dict[_SID, set[_TID]] = defaultdict(set)

    def clear(self) -> None:
        """Forget every saved tensor."""
        self.cloned.clear()
        self.original.clear()
        self.tid_to_weakhandle.clear()
        self.sid_to_tid.clear()

    # -- the pair of saved-tensor hooks ---------------------------------------------
    def pack(self, tensor: Tensor) -> _Handle:
        counter = tensor._version_counter()
        tid, sid = (id(tensor), id(counter), counter[0]), (id(counter), counter[0])
        self.sid_to_tid[sid].add(tid)
        handle = self.tid_to_weakhandle.get(tid)
        if handle is None:  # the same tensor at the same version saved again: one handle
            handle = _Handle()
            self.tid_to_weakhandle[tid] = handle
            self.original[handle] = tensor
        return handle

    def unpack(self, handle: _Handle) -> Tensor:
        if _active.ctx is not self:
            raise AssertionError(_ERROR)
        if handle in self.cloned:
            return self.cloned[handle]
        if handle not in self.original:
            raise AssertionError(_ERROR)
        return self.original[handle]

    # -- before an in-place write -------------------------------------------------------
    def clone_saved_aliases(self, t: Tensor) -> None:
        """Clone every saved tensor of ``t``'s storage at its current version."""
        vc = t._vc
        sid = (id(t._version_counter()), vc[0] if vc is not None else 0)
        for tid in self.sid_to_tid.get(sid, ()):
            handle = self.tid_to_weakhandle.get(tid)
            if handle is None or handle in self.cloned:  # freed by a backward, or cloned
                continue
            original = self.original.pop(handle)
            self.cloned[handle] = original._detached_copy()


class _Active:
    __slots__ = ("ctx",)

    def __init__(self) -> None:
        self.ctx: _AllowMutationOnSavedContext | None = None


_active = _Active()


def before_write(t: Tensor) -> None:
    """Called by every in-place write before it writes ``t``: inside the context, the saved
    tensors ``t`` aliases are cloned first."""
    ctx = _active.ctx
    if ctx is not None:
        ctx.clone_saved_aliases(t)


@contextlib.contextmanager
def allow_mutation_on_saved_tensors() -> Iterator[_AllowMutationOnSavedContext]:
    """Within the block, tensors saved for backward may be modified in place: the saved value
    is cloned before the first write, and backward uses it. Yields the block's state (for
    debugging); it is cleared on exit. Blocks cannot be nested (RuntimeError)."""
    ctx = _AllowMutationOnSavedContext()
    with saved_tensors_hooks(ctx.pack, ctx.unpack):
        try:
            if _active.ctx is not None:
                raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
            _active.ctx = ctx
            yield ctx
        finally:
            ctx.clear()
            if _active.ctx is ctx:
                _active.ctx = None
