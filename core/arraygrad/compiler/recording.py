"""The program being recorded: its instructions, their argument templates, and the
recording in progress.

An ``Instr`` is one backend call: the callable, its arguments as a template (``Slot`` for
an array of the program, ``Live`` for a live scalar read again at replay, plain constants
otherwise) and the slot(s) of its result. A ``Recording`` holds them, with what value guards
and data-dependent shapes need to know: which instruction made each slot, which slots were
written, which are inputs.
"""

from __future__ import annotations

import operator
from typing import Any, Callable

from arraygrad.compiler import scalars as _scalars
from arraygrad.compiler.scalars import recording_flag

__all__ = ["Recording", "Instr", "instr", "Slot", "Live", "GraphBreak", "Unsupported", "current",
           "graph_break", "is_live", "slots_of"]


class Unsupported(RuntimeError):
    """Raised by a ``fullgraph=True`` compiled function where a graph break would happen
    (``torch._dynamo.exc.Unsupported``'s counterpart)."""


class GraphBreak(Exception):
    """Internal: unwinds a recording that must stop (never reaches the user)."""


class Slot(tuple[Any, ...]):
    """Template entry: the array in slot ``k`` of the program, made as ``Slot((k,))`` (a
    tuple: made without running Python code, one per slot of a recording)."""

    __slots__ = ()

    k = property(operator.itemgetter(0), doc="The slot number.")

    def __eq__(self, other: object) -> bool:
        return other.__class__ is Slot and other[0] == self[0]

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return self[0]


class _Slots(dict[int, Slot]):
    """Slot number -> its template entry, each made once per process at its first use (a
    ``Slot`` is immutable, so every recording shares them: a new slot makes nothing)."""

    def __missing__(self, k: int) -> Slot:
        entry = self[k] = Slot((k,))
        return entry


SLOTS = _Slots()


class Live:
    """Template entry: a live scalar, evaluated again (``getter()``) at replay.

    ``pre``: the getter gives, before the replay writes anything, the value the recording
    read (it is then evaluated once, in the replay's prologue). Filled only when the backend
    may capture (``Recording.hints``), for ``compiler.capture_plan``: ``reads``, the slots the getter read (None: unknown);
    ``meets``, the dtypes of the arrays of the call the scalar is an operand of.
    """

    __slots__ = ("getter", "pre", "reads", "meets")

    def __init__(self, getter: Callable[[], Any], pre: bool = False) -> None:
        self.getter = getter
        self.pre = pre  # evaluated once at the start of a replay (``scalars.LiveScalar.pre``)
        self.reads: frozenset[int] | None = None
        self.meets: tuple[Any, ...] | None = None


class Instr(tuple[Any, ...]):
    """One recorded call: ``out = fn(*args, **kwargs)``, made as
    ``Instr((fn, args, kwargs, out, pure, kind, coerce, reads))`` (a tuple: the recorder makes
    one per op, and a tuple is made without running Python code; ``instr`` fills the usual
    defaults).

    ``out``: a slot number, a tuple of slot numbers (a tuple result), or None (nothing
    kept). ``pure``: dropping it changes nothing when its result is unused. ``kind``:
    how codegen writes it (``"call"``, an infix operator symbol, ``"getitem"``,
    ``"method"`` with ``fn`` the method name, ``"attr"``). ``coerce``: the result was a
    backend scalar that eager would coerce to an array. ``reads``: the slots the templates
    name.
    """

    __slots__ = ()

    fn = property(operator.itemgetter(0), doc="The callable (a method's or attribute's name).")
    args = property(operator.itemgetter(1), doc="The positional arguments' template.")
    kwargs = property(operator.itemgetter(2), doc="The keyword arguments' template.")
    out = property(operator.itemgetter(3), doc="The result's slot(s), or None.")
    pure = property(operator.itemgetter(4), doc="Whether it has no effect but its result.")
    kind = property(operator.itemgetter(5), doc="How codegen writes it.")
    coerce = property(operator.itemgetter(6), doc="The backend's coerce for a scalar result.")
    reads = property(operator.itemgetter(7), doc="The slots it reads.")


def instr(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any, pure: bool,
          kind: str = "call", coerce: Any = None) -> Instr:
    """An ``Instr`` whose ``reads`` are found in its templates."""
    found: set[int] = set()
    slots_of(args, found)
    slots_of(kwargs, found)
    return Instr((fn, args, kwargs, out, pure, kind, coerce, tuple(found)))


class Recording:
    """The program being recorded: instructions, slot count, and why it stopped (if it did).

    ``backend``: the real backend (its ``array_type`` says what counts as an array and its
    ``coerce`` turns backend scalars into arrays). ``on_break``: called with the reason
    at a graph break (the compiled function decides: warn and go eager, or raise).
    """

    def __init__(self, backend: Any, on_break: Callable[[str], None]) -> None:
        self.backend = backend
        self.array_type = backend.array_type  # (read once per recorded op)
        self.instrs: list[Instr] = []
        self.nslots = 0
        self.templates = SLOTS  # slot k's template entry (shared by every recording)
        self.on_break = on_break
        self._broken: str | None = None
        # ``written`` and ``producer`` are derived from ``instrs`` when read (``_derive``), not
        # kept up to date by the recorder: most recordings never read them before binding
        self._written: set[int] = set()
        self._producer: dict[int, int] = {}
        self._derived = 0  # instructions ``_derive`` has seen
        self.base: dict[int, int] = {}  # a view's slot -> the slot it views
        self.ninputs = 0  # slots below this are the state read at the start
        # value guards: (slot, read function, value) of reads into Python whose value depends
        # on the inputs only; a replay checks them first and, on a mismatch, changes nothing
        self.guards: list[tuple[int, Callable[[Any], Any], Any]] = []
        self.hoisted: set[int] = set()  # instruction indexes the guards' checks compute
        self.wrap_backend: Callable[[Any], Any] = lambda b: b  # set by the session
        self.live = False  # a live scalar or a host call is in the program
        # what a captured replay needs to know of live scalars (``Live.reads``/``meets``):
        # None unless the backend may capture; else the Live entries of the call being made
        self.hints: list[Live] | None = None
        self.reading: set[int] | None = None  # while a getter is probed: the slots it reads
        # replay units' instructions (index -> their traced arguments' (shape, dtype)), which
        # code generation flattens (``compiler.unit_expand``)
        self.units: dict[int, tuple[Any, ...]] = {}
        # False: replay units are recorded op by op, as any function (the ONNX exporter reads
        # every array call)
        self.whole_units = True
        # the guards the step's Python reads left (``scalars.Guards.checks``: hyperparameters,
        # branches on live scalars): the program's guards besides its key
        self.group_reads: tuple[Any, ...] = ()
        self.pre_reads: tuple[Any, ...] = ()  # ``scalars.Guards.reads``

    @property
    def broken(self) -> str | None:
        """Why the recording stopped (a graph break's reason), or None while it goes on."""
        return self._broken

    @broken.setter
    def broken(self, reason: str | None) -> None:
        self._broken = reason
        if current.rec is self:
            _refresh()

    @property
    def written(self) -> set[int]:
        """The slots an effectful instruction may write: every slot it reads (its target, an
        ``out=``) and their views' bases (conservative: value guards never hoist reads of
        them, and only guards lose)."""
        self._derive()
        return self._written

    @property
    def producer(self) -> dict[int, int]:
        """Slot -> index of the instruction that made it (in-place results excluded)."""
        self._derive()
        return self._producer

    def reset_derived(self) -> None:
        """Forget ``written`` and ``producer`` (the instructions were rewritten)."""
        self._written = set()
        self._producer = {}
        self._derived = 0

    def _derive(self) -> None:
        """Bring ``written`` and ``producer`` up to date with the instructions recorded since
        the last call (one pass; a recorded op only appends its instruction)."""
        instrs = self.instrs
        n = len(instrs)
        if self._derived >= n:
            return
        producer, written, base = self._producer, self._written, self.base
        for i in range(self._derived, n):
            ins = instrs[i]
            out, reads = ins[3], ins[7]
            if out.__class__ is int:
                if out not in reads:  # a new array (not an in-place result)
                    producer[out] = i
            elif out.__class__ is tuple:
                for o in out:
                    producer[o] = i
            if not ins[4]:
                written.update(reads)
                if base:
                    for k in reads:
                        b = base.get(k)
                        if b is not None:
                            written.add(b)
        self._derived = n

    def guard(self, k: int, fn: Callable[[Any], Any], value: Any) -> bool:
        """Make the read ``fn(slot k) == value`` a value guard, if slot ``k`` is a pure
        function of inputs nothing has written yet (else False: a graph break)."""
        self._derive()
        written, producer, instrs = self._written, self._producer, self.instrs
        ninputs = self.ninputs
        cone: set[int] = set()
        todo = [k]
        while todo:
            s = todo.pop()
            if s in written:
                return False
            i = producer.get(s)
            if i is None:
                if s >= ninputs:
                    return False
                continue
            if i in cone:
                continue
            ins = instrs[i]
            if not ins[4] or ins[5] == "host":  # (``pure``, ``kind``)
                return False
            cone.add(i)
            todo.extend(ins[7])  # (``reads``: the slots its templates name)
        self.hoisted |= cone
        self.guards.append((k, fn, value))
        return True

    def constant(self, slots: set[int]) -> bool:
        """Whether the arrays in ``slots`` are computed by pure instructions from no input at
        all (functions of shapes and constants: the same at every replay, so a
        data-dependent shape of them is no break)."""
        seen: set[int] = set()
        todo = list(slots)
        while todo:
            s = todo.pop()
            if s in seen:
                continue
            seen.add(s)
            if s < self.ninputs or s in self.written:
                return False
            i = self.producer.get(s)
            if i is None:
                return False
            ins = self.instrs[i]
            if not ins.pure or ins.kind == "host":
                return False
            todo.extend(ins.reads)
        return True

    def new_slot(self) -> int:
        """A fresh slot number."""
        k = self.nslots
        self.nslots = k + 1
        return k


class _Current:
    """The recording in progress (one at a time), or None: ``rec``. ``live``: ``rec`` while
    it is not broken, else None, kept up to date as ``rec`` and its ``broken`` are written
    (a recorded op tests ``current.live is rec and recording_flag.on``: the flag, toggled
    around each live scalar's getter, is read, not watched)."""

    __slots__ = ("rec", "live")

    rec: Recording | None
    live: Recording | None

    def __init__(self) -> None:
        object.__setattr__(self, "live", None)
        object.__setattr__(self, "rec", None)

    def __setattr__(self, name: str, value: Any) -> None:
        if name != "rec":
            raise AttributeError(f"`current.{name}` is derived, not set")
        object.__setattr__(self, "rec", value)
        _refresh()


def _refresh() -> None:
    """Bring ``current.live`` up to date (see ``_Current``)."""
    rec = current.rec
    object.__setattr__(current, "live", rec if rec is not None and rec._broken is None else None)


current = _Current()
_scalars.recording_live = lambda: current.live is not None  # (see ``scalars``)


def graph_break(reason: str) -> None:
    """Stop the recording in progress (see ``Recording.on_break``); no-op when none is."""
    rec = current.rec
    if rec is not None and is_live(rec):
        rec.on_break(reason)


def slots_of(t: Any, out: set[int]) -> None:
    """Add the slot numbers a template names to ``out``."""
    cls = t.__class__
    if cls is Slot:
        out.add(t.k)
    elif cls is tuple or cls is list:
        for v in t:
            slots_of(v, out)
    elif cls is dict:
        for v in t.values():
            slots_of(v, out)


def is_live(rec: Recording) -> bool:
    """Whether ``rec`` is recording now (not broken, not paused by a live scalar's getter)."""
    # after a graph break the session stays current (so every tensor keeps one backend)
    # but records nothing: the traced arrays are transparent
    return current.live is rec and recording_flag.on
