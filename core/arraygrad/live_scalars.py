"""Live scalars: the Python numbers an optimizer or scheduler computes from mutable state.

(A module below the compiler: the optimizers and schedulers speak this protocol to it
without importing it; ``arraygrad.compiler.scalars`` is its name inside the compiler.)

An optimizer's update mixes array work with Python floats computed from state that
changes between steps: the learning rate in ``group["lr"]`` (which a scheduler
rewrites), Adam's bias corrections from ``state["step"].item()``, ASGD's ``eta``.
A recording of the array work (``arraygrad.compile``) would bake the value each float
had at record time into the program. So each such float is computed from the state
inside a getter handed to :func:`live` (one expression per scalar; arithmetic on a
live value stays live, but a value read outside a getter is fixed)::

    step_size = live(lambda: lr() / (1 - beta1 ** state["step"].item()))

Outside a recording ``live(getter)`` is ``getter()``, exactly the value (and type)
the expression had before, for the cost of one flag test and one call. While a
recording is in progress it is a :class:`LiveScalar`: a ``float`` with that value
(so the recording call computes what eager computes) which also carries ``getter``,
so the replay can evaluate the expression again when the scalar is used.

The protocol with the recorder (``arraygrad.compiler``), which owns the other side:

- ``recording_flag.on`` is True exactly while a recording call runs; the recorder
  sets and clears it.
- :func:`live` evaluates the getter with ``recording_flag.on`` False: the getter
  reads state as plain Python (``.item()`` of a step tensor), so while the flag is
  off the recorder records nothing and turns no read into a graph break; the read
  sees the value eager would see at that point.
- A replay evaluates ``getter()`` where the recording used the scalar, after the
  program's earlier instructions, with the state the getter reads (a step tensor's
  array, ``group["lr"]``) as eager would have it there. A captured replay (a CUDA graph,
  ``compiler.capture_plan``) evaluates it on the host before the launch of the graph
  that uses it, which the recorder arranges to be equivalent. To learn which arrays a
  getter reads, the recorder may evaluate it once more while recording: a getter is an
  expression without effects.
- :func:`read_guarded` reads state for a Python branch the same way (flag off); the
  branch is baked into the recording, so the reader's guard key must cover it (an
  optimizer's ``_compile_key``, which the recorder adds to its guard key).
- :func:`host_effect` makes a call whose effect is on Python state only (an LR
  scheduler's ``step`` rewriting ``group["lr"]`` and its counters) while recording: it
  runs with the flag off, then ``recording_flag.host_call(thunk)`` asks the recorder to
  run ``thunk`` (the same call) again at that point of every replay. When the recorder
  installed no ``host_call``, ``recording_flag.graph_break(reason)`` is called instead
  (when installed) and the call runs as it is.
"""

from __future__ import annotations

import functools
import operator
from typing import Any, Callable

from arraygrad.transform_state import RecordingFlag, recording_flag

__all__ = ["LiveScalar", "live", "read_guarded", "is_recording", "recording_flag",
           "RecordingFlag", "host_effect"]

# (the flag lives in the leaf ``transform_state``: the layers below read it)


class LiveScalar(float):
    """A float computed from mutable state during a recording: its value now, and ``getter``,
    which computes the value again (at replay).

    Arithmetic with numbers (``1 - w``, ``-lr``, ``a * b``) gives a LiveScalar again, whose
    getter redoes the same float operation on the operands' getters (so an op that derives
    a scalar from a live one, as ``lerp``'s ``1 - weight``, stays live, bit for bit);
    comparisons, ``math`` functions and ``float()`` give plain values.
    """

    __slots__ = ("getter",)

    getter: Callable[..., Any]

    def __new__(cls, value: float, getter: Callable[..., Any]) -> LiveScalar:
        self = super().__new__(cls, value)
        self.getter = getter
        return self

    def __repr__(self) -> str:
        return f"LiveScalar({float(self)!r})"

    def __reduce__(self) -> Any:
        # a copy or pickle of a live value is its current number (a getter is a closure)
        return (float, (float(self),))


def _getter_of(value: Any) -> Callable[[], Any]:
    """The getter of a live operand, or a constant one for a plain number."""
    if value.__class__ is LiveScalar:
        return value.getter
    return lambda: value


def _live_binary(op: Callable[[Any, Any], Any], reflected: bool) -> Callable[..., Any]:
    """A LiveScalar operator: the float result, live when the other operand is a number."""
    def method(self: LiveScalar, other: Any) -> Any:
        if not isinstance(other, (int, float)):
            return NotImplemented  # arrays, tensors: their own operators take the scalar
        a, b = (other, self) if reflected else (self, other)
        value = op(float(a) if a.__class__ is LiveScalar else a,
                   float(b) if b.__class__ is LiveScalar else b)
        ga, gb = _getter_of(a), _getter_of(b)
        return LiveScalar(value, lambda: op(ga(), gb()))
    return method


def _live_unary(op: Callable[[Any], Any]) -> Callable[..., Any]:
    """A LiveScalar unary operator (``-x``, ``abs(x)``): live."""
    def method(self: LiveScalar) -> Any:
        getter = self.getter
        return LiveScalar(op(float(self)), lambda: op(getter()))
    return method


_BINARY: tuple[tuple[str, Callable[[Any, Any], Any]], ...] = (
    ("add", operator.add), ("sub", operator.sub), ("mul", operator.mul),
    ("truediv", operator.truediv), ("pow", operator.pow))
_UNARY: tuple[tuple[str, Callable[[Any], Any]], ...] = (
    ("neg", operator.neg), ("pos", operator.pos), ("abs", operator.abs))
for _name, _binary in _BINARY:
    setattr(LiveScalar, f"__{_name}__", _live_binary(_binary, False))
    setattr(LiveScalar, f"__r{_name}__", _live_binary(_binary, True))
for _name, _unary in _UNARY:
    setattr(LiveScalar, f"__{_name}__", _live_unary(_unary))


def is_recording() -> bool:
    """True while ``arraygrad.compile`` records a call."""
    return recording_flag.on


def live(getter: Callable[..., Any]) -> Any:
    """``getter()``, a scalar computed from mutable state; while recording, the same value as a
    :class:`LiveScalar` carrying ``getter`` so a replay computes it afresh.

    Outside a recording the result is exactly ``getter()`` (same value, same type).
    ``getter`` is called without arguments (typed ``Callable[..., Any]`` because a getter
    made in a loop binds that iteration's state as default arguments).
    """
    if not recording_flag.on:
        return getter()
    recording_flag.on = False  # the getter's reads are Python's, not the program's
    try:
        value = getter()
    finally:
        recording_flag.on = True
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value  # not a number (a tensor lr...): what the recorder sees anyway
    return LiveScalar(value, getter)


def read_guarded(getter: Callable[..., Any]) -> Any:
    """``getter()``, a read of mutable state that decides a Python branch (RAdam's
    rectification, ASGD's averaging), made with the recording flag off so it is no graph
    break. A recording bakes the branch taken, so the caller guarantees the guard key
    covers it (``Optimizer._compile_key``).
    """
    if not recording_flag.on:
        return getter()
    recording_flag.on = False
    try:
        return getter()
    finally:
        recording_flag.on = True


def host_effect(method: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``method(*args, **kwargs)``, a call whose effect is on Python state only (an LR
    scheduler's ``step``), made while recording: it runs now with the recording flag off,
    and the recorder is asked to make the same call at this point of every replay (or,
    when it cannot, to break the graph).

    The caller tests ``recording_flag.on`` first (one flag test on the eager path), so the
    eager call has no extra frame (warnings' ``stacklevel`` stays right)::

        def step(self):
            if recording_flag.on:
                return host_effect(self.step)
            ...
    """
    host_call = recording_flag.host_call
    if host_call is None and recording_flag.graph_break is not None:
        # the recorder stops recording (and clears the flag) before the call runs eagerly
        recording_flag.graph_break(f"{getattr(method, '__qualname__', method)} changes "
                                   "Python state a replay cannot redo")
    was_on, recording_flag.on = recording_flag.on, False
    try:
        out = method(*args, **kwargs)
    finally:
        recording_flag.on = was_on
    if host_call is not None:
        host_call(functools.partial(method, *args, **kwargs))
    return out

