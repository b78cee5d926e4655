"""``arraygrad.autograd.profiler``: time spent per op, forward and backward.

While a ``profile`` is active, every Tensor method and operator, every op
function of the ``arraygrad`` namespace and every backward node the engine
runs is timed (nested calls give "self" and "total" times). Nothing is
instrumented outside a ``profile`` block, so normal runs pay nothing.

>>> with profile() as prof:
...     y = (x * 2).sum()
...     y.backward()
>>> print(prof.key_averages().table(sort_by="self_cpu_time_total"))

With ``use_cuda=True`` (or ``use_device="cuda:1"``) device work is timed too,
with the device backend's timing events (``Backend.device_event``: CuPy's
``cupy.cuda.Event``) recorded before and after each op and node, and read after
a final synchronize; the table then has PyTorch's ``Self CUDA``, ``Self CUDA %``,
``CUDA total`` and ``CUDA time avg`` columns. A backend without timing events
(or no usable device) gets a note line under the table instead.
"""

from __future__ import annotations

import functools
import json
import os
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Literal

if TYPE_CHECKING:
    from arraygrad.autograd.graph import Node

__all__ = ["profile", "record_function", "FunctionEvent", "FunctionEventAvg", "EventList"]

_active: "profile | None" = None
_local = threading.local()


class _CudaNames:
    """PyTorch's older ``cuda`` names of the device-time fields, for events and averages."""

    cuda_time_total = property(lambda self: self.device_time_total,
                               doc="PyTorch's older name of ``device_time_total``.")
    self_cuda_time_total = property(lambda self: self.self_device_time_total,
                                    doc="PyTorch's older name of ``self_device_time_total``.")


@dataclass
class FunctionEvent(_CudaNames):
    """One timed call: its name, start and end (microseconds from the profile's start)."""

    name: str
    start_us: float
    end_us: float = 0.0
    thread: int = 0
    kind: str = "cpu_op"
    input_shapes: list = field(default_factory=list)
    children_us: float = 0.0
    device_time_total: float = 0.0
    """Device time from the call's start to its end (µs), children included; 0 unmeasured."""
    children_device_us: float = 0.0
    # (start, end) device events while the profile runs; the enclosing call
    _marks: tuple | None = field(default=None, repr=False, compare=False)
    _parent: "FunctionEvent | None" = field(default=None, repr=False, compare=False)

    count: ClassVar[int] = 1

    @property
    def cpu_time_total(self) -> float:
        """Wall time of the call, children included (µs)."""
        return self.end_us - self.start_us

    @property
    def self_cpu_time_total(self) -> float:
        """Wall time of the call minus its timed children (µs)."""
        return self.cpu_time_total - self.children_us

    @property
    def self_device_time_total(self) -> float:
        """Device time of the call minus its timed children's (µs)."""
        return self.device_time_total - self.children_device_us

    cpu_time = property(lambda self: self.cpu_time_total, doc="``cpu_time_total`` (one call).")
    device_time = property(lambda self: self.device_time_total,
                           doc="``device_time_total`` (one call).")


@dataclass
class FunctionEventAvg(_CudaNames):
    """Events of one name (and shapes, if grouped so) added up."""

    key: str
    count: int = 0
    cpu_time_total: float = 0.0
    self_cpu_time_total: float = 0.0
    input_shapes: str = ""
    device_time_total: float = 0.0
    self_device_time_total: float = 0.0

    @property
    def cpu_time(self) -> float:
        """Average total time per call (µs)."""
        return self.cpu_time_total / self.count if self.count else 0.0

    @property
    def device_time(self) -> float:
        """Average device time per call (µs); 0 when device time was not measured."""
        return self.device_time_total / self.count if self.count else 0.0

    cuda_time = property(lambda self: self.device_time,
                         doc="PyTorch's older name of ``device_time``.")


def _format_time(us: float) -> str:
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


# sort_by names (PyTorch's, "cuda" meaning the device) -> attribute of a row
_SORT_KEYS = {
    "self_cpu_time_total": "self_cpu_time_total", "cpu_time_total": "cpu_time_total",
    "cpu_time": "cpu_time", "count": "count",
    "self_device_time_total": "self_device_time_total", "device_time_total": "device_time_total",
    "device_time": "device_time", "self_cuda_time_total": "self_device_time_total",
    "cuda_time_total": "device_time_total", "cuda_time": "device_time",
}


def _share(part: float, whole: float) -> str:
    return f"{100 * part / (whole or 1e-9):.2f}%"


class EventList(list):
    """A list of events or averages that can print itself as PyTorch's table.

    ``use_device``: the device type whose time was asked for (``"cuda"``), or None;
    ``device_note``: why it was not measured, or ``""`` when it was.
    """

    def __init__(self, events: Any = (), *, use_device: str | None = None,
                 device_note: str = "") -> None:
        super().__init__(events)
        self.use_device = use_device
        self.device_note = device_note

    @property
    def device_measured(self) -> bool:
        """Whether the rows carry device times (the table then has the device columns)."""
        return self.use_device is not None and not self.device_note

    def table(self, sort_by: str | None = None, row_limit: int = 100,
              max_name_column_width: int = 55,
              header: str | None = None, top_level_events_only: bool = False) -> str:
        """The events as a fixed-width table, optionally sorted (descending) by a column.

        PyTorch's columns: CPU times, then (device time measured) ``Self CUDA``, ``Self
        CUDA %``, ``CUDA total``, ``CUDA time avg``, then ``# of Calls``; the footer gives
        the self totals, or the note saying why device time was not measured.
        """
        rows = list(self)
        if sort_by is not None:
            if sort_by not in _SORT_KEYS:
                raise ValueError(f"table: unknown sort_by {sort_by!r}; one of {sorted(_SORT_KEYS)}")
            attr = _SORT_KEYS[sort_by]
            rows.sort(key=lambda r: getattr(r, attr), reverse=True)
        rows = rows[:row_limit] if row_limit and row_limit > 0 else rows
        total_self = sum(r.self_cpu_time_total for r in self)
        total_device = sum(r.self_device_time_total for r in self)
        dev = (self.use_device or "").split(":")[0].upper()
        names = [r.key if isinstance(r, FunctionEventAvg) else r.name for r in rows]
        width = min(max([len("Name")] + [len(n) for n in names]), max_name_column_width)
        cols = ["Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
        if self.device_measured:
            cols += [f"Self {dev}", f"Self {dev} %", f"{dev} total", f"{dev} time avg"]
        cols.append("# of Calls")
        widths = [max(12, len(c)) for c in cols]

        def line(first: Any, cells: Any) -> Any:
            return f"{first:>{width}}  " + "  ".join(f"{c:>{w}}" for c, w in zip(cells, widths)) + "  "

        sep = "-" * width + "  " + "  ".join("-" * w for w in widths) + "  "
        lines = [header] if header else []
        lines += [sep, line("Name", cols), sep]
        for r, name in zip(rows, names):
            count = getattr(r, "count", 1)
            if len(name) > width:
                name = name[:width - 3] + "..."
            cells = [_share(r.self_cpu_time_total, total_self), _format_time(r.self_cpu_time_total),
                     _share(r.cpu_time_total, total_self), _format_time(r.cpu_time_total),
                     _format_time(r.cpu_time_total / count if count else 0.0)]
            if self.device_measured:
                cells += [_format_time(r.self_device_time_total),
                          _share(r.self_device_time_total, total_device),
                          _format_time(r.device_time_total),
                          _format_time(r.device_time_total / count if count else 0.0)]
            lines.append(line(name, cells + [str(count)]))
        lines += [sep, f"Self CPU time total: {_format_time(total_self)}"]
        if self.device_measured:
            lines.append(f"Self {dev} time total: {_format_time(total_device)}")
        elif self.device_note:
            lines.append(self.device_note)
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        return self.table()


class profile:
    """Context manager recording the time of every op and backward node inside it.

    ``use_cuda=True`` (the ``"cuda"`` device) or ``use_device="cuda:1"`` also times
    device work: the device's backend records a timing event (``Backend.device_event``)
    before and after every op and node, and the profile synchronizes the device at its
    start and end, then reads the events. Without such events (or a usable device) the
    table says so in a note line.
    """

    def __init__(self, enabled: bool = True, *, use_cuda: bool = False, use_device: Any = None,
                 record_shapes: bool = False, with_flops: bool = False,
                 profile_memory: bool = False, with_stack: bool = False,
                 with_modules: bool = False, use_cpu: bool = True) -> None:
        self.enabled = enabled
        self.use_cuda = use_cuda or (use_device is not None and str(use_device).startswith("cuda"))
        self.use_device = str(use_device) if use_device is not None else ("cuda" if use_cuda else None)
        self.record_shapes = record_shapes
        self.function_events = EventList(use_device=self.use_device)
        self._lock = threading.Lock()
        self._patches: list = []
        self._t0 = 0.0
        self._device_backend: Any = None  # the backend of use_device, when usable
        self._timer: Any = None      # the same backend, when it has timing events

    # -- lifecycle -------------------------------------------------------------
    def __enter__(self) -> Any:
        global _active
        if not self.enabled:
            return self
        if _active is not None:
            raise RuntimeError("profiler: another profile is already active")
        self._setup_device_timing()
        self._synchronize()
        self._t0 = time.perf_counter()
        _active = self
        self._instrument()
        return self

    def __exit__(self, *exc: Any) -> Literal[False]:
        global _active
        if not self.enabled:
            return False
        self._synchronize()
        self._resolve_device_times()
        for owner, name, original in reversed(self._patches):
            setattr(owner, name, original)
        self._patches.clear()
        from arraygrad.autograd import engine

        engine.node_runner = None
        _active = None
        return False

    def _setup_device_timing(self) -> None:
        """Find ``use_device``'s backend and whether it can time device work (else a note)."""
        self._device_backend = self._timer = None
        if self.use_device is None:
            return
        label = self.use_device.split(":")[0].upper()
        from arraygrad.backends import backend_for_device

        try:
            backend = backend_for_device(self.use_device)
        except RuntimeError as exc:  # no usable backend for that device here
            self.function_events.device_note = f"{label} time not measured: {exc}"
            return
        self._device_backend = backend
        if backend.device_event() is None:
            self.function_events.device_note = (
                f"{label} time not measured: backend {backend.name!r} on {backend.device} has "
                "no device timing events (Backend.device_event)")
        else:
            self._timer = backend
            self.function_events.device_note = ""

    def _synchronize(self) -> None:
        if self._device_backend is not None:
            self._device_backend.synchronize()

    def _resolve_device_times(self) -> None:
        """Read every event pair (the device was just synchronized): totals, then selves."""
        if self._timer is None:
            return
        events = self.function_events
        for e in events:
            if e._marks is not None:
                start, end = e._marks
                e.device_time_total = start.elapsed_ms(end) * 1e3
        for e in events:
            if e._parent is not None:
                e._parent.children_device_us += e.device_time_total
        for e in events:
            e._marks = e._parent = None  # the CUDA events can go

    # -- recording --------------------------------------------------------------
    def _now(self) -> float:
        return (time.perf_counter() - self._t0) * 1e6

    def _begin(self, name: str, kind: str, args: Any = ()) -> FunctionEvent:
        shapes = []
        if self.record_shapes:
            shapes = [list(a.shape) if hasattr(a, "shape") and hasattr(a, "_data") else []
                      for a in args]
        event = FunctionEvent(name, self._now(), thread=threading.get_ident(), kind=kind,
                              input_shapes=shapes)
        stack = getattr(_local, "stack", None)
        if stack is None:
            stack = _local.stack = []
        if self._timer is not None:
            start = self._timer.device_event()
            start.record()
            event._marks = (start, None)
            event._parent = stack[-1] if stack else None
        stack.append(event)
        return event

    def _end(self, event: FunctionEvent) -> None:
        if event._marks is not None:
            end = self._timer.device_event()
            end.record()
            event._marks = (event._marks[0], end)
        event.end_us = self._now()
        stack = _local.stack
        stack.pop()
        if stack:
            stack[-1].children_us += event.cpu_time_total
        with self._lock:
            self.function_events.append(event)

    def _timed(self, name: str, fn: Callable[..., Any], kind: str = "cpu_op") -> Any:
        prof = self

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            event = prof._begin(name, kind, args)
            try:
                return fn(*args, **kwargs)
            finally:
                prof._end(event)

        return wrapper

    def _instrument(self) -> None:
        import arraygrad
        from arraygrad import tensor_methods
        from arraygrad.autograd import engine
        from arraygrad.tensor import Tensor

        tables = {**tensor_methods.METHODS, **tensor_methods.OPERATORS}
        for attr, fn in tables.items():
            self._patch(Tensor, attr, getattr(fn, "__name__", attr).strip("_"))
        for attr in tensor_methods.INPLACE:
            self._patch(Tensor, attr, attr.strip("_") + ("_" if not attr.startswith("__") else ""))
        op_names = {getattr(fn, "__name__", "") for fn in tables.values()}
        for attr in dir(arraygrad):
            value = getattr(arraygrad, attr, None)
            if callable(value) and not isinstance(value, type) and attr in op_names:
                self._patch(arraygrad, attr, attr)

        def run_node(node: Node, grads: Any, apply: Any) -> Any:
            event = self._begin(f"autograd::engine::evaluate_function: {node.name()}", "backward")
            try:
                return apply(node, grads)
            finally:
                self._end(event)

        engine.node_runner = run_node

    def _patch(self, owner: Any, attr: str, name: str) -> None:
        original = owner.__dict__.get(attr) if isinstance(owner, type) else getattr(owner, attr)
        if original is None or isinstance(original, property):
            return
        self._patches.append((owner, attr, original))
        setattr(owner, attr, self._timed(name, original))

    # -- results ------------------------------------------------------------------
    def events(self) -> EventList:
        """Every recorded event, in the order they finished."""
        return self.function_events

    def key_averages(self, group_by_input_shape: bool = False) -> EventList:
        """Events added up per name (and input shapes, if asked)."""
        groups: dict = defaultdict(lambda: None)
        for e in self.function_events:
            key = (e.name, str(e.input_shapes) if group_by_input_shape else "")
            avg = groups[key]
            if avg is None:
                avg = groups[key] = FunctionEventAvg(e.name, input_shapes=key[1])
            avg.count += 1
            avg.cpu_time_total += e.cpu_time_total
            avg.self_cpu_time_total += e.self_cpu_time_total
            avg.device_time_total += e.device_time_total
            avg.self_device_time_total += e.self_device_time_total
        return EventList(groups.values(), use_device=self.use_device,
                         device_note=self.function_events.device_note)

    def table(self, sort_by: str | None = None, row_limit: int = 100) -> str:
        """``key_averages().table(...)``."""
        return self.key_averages().table(sort_by=sort_by, row_limit=row_limit)

    def export_chrome_trace(self, path: str | os.PathLike) -> None:
        """Write the events in the Chrome trace format (open in Perfetto or chrome://tracing)."""
        pid = os.getpid()
        events = [{"name": e.name, "ph": "X", "cat": e.kind, "ts": round(e.start_us, 3),
                   "dur": round(e.cpu_time_total, 3), "pid": pid, "tid": e.thread,
                   "args": {"Input Dims": e.input_shapes} if e.input_shapes else {}}
                  for e in self.function_events]
        with open(path, "w") as fh:
            json.dump({"traceEvents": events, "displayTimeUnit": "ms"}, fh)

    def __str__(self) -> str:
        return self.table()


class record_function:
    """Label a block (or a decorated function) in the active profile."""

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name = name
        self._event: Any = None  # a FunctionEvent while the block runs

    def __enter__(self) -> Any:
        if _active is not None:
            self._event = _active._begin(self.name, "user_annotation")
        return self

    def __exit__(self, *exc: Any) -> Literal[False]:
        if self._event is not None and _active is not None:
            _active._end(self._event)
        self._event = None
        return False

    def __call__(self, fn: Callable[..., Any]) -> Any:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with record_function(self.name):
                return fn(*args, **kwargs)

        return wrapper
