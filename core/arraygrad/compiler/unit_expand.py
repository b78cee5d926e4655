"""Flattening replay units when the replay function is generated.

A recording writes a replay unit's call (``compiler.units``) as one instruction: cheap to
record, but a replay that calls the unit's Python function pays a frame and the function's
own attribute lookups per call. When the key's replay function is generated (its first
replay), each unit instruction is replaced by the instructions of the unit's body,
recorded op by op as any function is: the unit runs once more under a scratch recording,
on stand-in arrays of the recorded arguments' shapes and dtypes (a unit's operations
depend on those and on its constant arguments, never on values), its inputs in the
arguments' own slots and its results renamed to the unit's result slots. The replay then
makes the same backend calls as the unit call, without its frame.

A unit whose body cannot be traced so (it breaks the graph, returns something unexpected,
or its instruction feeds a value guard) stays one call: still exact, only slower.
"""

from __future__ import annotations

import warnings
from typing import Any

from arraygrad.compiler.recording import Instr, Live, Recording, SLOTS, Slot, current
from arraygrad.compiler.recording_backend import RecordingBackend, recording_namespace
from arraygrad.compiler.scalars import LiveScalar, recording_flag
from arraygrad.compiler.traced import TracedArray

__all__ = ["expand_units"]


def expand_units(rec: Recording) -> None:
    """Replace ``rec``'s unit instructions (``rec.units``: instruction index -> the traced
    arguments' ``(shape, dtype)``) by their bodies' instructions, in place."""
    if not rec.units:
        return
    hoisted = rec.hoisted
    instrs: list[Instr] = []
    moved: dict[int, list[int]] = {}
    for i, ins in enumerate(rec.instrs):
        meta = rec.units.get(i)
        body = None if meta is None or i in hoisted else _body(rec, ins, meta)
        start = len(instrs)
        if body is None:
            instrs.append(ins)
        else:
            instrs.extend(body)
        moved[i] = list(range(start, len(instrs)))
    rec.instrs[:] = instrs
    rec.hoisted = {j for i in hoisted for j in moved[i]}  # (hoisted ones stay whole)
    rec.units = {}
    rec.reset_derived()


def _body(rec: Recording, ins: Instr, meta: tuple[Any, ...]) -> list[Instr] | None:
    """The instructions of unit instruction ``ins``'s body, in ``rec``'s slots; None when
    it cannot be traced."""
    fn, targs, out = ins[0], ins[1], ins[3]
    scratch = Recording(rec.backend, lambda reason: setattr(scratch, "broken", reason))
    scratch.nslots = rec.nslots
    xp = rec.backend.xp
    shapes = iter(meta)
    args: list[Any] = []
    for t in targs:
        if t.__class__ is Slot:
            shape, dtype = next(shapes)
            args.append(TracedArray(xp.ones(shape, dtype=dtype), t.k, scratch))
        elif t is rec.backend:
            args.append(RecordingBackend(t, scratch))
        elif t is xp:
            args.append(recording_namespace(t))
        elif t.__class__ is Live:  # read now as the recording call read it (no effect)
            args.append(LiveScalar(t.getter(), t.getter, t.pre))
        else:
            args.append(t)  # a constant
    was, flag = current.rec, recording_flag.on
    try:
        current.rec, recording_flag.on = scratch, True
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # stand-in values: their warnings are no one's
            result = fn(*args)
    except Exception:  # noqa: BLE001 - not traceable: the unit stays one call
        return None
    finally:
        current.rec, recording_flag.on = was, flag
    if scratch.broken is not None or scratch.guards:
        return None
    outs = out if out.__class__ is tuple else (out,)
    results = result if out.__class__ is tuple else (result,)
    if len(outs) != len(results):
        return None
    rename: dict[int, int] = {}
    for k, r in zip(outs, results):
        if r is None:
            continue
        if r.__class__ is not TracedArray or r._r is not scratch:
            return None  # a constant: keep the call
        if r._s == k:  # a unit writing its argument answers it: nothing to rename
            continue
        if r._s < rec.nslots or r._s in rename:
            return None  # another argument, or one array twice: keep the call
        rename[r._s] = k
    body = [_renamed(i, rename) for i in scratch.instrs]
    rec.nslots = scratch.nslots
    for view, base in scratch.base.items():
        rec.base[rename.get(view, view)] = rename.get(base, base)
    return body


def _renamed(ins: Instr, rename: dict[int, int]) -> Instr:
    fn, args, kwargs, out, pure, kind, coerce, reads = ins
    if not rename:
        return ins
    if out.__class__ is int:
        out = rename.get(out, out)
    elif out.__class__ is tuple:
        out = tuple(rename.get(k, k) for k in out)
    return Instr((fn, _template(args, rename), _template(kwargs, rename), out, pure, kind,
                  coerce, tuple(rename.get(k, k) for k in reads)))


def _template(t: Any, rename: dict[int, int]) -> Any:
    cls = t.__class__
    if cls is Slot:
        k = rename.get(t.k)
        return t if k is None else SLOTS[k]
    if cls is tuple or cls is list:
        return cls(_template(v, rename) for v in t)
    if cls is dict:
        return {key: _template(v, rename) for key, v in t.items()}
    return t
