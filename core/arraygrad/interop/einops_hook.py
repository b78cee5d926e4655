"""Registers arraygrad's einops backend when einops is imported, without importing einops.

einops finds a backend as a subclass of its ``AbstractBackend`` whose ``framework_name`` is a
module in ``sys.modules``, so the subclass must exist before einops first meets a tensor, but
defining it imports einops (40 ms, and einops may not be installed). ``install()`` (run by
``import arraygrad``) defines it at once when einops is already imported, else puts a finder
on ``sys.meta_path`` that lets ``einops._backends`` load as usual and defines the subclass right
after; the finder then takes itself off. Nothing else is imported or looked up.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from types import ModuleType
from typing import Any, Sequence

__all__ = ["install"]

_TARGET = "einops._backends"


def _register() -> None:
    try:
        import arraygrad.interop.einops_backend  # noqa: F401  (defining the class registers it)
    except Exception as exc:  # never break the user's ``import einops``
        import warnings

        warnings.warn(f"arraygrad: einops backend not registered ({type(exc).__name__}: {exc})",
                      RuntimeWarning, stacklevel=2)


class _RegisteringLoader(importlib.abc.Loader):
    """The loader of ``einops._backends``, which registers arraygrad's backend once the module
    has run. Everything else is the original loader's."""

    def __init__(self, loader: Any) -> None:
        self._loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        _register()

    def __getattr__(self, name: str) -> Any:  # get_source, get_filename... for tools
        return getattr(self._loader, name)


class _EinopsFinder(importlib.abc.MetaPathFinder):
    """Finds nothing itself: asks the other finders for ``einops._backends`` and wraps its
    loader, once."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != _TARGET:
            return None
        _uninstall()
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec = find(fullname, path, target) if find is not None else None
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _RegisteringLoader(spec.loader)
                return spec
        return None


_FINDER = _EinopsFinder()


def _uninstall() -> None:
    if _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)


def install() -> None:
    """Make einops know arraygrad's tensors, now or when einops is imported."""
    if _TARGET in sys.modules:
        _register()
    elif _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
