"""Which known functions a recorded forward called, and which instructions each one made.

The recording writes down array calls; a function such as ``nn.functional.conv2d`` shows
there as the dozens of array calls its portable forward makes. While the forward runs,
Python's profiling hook (``sys.setprofile``, for this one call only, chained to a hook
already set) notes each call of a function the exporter has a whole-op translation for:
its arguments when it starts, its result when it returns, and the span of instructions
recorded in between: a *region*. The translator writes a region as that ONNX operator
(``Conv``) when the region is closed (it reads only its arguments, and nothing after it
reads what it made but its result), and its instructions one by one otherwise.

A hook sees every call, however the function was reached (``F.conv2d``, a layer's
``staticmethod``, a reference kept at construction), and nothing is instrumented outside
an export. A profile function already set keeps its events (it is called first); a C
profiler (``cProfile``), which Python cannot chain to, is paused for the recording.
"""

from __future__ import annotations

import sys
from typing import Any, Callable

from arraygrad.compiler.recording import SLOTS, Recording
from arraygrad.compiler.traced import TracedArray
from arraygrad.tensor import Tensor

__all__ = ["Region", "CallObserver", "described"]


class Region:
    """One call of a known function: its ``name``, the instructions ``[start, end)`` it
    recorded, its arguments by parameter name and its result, tensors as ``Slot``s (or their
    arrays when the recording does not follow them: constants)."""

    __slots__ = ("name", "start", "end", "args", "result", "children")

    def __init__(self, name: str, start: int, args: dict[str, Any]) -> None:
        self.name = name
        self.start = start
        self.end = start
        self.args = args
        self.result: Any = None
        self.children: list[Region] = []

    def __repr__(self) -> str:
        return f"Region({self.name}, [{self.start}, {self.end}))"


def described(value: Any, rec: Recording, depth: int = 0) -> Any:
    """``value`` with each tensor as its slot in ``rec`` (a ``Slot``) or, when ``rec`` does
    not follow it, its array; containers item by item."""
    if isinstance(value, Tensor):
        data = value._data
        if data.__class__ is TracedArray:
            return SLOTS[data._s] if data._r is rec else data._a
        return data
    cls = value.__class__
    if (cls is tuple or cls is list) and depth < 3:
        return cls(described(v, rec, depth + 1) for v in value)
    if cls is dict and depth < 3:
        return {k: described(v, rec, depth + 1) for k, v in value.items()}
    return value


class CallObserver:
    """Within the block, calls of the functions ``codes`` describes (code object ->
    ``(free variable names, their values, name)`` per function) are noted as ``Region``s of ``rec`` (``roots``: the outermost ones, each with its
    nested ``children``), in the thread that entered it (``sys.setprofile`` is per
    thread)."""

    def __init__(self, rec: Recording, codes: dict[Any, list[Any]]) -> None:
        self.rec = rec
        self.codes = codes
        self.roots: list[Region] = []
        self._open: list[tuple[Any, Region]] = []
        self._before: Callable[..., Any] | None = None
        self._paused: Any = None

    def __enter__(self) -> "CallObserver":
        before = sys.getprofile()
        self._paused = None
        if before is not None and not callable(before) and hasattr(before, "disable"):
            # a C profiler (cProfile): it cannot be chained from Python; paused meanwhile
            self._paused = before
            before.disable()
            before = None
        self._before = before
        sys.setprofile(self._hook)
        return self

    def __exit__(self, *exc: Any) -> None:
        sys.setprofile(self._before)
        if self._paused is not None:
            self._paused.enable()

    def _hook(self, frame: Any, event: str, arg: Any) -> None:
        before = self._before
        if before is not None:
            before(frame, event, arg)  # a Python profile function keeps its events
        if event == "call":
            candidates = self.codes.get(frame.f_code)
            name = None if candidates is None else _which(candidates, frame)
            if name is not None:
                args = described(dict(frame.f_locals), self.rec)
                self._open.append((frame, Region(name, len(self.rec.instrs), args)))
        elif event == "return" and self._open and self._open[-1][0] is frame:
            region = self._open.pop()[1]
            region.end = len(self.rec.instrs)
            region.result = described(arg, self.rec)
            (self._open[-1][1].children if self._open else self.roots).append(region)


def _which(candidates: list[Any], frame: Any) -> str | None:
    """The name of the function among ``candidates`` (sharing the frame's code) that is
    running: the one whose closure the frame sees."""
    for names, values, name in candidates:
        if not names:
            return str(name)
        seen = frame.f_locals
        if all(seen.get(n) is v for n, v in zip(names, values)):
            return str(name)
    return None
