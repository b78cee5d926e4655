"""Live scalars: the Python numbers a recorded step computes from state that changes between
calls, and the guards they leave when Python branches on them.

An optimizer's update mixes array work with Python floats read from mutable state: the
learning rate in ``group["lr"]`` (which a scheduler rewrites), Adam's bias corrections from
``state["step"]``, ASGD's ``eta``. A recording of the array work would bake the value each
float had at record time into the program. So, while a call is recorded, the recorder hands
the step such a float as a :class:`LiveScalar`: a ``float`` with the value eager sees (so the
recording call computes what eager computes) which also carries ``getter``, an expression
that computes the value again at replay. The optimizers themselves are written as PyTorch's
are (``p.add_(g, alpha=-group["lr"])``); the recorder makes the reads live:

- ``compiler.group_reads`` reads an arraygrad optimizer's parameter groups: a float
  hyperparameter comes back live (``getter`` reads the group again);
- ``recording_flag.read_live(t)`` (``optim.optimizer._get_value``, PyTorch's helper of the
  same name) reads a one-element state tensor (a step count) live.

Arithmetic with numbers keeps a scalar live (``1 - beta1 ** step`` is a LiveScalar whose
getter redoes the same float operations, bit for bit); :meth:`LiveScalar.live_apply` applies
a ``math`` function live (``_dispatch_sqrt``). Everything else a step can do with a number
turns it into Python: a comparison or ``bool()`` (a branch), ``float()``/``int()``/
``round()``/formatting/hashing. Each of those is a **guard** of the program (``Guards``):
the comparison's outcome, or the value, must be the same at a replay, else the call records
again. A guard is checked before the replay writes anything, so it can only be made of a
scalar whose getter gives, before the replay, the value the step read (``pre``: read before
the step wrote what it reads, or after in-place arithmetic a copy can redo, and before any
host call); a recording that branched on any other live value is not kept (the next call
records again, and after three such calls the function runs eagerly), never a stale
constant.

When is a getter evaluated? A ``pre`` read (``pre_read``) is evaluated once, at the start of
the replay, before the guards (``fill``): every expression made of it then sees the value
the step read, wherever the replay evaluates it. Any other (a step
count read after the step incremented it) is evaluated where the recording used it, after the
program's earlier instructions, with the state as eager has it there.

:func:`live` makes a live scalar from an explicit getter (a user's optimizer may still use
it); :func:`host_effect` makes a call whose effect is on Python state only (an LR scheduler's
``step``) part of every replay. The flag they test (``recording_flag``) lives in the leaf
``arraygrad.transform_state``; the layers below the compiler use it through its hooks.
"""

from __future__ import annotations

import functools
import operator
from typing import Any, Callable

from arraygrad.transform_state import RecordingFlag, recording_flag

__all__ = ["LiveScalar", "live", "read_guarded", "is_recording", "recording_flag",
           "RecordingFlag", "host_effect", "Guards", "plain", "pre_read", "fill", "holds"]


class Guards:
    """The guards one recording's live scalars leave (see the module docstring), and how many
    host calls it made so far (``effects``: a read after one is not ``pre``).

    ``checks``: ``(getter, expected)`` pairs; the program replays only while every
    ``getter()`` equals its ``expected`` (a comparison's outcome, or a value with its type).
    ``unguardable``: why the step read a number into Python that no check can watch (the
    program is then not kept: the next call records again), or "".
    """

    __slots__ = ("checks", "effects", "seen", "unguardable", "reads", "written",
                 "effect_keys", "in_effect")

    def __init__(self) -> None:
        self.checks: list[tuple[Callable[[], Any], Any]] = []
        # the ``pre`` reads: ``(getter, cell)``; a replay first fills each cell with
        # ``getter()`` (``fill``), and the live scalars read their cell
        self.reads: list[tuple[Callable[[], Any], list[Any]]] = []
        # the ``(id(group), key)`` the step wrote (``group_reads``): read back as written
        self.written: set[tuple[int, Any]] = set()
        self.effects = 0
        # the group keys a host call (a scheduler's step) writes: what it wrote while
        # recorded, and ``"lr"`` always (``ReduceLROnPlateau`` writes it only when it
        # reduces); a read of another key after a host call is still read up front
        self.effect_keys: set[Any] = set()
        self.in_effect = False
        # the checks made, by what they read: a loop over parameters makes each comparison
        # once per parameter, and one check suffices (the getters are kept alive by them)
        self.seen: set[tuple[Any, ...]] = set()
        self.unguardable = ""

    def add(self, key: tuple[Any, ...], check: Callable[[], Any], expected: Any) -> None:
        """Keep ``check() == expected`` once per ``key``."""
        if key not in self.seen:
            self.seen.add(key)
            self.checks.append((check, expected))


guards: Guards | None = None
"""The guards of the recording in progress (set by the recorder around the recorded call)."""

recording_live: Callable[[], bool] = lambda: False
"""Whether a recording is in progress and not broken (``traced`` installs its own test: it
imports this module)."""


def pre_read(value: Any, getter: Callable[[], Any]) -> LiveScalar:
    """A live scalar read from the state before the step (``pre``): its getter is evaluated
    once at the start of each replay (``fill``), before the guards, so that every expression
    made of it, wherever the replay evaluates it, sees the value the step read."""
    cell = [value]
    sink = guards
    if sink is not None:
        sink.reads.append((getter, cell))
    return LiveScalar(value, functools.partial(operator.getitem, cell, 0), True)


def fill(reads: tuple[tuple[Callable[[], Any], list[Any]], ...]) -> bool:
    """Evaluate a program's ``pre`` reads now, at the start of its replay (False when one
    fails: a key deleted, a tensor rebound; the program is then not replayed)."""
    try:
        for getter, cell in reads:
            cell[0] = getter()
    except Exception:  # noqa: BLE001 - state the program cannot read: record again
        return False
    return True


def holds(checks: tuple[tuple[Callable[[], Any], Any], ...]) -> bool:
    """Whether every guard of ``checks`` still holds (evaluated with the flag off: these are
    Python reads)."""
    for getter, expected in checks:
        try:
            if getter() != expected:
                return False
        except Exception:  # noqa: BLE001 - a read that now fails (a key deleted): record again
            return False
    return True


def plain(value: Any) -> Any:
    """The plain number of a live scalar, without a guard (the recorder's own reads)."""
    return float.__float__(value) if value.__class__ is LiveScalar else value


class LiveScalar(float):
    """A float computed from mutable state during a recording: its value now, ``getter``,
    which computes the value again at replay, and ``pre``: whether ``getter()`` evaluated
    before a replay gives the value the step read (see the module docstring)."""

    __slots__ = ("getter", "pre")

    getter: Callable[..., Any]
    pre: bool

    def __new__(cls, value: float, getter: Callable[..., Any], pre: bool = False) -> LiveScalar:
        self = super().__new__(cls, value)
        self.getter = getter
        self.pre = pre
        return self

    def __repr__(self) -> str:
        return f"LiveScalar({float.__repr__(self)})"

    def __reduce__(self) -> Any:
        # a copy or pickle of a live value is its current number (a getter is a closure)
        return (float, (self._escape(),))

    @property
    def live_operand(self) -> bool:
        """Whether an op should pass this scalar on as it is (a recording is live: the
        recorder turns it into an operand read again at replay). Else (after a graph break,
        outside the recording) an op takes its plain value: NumPy would take a float
        subclass for a float64 array and promote a float32 operand."""
        return recording_flag.on and recording_live()

    def live_apply(self, fn: Callable[[float], float]) -> LiveScalar:
        """``fn(self)`` (a ``math`` function), live: its getter applies ``fn`` again."""
        getter = self.getter
        return LiveScalar(fn(plain(self)), lambda: fn(getter()), self.pre)

    def _escape(self) -> float:
        """The plain value, handed to Python (``float()``, formatting...): a guard on the value
        (or a graph break when the value cannot be checked before a replay)."""
        value = float.__float__(self)
        if recording_flag.on:
            getter = self.getter
            _guard(self, (id(getter),), lambda: _typed(getter()), _typed(value))
        return value

    def __float__(self) -> float:
        return self._escape()

    def __int__(self) -> int:
        return int(self._escape())

    def __round__(self, ndigits: Any = None) -> Any:
        return round(self._escape(), ndigits)

    def __trunc__(self) -> int:
        return int(self._escape())

    def __floor__(self) -> int:
        import math
        return math.floor(self._escape())

    def __ceil__(self) -> int:
        import math
        return math.ceil(self._escape())

    def __format__(self, spec: str) -> str:
        return format(self._escape(), spec)

    def __str__(self) -> str:
        return str(self._escape())

    def __hash__(self) -> int:
        return hash(self._escape())

    def __bool__(self) -> bool:
        result = float.__float__(self) != 0.0
        if recording_flag.on:
            getter = self.getter
            _guard(self, (id(getter), "bool"), lambda: getter() != 0, result)
        return result


def _typed(value: Any) -> tuple[type, Any]:
    return (value.__class__, value)


def _guard(value: LiveScalar | tuple[Any, ...], key: tuple[Any, ...], check: Callable[[], Any],
           expected: Any) -> None:
    """Keep ``check() == expected`` (what ``key`` names) as a guard of the recording in
    progress, or break the graph when the scalars it reads cannot be evaluated before a
    replay."""
    sink = guards
    pre = all(v.pre for v in (value if value.__class__ is tuple else (value,))
              if v.__class__ is LiveScalar)
    if sink is None:
        if recording_flag.graph_break is not None:
            recording_flag.graph_break("a live number read into Python outside a step")
    elif pre:
        sink.add(key, check, expected)
    elif not sink.unguardable:
        sink.unguardable = ("the step read into Python a number it computed from state it had "
                            "changed (read it before changing it, or keep the computation in "
                            "tensors): no guard can be checked before a replay")


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
        value = op(plain(a), plain(b))
        ga, gb = _getter_of(a), _getter_of(b)
        pre = self.pre and (other.__class__ is not LiveScalar or other.pre)
        return LiveScalar(value, lambda: op(ga(), gb()), pre)
    return method


def _live_unary(op: Callable[[Any], Any]) -> Callable[..., Any]:
    """A LiveScalar unary operator (``-x``, ``abs(x)``): live."""
    def method(self: LiveScalar) -> Any:
        getter = self.getter
        return LiveScalar(op(plain(self)), lambda: op(getter()), self.pre)
    return method


def _live_compare(op: Callable[[Any, Any], bool]) -> Callable[..., Any]:
    """A LiveScalar comparison: the plain outcome, kept as a guard while recording."""
    def method(self: LiveScalar, other: Any) -> Any:
        if not isinstance(other, (int, float)):
            return NotImplemented
        result = op(plain(self), plain(other))
        if recording_flag.on:
            ga, gb = self.getter, _getter_of(other)
            what = id(gb) if other.__class__ is LiveScalar else (other.__class__, other)
            _guard((self, other), (id(ga), op, what), lambda: op(ga(), gb()), result)
        return result
    return method


_BINARY: tuple[tuple[str, Callable[[Any, Any], Any]], ...] = (
    ("add", operator.add), ("sub", operator.sub), ("mul", operator.mul),
    ("truediv", operator.truediv), ("pow", operator.pow))
_UNARY: tuple[tuple[str, Callable[[Any], Any]], ...] = (
    ("neg", operator.neg), ("pos", operator.pos), ("abs", operator.abs))
_COMPARE: tuple[tuple[str, Callable[[Any, Any], bool]], ...] = (
    ("lt", operator.lt), ("le", operator.le), ("gt", operator.gt), ("ge", operator.ge),
    ("eq", operator.eq), ("ne", operator.ne))
for _name, _binary in _BINARY:
    setattr(LiveScalar, f"__{_name}__", _live_binary(_binary, False))
    setattr(LiveScalar, f"__r{_name}__", _live_binary(_binary, True))
for _name, _unary in _UNARY:
    setattr(LiveScalar, f"__{_name}__", _live_unary(_unary))
for _name, _compare in _COMPARE:
    setattr(LiveScalar, f"__{_name}__", _live_compare(_compare))


def is_recording() -> bool:
    """True while ``arraygrad.compile`` records a call."""
    return recording_flag.on


def _flag_off(getter: Callable[..., Any]) -> Any:
    """``getter()`` with the recording flag off (its reads are Python's, not the program's)."""
    recording_flag.on = False
    try:
        return getter()
    finally:
        recording_flag.on = True


def live(getter: Callable[..., Any], pre: bool = False) -> Any:
    """``getter()``, a scalar computed from mutable state; while recording, the same value as a
    :class:`LiveScalar` carrying ``getter`` so a replay computes it afresh.

    Outside a recording the result is exactly ``getter()`` (same value, same type).
    ``getter`` is called without arguments (typed ``Callable[..., Any]`` because a getter
    made in a loop binds that iteration's state as default arguments). ``pre``: the getter
    gives the value now also before the step runs (it reads nothing the step changes before
    this point), so it may be evaluated at the start of a replay and guard a branch.
    """
    if not recording_flag.on:
        return getter()
    value = _flag_off(getter)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value  # not a number (a tensor lr...): what the recorder sees anyway
    if pre and guards is not None and not guards.effects:
        return pre_read(value, getter)
    return LiveScalar(value, getter)


def read_guarded(getter: Callable[..., Any]) -> Any:
    """``getter()``, a read of mutable state that decides a Python branch, made with the
    recording flag off so it is no graph break; the value read is a guard of the program."""
    if not recording_flag.on:
        return getter()
    value = _flag_off(getter)
    sink = guards
    if sink is not None and not sink.effects:
        sink.add((id(getter),), lambda: _typed(getter()), _typed(value))
    elif sink is not None and not sink.unguardable:
        sink.unguardable = "a guarded read after a host call: it cannot be checked up front"
    return value


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
    sink = guards
    if sink is not None:
        sink.in_effect = True  # (``group_reads`` notes the keys it writes)
    try:
        out = method(*args, **kwargs)
    finally:
        recording_flag.on = was_on
        if sink is not None:
            sink.in_effect = False
    if host_call is not None:
        if guards is not None:
            guards.effects += 1  # reads from now on may see what this call changed
            guards.effect_keys.add("lr")
        host_call(functools.partial(method, *args, **kwargs))
    return out
