"""Replaying a program through a backend's capture capability (a CUDA graph on CuPy).

``Backend.capture(replay)`` wants a ``replay`` that makes only backend calls, on arrays
that are the same objects at every call, and touches no Python state (a capture may run
its Python without its device work). So a capturable program is split in two:

- the *device* function: the instructions, reading fixed input arrays and returning the
  arrays the bindings and the result need;
- the *host* function: the bindings (``.grad`` set or cleared, version counters) and the
  result, from the device function's arrays.

Inputs from the call's arguments are fresh arrays each call: they are copied into
buffers the capture owns. The state's arrays (parameters, optimizer state, gradients
kept by ``zero_grad(set_to_none=False)``) must be the very arrays of the capturing call;
when one is not (a tensor given a new array between calls), the capture is dropped and the
plain replay runs from then on.

A program is captured only when nothing in it reads the host: no value guards, no live
scalars (a getter may read state the program updates before the point it is used), no
host calls, and no state array rebound by the program itself.
"""

from __future__ import annotations

from typing import Any, Callable

from arraygrad.compiler import program as _program
from arraygrad.compiler.traced import Live, Recording

__all__ = ["capturable", "CapturedProgram"]


def capturable(rec: Recording, b: _program.Bindings) -> bool:
    """Whether ``rec``'s program can run as a captured device function (see the module)."""
    if rec.guards or b.data:
        return False
    for ins in rec.instrs:
        if ins.kind == "host" or _has_live(ins.args) or _has_live(tuple(ins.kwargs.values())):
            return False
    return True


def _has_live(t: Any) -> bool:
    for v in t:
        cls = v.__class__
        if cls is Live:
            return True
        if cls in (tuple, list) and _has_live(v):
            return True
        if cls is dict and _has_live(tuple(v.values())):
            return True
    return False


class CapturedProgram:
    """``replay(T)`` for a capturable program: the first call hands the device function to
    ``capture``; later calls copy the arguments' arrays into its buffers, launch, and run
    the host function. Falls back to ``plain`` (the ordinary replay) when the backend
    captures nothing or the state's arrays changed."""

    def __init__(self, device: Callable[[list[Any]], Any], host: Callable[[list[Any], Any], Any],
                 plain: Callable[[list[Any]], Any], inputs: list[tuple[int, int]], nargs: int,
                 capture: Callable[[Callable[[], Any]], Any], xp: Any) -> None:
        self._device = device
        self._host = host
        self._plain = plain
        self._inputs = inputs  # (tensor index, slot): each distinct input slot once
        self._nargs = nargs
        self._capture = capture
        self._xp = xp
        self._launch: Callable[[], Any] | None = None
        self._bound: list[Any] = []
        self._state: list[tuple[int, Any]] = []  # (tensor index, the array the graph reads)
        self._copies: list[tuple[int, Any]] = []  # (tensor index, the capture's own buffer)
        self.off = False  # plain replays from now on

    def __call__(self, T: list[Any]) -> Any:
        if self.off:
            return self._plain(T)
        launch = self._launch
        if launch is None:
            return self._first(T)
        for i, array in self._state:
            if T[i]._data is not array:
                self.off = True  # the graph would write arrays nobody holds any more
                return self._plain(T)
        for i, buffer in self._copies:
            buffer[...] = T[i]._data
        return self._host(T, launch())

    def _first(self, T: list[Any]) -> Any:
        bound: list[Any] = []
        for i, _k in self._inputs:
            array = T[i]._data
            if i < self._nargs:  # a fresh argument each call: the capture's own copy
                array = self._xp.asarray(array, copy=True)
                self._copies.append((i, array))
            else:
                self._state.append((i, array))
            bound.append(array)
        self._bound = bound
        device = self._device
        launch = self._capture(lambda: device(bound))
        if launch is None:
            self.off = True
            return self._plain(T)
        self._launch = launch
        return self._host(T, launch())


def build_captured(rec: Recording, b: _program.Bindings, wrap: Callable[[Any, Any], Any],
                   backend: Any, plain: Callable[[list[Any]], Any], nargs: int,
                   capture: Callable[[Callable[[], Any]], Any]) -> CapturedProgram:
    """The device and host functions of a capturable program (see the module)."""
    src = _program._Source()
    needed = _program.needed_slots(b)
    body = src.lines
    inputs: list[tuple[int, int]] = []
    seen: set[int] = set()
    for i, k in b.inputs:
        if k not in seen:
            seen.add(k)
            body.append(f"s{k} = IN[{len(inputs)}]")
            inputs.append((i, k))
    for ins in _program.live_instructions(rec, needed):
        line = _program._statement(src, ins)
        if line:
            body.append(line)
    outs = sorted(needed)
    body.append("return (" + "".join(f"s{k}, " for k in outs) + ")")
    device = _program.define("device", "IN", body, src.consts)

    hsrc = _program._Source()
    hbody = hsrc.lines
    if outs:
        hbody.append("(" + "".join(f"s{k}, " for k in outs) + ") = O")
    _program.bindings_lines(hsrc, b)
    host = _program.define("host", "T, O", hbody, dict(hsrc.consts, W=wrap, B=backend))
    return CapturedProgram(device, host, plain, inputs, nargs, capture, backend.xp)
