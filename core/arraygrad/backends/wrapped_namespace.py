"""``WrappedNamespace``: an Array API namespace over another one, with its functions wrapped.

A vmap level's batching namespace, the namespace below every vmap level and the meta
device's namespace are each the namespace of a real backend with every function replaced by
a wrapper. Attributes are made on first read and cached: dtypes, constants and classes are
the base's; a function is ``self._function(name, fn)`` under its dotted name (``"sum"``,
``"linalg.inv"``); the extensions named in ``EXTENSIONS`` (``linalg``; the meta device's
``fft`` too) are wrapped the same way (``self._extension``).
"""

from __future__ import annotations

from typing import Any, Callable

__all__ = ["WrappedNamespace"]


class WrappedNamespace:
    """The namespace ``base`` with its functions wrapped by the subclass's ``_function``."""

    EXTENSIONS: tuple[str, ...] = ("linalg",)
    """The base's extension namespaces whose functions are wrapped (dotted names); another
    extension is the base's own."""

    def __init__(self, base: Any, prefix: str = "") -> None:
        self._base = base
        self._prefix = prefix  # "linalg." inside the extension

    def _function(self, name: str, fn: Callable[..., Any]) -> Any:
        """The wrapper of ``fn``, the base's function called ``name`` (dotted)."""
        raise NotImplementedError

    def _extension(self, base: Any, prefix: str) -> "WrappedNamespace":
        """The wrapped namespace of the base's extension ``base`` (``linalg``, ``fft``)."""
        raise NotImplementedError

    def _wraps(self, name: str, found: Any) -> bool:
        """Whether the base's attribute ``name`` is a function to wrap (not a dtype class)."""
        return callable(found) and not isinstance(found, type)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        found = getattr(self._base, name)
        if name in self.EXTENSIONS and not self._prefix:
            value: Any = self._extension(found, name + ".")
        elif self._wraps(self._prefix + name, found):
            value = self._function(self._prefix + name, found)
        else:
            value = found
        self.__dict__[name] = value
        return value
