"""Op families that expose themselves: one module each, found here by name.

A module in this package may define (each optional):

- ``FUNCTIONS``: ``{name: fn}``, exported as ``arraygrad.<name>``;
- ``METHODS``: ``{name: fn}``, bound as ``Tensor.<name>`` (``fn(self, ...)``);
- ``INPLACE``: ``{name_: fn}``, bound as in-place ``Tensor.<name_>`` (``fn`` computes the
  out-of-place result, as ``tensor_methods.INPLACE``).

Adding a family is adding a file: no shared table to edit. Modules load in name order;
a name defined twice (here, or by the core's own tables) is an error at import, so two
families cannot silently shadow each other.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any, Callable

__all__ = ["surface"]

_cache: dict[str, dict[str, Callable[..., Any]]] | None = None


def surface() -> dict[str, dict[str, Callable[..., Any]]]:
    """``{"FUNCTIONS": {...}, "METHODS": {...}, "INPLACE": {...}}`` of every family module."""
    global _cache
    if _cache is None:
        found: dict[str, dict[str, Callable[..., Any]]] = {
            "FUNCTIONS": {}, "METHODS": {}, "INPLACE": {}}
        owner: dict[tuple[str, str], str] = {}
        for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
            module = importlib.import_module(f"{__name__}.{info.name}")
            for table, entries in found.items():
                for name, fn in getattr(module, table, {}).items():
                    if name in entries:
                        raise RuntimeError(f"op families: {table} name {name!r} defined by both "
                                           f"{owner[table, name]} and {info.name}")
                    entries[name] = fn
                    owner[table, name] = info.name
        _cache = found
    return _cache
