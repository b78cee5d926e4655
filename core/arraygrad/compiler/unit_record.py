"""Recording a replay unit's call (``compiler.units``) as one instruction.

While a recording is live, a unit's call on traced arrays runs the undecorated function
once on the real arrays and appends one instruction calling it; the instruction notes its
traced arguments' shapes and dtypes, from which code generation flattens it
(``compiler.unit_expand``). What a unit cannot take is recorded op by op.
"""

from __future__ import annotations

from typing import Any, Callable

from arraygrad.compiler.recording import Instr
from arraygrad.compiler.recording_backend import RecordingBackend, RecordingNamespace
from arraygrad.compiler.scalars import LiveScalar, plain, recording_flag
from arraygrad.compiler.traced import (
    Recording, TracedArray, _live_entry, _record_result, current,
)

__all__ = ["record_unit"]


def record_unit(fn: Callable[..., Any], args: tuple[Any, ...], writes: bool = False) -> Any:
    """An array kernel's call while a recording runs (``transform_state.array_kernel``, a
    replay unit: ``compiler.units``): ``fn`` run once
    on the real arrays and written down as one instruction calling ``fn``, when its
    arguments are traced arrays of the live recording, recording backends or namespaces,
    live scalars and plain constants, and it returns fresh arrays (or a tuple of fresh
    arrays and Nones), or, for a unit that ``writes``, its second argument. A call with
    other arguments is ``fn`` called on them as given: its operations are recorded one by
    one, as for any function."""
    rec = current.live
    if rec is None or rec.hints or not rec.whole_units or not recording_flag.on:
        # not live (broken, a getter probed), hints to give, or op by op asked for
        return fn(*args)
    signature = tuple(map(type, args))
    plan = _PLANS.get(signature)
    if plan is None:
        plan = _PLANS[signature] = _plan(signature, args, rec)
    traced_at, backends_at, live_at = plan
    if not traced_at or (live_at and rec.hints is not None):
        # no traced array, an argument a unit cannot take, or a live scalar whose hints a
        # capturing backend needs (what the lanes give it): op by op
        return fn(*args)
    real = list(args)
    targs = list(args)  # (constants are their own template)
    templates = rec.templates
    reads: list[int] = []
    for i in traced_at:
        a = args[i]
        if a._r is not rec:
            return fn(*args)  # a leftover of another recording: the general path
        real[i] = a._a
        k = a._s
        targs[i] = templates[k]
        if k not in reads:  # (an array passed twice is one read)
            reads.append(k)
    for i in backends_at:
        real[i] = targs[i] = args[i]._real  # the replay calls ``fn`` with the real one
    for i in live_at:
        real[i] = plain(args[i])  # the number eager passes; read again at each replay
        targs[i] = _live_entry(args[i], rec)
    result = fn(*real)
    if writes:
        target = args[1]
        if target.__class__ is TracedArray and result is target._a:
            _append(rec, fn, targs, target._s, False, reads, real, traced_at)
            return target  # the argument's own traced array, as eager's is the argument
        traced = [a for a in args if a.__class__ is TracedArray]
        return _record_result(rec, fn, tuple(targs), {}, result, traced, False, "call", True,
                              args)
    array_type = rec.array_type
    if result.__class__ is array_type:
        if getattr(result, "base", None) is None and _none_of(result, real, traced_at):
            out = rec.nslots  # fresh: a new slot
            rec.nslots = out + 1
            _append(rec, fn, targs, out, True, reads, real, traced_at)
            return TracedArray(result, out, rec)
    elif result.__class__ is tuple and _fresh_entries(result, real, traced_at, array_type):
        out = rec.nslots  # a slot per entry (a None entry's stays None at replay)
        outs = tuple(range(out, out + len(result)))
        rec.nslots = out + len(result)
        _append(rec, fn, targs, outs, True, reads, real, traced_at)
        return tuple([None if r is None else TracedArray(r, k, rec)
                      for r, k in zip(result, outs)])
    # no fresh array (a view, an argument returned, a backend scalar): what ``record_call``
    # does with such a result
    traced = [a for a in args if a.__class__ is TracedArray]
    return _record_result(rec, fn, tuple(targs), {}, result, traced, True, "call", True, args)


# arguments a unit's instruction holds as they are (``None``: an absent optional array)
_UNIT_CONSTANTS = frozenset({int, float, bool, str, type(None), type(len)})

# argument classes -> (positions of traced arrays, of recording backends and namespaces, of
# live scalars), the unit's call signature worked out once; ``((), (), ())``: op by op
_PLANS: dict[tuple[type, ...], tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]] = {}


def _plan(signature: tuple[type, ...], args: tuple[Any, ...],
          rec: Recording) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """Where a unit's traced arrays, backends and live scalars sit among arguments of these
    classes; no traced array at all (``((), (), ())``) when one argument's class is none a
    unit takes (a container, a batching backend...). A class of the backend's native dtypes
    is a constant (dtypes are immutable), as a builtin function (an ``operator`` one)."""
    traced: list[int] = []
    backends: list[int] = []
    live: list[int] = []
    for i, (cls, a) in enumerate(zip(signature, args)):
        if cls is TracedArray:
            traced.append(i)
        elif cls is RecordingBackend or cls is RecordingNamespace:
            backends.append(i)
        elif cls is LiveScalar:
            live.append(i)
        elif cls not in _UNIT_CONSTANTS and not _native_dtype(a, rec):
            return (), (), ()
    return (tuple(traced), tuple(backends), tuple(live)) if traced else ((), (), ())


def _append(rec: Recording, fn: Callable[..., Any], targs: list[Any], out: Any, pure: bool,
            reads: list[int], real: list[Any], traced_at: tuple[int, ...]) -> None:
    """Append a unit's instruction, noting its traced arguments' ``(shape, dtype)`` (what
    ``unit_expand`` traces the body on)."""
    rec.units[len(rec.instrs)] = tuple([(real[i].shape, real[i].dtype) for i in traced_at])
    rec.instrs.append(Instr((fn, tuple(targs), {}, out, pure, "call", None, tuple(reads))))


def _native_dtype(value: Any, rec: Recording) -> bool:
    """Whether ``value`` is one of the backend's floating native dtypes (by identity)."""
    for d in rec.backend.floating_natives:
        if d is value:
            return True
    return False


def _fresh_entries(result: tuple[Any, ...], real: list[Any], traced_at: tuple[int, ...],
                   array_type: Any) -> bool:
    """Whether every entry of a unit's tuple result is None or a fresh array: of the
    backend's array type, no view (a view of an array the unit made would do, but telling
    it from a view of an argument costs more than the general path) and none of the
    unit's array arguments."""
    for r in result:
        if r is not None and (r.__class__ is not array_type
                              or getattr(r, "base", None) is not None
                              or not _none_of(r, real, traced_at)):
            return False
    return True


def _none_of(result: Any, real: list[Any], traced_at: tuple[int, ...]) -> bool:
    """Whether ``result`` is none of the unit's array arguments (by identity: ``in`` would
    compare values)."""
    for i in traced_at:
        if real[i] is result:
            return False
    return True


