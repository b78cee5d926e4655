"""``nn.utils.init``: ``skip_init``, a module built without initialising its values (they are
to be overwritten)."""

from __future__ import annotations

import inspect
from typing import Any, TypeVar

__all__ = ["skip_init"]

_M = TypeVar("_M")


def skip_init(module_cls: type[_M], *args: Any, **kwargs: Any) -> _M:
    """``module_cls(*args, **kwargs)`` whose parameter and buffer values are uninitialised, for
    code that sets every value itself: built on the meta device (no initialiser computes),
    then given empty tensors on ``device`` (default cpu) by ``to_empty``, as PyTorch does.
    The class must take a ``device`` argument."""
    from arraygrad.nn.modules.module import Module

    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    kwargs["device"] = "meta"
    return module_cls(*args, **kwargs).to_empty(device=final_device)
