"""Planning a captured replay of a program that reads the host (live scalars, host calls).

A CUDA graph fixes every kernel argument at capture, so a live scalar (``compiler.scalars``)
cannot reach a captured program as a Python number. It becomes a 0-d device array, a
*buffer* the captured program reads, which the host fills before each launch with the
getter's value. What must hold for that to give eager's results, bit for bit:

- **The buffer's dtype.** NumPy 2 (NEP 50) and CuPy compute ``array op python_scalar`` in
  the array's dtype, the scalar cast to it. A 0-d buffer of that same dtype gives the same
  operation on the same operands. So a live scalar is buffered only as the operand of a
  binary arithmetic operator (``+ - * /`` and their in-place forms) whose other operand is
  an array of a real floating dtype (``Live.meets``, noted at record time); any other use
  (a pow exponent, with NumPy's fast paths for ``** 2``; an integer array, where an int or
  a float scalar give different dtypes; a namespace function) keeps the program uncaptured.
- **When the getter is evaluated.** Eager evaluates a getter where the scalar is used. One
  that reads an array the same program writes before that point (Adam's bias corrections
  read ``step``, which the step increments first) would be early if evaluated before the
  launch. The recorder notes the arrays each getter reads (``Live.reads``, by evaluating it
  once more at record time). Such a getter is *dependent*. The program is then split in
  two captured segments: segment A is every instruction that writes what a dependent getter
  reads (with what those instructions need), moved ahead of the rest when no instruction
  they pass reads or writes what they touch; the dependent getters are evaluated between
  the launches of A and of B (the rest), from the device state as eager has it at their
  point of use. Each getter's value is still computed by the getter itself on the host, so
  it is eager's float. Anything this does not cover (a write to a read array after a
  dependent use, an A result needed by B that is not a state array) keeps the program
  uncaptured.
- **Host calls** (an LR scheduler's ``step``, ``scalars.host_effect``) change Python state
  only; they run on the host in program order with the getters (phase 0 before A, phase 1
  between A and B), so each getter sees the Python state eager's sees. A host call whose
  arguments are not plain numbers (a tensor metric) keeps the program uncaptured.
"""

from __future__ import annotations

import functools
from typing import Any

from arraygrad.compiler import program as _program
from arraygrad.compiler.traced import Instr, Live, Recording, Slot

__all__ = ["Plan", "plan", "written_by", "HIDDEN"]

_OPERATORS = frozenset({"+", "-", "*", "/", "+=", "-=", "*=", "/="})
_PLAIN = (int, float, bool, str, type(None))
HIDDEN = -1  # a pseudo-slot: state no slot names (a generator's), read and written by effects


class Plan:
    """How a capturable program runs: ``segments`` (one or two instruction lists, launched
    in order), ``buffers`` (``(phase, dtype)`` of each 0-d buffer), ``slot_of`` (a Live
    entry's id -> its buffer number) and ``phases`` (per phase, the host work in program
    order: ``("get", getter, buffer)`` fills a buffer, ``("host", thunk, None)`` calls),
    ``written`` (the slots the instructions write in place)."""

    def __init__(self) -> None:
        self.segments: list[list[Instr]] = []
        self.buffers: list[tuple[int, Any]] = []
        self.slot_of: dict[int, int] = {}
        self.phases: list[list[tuple[str, Any, int | None]]] = [[], []]
        self.written: set[int] = set()  # every slot an instruction writes in place


def plan(rec: Recording, kept: list[Instr], needed: set[int], xp: Any) -> Plan | None:
    """The plan for ``kept`` (the device instructions, in program order), or None when the
    program must stay uncaptured (see the module)."""
    n = len(kept)
    base = rec.base
    reads: list[set[int]] = []
    writes: list[set[int]] = []
    defs: list[set[int]] = []
    uses: list[tuple[int, Live, Any]] = []  # (position, entry, (buffer dtype, shared))

    def closed(slots: Any) -> set[int]:  # slots and the arrays they are views of
        out = set(slots)
        out.update(base[k] for k in slots if k in base)
        return out

    for pos, ins in enumerate(kept):
        outs = set(_program._outs(ins.out))
        if ins.kind == "host":
            if not _plain_call(ins.fn):
                return None
            reads.append(set())
            writes.append(set())
            defs.append(set())
            continue
        entries = _live_entries(ins)
        if entries is None:
            return None
        for e in entries:
            how = _buffer_dtype(ins, e, xp)
            if e.reads is None or how is None:
                return None
            uses.append((pos, e, how))
        written = closed(written_by(ins) | outs) if not ins.pure else set()
        read = closed(ins.reads)
        if HIDDEN in written:
            read.add(HIDDEN)  # effects on unnamed state keep their order among themselves
        reads.append(read)
        writes.append(written)
        defs.append(written | outs)

    dependent: set[int] = set()  # ids of the entries that read what an earlier write wrote
    prefix: set[int] = set()
    ui = 0
    for pos in range(n):
        while ui < len(uses) and uses[ui][0] == pos:
            e = uses[ui][1]
            if closed(e.reads) & prefix:
                dependent.add(id(e))
            ui += 1
        prefix |= writes[pos]

    segment_a: set[int] = set()
    if dependent:
        seg = _segment_a(kept, uses, dependent, reads, writes, defs, needed, rec, closed)
        if seg is None:
            return None
        segment_a = seg
    written_a: set[int] = set()
    for pos in segment_a:
        written_a |= writes[pos]

    result = Plan()
    for w in writes:
        result.written |= w
    keys: dict[tuple[Any, ...], int] = {}
    phase = epoch = 0
    ui = 0
    for pos, ins in enumerate(kept):
        if ins.kind == "host":
            result.phases[phase].append(("host", ins.fn, None))
            epoch += 1  # a getter after it may see other Python state
            continue
        while ui < len(uses) and uses[ui][0] == pos:
            _, e, (dtype, shared) = uses[ui]
            ui += 1
            if id(e) in dependent:
                if pos in segment_a:
                    return None
                phase = 1
            elif phase == 1 and (pos in segment_a or closed(e.reads) & written_a):
                return None  # it must be read before A, but program order puts it after
            key = (phase, epoch, id(e.getter) if shared else id(e), dtype)
            k = keys.get(key)
            if k is None:
                k = keys[key] = len(result.buffers)
                result.buffers.append((phase, dtype))
                result.phases[phase].append(("get", e.getter, k))
            result.slot_of[id(e)] = k
    if segment_a:
        result.segments.append([kept[p] for p in sorted(segment_a)])
        result.segments.append([kept[p] for p in range(n) if p not in segment_a
                                and kept[p].kind != "host"])
    else:
        result.segments.append([ins for ins in kept if ins.kind != "host"])
    return result


def _segment_a(kept: list[Instr], uses: list[tuple[int, Live, Any]], dependent: set[int],
               reads: list[set[int]], writes: list[set[int]], defs: list[set[int]],
               needed: set[int], rec: Recording, closed: Any) -> set[int] | None:
    """The positions of segment A (see the module), or None when it cannot be split off."""
    n = len(kept)
    read_dep: set[int] = set()
    first_use: dict[int, int] = {}  # slot -> first position of a dependent use reading it
    for pos, e, _ in uses:
        if id(e) in dependent:
            for k in closed(e.reads):
                read_dep.add(k)
                first_use.setdefault(k, pos)
    seg = {p for p in range(n) if writes[p] & read_dep}
    for p in seg:
        if any(p >= first_use[k] for k in writes[p] & read_dep):
            return None  # a write after a dependent use: no single point to read it at
    todo = list(seg)
    while todo:  # with every earlier instruction that makes or writes what they touch
        j = todo.pop()
        touched = reads[j] | writes[j]
        for i in range(j):
            if i not in seg and defs[i] & touched:
                seg.add(i)
                todo.append(i)
    for j in seg:  # moving A ahead must change nothing the instructions it passes see
        for i in range(j):
            if i not in seg and (writes[j] & (reads[i] | defs[i]) or defs[i] & (reads[j] | writes[j])):
                return None
    fresh: set[int] = set()
    for p in seg:
        fresh.update(k for k in _program._outs(kept[p].out) if k >= rec.ninputs)
    if fresh & needed or any(fresh & reads[p] for p in range(n) if p not in seg):
        return None  # B would read an array A's graph made (a fresh one at each capture)
    return seg


def written_by(ins: Instr) -> set[int]:
    """The slots an effectful instruction may write: the target of an in-place operator,
    ``__setitem__`` or method (``a += b`` writes ``a`` only); for anything else (an
    ``out=``, a random draw, a plugin's kernel) every slot it reads and ``HIDDEN``."""
    kind = ins.kind
    target = ins.args[0] if ins.args else None
    if target.__class__ is Slot and (kind in ("setitem", "method") or (
            kind.endswith("=") and kind not in ("==", "!=", "<=", ">="))) and not ins.kwargs:
        if not any(a.__class__ is Slot for a in ins.args[1:]) or kind != "method":
            return {target.k}
    return set(ins.reads) | {HIDDEN}


def _live_entries(ins: Instr) -> list[Live] | None:
    """The live scalars among ``ins``'s arguments (None: one sits inside a container)."""
    found: list[Live] = []
    for v in tuple(ins.args) + tuple(ins.kwargs.values()):
        if v.__class__ is Live:
            found.append(v)
        elif has_live(v):
            return None
    return found


def has_live(t: Any) -> bool:
    """Whether a live scalar sits in ``t`` (an argument template, containers and slices
    searched)."""
    cls = t.__class__
    if cls is Live:
        return True
    if cls in (tuple, list):
        return any(has_live(v) for v in t)
    if cls is dict:
        return any(has_live(v) for v in t.values())
    if cls is slice:
        return any(has_live(v) for v in (t.start, t.stop, t.step))
    return False


def _buffer_dtype(ins: Instr, e: Live, xp: Any) -> tuple[Any, bool] | None:
    """``(dtype, shared)``: the dtype eager casts ``e`` to in ``ins`` (see the module) and
    whether uses of the same getter may share the buffer; None: not decidable."""
    if ins.kind in _OPERATORS:
        if len(ins.args) != 2 or ins.kwargs:
            return None
        other = ins.args[1] if ins.args[0] is e else ins.args[0]
        if other.__class__ is not Slot or e.meets is None or len(e.meets) != 1:
            return None
        dtype, shared = e.meets[0], True
    elif ins.kind == "call" and set(ins.kwargs) == {"dtype"}:
        # a 0-d or filled array of an explicit dtype made from the scalar (Adamax's, RAdam's
        # ``asarray``, Rprop's ``full_like``): the scalar is cast to that dtype
        dtype = ins.kwargs["dtype"]
        if ins.fn is getattr(xp, "full", None) and len(ins.args) == 2 and ins.args[1] is e:
            shared = True
        elif ins.fn is getattr(xp, "asarray", None) and len(ins.args) == 1:
            shared = False  # the result may be the buffer itself: nobody else reads it
        else:
            return None
    else:
        return None
    try:
        floating = xp.isdtype(dtype, "real floating")
    except Exception:  # noqa: BLE001 - a dtype the namespace does not classify
        return None
    return (dtype, shared) if floating else None


def _plain_call(fn: Any) -> bool:
    """Whether a host call's arguments are plain values (its effect reads no array)."""
    if fn.__class__ is not functools.partial:
        return False
    values = tuple(fn.args) + tuple((fn.keywords or {}).values())
    return all(v.__class__ in _PLAIN for v in values)
