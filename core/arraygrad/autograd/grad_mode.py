"""Grad modes: whether operations are recorded, per thread.

``no_grad``, ``enable_grad``, ``set_grad_enabled`` and ``inference_mode`` work
as context managers and as decorators; ``set_grad_enabled(False)`` also works
as a plain call. The state is thread-local, so one thread inside ``no_grad``
never affects another.
"""

from __future__ import annotations

import functools
import inspect
import threading
from typing import Any, Callable, Literal, TypeVar, cast

__all__ = [
    "enable_grad", "inference_mode", "is_grad_enabled", "is_inference_mode_enabled",
    "no_grad", "set_grad_enabled",
]


class _GradState(threading.local):
    enabled = True
    inference = False


_state = _GradState()


class _InferenceOpen:
    """Process-wide: how many ``inference_mode`` blocks are open in any thread, so making a
    tensor tests one slot, not the thread-local state, to know whether to mark it."""

    __slots__ = ("n",)

    def __init__(self) -> None:
        self.n = 0


_inference_open = _InferenceOpen()
_inference_lock = threading.Lock()


def is_grad_enabled() -> bool:
    """Whether operations are currently recorded for autograd (per thread)."""
    return _state.enabled


def is_inference_mode_enabled() -> bool:
    """Whether ``inference_mode`` is active in this thread."""
    return _state.inference


_F = TypeVar("_F", bound=Callable[..., Any])


class _GradModeContext:
    """Base of the grad-mode context managers: also usable as decorators."""

    def __call__(self, fn: _F) -> _F:
        if inspect.isclass(fn):
            raise TypeError(f"{type(self).__name__} cannot decorate a class")
        if inspect.isgeneratorfunction(fn):
            @functools.wraps(fn)
            def gen_wrapper(*args: Any, **kwargs: Any) -> Any:
                gen = fn(*args, **kwargs)
                with self.clone():
                    request = next(gen)
                while True:
                    try:
                        with self.clone():
                            response = yield request
                        with self.clone():
                            request = gen.send(response)
                    except StopIteration as stop:
                        return stop.value
            return cast(_F, gen_wrapper)

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self.clone():
                return fn(*args, **kwargs)
        return cast(_F, wrapper)

    def clone(self) -> _GradModeContext:
        """A fresh context of the same kind and mode (each decorated call enters its own)."""
        return type(self)()

    def __enter__(self) -> None:
        raise NotImplementedError  # each mode defines it

    def __exit__(self, *exc: object) -> Literal[False]:
        raise NotImplementedError  # each mode defines it


class no_grad(_GradModeContext):
    """Context manager and decorator that turns off graph recording in this thread.

    >>> x = tensor([1.], requires_grad=True)
    >>> with no_grad():
    ...     y = x * 2
    >>> y.requires_grad
    False
    """

    def __enter__(self) -> None:
        self._prev = _state.enabled
        _state.enabled = False

    def __exit__(self, *exc: object) -> Literal[False]:
        _state.enabled = self._prev
        return False


class enable_grad(_GradModeContext):
    """Context manager and decorator that turns graph recording back on (e.g. inside ``no_grad``)."""

    def __enter__(self) -> None:
        self._prev = _state.enabled
        _state.enabled = True

    def __exit__(self, *exc: object) -> Literal[False]:
        _state.enabled = self._prev
        return False


class set_grad_enabled(_GradModeContext):
    """Set grad mode on or off: a plain call, a context manager, or a decorator.

    ``set_grad_enabled(False)`` takes effect at once (as in PyTorch); used in a
    ``with`` block the previous mode comes back at the block's end.
    """

    def __init__(self, mode: bool) -> None:
        self._prev = _state.enabled
        self.mode = bool(mode)
        _state.enabled = self.mode

    def __call__(self, fn: _F) -> _F:
        _state.enabled = self._prev  # as a decorator, the call itself changes nothing
        return super().__call__(fn)

    def __enter__(self) -> None:
        _state.enabled = self.mode

    def __exit__(self, *exc: object) -> Literal[False]:
        _state.enabled = self._prev
        return False

    def clone(self) -> set_grad_enabled:
        return set_grad_enabled(self.mode)


class inference_mode(_GradModeContext):
    """Like ``no_grad``, for code that will never need gradients (``inference_mode(False)`` is a no-op)."""

    def __init__(self, mode: bool = True) -> None:
        self.mode = bool(mode)

    def __enter__(self) -> None:
        self._prev = (_state.enabled, _state.inference)
        if self.mode:
            _state.enabled, _state.inference = False, True
            with _inference_lock:
                _inference_open.n += 1

    def __exit__(self, *exc: object) -> Literal[False]:
        _state.enabled, _state.inference = self._prev
        if self.mode:
            with _inference_lock:
                _inference_open.n -= 1
        return False

    def clone(self) -> inference_mode:
        return inference_mode(self.mode)
