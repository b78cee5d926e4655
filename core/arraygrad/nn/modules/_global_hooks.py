"""Module hooks common to every module (``torch.nn.modules.module.register_module_*``).

The dicts here are read by ``Module.__call__`` (forward and backward hooks, which run
before each module's own) and by the registration methods (buffer, parameter and
sub-module registration hooks, which may replace the value being registered). They are
global state meant for debugging and profiling, as in PyTorch; every registration
returns a handle whose ``remove()`` takes the hook out again.
"""

from __future__ import annotations

from typing import Any, Callable

from arraygrad.autograd.hooks import HookDict, RemovableHandle

__all__ = ["register_module_backward_hook", "register_module_buffer_registration_hook",
           "register_module_forward_hook", "register_module_forward_pre_hook",
           "register_module_full_backward_hook", "register_module_full_backward_pre_hook",
           "register_module_module_registration_hook",
           "register_module_parameter_registration_hook"]

_global_buffer_registration_hooks = HookDict()
_global_module_registration_hooks = HookDict()
_global_parameter_registration_hooks = HookDict()
_global_backward_pre_hooks = HookDict()
_global_backward_hooks = HookDict()
_global_forward_pre_hooks = HookDict()
_global_forward_hooks = HookDict()
_global_forward_hooks_always_called = HookDict()
_global_forward_hooks_with_kwargs = HookDict()


def _has_any_global_hook() -> bool:
    """Whether ``Module.__call__`` must take its slow path for the global hooks."""
    return bool(_global_backward_pre_hooks or _global_backward_hooks
                or _global_forward_pre_hooks or _global_forward_hooks)


def _add(hooks: HookDict, hook: Callable[..., Any], *extra: HookDict) -> RemovableHandle:
    handle = RemovableHandle(hooks, *extra)
    hooks[handle.id] = hook
    return handle


def register_module_buffer_registration_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """``hook(module, name, buffer)`` on every ``register_buffer`` (and buffer assignment);
    a non-None return value is registered instead."""
    return _add(_global_buffer_registration_hooks, hook)


def register_module_module_registration_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """``hook(module, name, submodule)`` on every sub-module registration; a non-None return
    value is registered instead."""
    return _add(_global_module_registration_hooks, hook)


def register_module_parameter_registration_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """``hook(module, name, param)`` on every ``register_parameter`` of a Parameter; a
    non-None return value is registered instead."""
    return _add(_global_parameter_registration_hooks, hook)


def register_module_forward_pre_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """``hook(module, args)`` before every module's ``forward``, before the module's own
    pre-hooks; may return new args (a single value is wrapped in a tuple)."""
    return _add(_global_forward_pre_hooks, hook)


def register_module_forward_hook(hook: Callable[..., Any], *, with_kwargs: bool = False,
                                 always_call: bool = False) -> RemovableHandle:
    """``hook(module, args, output)`` (``hook(module, args, kwargs, output)`` with
    ``with_kwargs``) after every module's ``forward``, before the module's own forward
    hooks; may return a new output. ``always_call``: also run when ``forward`` raised."""
    handle = _add(_global_forward_hooks, hook, _global_forward_hooks_always_called,
                  _global_forward_hooks_with_kwargs)
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def register_module_full_backward_pre_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """``hook(module, grad_output)`` when any module's output gradients arrive, before the
    module's own backward pre-hooks; may return new ``grad_output``."""
    return _add(_global_backward_pre_hooks, hook)


def register_module_full_backward_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """``hook(module, grad_input, grad_output)`` once any module's input gradients are
    computed, before the module's own backward hooks; may return new ``grad_input``."""
    return _add(_global_backward_hooks, hook)


def register_module_backward_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """Same as ``register_module_full_backward_hook``.

    PyTorch's deprecated non-full variant reports the gradients of the last operation
    inside the module; arraygrad gives the module-level ones (as
    ``Module.register_backward_hook`` does here).
    """
    return register_module_full_backward_hook(hook)
