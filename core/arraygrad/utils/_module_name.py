"""``set_module``: the module name an object prints under."""

from __future__ import annotations

from typing import Any


def set_module(obj: Any, mod: str) -> None:
    """Set ``obj.__module__`` to ``mod`` (a string, else TypeError), for nicer printing."""
    if not isinstance(mod, str):
        raise TypeError("The mod argument should be a string")
    obj.__module__ = mod
