"""``arraygrad.compile``: record a step once, replay it as a flat program of backend calls.

The first call for a guard key runs eagerly while its array work (forward, backward,
optimizer update) is recorded; later calls with the same key replay the program: one
generated Python function making only the backend's calls, then writing the state back.
See docs/compile.md for the rules (guards, graph breaks, what a replay reproduces).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from arraygrad.compiler.compiled import CompiledFunction
    from arraygrad.compiler.optimized_module import OptimizedModule
    from arraygrad.compiler.traced import TracedArray, Unsupported

from arraygrad.compiler.controls import (allow_in_graph, cudagraph_mark_step_begin, disable,
                                         is_compiling, is_dynamo_compiling, list_backends, reset)

__all__ = ["compile", "CompiledFunction", "OptimizedModule", "Unsupported", "TracedArray",
           "reset", "disable", "is_compiling", "is_dynamo_compiling", "allow_in_graph",
           "cudagraph_mark_step_begin", "list_backends"]


def __getattr__(name: str) -> Any:
    # the recorder loads on first use: ``arraygrad.random`` and ``creation`` import
    # ``compiler.scalars`` while the package itself is still loading
    if name == "CompiledFunction":
        from arraygrad.compiler.compiled import CompiledFunction
        return CompiledFunction
    if name == "OptimizedModule":
        from arraygrad.compiler.optimized_module import OptimizedModule
        return OptimizedModule
    if name in ("TracedArray", "Unsupported"):
        from arraygrad.compiler import traced
        return getattr(traced, name)
    raise AttributeError(f"module 'arraygrad.compiler' has no attribute {name!r}")


def compile(model: Callable[..., Any] | None = None, *, fullgraph: bool = False,
            dynamic: bool | None = None, backend: Any = "inductor", mode: str | None = None,
            options: dict[str, Any] | None = None, name: str | None = None,
            disable: bool = False, recompile_limit: int | None = None,
            isolate_recompiles: bool = False, shapes_spec: Any = None) -> Any:
    """Record ``model`` once per guard key and replay it (``torch.compile``'s signature).

    ``model``: a function (forward, ``loss.backward()``, ``optimizer.step()``,
    ``zero_grad()``, ``scheduler.step()`` inside) or a Module (its forward is compiled and
    an ``OptimizedModule`` returned); without it, a decorator. ``fullgraph=True`` raises
    ``Unsupported`` where a graph break would make the function run eagerly.
    ``recompile_limit``: the programs this call keeps before it runs eagerly (None: the
    global ``arraygrad._dynamo.config.recompile_limit``, 8). ``name`` names the compiled
    region in its repr and its recompile and fallback messages.
    ``dynamic``, ``shapes_spec``, ``backend``, ``mode`` and ``options`` are accepted for
    PyTorch's sake (shapes are always guarded: a new shape records again, and a spec's
    assumptions are not checked); ``isolate_recompiles`` too, as every ``compile`` call keeps
    its own programs already. ``disable=True`` returns ``model`` unchanged.

    >>> step = arraygrad.compile(train_step)
    """
    if model is None:
        def decorate(fn: Callable[..., Any]) -> Any:
            return compile(fn, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                           options=options, name=name, disable=disable,
                           recompile_limit=recompile_limit,
                           isolate_recompiles=isolate_recompiles, shapes_spec=shapes_spec)
        return decorate
    if disable or getattr(model, "_arraygrad_compile_disabled", False):
        return model
    if not callable(model):
        raise RuntimeError(f"compile() expects a callable or a Module, got {type(model).__name__}")
    from arraygrad.compiler.compiled import CompiledFunction
    from arraygrad.compiler.optimized_module import OptimizedModule
    from arraygrad.nn.modules.module import Module
    if isinstance(model, Module):
        return OptimizedModule(model, CompiledFunction(_ModuleCall(model), fullgraph=fullgraph,
                                                       dynamic=dynamic, name=name,
                                                       recompile_limit=recompile_limit))
    return CompiledFunction(model, fullgraph=fullgraph, dynamic=dynamic, name=name,
                            recompile_limit=recompile_limit)


class _ModuleCall:
    """``module(*args)`` as a function whose root is the module (hooks and all)."""

    def __init__(self, module: Any) -> None:
        self.module = module
        self.__compile_roots__ = (module,)
        self.__name__ = f"{type(module).__name__}.forward"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.module(*args, **kwargs)
