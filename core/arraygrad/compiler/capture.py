"""Replaying a program through a backend's capture capability (a CUDA graph on CuPy).

``Backend.capture(replay)`` wants a ``replay`` that makes only backend calls, on arrays
that are the same objects at every call, and touches no Python state (a capture may run
its Python without its device work). So a captured program is split up:

- the *device* functions (one, or two segments: ``capture_plan``): the instructions,
  reading fixed arrays and returning the arrays the bindings and the result need;
- the *host* work: value guards checked first (they read the inputs only); live scalars'
  getters evaluated and LR schedulers' host calls made, in program order, before the
  launch of the segment that needs them, their values written into 0-d buffers the
  device functions read (``capture_plan`` says which dtype makes them eager's operands);
  after the last launch the bindings (``.grad`` set or cleared, version counters) and the
  result, from the device function's arrays.

Inputs from the call's arguments are fresh arrays each call: they are copied into
buffers the capture owns. The state's arrays (parameters, optimizer state, gradients
kept by ``zero_grad(set_to_none=False)``) must be the very arrays of the capturing call;
when one is not (a tensor given a new array between calls), the capture is dropped and the
plain replay runs from then on. A program that rebinds a state array itself, or that
``capture_plan`` cannot plan, is not captured.
"""

from __future__ import annotations

from typing import Any, Callable

from arraygrad.compiler import capture_plan as _plan, program as _program
from arraygrad.compiler.traced import Live, Recording

__all__ = ["may_capture", "build_captured", "CapturedProgram"]


def may_capture(backend: Any) -> bool:
    """Whether ``backend`` has a capture capability of its own (it overrides
    ``Backend.capture``): its recordings note what a captured replay needs."""
    from arraygrad.backends.contract import Backend

    method = getattr(type(backend), "capture", None)
    return method is not None and method is not Backend.capture


class CapturedProgram:
    """``replay(T)`` for a captured program: the first call hands the device functions to
    ``capture``; every call checks the guards, copies the arguments' arrays into its
    buffers, and for each segment runs its host phase (getters into buffers, host calls)
    and launches it; then the host function binds the results. Falls back to ``plain``
    (the ordinary replay) when the backend captures nothing or the state's arrays
    changed."""

    def __init__(self, devices: list[Callable[[list[Any]], Any]],
                 host: Callable[[list[Any], Any], Any], plain: Callable[[list[Any]], Any],
                 inputs: list[tuple[int, int]], nargs: int,
                 capture: Callable[[Callable[[], Any]], Any], xp: Any,
                 guard: Callable[[list[Any]], bool] | None = None,
                 phases: list[Callable[[list[Any]], None] | None] | None = None,
                 buffers: list[Any] | None = None) -> None:
        self._devices = devices
        self._host = host
        self._plain = plain
        self._inputs = inputs  # (tensor index, slot): each distinct input slot once
        self._nargs = nargs
        self._capture = capture
        self._xp = xp
        self._guard = guard
        self._phases = phases if phases is not None else [None] * len(devices)
        self._buffers = buffers or []  # the live scalars' 0-d buffers, after the inputs
        self._launches: list[Callable[[], Any]] | None = None
        self._state: list[tuple[int, Any]] = []  # (tensor index, the array the graph reads)
        self._copies: list[tuple[int, Any]] = []  # (tensor index, the capture's own buffer)
        self.off = False  # plain replays from now on

    @property
    def launches(self) -> list[Callable[[], Any]] | None:
        """The launch callables of the segments, once captured (None before)."""
        return self._launches

    def __call__(self, T: list[Any]) -> Any:
        if self.off:
            return self._plain(T)
        launches = self._launches
        if launches is None:
            return self._first(T)
        for i, array in self._state:
            if T[i]._data is not array:
                self.off = True  # the graph would write arrays nobody holds any more
                return self._plain(T)
        guard = self._guard
        if guard is not None and not guard(T):
            return _program.MISS  # nothing written yet
        for i, buffer in self._copies:
            buffer[...] = T[i]._data
        return self._run(T, launches)

    def _run(self, T: list[Any], launches: list[Callable[[], Any]]) -> Any:
        out = None
        for phase, launch in zip(self._phases, launches):
            if phase is not None:
                phase(T)  # getters and host calls, in program order, into the buffers
            out = launch()
        return self._host(T, out)

    def _first(self, T: list[Any]) -> Any:
        guard = self._guard
        if guard is not None and not guard(T):
            return _program.MISS
        bound: list[Any] = []
        for i, _k in self._inputs:
            array = T[i]._data
            if i < self._nargs:  # a fresh argument each call: the capture's own copy
                array = self._xp.asarray(array, copy=True)
                self._copies.append((i, array))
            else:
                self._state.append((i, array))
            bound.append(array)
        bound.extend(self._buffers)
        launches = []
        for device in self._devices:
            launch = self._capture(_bound(device, bound))
            if launch is None:
                self.off = True
                return self._plain(T)
            launches.append(launch)
        self._launches = launches
        return self._run(T, launches)


def _bound(device: Callable[[list[Any]], Any], bound: list[Any]) -> Callable[[], Any]:
    """``device`` over the fixed arrays ``bound``, as ``Backend.capture`` wants it."""
    return lambda: device(bound)


class _BufferSource(_program._Source):
    """Source text where a live scalar is its buffer (``b<n>``), not a getter call."""

    def __init__(self, slot_of: dict[int, int]) -> None:
        super().__init__()
        self._slot_of = slot_of

    def arg(self, t: Any) -> str:
        if t.__class__ is Live:
            return f"b{self._slot_of[id(t)]}"
        return super().arg(t)


def build_captured(rec: Recording, b: _program.Bindings, wrap: Callable[[Any, Any], Any],
                   backend: Any, plain: Callable[[list[Any]], Any], nargs: int,
                   capture: Callable[[Callable[[], Any]], Any]) -> CapturedProgram | None:
    """The captured form of ``rec``'s program (see the module), or None when it cannot be
    captured."""
    if b.data:
        return None  # the program rebinds a state array: a graph writes fixed ones
    needed = _program.needed_slots(b)
    kept = _program.live_instructions(rec, needed)
    plan = _plan.plan(rec, kept, needed, backend.xp)
    if plan is None:
        return None
    used = set(needed)  # the inputs the device functions read (only those must stay put)
    for segment in plan.segments:
        for ins in segment:
            used.update(ins.reads)
    inputs: list[tuple[int, int]] = []
    seen: set[int] = set()
    for i, k in b.inputs:
        if i < nargs and k in plan.written:
            return None  # the graph would write the capture's copy, not the caller's tensor
        if k in used and k not in seen:
            seen.add(k)
            inputs.append((i, k))
    outs = sorted(needed)
    devices = []
    for n, segment in enumerate(plan.segments):
        last = n == len(plan.segments) - 1
        devices.append(_device(segment, inputs, plan, outs if last else []))
    buffers, phases = _buffers(plan, backend)

    hsrc = _program._Source()
    hbody = hsrc.lines
    if outs:
        hbody.append("(" + "".join(f"s{k}, " for k in outs) + ") = O")
    _program.bindings_lines(hsrc, b)
    host = _program.define("host", "T, O", hbody, dict(hsrc.consts, W=wrap, B=backend))
    return CapturedProgram(devices, host, plain, inputs, nargs, capture, backend.xp,
                           _guards(rec, b), phases, buffers)


def _device(segment: list[Any], inputs: list[tuple[int, int]], plan: _plan.Plan,
            outs: list[int]) -> Callable[[list[Any]], Any]:
    """A device function: ``IN`` holds the inputs, then the buffers."""
    src = _BufferSource(plan.slot_of)
    body = src.lines
    for n, (_i, k) in enumerate(inputs):
        body.append(f"s{k} = IN[{n}]")
    for n in range(len(plan.buffers)):
        body.append(f"b{n} = IN[{len(inputs) + n}]")
    for ins in segment:
        line = _program._statement(src, ins)
        if line:
            body.append(line)
    body.append("return (" + "".join(f"s{k}, " for k in outs) + ")")
    return _program.define("device", "IN", body, src.consts)


def _buffers(plan: _plan.Plan, backend: Any) -> tuple[list[Any], list[Any]]:
    """The 0-d buffers (views into one vector per phase and dtype, so each phase writes
    each dtype's values with one copy) and each phase's host function."""
    groups: dict[tuple[int, Any], list[int]] = {}
    for n, (phase, dtype) in enumerate(plan.buffers):
        groups.setdefault((phase, dtype), []).append(n)
    views: list[Any] = [None] * len(plan.buffers)
    vectors: dict[tuple[int, Any], Any] = {}
    for key, members in groups.items():
        vector = backend.from_host([0] * len(members), dtype=key[1])
        vectors[key] = vector
        for j, n in enumerate(members):
            views[n] = vector[j, ...]
    phases: list[Any] = []
    for p in range(len(plan.segments)):
        items = plan.phases[p]
        if not items:
            phases.append(None)
            continue
        src = _program._Source()
        body = src.lines
        for kind, fn, k in items:
            if kind == "host":
                body.append(f"{src.const(fn, 'H')}()")
            else:
                body.append(f"v{k} = {src.const(fn, 'L')}()")
        for key, members in groups.items():
            if key[0] == p:
                values = ", ".join(f"v{n}" for n in members)
                body.append(f"{src.const(vectors[key], 'V')}[...] = "
                            f"FH([{values}], dtype={src.const(key[1], 'D')})")
        phases.append(_program.define(f"phase{p}", "T", body, dict(src.consts,
                                                                      FH=backend.from_host)))
    return views, phases


def _guards(rec: Recording, b: _program.Bindings) -> Callable[[list[Any]], bool] | None:
    """The value guards as ``guards(T) -> bool``, computed from the call's own arrays
    before anything is written (None when there are none)."""
    if not rec.guards:
        return None
    src = _program._Source()
    hoisted = [rec.instrs[i] for i in sorted(rec.hoisted)]
    wanted: set[int] = {k for k, _fn, _value in rec.guards}
    for ins in hoisted:
        wanted.update(ins.reads)
    seen: set[int] = set()
    for i, k in b.inputs:
        if k in wanted and k not in seen:
            seen.add(k)
            src.lines.append(f"s{k} = T[{i}]._data")
    _program.guard_lines(src, rec, "False")
    src.lines.append("return True")
    return _program.define("guards", "T", src.lines, src.consts)
