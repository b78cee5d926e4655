"""``nn.utils.init``: ``skip_init``, a module built without running its initialisers' cost
being relevant (its values are to be overwritten)."""

from __future__ import annotations

import inspect
from typing import Any, TypeVar

__all__ = ["skip_init"]

_M = TypeVar("_M")


def skip_init(module_cls: type[_M], *args: Any, **kwargs: Any) -> _M:
    """``module_cls(*args, **kwargs)`` whose parameter and buffer values are unspecified
    (PyTorch leaves them uninitialised; here they hold the class's initial values), for
    code that sets every value itself. The class must take a ``device`` argument."""
    from arraygrad.nn.modules.module import Module

    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    kwargs.setdefault("device", "cpu")
    return module_cls(*args, **kwargs)
