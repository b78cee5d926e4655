"""``MetaNamespace``: the CPU backend's Array API namespace, computing shapes instead of values.

Every attribute is the CPU namespace's: dtypes and constants as they are, functions wrapped.
The creation functions (``zeros``, ``arange``, ``asarray``...) make meta arrays. Another
function called without a meta array among its arguments is the CPU function itself (a
NumPy result, which ``MetaBackend.coerce`` makes meta). With one, it runs its shape rule
(``table.RULES``); a function without a rule runs on full-shape
zero-strided stand-ins and its result becomes meta (the fallback: correct for any function
whose result's shape does not depend on values, but it allocates the result on the host, so
``fallback_functions()`` lists the functions that took it, for tests to keep it rare).
"""

from __future__ import annotations

from typing import Any, Callable

from arraygrad.backends.wrapped_namespace import WrappedNamespace
from arraygrad_meta import rules_creation, rules_elementwise, rules_fft, rules_indexing, \
    rules_linalg, rules_shape  # noqa: F401  (they fill the table)
from arraygrad_meta.array import MetaArray
from arraygrad_meta.standins import full, meta_of, replaced
from arraygrad_meta.table import RULES

__all__ = ["MetaNamespace", "get", "fallback_functions"]

# Functions of dtypes: a meta array stands for its dtype.
_DTYPE_ONLY = {"finfo", "iinfo", "result_type", "can_cast", "isdtype"}
# Creation functions take no array, yet make one: always by their rule.
_CREATION = {"zeros", "ones", "empty", "full", "arange", "linspace", "eye", "asarray", "array",
             "from_dlpack"}

_fallen_back: set[str] = set()


def fallback_functions() -> set[str]:
    """The functions that took the allocating fallback so far in this process."""
    return set(_fallen_back)


def _has_meta(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    for a in (*args, *kwargs.values()):
        if type(a) is MetaArray:
            return True
        if type(a) in (list, tuple) and any(type(b) is MetaArray for b in a):
            return True
    return False


def _dispatcher(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """The meta namespace's function ``name``: ``fn`` itself without meta arguments, else
    the shape rule (or the fallback)."""
    if name in _DTYPE_ONLY:
        def dtype_only(*args: Any, **kwargs: Any) -> Any:
            return fn(*[a.dtype if type(a) is MetaArray else a for a in args], **kwargs)
        dtype_only.__name__ = name
        return dtype_only
    rule = RULES.get(name)
    if rule is not None and name in _CREATION:
        def create(*args: Any, **kwargs: Any) -> Any:
            return rule(fn, *args, **kwargs)
        create.__name__ = name
        return create
    if rule is not None:
        def by_rule(*args: Any, **kwargs: Any) -> Any:
            if not _has_meta(args, kwargs):
                return fn(*args, **kwargs)
            return rule(fn, *args, **kwargs)
        by_rule.__name__ = name
        return by_rule

    def fallback(*args: Any, **kwargs: Any) -> Any:
        if not _has_meta(args, kwargs):
            return fn(*args, **kwargs)
        _fallen_back.add(name)
        return meta_of(fn(*replaced(args, full), **{k: replaced(v, full) for k, v in kwargs.items()}))
    fallback.__name__ = name
    return fallback


class MetaNamespace(WrappedNamespace):
    """The meta device's Array API namespace (see the module doc). Attributes are made on
    first use and cached."""

    EXTENSIONS = ("linalg", "fft")  # the fft functions by their rules too (``rules_fft``)

    def _function(self, name: str, fn: Callable[..., Any]) -> Any:
        return _dispatcher(name, fn)

    def _extension(self, base: Any, prefix: str) -> "MetaNamespace":
        return MetaNamespace(base, prefix)

    def _wraps(self, name: str, found: Any) -> bool:
        return name in _DTYPE_ONLY or super()._wraps(name, found)  # ``finfo`` is a class


_made: list[MetaNamespace] = []


def get() -> MetaNamespace:
    """The meta namespace, over a private instance of the NumPy backend's namespace (made on
    first use, so importing this package imports no NumPy backend)."""
    if not _made:
        from arraygrad_numpy.backend import NumpyBackend
        _made.append(MetaNamespace(NumpyBackend().xp))
    return _made[0]
