"""The profiler's results (``torch.autograd.profiler_util``): one ``FunctionEvent`` per timed
call, ``FunctionEventAvg`` for the events of one key added up, and ``EventList``, which
averages them by key and prints PyTorch's table.

Times are microseconds. An event knows the events that ran inside it (``cpu_children``) and
the one it ran in (``cpu_parent``); its "self" time is its own time less its children's.
"""

from __future__ import annotations

import gzip
import json
import os
from collections import defaultdict
from typing import Any, Iterable, NamedTuple

from arraygrad.autograd.profiler_format import format_memory, format_time, format_time_share
from arraygrad.autograd.profiler_table import build_table
from arraygrad.autograd.profiler_types import DeviceType

__all__ = ["Interval", "FunctionEvent", "FunctionEventAvg", "EventList", "DeviceType",
           "MEMORY_EVENT_NAME", "OUT_OF_MEMORY_EVENT_NAME", "format_time", "format_memory",
           "format_time_share"]

MEMORY_EVENT_NAME = "[memory]"
OUT_OF_MEMORY_EVENT_NAME = "[OutOfMemory]"


class Interval(NamedTuple):
    """An event's start and end (µs from the profile's start)."""

    start: float
    end: float

    def elapsed_us(self) -> float:
        """The interval's length."""
        return self.end - self.start


class _FormattedTimes:
    """The ``*_str`` spellings of the times (PyTorch's ``FormattedTimesMixin``)."""

    cpu_time_str = property(lambda self: format_time(self.cpu_time),
                            doc="``cpu_time`` formatted.")
    cpu_time_total_str = property(lambda self: format_time(self.cpu_time_total),
                                  doc="``cpu_time_total`` formatted.")
    self_cpu_time_total_str = property(lambda self: format_time(self.self_cpu_time_total),
                                       doc="``self_cpu_time_total`` formatted.")
    device_time_str = property(lambda self: format_time(self.device_time),
                               doc="``device_time`` formatted.")
    device_time_total_str = property(lambda self: format_time(self.device_time_total),
                                     doc="``device_time_total`` formatted.")
    self_device_time_total_str = property(
        lambda self: format_time(self.self_device_time_total),
        doc="``self_device_time_total`` formatted.")
    # PyTorch's older "cuda" names of the device fields
    cuda_time = property(lambda self: self.device_time, doc="``device_time``.")
    cuda_time_total = property(lambda self: self.device_time_total,
                               doc="``device_time_total``.")
    self_cuda_time_total = property(lambda self: self.self_device_time_total,
                                    doc="``self_device_time_total``.")
    self_cuda_memory_usage = property(lambda self: self.self_device_memory_usage,
                                      doc="``self_device_memory_usage``.")


class FunctionEvent(_FormattedTimes):
    """One timed call: an op, a backward node (``scope`` 1) or a ``record_function`` block
    (``is_user_annotation``), with PyTorch's constructor. ``device_time_total`` is the device
    time measured between the call's start and end (0 when not measured);
    ``cpu_memory_usage``/``device_memory_usage`` the bytes of the tensors it returned (with
    ``profile_memory``); ``flops`` its estimated floating-point operations (``with_flops``).
    The remaining arguments are kept as attributes, for code that reads them."""

    def __init__(self, id: int, name: str, thread: int, start_us: float, end_us: float,
                 overload_name: str | None = None, fwd_thread: int | None = None,
                 input_shapes: Any = None, stack: list[str] | None = None, scope: int = 0,
                 use_device: str | None = None, cpu_memory_usage: int = 0,
                 device_memory_usage: int = 0, is_async: bool = False,
                 is_remote: bool = False, sequence_nr: int = -1, node_id: int = -1,
                 device_type: DeviceType = DeviceType.CPU, device_index: int = 0,
                 device_resource_id: int | None = None, is_legacy: bool = False,
                 flops: int | None = None, trace_name: str | None = None,
                 concrete_inputs: Any = None, kwinputs: Any = None,
                 is_user_annotation: bool = False, is_python_function: bool = False,
                 activity_type: str | None = None, metadata_json: str | None = None,
                 flow_id: int | None = None, flow_type: int | None = None,
                 flow_start: bool | None = None, external_id: int = 0,
                 linked_correlation_id: int = 0, extra_meta: Any = None,
                 structured_input_shapes: Any = None, structured_input_strides: Any = None,
                 input_dtypes: Any = None, python_id: int = -1, python_parent_id: int = -1,
                 python_module_id: int = -1) -> None:
        self.id = id
        self.node_id = node_id
        self.name = name
        self.overload_name = overload_name
        self.trace_name = trace_name
        self.time_range = Interval(start_us, end_us)
        self.thread = thread
        self.fwd_thread = fwd_thread
        self.kernels: list[Any] = []
        self.count = 1
        self.cpu_children: list[FunctionEvent] = []
        self.cpu_parent: FunctionEvent | None = None
        self.input_shapes = input_shapes
        self.structured_input_shapes = structured_input_shapes
        self.structured_input_strides = structured_input_strides
        self.input_dtypes = input_dtypes
        self.concrete_inputs = concrete_inputs
        self.kwinputs = kwinputs
        self.stack = stack if stack is not None else []
        self.scope = scope
        self.use_device = use_device
        self.cpu_memory_usage = cpu_memory_usage
        self.device_memory_usage = device_memory_usage
        self.is_async = is_async
        self.is_remote = is_remote
        self.sequence_nr = sequence_nr
        self.device_type = device_type
        self.device_index = device_index
        self.device_resource_id = thread if device_resource_id is None else device_resource_id
        self.is_legacy = is_legacy
        self.flops = flops
        self.is_user_annotation = is_user_annotation
        self.is_python_function = is_python_function
        self.activity_type = activity_type
        self._metadata_json = metadata_json
        self.flow_id, self.flow_type, self.flow_start = flow_id, flow_type, flow_start
        self.external_id = external_id
        self.linked_correlation_id = linked_correlation_id
        self.extra_meta = extra_meta
        self.python_id, self.python_parent_id = python_id, python_parent_id
        self.python_module_id = python_module_id
        self.self_cpu_percent = -1.0
        self.total_cpu_percent = -1.0
        self.total_device_percent = -1.0
        self.device_time_total = 0.0  # set by the profile when device time is measured
        self._marks: tuple[Any, Any] | None = None  # (start, end) device timing events

    # the start and end, also by their constructor names
    start_us = property(lambda self: self.time_range.start, doc="Start (µs).")
    end_us = property(lambda self: self.time_range.end, doc="End (µs).")

    @property
    def metadata_json(self) -> str | None:
        """Extra metadata, as a JSON text (None without)."""
        return self._metadata_json

    @property
    def key(self) -> str:
        """What ``key_averages`` groups by: the name."""
        return self.name

    def append_cpu_child(self, child: FunctionEvent) -> None:
        """Record ``child`` as having run inside this event."""
        self.cpu_children.append(child)

    def set_cpu_parent(self, parent: FunctionEvent) -> None:
        """Record the event this one ran inside."""
        self.cpu_parent = parent

    def append_kernel(self, name: str, device: int, duration: float) -> None:
        """Record device work of this event (PyTorch's legacy kernels)."""
        self.kernels.append((name, device, duration))

    @property
    def cpu_time_total(self) -> float:
        """Wall time of the call, children included (µs)."""
        return self.time_range.elapsed_us() if self.device_type == DeviceType.CPU else 0.0

    @property
    def self_cpu_time_total(self) -> float:
        """Wall time of the call less its children's (µs)."""
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def self_device_time_total(self) -> float:
        """Device time of the call less its children's (µs)."""
        return self.device_time_total - sum(c.device_time_total for c in self.cpu_children)

    @property
    def self_cpu_memory_usage(self) -> int:
        """Bytes returned by the call less those its children returned."""
        return self.cpu_memory_usage - sum(c.cpu_memory_usage for c in self.cpu_children)

    @property
    def self_device_memory_usage(self) -> int:
        """Device bytes returned by the call less its children's."""
        return self.device_memory_usage - sum(c.device_memory_usage for c in self.cpu_children)

    cpu_time = property(lambda self: self.cpu_time_total / self.count,
                        doc="Time per call (µs).")
    device_time = property(lambda self: self.device_time_total / self.count,
                           doc="Device time per call (µs).")

    def __repr__(self) -> str:
        return (f"<FunctionEvent id={self.id} name={self.name} "
                f"device_type={self.device_type.name} node_id={self.node_id} "
                f"cpu_time={self.cpu_time_str} start_us={self.time_range.start} "
                f"end_us={self.time_range.end} "
                f"cpu_children={[c.id for c in self.cpu_children]} "
                f"device_time={self.device_time_str} name={self.name} "
                f"thread={self.thread} input_shapes={self.input_shapes} "
                f"cpu_memory_usage={self.cpu_memory_usage} "
                f"device_memory_usage={self.device_memory_usage} is_async={self.is_async} "
                f"is_remote={self.is_remote} seq_nr={self.sequence_nr} "
                f"is_legacy={self.is_legacy}>")


class FunctionEventAvg(_FormattedTimes):
    """The events of one key added up (``EventList.key_averages``)."""

    def __init__(self) -> None:
        self.key: str | None = None
        self.count = 0
        self.node_id = 0
        self.is_async = False
        self.is_remote = False
        self.use_device: str | None = None
        self.cpu_time_total = 0.0
        self.device_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.self_device_time_total = 0.0
        self.input_shapes: Any = None
        self.overload_name: str | None = None
        self.stack: list[str] | None = None
        self.scope: int | None = None
        self.cpu_memory_usage = 0
        self.device_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.self_device_memory_usage = 0
        self.cpu_children: list[FunctionEvent] | None = None
        self.cpu_parent: FunctionEvent | None = None
        self.device_type = DeviceType.CPU
        self.is_legacy = False
        self.is_user_annotation = False
        self.flops: int | None = 0

    def add(self, other: FunctionEvent | FunctionEventAvg) -> FunctionEventAvg:
        """Add ``other`` (an event, or an average, of the same key) in; returns self."""
        if self.key is None:  # the first: its descriptive fields become the group's
            self.key = other.key
            for field in ("node_id", "is_async", "is_remote", "cpu_parent", "cpu_children",
                          "overload_name", "input_shapes", "stack", "scope", "device_type",
                          "is_legacy", "use_device", "is_user_annotation"):
                setattr(self, field, getattr(other, field))
        if other.key != self.key:
            raise AssertionError(f"Expected keys to match, but got {other.key} vs {self.key}")
        self.cpu_time_total += other.cpu_time_total
        self.device_time_total += other.device_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.self_device_time_total += other.self_device_time_total
        self.cpu_memory_usage += other.cpu_memory_usage
        self.device_memory_usage += other.device_memory_usage
        self.self_cpu_memory_usage += other.self_cpu_memory_usage
        self.self_device_memory_usage += other.self_device_memory_usage
        self.count += other.count
        if self.flops is None:
            self.flops = other.flops
        elif other.flops is not None:
            self.flops += other.flops
        return self

    def __iadd__(self, other: FunctionEvent | FunctionEventAvg) -> FunctionEventAvg:
        return self.add(other)

    cpu_time = property(lambda self: self.cpu_time_total / self.count if self.count else 0.0,
                        doc="Average time per call (µs).")
    device_time = property(
        lambda self: self.device_time_total / self.count if self.count else 0.0,
        doc="Average device time per call (µs); 0 when device time was not measured.")

    def __repr__(self) -> str:
        device = self.use_device or "cuda"
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
                f"cpu_time={self.cpu_time_str}  self_{device}_time="
                f"{self.self_device_time_total_str} {device}_time={self.device_time_str} "
                f"input_shapes={self.input_shapes} cpu_memory_usage={self.cpu_memory_usage} "
                f"{device}_memory_usage={self.device_memory_usage}>")


_EXPORT_METRICS = ("self_cpu_time_total", "self_cuda_time_total", "self_xpu_time_total",
                   "self_privateuse1_time_total")


class EventList(list[Any]):
    """A list of events or averages that averages itself by key and prints PyTorch's table.

    ``use_device``: the device whose time was asked for (``"cuda"``), or None;
    ``device_note``: why its time was not measured, or ``""`` when it was;
    ``profile_memory``/``with_flops``: the memory and FLOPs columns are printed."""

    def __init__(self, *args: Any, use_device: str | None = None, profile_memory: bool = False,
                 with_flops: bool = False, device_note: str = "") -> None:
        super().__init__(*args)
        self._use_device = use_device
        self._profile_memory = profile_memory
        self._with_flops = with_flops
        self.device_note = device_note

    use_device = property(lambda self: self._use_device, doc="The profiled device, or None.")

    @property
    def device_measured(self) -> bool:
        """Whether the rows carry device times (the table then has the device columns)."""
        return self._use_device is not None and not self.device_note

    @property
    def self_cpu_time_total(self) -> float:
        """The self CPU times of every event, added up (µs)."""
        return sum(e.self_cpu_time_total for e in self)

    def _like(self, events: Iterable[Any]) -> EventList:
        return EventList(events, use_device=self._use_device, profile_memory=self._profile_memory,
                         with_flops=self._with_flops, device_note=self.device_note)

    def key_averages(self, group_by_input_shapes: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> EventList:
        """The events added up per key (and input shapes, the first ``group_by_stack_n``
        stack frames, the overload name, when asked): an EventList of FunctionEventAvg."""
        stats: dict[tuple[Any, ...], FunctionEventAvg] = defaultdict(FunctionEventAvg)
        for e in self:
            key: list[Any] = [e.key, e.node_id, e.device_type, e.is_legacy, e.is_user_annotation]
            if group_by_overload_name:
                key.append(e.overload_name)
            if group_by_input_shapes:
                key.append(str(e.input_shapes))
            if group_by_stack_n > 0:
                key += list(e.stack[:group_by_stack_n])
            stats[tuple(key)].add(e)
        averages = self._like(stats.values())
        for avg in averages:
            avg.stack = (avg.stack or [])[:group_by_stack_n]
            if not group_by_input_shapes:
                avg.input_shapes = ""
            if not group_by_overload_name:
                avg.overload_name = ""
        return averages

    def total_average(self) -> FunctionEventAvg:
        """Every event added up into one ``FunctionEventAvg`` keyed ``"Total"``."""
        total = FunctionEventAvg()
        for e in self:
            total += e
            total.key = None
        total.key = "Total"
        return total

    def table(self, sort_by: str | None = None, row_limit: int = 100,
              max_src_column_width: int = 75, max_name_column_width: int = 55,
              max_shapes_column_width: int = 80, header: str | None = None,
              top_level_events_only: bool = False, time_unit: str | None = None) -> str:
        """PyTorch's table of the events (sorted descending by the attribute ``sort_by``,
        ``"cuda"`` meaning the device), see ``profiler_table``."""
        return build_table(self, sort_by=sort_by, header=header, row_limit=row_limit,
                           max_src_column_width=max_src_column_width,
                           max_name_column_width=max_name_column_width,
                           max_shapes_column_width=max_shapes_column_width,
                           with_flops=self._with_flops, profile_memory=self._profile_memory,
                           top_level_events_only=top_level_events_only, time_unit=time_unit)

    def __str__(self) -> str:
        return self.table()

    def export_chrome_trace(self, path: str | os.PathLike[str], *,
                            trace_id: str | None = None) -> None:
        """Write the events in the Chrome trace format (open in Perfetto or
        chrome://tracing); a path ending in ``.gz`` is gzip-compressed."""
        pid = os.getpid()
        events = []
        for e in self:
            args: dict[str, Any] = {}
            if e.input_shapes:
                args["Input Dims"] = e.input_shapes
            if e.stack:
                args["Call stack"] = ";".join(e.stack)
            if e.flops:
                args["flops"] = e.flops
            cat = ("user_annotation" if e.is_user_annotation else "cpu_op")
            events.append({"name": e.trace_name or e.name, "ph": "X", "cat": cat,
                           "ts": round(e.time_range.start, 3),
                           "dur": round(e.cpu_time_total, 3), "pid": pid, "tid": e.thread,
                           "args": args})
        trace: dict[str, Any] = {"traceEvents": events, "displayTimeUnit": "ms"}
        if trace_id is not None:
            trace["trace_id"] = trace_id
        text = json.dumps(trace)
        if str(path).endswith(".gz"):
            with gzip.open(path, "wt") as fh:
                fh.write(text)
        else:
            with open(path, "w") as fh:
                fh.write(text)

    def supported_export_stacks_metrics(self) -> list[str]:
        """The metrics ``export_stacks`` can write."""
        return list(_EXPORT_METRICS)

    def export_stacks(self, path: str | os.PathLike[str], metric: str) -> None:
        """Write one line per event that has a stack (``with_stack``): its frames, outermost
        first, joined by ``;``, then the metric in µs (the "collapsed stacks" format of
        flame-graph tools)."""
        if metric not in _EXPORT_METRICS:
            raise ValueError(f"metric should be one of: {list(_EXPORT_METRICS)}")
        attr = (metric.replace("cuda", "device").replace("xpu", "device")
                .replace("privateuse1", "device"))
        translate = str.maketrans(" ;\t\n", "____")
        with open(path, "w") as fh:
            for e in self:
                value = int(getattr(e, attr)) if e.stack else 0
                if value > 0:
                    frames = ";".join(f.translate(translate) for f in reversed(e.stack))
                    fh.write(f"{frames} {value}\n")
