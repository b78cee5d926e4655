"""``script`` and the TorchScript annotations, eager: arraygrad has no TorchScript compiler, so
``script`` returns what it is given (a module, function or class) to run as Python, and the
decorators (``ignore``, ``unused``, ``export``, ``interface``, ``script_method``...) mark and
return their function unchanged, so code written for TorchScript runs as it does in eager
PyTorch. ``is_scripting()`` is False: the Python branch of ``if torch.jit.is_scripting():`` is
the one that runs.
"""

from __future__ import annotations

import collections
import enum
import functools
import warnings
from typing import Any, Callable, TypeVar

_T = TypeVar("_T")
_F = TypeVar("_F", bound=Callable[..., Any])


class FunctionModifiers(enum.Enum):
    """What a TorchScript decorator marked a function with (its ``_torchscript_modifier``)."""

    UNUSED = "unused (ignored and replaced with raising of an exception)"
    IGNORE = "ignore (leave as a call to Python, cannot be torch.jit.save'd)"
    EXPORT = "export (compile this function even if nothing calls it)"
    DEFAULT = "default (compile if called from a exported function / forward)"
    COPY_TO_SCRIPT_WRAPPER = "if this method is not scripted, copy the python method onto the scripted model"
    _DROP = "_drop (function is fully ignored, declaration can be unscriptable)"


class ScriptWarning(Warning):
    """PyTorch's warning class of scripting."""


def is_scripting() -> bool:
    """Whether the code runs compiled by TorchScript: never in arraygrad (False), so the
    Python path of ``if not torch.jit.is_scripting():`` runs, as in eager PyTorch."""
    return False


def _mark(fn: _F, modifier: FunctionModifiers) -> _F:
    try:
        fn._torchscript_modifier = modifier  # type: ignore[attr-defined]
    except (AttributeError, TypeError):  # a builtin or bound method takes no attribute
        pass
    return fn


def ignore(drop: Any = False, **kwargs: Any) -> Any:
    """Decorator leaving a function to Python in TorchScript; ``@ignore`` and ``@ignore(drop)``
    both return the function unchanged (marked), as everything runs as Python here."""
    if callable(drop):
        return _mark(drop, FunctionModifiers.IGNORE)
    if not isinstance(drop, bool):
        raise RuntimeError(
            f"Argument to @torch.jit.ignore must be a bool or a function but got {drop}")
    drop_on_export = kwargs.pop("drop_on_export", None)
    if drop_on_export:
        warnings.warn("ignore(drop_on_export=True) has been deprecated. TorchScript will now drop "
                      "the function call on compilation. Use torch.jit.unused now. {}",
                      FutureWarning, stacklevel=2)
        drop = drop_on_export
    elif drop:
        warnings.warn("ignore(True) has been deprecated. TorchScript will now drop the function "
                      "call on compilation. Use torch.jit.unused now. {}", FutureWarning,
                      stacklevel=2)

    def decorator(fn: _F) -> _F:
        return _mark(fn, FunctionModifiers.UNUSED if drop else FunctionModifiers.IGNORE)
    return decorator


def unused(fn: _F) -> _F:
    """Decorator for a method TorchScript should not compile; returns it unchanged (marked)
    (a property's getter and setter are marked too)."""
    if isinstance(fn, property):
        for part in (fn.fget, fn.fset):
            if part is not None:
                _mark(part, FunctionModifiers.UNUSED)
        return fn
    return _mark(fn, FunctionModifiers.UNUSED)


def export(fn: _F) -> _F:
    """Decorator for a module method TorchScript should compile as an entry point; returns it
    unchanged (marked)."""
    return _mark(fn, FunctionModifiers.EXPORT)


def interface(obj: _T) -> _T:
    """Decorator declaring a TorchScript interface class; returns the class (it must be one)."""
    if not isinstance(obj, type):
        raise RuntimeError("interface must be applied to a class")
    return obj


def script_method(fn: _F) -> _F:
    """Decorator for a method of a ``ScriptModule`` subclass; returns it unchanged."""
    return fn


def annotate(the_type: Any, the_value: _T) -> _T:
    """Give TorchScript the type of ``the_value``; returns ``the_value``."""
    return the_value


def script_if_tracing(fn: _F) -> _F:
    """Decorator that scripts ``fn`` when first called during tracing; here it runs ``fn``."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    wrapper.__original_fn = fn  # type: ignore[attr-defined]
    wrapper.__script_if_tracing_wrapper = True  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]


Attribute = collections.namedtuple("Attribute", ["value", "type"])
Attribute.__doc__ = """``torch.jit.Attribute(value, type)``: an attribute of a ``ScriptModule``
with its TorchScript type; a ``ScriptModule`` stores the value."""


def _script_module_base() -> type:
    from arraygrad.nn.modules.module import Module

    class ScriptModule(Module):
        """The base class of TorchScript's legacy module API (``class M(torch.jit.ScriptModule)``
        with ``@torch.jit.script_method`` methods): here an ``nn.Module`` that runs as Python,
        storing the value of a ``torch.jit.Attribute``."""

        def __setattr__(self, name: str, value: Any) -> None:
            if isinstance(value, Attribute):
                value = value.value
            super().__setattr__(name, value)

        def define(self, src: str) -> None:
            """Compile TorchScript source into methods: needs PyTorch's TorchScript compiler."""
            raise RuntimeError("ScriptModule.define compiles TorchScript source, which needs "
                               "PyTorch's C++ TorchScript compiler; arraygrad has none")

    ScriptModule.__module__ = "arraygrad.jit"
    return ScriptModule


def script(obj: Any, optimize: None = None, _frames_up: int = 0,
           _rcb: Callable[[str], Any] | None = None,
           example_inputs: list[tuple[Any, ...]] | dict[Callable[..., Any],
                                                         list[tuple[Any, ...]]] | None = None,
           ) -> Any:
    """Script ``obj``: here ``obj`` itself, run eagerly as Python (a module, function or class
    is returned unchanged; a dict or list is copied, as TorchScript copies it into its own).

    arraygrad has no TorchScript compiler, so there is no graph, ``.code`` or ``.save``; the
    returned object computes what the scripted one would. ``optimize`` is deprecated as in
    PyTorch; ``example_inputs`` (for type profiling) is not used.
    """
    if optimize is not None:
        warnings.warn("`optimize` is deprecated and has no effect. Use `with "
                      "torch.jit.optimized_execution()` instead", FutureWarning, stacklevel=2)
    if isinstance(obj, dict):
        return type(obj)(obj)
    if isinstance(obj, list):
        return list(obj)
    return obj
