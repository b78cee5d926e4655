"""``torch.compiler``'s controls a program calls around compiled code: ``reset``,
``disable``, ``is_compiling``, ``is_dynamo_compiling``, ``allow_in_graph``,
``cudagraph_mark_step_begin``, ``list_backends``.

Ported code uses them as PyTorch documents them: ``@disable`` on a helper that must never be
compiled (logging, a data-dependent branch), ``if is_compiling():`` to skip work a compiled
step should not record, ``reset()`` between experiments in one process.
"""

from __future__ import annotations

import functools
import weakref
from typing import Any, Callable, TypeVar

from arraygrad.compiler.scalars import recording_flag

__all__ = ["reset", "disable", "is_compiling", "is_dynamo_compiling", "allow_in_graph",
           "cudagraph_mark_step_begin", "list_backends", "register"]

F = TypeVar("F", bound=Callable[..., Any])

_compiled: "weakref.WeakSet[Any]" = weakref.WeakSet()


def register(compiled: Any) -> None:
    """Remember ``compiled`` (a ``CompiledFunction``) so that ``reset()`` can empty it."""
    _compiled.add(compiled)


def reset() -> None:
    """Forget every recorded program of every compiled function and every decision to run
    one eagerly (``torch.compiler.reset``): the next call of each records afresh."""
    for compiled in list(_compiled):
        compiled._reset()


def is_compiling() -> bool:
    """True while ``arraygrad.compile`` records a call (the only time a compiled function's
    Python runs: a replay runs none), False otherwise (``torch.compiler.is_compiling``)."""
    return recording_flag.on


def is_dynamo_compiling() -> bool:
    """Same as :func:`is_compiling` (arraygrad has one recorder; ``torch.compiler``'s name)."""
    return recording_flag.on


def disable(fn: F | None = None, recursive: bool = True, *, reason: str | None = None) -> Any:
    """``fn`` never compiled (``torch.compiler.disable``), also as a decorator.

    Called while a compiled function records, ``fn`` is a graph break (the compiled
    function runs eagerly from then on: arraygrad does not compile around a break) and runs
    eagerly; ``arraygrad.compile(fn)`` returns ``fn`` itself. ``recursive=False`` (PyTorch
    still compiles the functions ``fn`` calls) is treated as ``True``. ``reason`` is
    named in the graph-break warning.
    """
    if fn is None:
        def decorate(inner: F) -> F:
            result: F = disable(inner, recursive, reason=reason)
            return result
        return decorate
    if not callable(fn):
        raise TypeError(f"disable() expects a callable, got {type(fn).__name__}")
    if getattr(fn, "_arraygrad_compile_disabled", False):
        return fn
    name = getattr(fn, "__qualname__", type(fn).__name__)
    why = f"call to {name}, marked arraygrad.compiler.disable" + (f" ({reason})" if reason else "")

    @functools.wraps(fn)
    def eager(*args: Any, **kwargs: Any) -> Any:
        if recording_flag.on and recording_flag.graph_break is not None:
            recording_flag.graph_break(why)
        return fn(*args, **kwargs)

    eager._arraygrad_compile_disabled = True  # type: ignore[attr-defined]
    return eager


def allow_in_graph(fn: F) -> F:
    """``fn`` unchanged (``torch.compiler.allow_in_graph``): the recorder already records the
    array work of every function a compiled call makes, whatever its Python does."""
    return fn


def cudagraph_mark_step_begin() -> None:
    """Nothing (``torch.compiler.cudagraph_mark_step_begin``): a captured replay's outputs are
    the graph's static arrays until the next launch of that program, as PyTorch's; there is
    no step marker to set."""


def list_backends(exclude_tags: tuple[str, ...] | None = ("debug", "experimental")) -> list[str]:
    """The ``backend=`` names ``arraygrad.compile`` accepts (it has one compiler; the name is
    accepted for PyTorch's sake): ``['inductor']``."""
    return ["inductor"]
