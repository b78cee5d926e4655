"""``trace`` and ``trace_module``, eager: the function or module is run once on the example
inputs (as PyTorch's tracer runs it, so its errors and side effects, such as batch-norm running
statistics, are the same) and returned itself, to run as Python; ``is_tracing()`` is True
during that run."""

from __future__ import annotations

import threading
import warnings
from typing import Any, Callable

_state = threading.local()


class TracerWarning(Warning):
    """Warned where a traced function's result may not generalise to other inputs."""

    @staticmethod
    def ignore_lib_warnings() -> None:
        """Ignore tracer warnings raised inside PyTorch's own (here arraygrad's) modules."""
        warnings.filterwarnings("ignore", category=TracerWarning, module="arraygrad.(?!jit)")
        warnings.filterwarnings("ignore", "torch::jit::fuser::cuda")


class TracingCheckError(Exception):
    """Raised by PyTorch when a trace's check run disagrees with the function."""

    def __init__(self, graph_diff_error: str | None, tensor_compare_error: str | None,
                 extra_msg: str | None = None) -> None:
        self.message = "Tracing failed sanity checks!\n"
        if extra_msg is not None:
            self.message += extra_msg + "\n"
        if graph_diff_error is not None:
            self.message += "ERROR: Graphs differed across invocations!\n"
            self.message += "\n".join("\t" + line for line in graph_diff_error.splitlines()) + "\n"
        if tensor_compare_error is not None:
            self.message += ("ERROR: Tensor-valued Constant nodes differed in value across "
                             "invocations. This often indicates that the tracer has encountered "
                             "untraceable code.\n")
            self.message += "\n".join("\t" + line for line in tensor_compare_error.splitlines()) + "\n"
        super().__init__(self.message)


def is_tracing() -> bool:
    """Whether a ``trace`` run is in progress on this thread."""
    return bool(getattr(_state, "depth", 0))


def _run_traced(fn: Callable[..., Any], args: Any, kwargs: dict[str, Any] | None) -> None:
    from arraygrad.tensor import Tensor

    if isinstance(args, Tensor):
        args = (args,)
    _state.depth = getattr(_state, "depth", 0) + 1
    try:
        if kwargs is not None:
            fn(**kwargs)
        else:
            fn(*args)
    finally:
        _state.depth -= 1


def trace(func: Any, example_inputs: Any = None, optimize: Any = None, check_trace: bool = True,
          check_inputs: list[Any] | None = None, check_tolerance: float = 1e-5,
          strict: bool = True, _force_outplace: bool = False, _module_class: Any = None,
          _compilation_unit: Any = None, example_kwarg_inputs: dict[str, Any] | None = None,
          _store_inputs: bool = True) -> Any:
    """Trace ``func`` (a function or module) on ``example_inputs`` (a tuple of arguments or one
    tensor) or ``example_kwarg_inputs`` (a dict): ``func`` runs once and is returned itself.

    arraygrad records no graph, so the result is ``func``, running as Python on any input
    (a trace in PyTorch replays the recorded operations, freezing data-dependent control flow).
    ``check_trace``/``check_inputs``/``check_tolerance``/``strict`` have nothing to check.
    """
    from arraygrad.nn.modules.module import Module

    if optimize is not None:
        warnings.warn("`optimize` is deprecated and has no effect. Use `with "
                      "torch.jit.optimized_execution()` instead", FutureWarning, stacklevel=2)
    if isinstance(func, Module):
        if example_inputs is None and not isinstance(example_kwarg_inputs, dict):
            raise RuntimeError("example_kwarg_inputs should be a dict")
        return trace_module(func, {"forward": example_inputs if example_kwarg_inputs is None
                                   else example_kwarg_inputs},
                            example_inputs_is_kwarg=example_kwarg_inputs is not None)
    if example_kwarg_inputs is not None and not isinstance(example_kwarg_inputs, dict):
        raise RuntimeError("example_kwarg_inputs should be a dict")
    if example_inputs is None and example_kwarg_inputs is None:
        raise TypeError("'NoneType' object is not iterable")
    _run_traced(func, example_inputs, example_kwarg_inputs)
    return func


def trace_module(mod: Any, inputs: dict[str, Any], optimize: Any = None,
                 check_trace: bool = True, check_inputs: list[Any] | None = None,
                 check_tolerance: float = 1e-5, strict: bool = True,
                 _force_outplace: bool = False, _module_class: Any = None,
                 _compilation_unit: Any = None, example_inputs_is_kwarg: bool = False,
                 _store_inputs: bool = True) -> Any:
    """Trace the methods of module ``mod`` named by ``inputs`` (``{method name: example
    inputs}``): each runs once, and ``mod`` itself is returned."""
    from arraygrad.nn.modules.module import Module

    if not isinstance(mod, Module):
        raise AttributeError("expected torch.nn.Module as the first argument")
    if not isinstance(inputs, dict):
        raise AttributeError("expected a dictionary of (method_name, input) pairs")
    for name, example in inputs.items():
        method = getattr(mod, name)
        if example_inputs_is_kwarg:
            _run_traced(method, (), example)
        else:
            _run_traced(method, example, None)
    return mod
