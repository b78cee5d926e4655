"""``classproperty``: a read-only property computed on the class."""

from __future__ import annotations

from typing import Any


class _ClassPropertyDescriptor:
    def __init__(self, fget: Any, fset: Any = None) -> None:
        self.fget = fget

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        if owner is None:
            owner = type(instance)
        return self.fget.__get__(instance, owner)()


def classproperty(func: Any) -> Any:
    """Decorator: ``func(cls)`` read as an attribute of the class (and of its instances)."""
    if not isinstance(func, (classmethod, staticmethod)):
        func = classmethod(func)
    return _ClassPropertyDescriptor(func)
