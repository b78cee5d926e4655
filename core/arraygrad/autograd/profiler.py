"""``arraygrad.autograd.profiler``: time spent per op, forward and backward.

While a ``profile`` is active, every Tensor method and operator, every op function of the
``arraygrad`` namespace and of ``arraygrad.nn.functional`` (once loaded), and every backward
node the engine runs is timed (nested calls give "self" and "total" times). Nothing is
instrumented outside a ``profile`` block, so normal runs pay nothing.

>>> with profile() as prof:
...     y = (x * 2).sum()
...     y.backward()
>>> print(prof.key_averages().table(sort_by="self_cpu_time_total"))

With ``use_cuda=True`` (or ``use_device="cuda:1"``) device work is timed too, with the
device backend's timing events (``Backend.device_event``: CuPy's ``cupy.cuda.Event``)
recorded before and after each op and node, and read after a final synchronize; the table
then has PyTorch's ``Self CUDA``, ``Self CUDA %``, ``CUDA total`` and ``CUDA time avg``
columns. A backend without timing events (or no usable device) gets a note line under the
table instead. ``record_shapes``, ``profile_memory`` (the bytes each op returns),
``with_flops`` and ``with_stack`` add PyTorch's columns. There is no Kineto: ``use_kineto``,
``experimental_config`` and ``post_processing_timeout_s`` are accepted and change nothing
(``kineto_available()`` is False), as ``with_modules`` changes nothing in eager PyTorch.
"""

from __future__ import annotations

import functools
import itertools
import logging
import os
import sys
import threading
import time
import traceback
import uuid
from collections import defaultdict
from typing import TYPE_CHECKING, Any, Callable, Literal
from warnings import warn

from arraygrad.autograd.profiler_flops import flops_of
from arraygrad.autograd.profiler_types import DeviceType, ProfilerActivity
from arraygrad.autograd.profiler_util import (
    MEMORY_EVENT_NAME, OUT_OF_MEMORY_EVENT_NAME, EventList, FunctionEvent, FunctionEventAvg,
)

if TYPE_CHECKING:
    from arraygrad.autograd.graph import Node

__all__ = ["profile", "record_function", "FunctionEvent", "FunctionEventAvg", "EventList",
           "KinetoStepTracker", "EnforceUnique", "kineto_available", "DeviceType",
           "ProfilerActivity", "MEMORY_EVENT_NAME", "OUT_OF_MEMORY_EVENT_NAME"]

log = logging.getLogger(__name__)
_ = warn  # PyTorch's module has ``warn`` (from warnings) among its names

_active: "profile | None" = None
_local = threading.local()
_ids = itertools.count()
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # .../arraygrad


def kineto_available() -> bool:
    """Whether PyTorch's C++ profiling library (Kineto) is there: never in arraygrad, whose
    profiler is its own (the events and tables are the same either way)."""
    return False


class EnforceUnique:
    """Raises an error if a key is seen more than once."""

    def __init__(self) -> None:
        self.seen: set[tuple[Any, ...]] = set()

    def see(self, *key: Any) -> None:
        """Observe ``key``; RuntimeError if it was seen before."""
        if key in self.seen:
            raise RuntimeError("duplicate key: " + str(key))
        self.seen.add(key)


class KinetoStepTracker:
    """The global step count, as the maximum over the requesters that count steps
    (``"ProfilerStep"`` for ``torch.profiler.profile.step``, ``"Optimizer"`` for the
    optimizers' step hook), so that a program counting steps in two places does not count
    them twice. PyTorch hands each new global step to Kineto; arraygrad only counts."""

    _current_step = 0
    _step_dict: dict[str, int] = defaultdict(int)

    @classmethod
    def init_step_count(cls, requester: str) -> None:
        """Start counting for ``requester`` at the current global step."""
        cls._step_dict[requester] = cls._current_step

    @classmethod
    def erase_step_count(cls, requester: str) -> bool:
        """Stop counting for ``requester``; whether it was counting."""
        return cls._step_dict.pop(requester, None) is not None

    @classmethod
    def increment_step(cls, requester: str) -> int:
        """One more step of ``requester``; returns the global step (warns when it jumps by
        more than one)."""
        if requester not in cls._step_dict:
            cls.init_step_count(requester)
        cls._step_dict[requester] += 1
        new_step = max(cls._step_dict.values())
        if new_step > cls._current_step:
            if new_step - cls._current_step > 1:
                warn("Profiler step count has increased more than 1 - current_step = "
                     f"{cls._current_step} step dict =  {cls._step_dict}", stacklevel=2)
            cls._current_step = new_step
        return cls._current_step

    @classmethod
    def current_step(cls) -> int:
        """The latest step of any requester."""
        return cls._current_step


def _made_by(result: Any, args: tuple[Any, ...]) -> dict[int, tuple[int, bool]]:
    """The arrays of the tensors ``result`` is or holds (one level deep) that are new: not
    views of another tensor, nor an argument (an in-place op returns its input):
    ``{id(array): (bytes, on the host)}``."""
    from arraygrad.tensor import Tensor

    found = {}
    given = {id(a) for a in args}
    for t in (result if isinstance(result, (tuple, list)) else (result,)):
        if isinstance(t, Tensor) and t._base is None and id(t) not in given:
            found[id(t._data)] = (t.numel() * t.element_size(),
                                  t._backend.device_type == "cpu")
    return found


def _memory(event: FunctionEvent, result: Any, args: tuple[Any, ...]) -> None:
    """``profile_memory``: the bytes of the tensors made inside ``event`` (its children's and
    its own result, once each), on the host and on the device; self memory is then what the
    event made beyond its children."""
    made: dict[int, tuple[int, bool]] = {}
    for child in event.cpu_children:
        made.update(getattr(child, "_made", {}))
    event.cpu_memory_usage = sum(c.cpu_memory_usage for c in event.cpu_children)
    event.device_memory_usage = sum(c.device_memory_usage for c in event.cpu_children)
    for key, (nbytes, host) in _made_by(result, args).items():
        if key not in made:
            made[key] = (nbytes, host)
            if host:
                event.cpu_memory_usage += nbytes
            else:
                event.device_memory_usage += nbytes
    event._made = made  # type: ignore[attr-defined]  # read by the parent, dropped after


def _user_stack() -> list[str]:
    """The caller's Python stack, innermost first, without arraygrad's own frames
    (PyTorch's ``file(line): function`` entries)."""
    frames = traceback.extract_stack()[:-3]
    return [f"{f.filename}({f.lineno}): {f.name}" for f in reversed(frames)
            if not os.path.abspath(f.filename).startswith(_PACKAGE)]


def _activity_filter(filters: Any) -> tuple[set[str] | None, bool]:
    """From ``activity_filters``: the CPU event kinds to keep (None: all) and whether device
    time is wanted."""
    if not filters:
        return None, True
    cpu = filters.get(ProfilerActivity.CPU)
    device = [a for a in filters if a != ProfilerActivity.CPU]
    keep_device = not device or any(filters[a] for a in device)
    return (None if cpu is None else set(cpu)), keep_device


def op_entry_points() -> list[tuple[Any, str, str, Callable[..., Any]]]:
    """Where a program enters arraygrad's operations, as ``(owner, attribute, op name,
    function)``: the Tensor methods and operators (``x += y`` is ``add_``), the op functions
    of the ``arraygrad`` namespace, and those of ``arraygrad.nn.functional`` once it is
    loaded (a model's layers call them: ``F.linear``, ``F.relu``...). What the profiler times
    and a selective checkpoint's policy sees."""
    from arraygrad import tensor_methods
    from arraygrad.tensor import Tensor

    # the package root, read as loaded (it imports this module: an import here would make
    # the two a cycle; a profile only ever runs after ``import arraygrad``)
    arraygrad = sys.modules["arraygrad"]

    found: list[tuple[Any, str, str, Callable[..., Any]]] = []

    def add(owner: Any, attr: str, name: str) -> None:
        fn = owner.__dict__.get(attr) if isinstance(owner, type) else getattr(owner, attr, None)
        if fn is not None and not isinstance(fn, property):
            found.append((owner, attr, name, fn))

    tables = {**tensor_methods.METHODS, **tensor_methods.OPERATORS}
    for attr, fn in tables.items():
        add(Tensor, attr, getattr(fn, "__name__", attr).strip("_"))
    for attr, fn in tensor_methods.INPLACE.items():
        add(Tensor, attr, fn.__name__.strip("_") + "_" if attr.startswith("__") else attr)
    op_names = {getattr(fn, "__name__", "") for fn in tables.values()}
    for attr in dir(arraygrad):
        value = getattr(arraygrad, attr, None)
        if callable(value) and not isinstance(value, type) and attr in op_names:
            add(arraygrad, attr, attr)
    functional = sys.modules.get("arraygrad.nn.functional")
    if functional is not None:
        for attr in getattr(functional, "__all__", ()):
            value = getattr(functional, attr, None)
            if callable(value) and not isinstance(value, type):
                add(functional, attr, attr)
    return found


class profile:
    """Context manager recording the time of every op and backward node inside it.

    ``use_cuda=True`` (the ``"cuda"`` device) or ``use_device="cuda:1"`` also times
    device work: the device's backend records a timing event (``Backend.device_event``)
    before and after every op and node, and the profile synchronizes the device at its
    start and end, then reads the events. Without such events (or a usable device) the
    table says so in a note line. ``acc_events``: a profile entered again keeps the events
    of its earlier blocks. ``activity_filters``: ``{ProfilerActivity.CPU: {"cpu_op",
    "user_annotation"}}`` keeps those kinds of events only (an empty device set: no device
    time). ``custom_trace_id_callback()`` names the trace (``trace_id``).
    """

    def __init__(self, enabled: bool = True, *, use_cuda: bool = False, use_device: Any = None,
                 record_shapes: bool = False, with_flops: bool = False,
                 profile_memory: bool = False, with_stack: bool = False,
                 with_modules: bool = False, use_kineto: bool = False, use_cpu: bool = True,
                 experimental_config: Any = None, acc_events: bool = False,
                 custom_trace_id_callback: Callable[[], str] | None = None,
                 post_processing_timeout_s: float | None = None,
                 activity_filters: dict[ProfilerActivity, set[str]] | None = None) -> None:
        self.enabled = enabled
        self.use_cuda = use_cuda or (use_device is not None and str(use_device).startswith("cuda"))
        self.use_device = str(use_device) if use_device is not None else ("cuda" if use_cuda else None)
        self._cpu_kinds, keep_device = _activity_filter(activity_filters)
        if not keep_device:
            self.use_device = None
        self.record_shapes = record_shapes
        self.with_flops = with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_modules = with_modules
        self.use_kineto = use_kineto
        self.use_cpu = use_cpu
        self.experimental_config = experimental_config
        self.acc_events = acc_events
        self.custom_trace_id_callback = custom_trace_id_callback
        self.post_processing_timeout_s = post_processing_timeout_s
        self.activity_filters = activity_filters
        self.trace_id: str | None = None
        self.function_events = self._new_events()
        self._lock = threading.Lock()
        self._patches: list[Any] = []
        self._t0 = 0.0
        self._device_backend: Any = None  # the backend of use_device, when usable
        self._timer: Any = None      # the same backend, when it has timing events

    def _new_events(self) -> EventList:
        return EventList(use_device=self.use_device, profile_memory=self.profile_memory,
                         with_flops=self.with_flops)

    # -- lifecycle -------------------------------------------------------------
    def __enter__(self) -> Any:
        global _active
        if not self.enabled:
            return self
        if _active is not None:
            raise RuntimeError("profiler: another profile is already active")
        if not self.acc_events:
            self.function_events = self._new_events()
        self.trace_id = (self.custom_trace_id_callback() if self.custom_trace_id_callback
                         else uuid.uuid4().hex)
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
        """Read every event pair (the device was just synchronized)."""
        if self._timer is None:
            return
        for e in self.function_events:
            if e._marks is not None and e._marks[1] is not None:
                start, end = e._marks
                e.device_time_total = start.elapsed_ms(end) * 1e3
            e._marks = None  # the device events can go

    # -- recording --------------------------------------------------------------
    def _now(self) -> float:
        return (time.perf_counter() - self._t0) * 1e6

    def _begin(self, name: str, kind: str, args: Any = ()) -> FunctionEvent:
        shapes: list[Any] = []
        if self.record_shapes:
            shapes = [list(a.shape) if hasattr(a, "shape") and hasattr(a, "_data") else []
                      for a in args]
        # PyTorch names the step markers "ProfilerStep*" (the trace keeps "#N")
        event = FunctionEvent(next(_ids), "ProfilerStep*" if name.startswith("ProfilerStep#")
                              else name, threading.get_ident(), self._now(), 0.0,
                              trace_name=name, input_shapes=shapes,
                              stack=_user_stack() if self.with_stack else None,
                              scope=1 if kind == "backward" else 0, use_device=self.use_device,
                              is_user_annotation=kind == "user_annotation")
        stack = getattr(_local, "stack", None)
        if stack is None:
            stack = _local.stack = []
        if self._timer is not None:
            start = self._timer.device_event()
            start.record()
            event._marks = (start, None)
        stack.append(event)
        return event

    def _end(self, event: FunctionEvent, result: Any = None, args: tuple[Any, ...] = ()) -> None:
        if event._marks is not None:
            end = self._timer.device_event()
            end.record()
            event._marks = (event._marks[0], end)
        event.time_range = event.time_range._replace(end=self._now())
        if self.profile_memory:
            _memory(event, result, args)
            for child in event.cpu_children:
                child.__dict__.pop("_made", None)
        if self.with_flops and result is not None:
            event.flops = flops_of(event.name, args, result)
        stack = _local.stack
        stack.pop()
        if not self._kept(event):
            return  # filtered out (its time stays in its parent's)
        parent = next((e for e in reversed(stack) if self._kept(e)), None)
        if parent is not None:
            event.set_cpu_parent(parent)
            parent.append_cpu_child(event)
        else:
            event.__dict__.pop("_made", None)
        with self._lock:
            self.function_events.append(event)

    def _kept(self, event: FunctionEvent) -> bool:
        kind = "user_annotation" if event.is_user_annotation else "cpu_op"
        return self._cpu_kinds is None or kind in self._cpu_kinds

    def _timed(self, name: str, fn: Callable[..., Any], kind: str = "cpu_op") -> Any:
        prof = self

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            event = prof._begin(name, kind, args)
            result = None
            try:
                result = fn(*args, **kwargs)
                return result
            finally:
                prof._end(event, result, args)

        return wrapper

    def _instrument(self) -> None:
        from arraygrad.autograd import engine

        for owner, attr, name, fn in op_entry_points():
            self._patches.append((owner, attr, fn))
            setattr(owner, attr, self._timed(name, fn))

        def run_node(node: Node, grads: Any, apply: Any) -> Any:
            event = self._begin(f"autograd::engine::evaluate_function: {node.name()}", "backward")
            result = None
            try:
                result = apply(node, grads)
                return result
            finally:
                self._end(event, result)

        engine.node_runner = run_node

    # -- results ------------------------------------------------------------------
    def events(self) -> EventList:
        """Every recorded event, in the order they finished."""
        return self.function_events

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> EventList:
        """Events added up per name (and input shapes, stack frames, if asked)."""
        return self.function_events.key_averages(group_by_input_shape, group_by_stack_n,
                                                 group_by_overload_name)

    def total_average(self) -> FunctionEventAvg:
        """Every event added up (``EventList.total_average``)."""
        return self.function_events.total_average()

    @property
    def self_cpu_time_total(self) -> float:
        """The self CPU times of every event, added up (µs)."""
        return self.function_events.self_cpu_time_total

    def table(self, sort_by: str | None = None, row_limit: int = 100,
              max_src_column_width: int = 75, max_name_column_width: int = 55,
              max_shapes_column_width: int = 80, header: str | None = None,
              top_level_events_only: bool = False, time_unit: str | None = None) -> str:
        """``key_averages().table(...)``."""
        return self.key_averages().table(
            sort_by=sort_by, row_limit=row_limit, max_src_column_width=max_src_column_width,
            max_name_column_width=max_name_column_width,
            max_shapes_column_width=max_shapes_column_width, header=header,
            top_level_events_only=top_level_events_only, time_unit=time_unit)

    def export_chrome_trace(self, path: str | os.PathLike[str]) -> None:
        """Write the events in the Chrome trace format (``.gz``: compressed)."""
        self.function_events.export_chrome_trace(path, trace_id=self.trace_id)

    def export_stacks(self, path: str | os.PathLike[str],
                      metric: str = "self_cpu_time_total") -> None:
        """Write the events' stacks (``with_stack``) with ``metric``, for flame graphs."""
        self.function_events.export_stacks(path, metric)

    def __str__(self) -> str:
        return self.table()


class record_function:
    """Label a block (or a decorated function) in the active profile."""

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name = name
        self.args = args
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


def supported_activities() -> set[ProfilerActivity]:
    """What can be profiled here: the CPU, and CUDA when a CUDA device is usable."""
    found = {ProfilerActivity.CPU}
    try:
        from arraygrad import cuda

        if cuda.is_available():
            found.add(ProfilerActivity.CUDA)
    except Exception:  # noqa: BLE001 - no CUDA backend at all
        pass
    return found


def __getattr__(name: str) -> Any:
    """``Future`` (the profiler module re-exports PyTorch's future class), loaded on first use;
    the census's reason for a name arraygrad lacks."""
    if name == "Future":
        from arraygrad.futures import Future

        return Future
    from arraygrad.absences import missing_attribute

    raise missing_attribute("torch.autograd.profiler", name, "arraygrad.autograd.profiler")
