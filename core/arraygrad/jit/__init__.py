"""``arraygrad.jit``: PyTorch's ``torch.jit`` API, eager.

arraygrad has no TorchScript compiler: ``script`` and ``trace`` return the module or function
itself (``trace`` runs it once on the example inputs, as PyTorch's tracer does), so a program
written for TorchScript computes the same values, as Python. The annotations (``ignore``,
``unused``, ``export``, ``interface``, ``annotate``, ``Final``...) are accepted and change
nothing; ``is_scripting()`` is False and ``is_tracing()`` True only during a trace's run.
``fork`` runs its call at once and returns a completed ``Future``; ``wait`` returns its value.
``freeze``/``optimize_for_inference`` return the module (eval mode). What needs the compiled
program itself (``save``/``load`` of TorchScript archives, graphs, flatbuffers) is absent,
with its reason (docs/differences.md).
"""

from __future__ import annotations

from typing import Any, Callable, Final

from arraygrad.futures import Future
from arraygrad.jit._isinstance import isinstance
from arraygrad.jit._script import (Attribute, ScriptWarning, annotate, export, ignore, interface,
                                   is_scripting, script, script_if_tracing, script_method, unused)
from arraygrad.jit._settings import (enable_onednn_fusion, freeze, fuser, onednn_fusion_enabled,
                                     optimize_for_inference, optimized_execution,
                                     run_frozen_optimizations, set_fusion_strategy, strict_fusion)
from arraygrad.jit._trace import TracerWarning, TracingCheckError, is_tracing, trace, trace_module
from arraygrad.utils._module_name import set_module

__all__ = ["Attribute", "Error", "Final", "Future", "ScriptModule", "ScriptWarning",
           "TracerWarning", "TracingCheckError", "annotate", "enable_onednn_fusion", "export",
           "fork", "freeze", "fuser", "ignore", "interface", "is_scripting", "is_tracing",
           "isinstance", "onednn_fusion_enabled", "optimize_for_inference",
           "optimized_execution", "run_frozen_optimizations", "script", "script_if_tracing",
           "script_method", "set_fusion_strategy", "set_module", "strict_fusion", "trace",
           "trace_module", "unused", "wait"]

_ = Final


class Error(Exception):
    """``torch.jit.Error``: the error TorchScript raises from compiled code (its
    ``raise``); arraygrad's eager code raises Python's own exceptions instead."""


def fork(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Future[Any]:
    """Start ``func(*args, **kwargs)`` and return a ``Future`` of its result. Outside
    TorchScript, PyTorch's ``fork`` runs the call at once, and so does arraygrad's: the future
    is complete when returned, and an error of the call is raised by ``fork`` itself."""
    fut: Future[Any] = Future()
    fut.set_result(func(*args, **kwargs))
    return fut


def wait(future: Future[Any]) -> Any:
    """The value of a ``fork``'s future (waiting for it)."""
    return future.wait()


def __getattr__(name: str) -> Any:
    if name == "ScriptModule":  # built on nn.Module, imported on first use
        from arraygrad.jit._script import _script_module_base

        cls = _script_module_base()
        globals()["ScriptModule"] = cls
        return cls
    from arraygrad.absences import missing_attribute

    raise missing_attribute("torch.jit", name, "arraygrad.jit")
