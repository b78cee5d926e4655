"""``arraygrad.autograd.profiler``: time spent per op, forward and backward.

While a ``profile`` is active, every Tensor method and operator, every op
function of the ``arraygrad`` namespace and every backward node the engine
runs is timed (nested calls give "self" and "total" times). Nothing is
instrumented outside a ``profile`` block, so normal runs pay nothing.

>>> with profile() as prof:
...     y = (x * 2).sum()
...     y.backward()
>>> print(prof.key_averages().table(sort_by="self_cpu_time_total"))
"""

from __future__ import annotations

import functools
import json
import os
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field

__all__ = ["profile", "record_function", "FunctionEvent", "FunctionEventAvg", "EventList"]

_active: "profile | None" = None
_local = threading.local()


@dataclass
class FunctionEvent:
    """One timed call: its name, start and end (microseconds from the profile's start)."""

    name: str
    start_us: float
    end_us: float = 0.0
    thread: int = 0
    kind: str = "cpu_op"
    input_shapes: list = field(default_factory=list)
    children_us: float = 0.0

    @property
    def cpu_time_total(self) -> float:
        """Wall time of the call, children included (µs)."""
        return self.end_us - self.start_us

    @property
    def self_cpu_time_total(self) -> float:
        """Wall time of the call minus its timed children (µs)."""
        return self.cpu_time_total - self.children_us


@dataclass
class FunctionEventAvg:
    """Events of one name (and shapes, if grouped so) added up."""

    key: str
    count: int = 0
    cpu_time_total: float = 0.0
    self_cpu_time_total: float = 0.0
    input_shapes: str = ""

    @property
    def cpu_time(self) -> float:
        """Average total time per call (µs)."""
        return self.cpu_time_total / self.count if self.count else 0.0

    cuda_time_total = property(lambda self: 0.0, doc="Always 0: device time is not measured.")
    self_cuda_time_total = cuda_time_total


def _format_time(us: float) -> str:
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


_SORT_KEYS = {
    "self_cpu_time_total": "self_cpu_time_total", "cpu_time_total": "cpu_time_total",
    "cpu_time": "cpu_time", "count": "count", "cuda_time_total": "cpu_time_total",
    "self_cuda_time_total": "self_cpu_time_total", "cuda_time": "cpu_time",
}


class EventList(list):
    """A list of events or averages that can print itself as PyTorch's table."""

    def table(self, sort_by: str | None = None, row_limit: int = 100, max_name_column_width: int = 55,
              header: str | None = None, top_level_events_only: bool = False) -> str:
        """The events as a fixed-width table, optionally sorted (descending) by a column."""
        rows = list(self)
        if sort_by is not None:
            if sort_by not in _SORT_KEYS:
                raise ValueError(f"table: unknown sort_by {sort_by!r}; one of {sorted(_SORT_KEYS)}")
            attr = _SORT_KEYS[sort_by]
            rows.sort(key=lambda r: getattr(r, attr), reverse=True)
        rows = rows[:row_limit] if row_limit and row_limit > 0 else rows
        total_self = sum(r.self_cpu_time_total for r in self) or 1e-9
        names = [r.key if isinstance(r, FunctionEventAvg) else r.name for r in rows]
        width = min(max([len("Name")] + [len(n) for n in names]), max_name_column_width)
        cols = ["Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"]
        sep = "-" * width + "  " + "  ".join("-" * 12 for _ in cols) + "  "
        lines = [header] if header else []
        lines += [sep, f"{'Name':>{width}}  " + "  ".join(f"{c:>12}" for c in cols) + "  ", sep]
        for r, name in zip(rows, names):
            count = getattr(r, "count", 1)
            avg = r.cpu_time_total / count if count else 0.0
            if len(name) > width:
                name = name[:width - 3] + "..."
            cells = [f"{100 * r.self_cpu_time_total / total_self:.2f}%",
                     _format_time(r.self_cpu_time_total),
                     f"{100 * r.cpu_time_total / total_self:.2f}%",
                     _format_time(r.cpu_time_total), _format_time(avg), str(count)]
            lines.append(f"{name:>{width}}  " + "  ".join(f"{c:>12}" for c in cells) + "  ")
        lines += [sep, f"Self CPU time total: {_format_time(sum(r.self_cpu_time_total for r in self))}"]
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        return self.table()


class profile:
    """Context manager recording the time of every op and backward node inside it.

    ``use_cuda``/``use_device`` are accepted; with a device backend the profile
    synchronizes it at the start and the end so device work is inside the timing.
    """

    def __init__(self, enabled: bool = True, *, use_cuda: bool = False, use_device=None,
                 record_shapes: bool = False, with_flops: bool = False,
                 profile_memory: bool = False, with_stack: bool = False,
                 with_modules: bool = False, use_cpu: bool = True):
        self.enabled = enabled
        self.use_cuda = use_cuda or (use_device is not None and str(use_device).startswith("cuda"))
        self.record_shapes = record_shapes
        self.function_events = EventList()
        self._lock = threading.Lock()
        self._patches: list = []
        self._t0 = 0.0

    # -- lifecycle -------------------------------------------------------------
    def __enter__(self):
        global _active
        if not self.enabled:
            return self
        if _active is not None:
            raise RuntimeError("profiler: another profile is already active")
        self._synchronize()
        self._t0 = time.perf_counter()
        _active = self
        self._instrument()
        return self

    def __exit__(self, *exc):
        global _active
        if not self.enabled:
            return False
        self._synchronize()
        for owner, name, original in reversed(self._patches):
            setattr(owner, name, original)
        self._patches.clear()
        from arraygrad.autograd import engine

        engine.node_runner = None
        _active = None
        return False

    def _synchronize(self) -> None:
        if self.use_cuda:
            from arraygrad import cuda

            cuda.synchronize()

    # -- recording --------------------------------------------------------------
    def _now(self) -> float:
        return (time.perf_counter() - self._t0) * 1e6

    def _begin(self, name: str, kind: str, args=()) -> FunctionEvent:
        shapes = []
        if self.record_shapes:
            shapes = [list(a.shape) if hasattr(a, "shape") and hasattr(a, "_data") else []
                      for a in args]
        event = FunctionEvent(name, self._now(), thread=threading.get_ident(), kind=kind,
                              input_shapes=shapes)
        stack = getattr(_local, "stack", None)
        if stack is None:
            stack = _local.stack = []
        stack.append(event)
        return event

    def _end(self, event: FunctionEvent) -> None:
        event.end_us = self._now()
        stack = _local.stack
        stack.pop()
        if stack:
            stack[-1].children_us += event.cpu_time_total
        with self._lock:
            self.function_events.append(event)

    def _timed(self, name: str, fn, kind: str = "cpu_op"):
        prof = self

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
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

        def run_node(node, grads, apply):
            event = self._begin(f"autograd::engine::evaluate_function: {node.name()}", "backward")
            try:
                return apply(node, grads)
            finally:
                self._end(event)

        engine.node_runner = run_node

    def _patch(self, owner, attr: str, name: str) -> None:
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
        return EventList(groups.values())

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

    def __init__(self, name: str, args: str | None = None):
        self.name = name
        self._event = None

    def __enter__(self):
        if _active is not None:
            self._event = _active._begin(self.name, "user_annotation")
        return self

    def __exit__(self, *exc):
        if self._event is not None and _active is not None:
            _active._end(self._event)
        self._event = None
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with record_function(self.name):
                return fn(*args, **kwargs)

        return wrapper
