"""Anomaly detection: remember where each node was made, and fail loudly on NaN gradients.

While enabled, every node created records the Python stack of the forward
call that made it. During backward, a node that returns NaN raises
RuntimeError naming the node and showing that forward traceback; any error
raised inside a node's backward also carries it.
"""

from __future__ import annotations

import traceback
import warnings
import weakref
from typing import TYPE_CHECKING, Any, Callable, Literal

if TYPE_CHECKING:
    from arraygrad.autograd.graph import Node

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled"]


class _AnomalyState:
    enabled = False
    check_nan = True


state = _AnomalyState()
_forward_traces: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def is_anomaly_enabled() -> bool:
    """Whether anomaly detection is on."""
    return state.enabled


def is_anomaly_check_nan_enabled() -> bool:
    """Whether anomaly detection also checks backward outputs for NaN."""
    return state.check_nan


def remember_forward(node: Node) -> None:
    """Store the current stack as ``node``'s forward traceback (anomaly mode only)."""
    _forward_traces[node] = traceback.format_stack()[:-2]


def forward_trace(node: Node) -> str:
    """The forward traceback recorded for ``node``, or a note that there is none."""
    stack = _forward_traces.get(node)
    if not stack:
        return "(no forward traceback: the node was created outside anomaly mode)"
    return "".join(stack)


def check_outputs(node: Node, grads: Any) -> None:
    """Raise if a gradient ``node`` returned contains NaN (when check_nan is on)."""
    if not state.check_nan:
        return
    for i, g in enumerate(grads):
        if g is None:
            continue
        xp = g._backend.xp
        if (g.dtype.is_floating_point or g.dtype.is_complex) and bool(xp.any(xp.isnan(g._data))):
            trace = forward_trace(node)
            warnings.warn(f"Error detected in {node.name()}. Traceback of forward call that "
                          f"caused the error:\n{trace}", UserWarning, stacklevel=2)
            raise RuntimeError(
                f"Function '{node.name()}' returned nan values in its {i}th output.\n"
                f"Traceback of forward call that caused the error:\n{trace}")


def annotate(node: Node, exc: BaseException) -> None:
    """Add ``node``'s forward traceback to an error raised in its backward."""
    note = f"Error detected in {node.name()}. Traceback of forward call:\n{forward_trace(node)}"
    if hasattr(exc, "add_note"):
        exc.add_note(note)


class set_detect_anomaly:
    """Turn anomaly detection on or off: a plain call or a context manager."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = (state.enabled, state.check_nan)
        state.enabled, state.check_nan = bool(mode), bool(check_nan)

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: Any) -> Literal[False]:
        state.enabled, state.check_nan = self.prev
        return False


class detect_anomaly:
    """Context manager and decorator enabling anomaly detection (slow: debugging only).

    >>> with detect_anomaly():
    ...     out = model(x)
    ...     out.backward()   # NaN in a gradient raises, showing the forward traceback
    """

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", UserWarning, stacklevel=2)

    def __enter__(self) -> Any:
        self.prev = (state.enabled, state.check_nan)
        state.enabled, state.check_nan = True, self.check_nan
        return self

    def __exit__(self, *exc: Any) -> Literal[False]:
        state.enabled, state.check_nan = self.prev
        return False

    def __call__(self, fn: Callable[..., Any]) -> Any:
        import functools

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with detect_anomaly(self.check_nan):
                return fn(*args, **kwargs)

        return wrapper
