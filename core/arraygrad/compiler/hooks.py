"""The recorder's side of ``transform_state.hooks``, installed while a call is recorded.

The layers below the compiler (creation, random draws, plugin kernels, array kernels,
tensor hooks, the ops with a view-of-memory or value-dependent form) consult those slots;
they are None outside a recording, so an eager program pays one slot test. While a
recording runs they route that work to the recorder; a slot reached while the recording
flag is off (a live scalar's getter, a host call) passes the work through as eager does.
"""

from __future__ import annotations

from typing import Any, Callable

from arraygrad.compiler.recording_backend import recorded_backend, recorded_generator
from arraygrad.compiler.scalars import recording_flag
from arraygrad.compiler.traced import recorded_kernel
from arraygrad.compiler.unit_record import record_unit
from arraygrad.transform_state import hooks

__all__ = ["install", "restore"]

_SLOTS = ("backend_view", "generator_view", "kernel_view", "kernel_call", "python_effect",
          "arrays_only")


def _backend_view(backend: Any) -> Any:
    return recorded_backend(backend) if recording_flag.on else backend


def _generator_view(backend: Any, generator: Any) -> Any:
    if recording_flag.on:
        return recorded_generator(backend, generator)
    real = getattr(backend, "_real", backend)  # (a recording backend's real one)
    return generator.native(real)


def _kernel_view(kernel: Callable[..., Any]) -> Callable[..., Any]:
    return recorded_kernel(kernel) if recording_flag.on else kernel


def _python_effect(reason: str) -> None:
    if recording_flag.on and recording_flag.graph_break is not None:
        recording_flag.graph_break(reason)  # a replay would not run that Python


def install() -> tuple[Any, ...]:
    """Install the recorder's hooks; returns what ``restore`` puts back."""
    saved = tuple(getattr(hooks, name) for name in _SLOTS)
    hooks.backend_view = _backend_view
    hooks.generator_view = _generator_view
    hooks.kernel_view = _kernel_view
    hooks.kernel_call = record_unit
    hooks.python_effect = _python_effect
    hooks.arrays_only = True
    return saved


def restore(saved: tuple[Any, ...]) -> None:
    """Put back the hooks ``install`` replaced."""
    for name, value in zip(_SLOTS, saved):
        setattr(hooks, name, value)
