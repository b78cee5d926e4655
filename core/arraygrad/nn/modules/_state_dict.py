"""The writes of one ``Module.load_state_dict`` call, held back until every check passed.

``load_state_dict`` walks the modules as PyTorch does, calling each module's
``_load_from_state_dict`` (an override point: a custom module may rename keys, consume
extra entries, then call ``super()._load_from_state_dict``). The base implementation
does not write while a load is running: it records each write here, and
``load_state_dict`` applies them only once no error was found, so an exception leaves
the module unchanged (docs/differences.md: "load_state_dict is all-or-nothing"). When
load post-hooks run (they see the loaded values and may still turn the result into an
error) the writes are recorded with what they replaced, to be undone.
"""

from __future__ import annotations

import threading
from collections import namedtuple
from typing import TYPE_CHECKING, Any

from arraygrad.autograd.grad_mode import no_grad
from arraygrad.nn.parameter import Parameter
from arraygrad.tensor import Tensor

if TYPE_CHECKING:
    from arraygrad.nn.modules.module import Module

__all__ = ["EXTRA_STATE_KEY_SUFFIX", "LoadTransaction", "active_load", "IncompatibleKeys"]

EXTRA_STATE_KEY_SUFFIX = "_extra_state"

_local = threading.local()


class IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: the keys it could not match."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class _Write:
    """One planned change: copy into a tensor, materialise a lazy one with the checkpoint's
    values, assign an attribute, or set extra state."""

    __slots__ = ("kind", "module", "name", "target", "value", "undo")

    def __init__(self, kind: str, module: Module, name: str, target: Tensor | None,
                 value: Any) -> None:
        self.kind = kind
        self.module = module
        self.name = name
        self.target = target
        self.value = value
        self.undo: Any = None

    def apply(self, record_undo: bool) -> None:
        module, name, value = self.module, self.name, self.value
        if self.kind == "copy":
            assert self.target is not None
            if record_undo:
                self.undo = self.target.detach().clone()
            self.target.copy_(value)
        elif self.kind == "materialize":  # a lazy module's tensor takes the checkpoint's shape
            assert self.target is not None
            if record_undo:
                self.undo = (type(self.target), self.target.data)
            self.target.materialize(value.shape)
            self.target.copy_(value)
        elif self.kind == "assign":
            store = module._parameters if name in module._parameters else module._buffers
            current = store.get(name)
            if record_undo:
                self.undo = (store, current)
            if isinstance(current, Parameter):
                # as PyTorch: the new tensor becomes a Parameter with the module's requires_grad
                if not isinstance(value, Parameter):
                    value = Parameter(value, requires_grad=current.requires_grad)
                else:
                    value.requires_grad_(current.requires_grad)
            setattr(module, name, value)
        else:
            if record_undo:
                self.undo = module.get_extra_state()
            module.set_extra_state(value)

    def revert(self) -> None:
        if self.kind == "copy":
            assert self.target is not None
            self.target.copy_(self.undo)
        elif self.kind == "materialize":
            assert self.target is not None
            kind, placeholder = self.undo
            self.target.__class__ = kind
            self.target.data = placeholder
        elif self.kind == "assign":
            store, old = self.undo
            store[self.name] = old
        else:
            self.module.set_extra_state(self.undo)


class LoadTransaction:
    """The writes planned during one ``load_state_dict``; ``with txn:`` makes it the active one."""

    def __init__(self) -> None:
        self.writes: list[_Write] = []
        self._applied: list[_Write] = []
        self._previous: LoadTransaction | None = None

    def __enter__(self) -> LoadTransaction:
        self._previous = active_load()
        _local.active = self
        return self

    def __exit__(self, *exc: Any) -> None:
        _local.active = self._previous

    def apply(self, record_undo: bool) -> None:
        """Make every planned write, remembering what it replaced with ``record_undo``.

        User code runs here (``set_extra_state``, registration hooks), so when there is
        extra state the replaced values are always kept: a write that raises undoes the
        ones before it, and the exception propagates.
        """
        record_undo = record_undo or any(w.kind != "copy" for w in self.writes)
        with no_grad():
            try:
                for write in self.writes:
                    write.apply(record_undo)
                    self._applied.append(write)
            except BaseException:
                if record_undo:
                    self.revert()
                raise

    def revert(self) -> None:
        """Undo the applied writes, latest first (needs ``apply(record_undo=True)``)."""
        with no_grad():
            while self._applied:
                self._applied.pop().revert()


def active_load() -> LoadTransaction | None:
    """The transaction of the ``load_state_dict`` running on this thread, if any."""
    return getattr(_local, "active", None)


def plan_write(kind: str, module: Module, name: str, target: Tensor | None, value: Any) -> None:
    """Record a write in the running load, or make it now when no load is running (a
    direct call of ``_load_from_state_dict``, as PyTorch does)."""
    write = _Write(kind, module, name, target, value)
    txn = active_load()
    if txn is not None:
        txn.writes.append(write)
    else:
        with no_grad():
            write.apply(False)
