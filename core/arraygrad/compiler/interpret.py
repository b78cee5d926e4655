"""Running recorded instructions again, one by one, on real arrays.

Each instruction runs as the replay function ``compiler.program`` generates would run it.
Two users: the ONNX exporter (every slot's shape and dtype, and a proof that the
instructions it translates are the whole forward) and ``pre_reads`` (a state scalar's
value at a point of the step, computed from the state before it).
"""

from __future__ import annotations

import operator
from typing import Any

from arraygrad.compiler.recording import Instr, Live, Slot

__all__ = ["run", "value_of", "outs_of", "NotRunnable"]


class NotRunnable(RuntimeError):
    """An instruction ``run`` cannot make again (a host call, a random draw)."""


def outs_of(out: Any) -> tuple[int, ...]:
    """The slots an instruction's ``out`` names."""
    if out is None:
        return ()
    return (out,) if out.__class__ is int else tuple(k for k in out if k is not None)


def value_of(t: Any, arrays: dict[int, Any]) -> Any:
    """A template entry's value: a slot's array, a live scalar's value, containers item by
    item, a constant as it is."""
    cls = t.__class__
    if cls is Slot:
        return arrays[t.k]
    if cls is Live:
        return t.getter()
    if cls is tuple or cls is list:
        return cls(value_of(v, arrays) for v in t)
    if cls is dict:
        return {k: value_of(v, arrays) for k, v in t.items()}
    if cls is slice:
        return slice(value_of(t.start, arrays), value_of(t.stop, arrays),
                     value_of(t.step, arrays))
    return t


def run(instrs: list[Instr], arrays: dict[int, Any]) -> dict[int, Any]:
    """Run ``instrs`` on ``arrays`` (slot -> array: the program's inputs, updated in place
    with every slot it makes) and return ``arrays``."""
    for ins in instrs:
        fn, targs, tkw, out, _pure, kind, coerce, _reads = ins
        if kind == "host" or getattr(fn, "__name__", "").startswith("draw_"):
            raise NotRunnable(f"the recorded program makes a call that cannot be run again "
                              f"outside a replay ({getattr(fn, '__name__', fn)!r})")
        args = [value_of(a, arrays) for a in targs]
        kwargs = {k: value_of(v, arrays) for k, v in tkw.items()} if tkw else {}
        if kind == "setitem":
            if not (targs[0] == targs[2] and targs[1] is Ellipsis):
                operator.setitem(*args)
            continue
        if kind == "method":
            result = getattr(args[0], fn)(*args[1:], **kwargs)
        elif kind == "attr":
            result = getattr(args[0], fn)
        else:
            result = fn(*args, **kwargs)
        if coerce is not None:
            result = coerce(result)
        if out is None:
            continue
        if out.__class__ is int:
            arrays[out] = result
        else:
            for k, r in zip(out, result):
                if k is not None and r is not None:
                    arrays[k] = r
    return arrays
