"""``torch.profiler.profiler``: the profiler with a schedule.

``profile`` runs the autograd profiler (``arraygrad.autograd.profiler.profile``) over the
steps a ``schedule`` marks active: each ``step()`` asks the schedule what the next step is
(``ProfilerAction.NONE``, ``WARMUP``, ``RECORD``, ``RECORD_AND_SAVE``) and starts, stops or
hands the trace to ``on_trace_ready`` accordingly, exactly as PyTorch's action table does.
Without a schedule every step records, and the trace is ready when the block ends.

>>> with profile(activities=[ProfilerActivity.CPU],
...              schedule=schedule(wait=1, warmup=1, active=2),
...              on_trace_ready=tensorboard_trace_handler("./log")) as prof:
...     for batch in loader:
...         train_step(batch)
...         prof.step()
"""

from __future__ import annotations

import enum
import json
import os
import socket
import time
from functools import partial
from typing import Any, Callable, Iterable
from warnings import warn

from arraygrad.autograd import profiler as _prof
from arraygrad.autograd.profiler import KinetoStepTracker, supported_activities
from arraygrad.autograd.profiler_types import ProfilerActivity
from arraygrad.autograd.profiler_util import EventList, FunctionEventAvg

__all__ = ["ProfilerAction", "schedule", "tensorboard_trace_handler", "supported_activities",
           "profile"]

PROFILER_STEP_NAME = "ProfilerStep"


class ProfilerAction(enum.Enum):
    """What the profiler does at a step. ``DEVICE_STOPPED`` is PyTorch's state for device
    collection stopped early; a schedule must not return it."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3
    DEVICE_STOPPED = 4


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0,
             skip_first_wait: int = 0) -> Callable[[int], ProfilerAction]:
    """A schedule: skip ``skip_first`` steps, then cycle through ``wait`` idle steps,
    ``warmup`` steps and ``active`` recorded steps (the last one ``RECORD_AND_SAVE``),
    ``repeat`` times (0: until the end). ``skip_first_wait``: the first cycle has no wait."""
    def schedule_fn(step: int) -> ProfilerAction:
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:
            step += wait
        num_steps = wait + warmup + active
        if repeat > 0 and step / num_steps >= repeat:
            return ProfilerAction.NONE
        mod_step = step % num_steps
        if mod_step < wait:
            return ProfilerAction.NONE
        if mod_step < wait + warmup:
            return ProfilerAction.WARMUP
        return (ProfilerAction.RECORD if mod_step < num_steps - 1
                else ProfilerAction.RECORD_AND_SAVE)

    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup="
            f"{warmup} (need >= 0), active={active} (need > 0), repeat={repeat} (need >= 0), "
            f"skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        warn("Profiler won't be using warmup, this can skew profiler results", stacklevel=2)
    return schedule_fn


def _default_schedule_fn(_: int) -> ProfilerAction:
    """Without a schedule: every step records."""
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name: str, worker_name: str | None = None,
                              use_gzip: bool = False,
                              use_python_export: bool = False) -> Callable[[Any], None]:
    """An ``on_trace_ready`` that writes each trace into ``dir_name`` as
    ``{worker_name}.{time_ns}.pt.trace.json`` (``.gz`` with ``use_gzip``); ``worker_name``
    defaults to ``{hostname}_{pid}``. The files are Chrome traces."""
    def handler_fn(prof: Any) -> None:
        nonlocal worker_name
        if not os.path.isdir(dir_name):
            try:
                os.makedirs(dir_name, exist_ok=True)
            except Exception as e:
                raise RuntimeError("Can't create directory: " + dir_name) from e
        if not worker_name:
            worker_name = f"{socket.gethostname()}_{os.getpid()}"
        file_name = f"{worker_name}.{time.time_ns()}.pt.trace.json"
        if use_gzip:
            file_name += ".gz"
        prof.export_chrome_trace(os.path.join(dir_name, file_name),
                                 use_python_export=use_python_export)

    return handler_fn


def _parse_activities(activities: Iterable[Any]) -> tuple[set[ProfilerActivity],
                                                          dict[ProfilerActivity, set[str]]]:
    """Bare activities, and ``{activity: [kinds]}`` items that keep only those kinds."""
    found: set[ProfilerActivity] = set()
    filters: dict[ProfilerActivity, set[str]] = {}
    for item in activities:
        if isinstance(item, ProfilerActivity):
            if item in found:
                raise ValueError(f"Activity {item} specified more than once")
            found.add(item)
        elif isinstance(item, dict):
            for key, val in item.items():
                if key in found:
                    raise ValueError(f"Activity {key} specified more than once")
                found.add(key)
                filters[key] = set(val)
        else:
            raise TypeError(f"Expected ProfilerActivity or dict, got {type(item)}")
    return found, filters


class _KinetoProfile:
    """The profiler without a schedule: ``start()`` to ``stop()`` is one trace."""

    def __init__(self, *, activities: Iterable[Any] | None = None, record_shapes: bool = False,
                 profile_memory: bool = False, with_stack: bool = False,
                 with_flops: bool = False, with_modules: bool = False,
                 experimental_config: Any = None, execution_trace_observer: Any = None,
                 acc_events: bool = False, custom_trace_id_callback: Any = None,
                 post_processing_timeout_s: float | None = None) -> None:
        if activities is not None:
            self.activities, self.activity_filters = _parse_activities(activities)
        else:
            self.activities, self.activity_filters = supported_activities(), {}
        self.record_shapes = record_shapes
        self.with_flops = with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_modules = with_modules
        self.experimental_config = experimental_config
        if execution_trace_observer is not None:
            raise NotImplementedError(
                "profile(execution_trace_observer=...): execution traces are recorded by "
                "PyTorch's C++ dispatcher observer, which arraygrad does not have")
        self.execution_trace_observer = None
        self.acc_events = acc_events
        self.custom_trace_id_callback = custom_trace_id_callback
        self.post_processing_timeout_s = post_processing_timeout_s
        self.profiler: _prof.profile | None = None
        self.use_device = "cuda" if ProfilerActivity.CUDA in self.activities else None
        self.preset_metadata: dict[str, str] = {}
        self._trace_metadata: dict[str, str] = {}

    def start(self) -> None:
        """Begin a trace."""
        self.prepare_trace()
        self.start_trace()

    def stop(self) -> None:
        """End the trace."""
        self.stop_trace()

    def prepare_trace(self) -> None:
        """Make the trace's autograd profiler (kept, with ``acc_events``, across cycles)."""
        if self.profiler is not None and not self.acc_events:
            warn("Warning: Profiler clears events at the end of each cycle. Only events from "
                 "the current cycle will be reported. To keep events across cycles, set "
                 "acc_events=True.", stacklevel=2)
        if self.profiler is None or not self.acc_events:
            self.profiler = _prof.profile(
                use_cpu=ProfilerActivity.CPU in self.activities, use_device=self.use_device,
                record_shapes=self.record_shapes, with_flops=self.with_flops,
                profile_memory=self.profile_memory, with_stack=self.with_stack,
                with_modules=self.with_modules, use_kineto=True,
                experimental_config=self.experimental_config, acc_events=self.acc_events,
                custom_trace_id_callback=self.custom_trace_id_callback,
                post_processing_timeout_s=self.post_processing_timeout_s,
                activity_filters=self.activity_filters or None)

    def start_trace(self) -> None:
        """Start recording."""
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before starting trace")
        self.profiler.__enter__()
        for flag in ("profile_memory", "with_stack", "record_shapes", "with_modules",
                     "with_flops"):
            if getattr(self, flag):
                self.add_metadata_json(flag, "1")
        for k, v in self.preset_metadata.items():
            self.add_metadata_json(k, v)

    def stop_trace(self) -> None:
        """Stop recording."""
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before stopping trace")
        self.profiler.__exit__(None, None, None)

    def export_chrome_trace(self, path: str, use_python_export: bool = False) -> None:
        """Write the trace (Chrome format; ``.gz``: compressed), with the metadata added.
        ``use_python_export``: PyTorch's choice of exporter; arraygrad has only one."""
        if self.profiler is None:
            raise AssertionError("Expected profiler to be initialized before exporting trace")
        self.profiler.export_chrome_trace(path)
        if self._trace_metadata:
            import gzip

            opener: Any = gzip.open if str(path).endswith(".gz") else open
            with opener(path, "rt") as fh:
                trace = json.load(fh)
            trace.update({k: _metadata_value(v) for k, v in self._trace_metadata.items()})
            with opener(path, "wt") as fh:
                json.dump(trace, fh)

    def export_stacks(self, path: str, metric: str = "self_cpu_time_total") -> None:
        """Write the stacks (``with_stack``) with ``metric``, for flame graphs."""
        if self.profiler is None:
            raise AssertionError("Expected profiler to be initialized before exporting stacks")
        self.profiler.export_stacks(path, metric)

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> EventList:
        """The events averaged by key (``EventList.key_averages``)."""
        if self.profiler is None:
            raise AssertionError("Expected profiler to be initialized before calling "
                                 "key_averages")
        return self.profiler.key_averages(group_by_input_shape, group_by_stack_n,
                                          group_by_overload_name)

    def events(self) -> EventList:
        """The unaggregated events of the last trace."""
        if self.profiler is None:
            raise AssertionError("Expected profiler to be initialized before calling events")
        return self.profiler.function_events

    def add_metadata(self, key: str, value: str) -> None:
        """Add a string to the trace's metadata."""
        self._trace_metadata[key] = '"' + value.replace('"', '\\"') + '"'

    def add_metadata_json(self, key: str, value: str) -> None:
        """Add a JSON text to the trace's metadata."""
        self._trace_metadata[key] = value

    def preset_metadata_json(self, key: str, value: str) -> None:
        """Metadata added to every trace when it starts."""
        self.preset_metadata[key] = value


def _metadata_value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


class profile(_KinetoProfile):
    """Profiler context manager, ``torch.profiler.profile``.

    ``activities``: ``ProfilerActivity.CPU`` (op and backward-node times) and
    ``ProfilerActivity.CUDA`` (device time, see ``autograd.profiler``); default the
    ``supported_activities()``. ``schedule``: a callable step -> ``ProfilerAction`` (see
    ``schedule``); ``on_trace_ready``: called with the profiler when a trace is complete.
    ``record_shapes``, ``profile_memory``, ``with_stack``, ``with_flops``, ``with_modules``:
    as in ``autograd.profiler.profile``. ``acc_events``: keep the events of every cycle.
    ``use_cuda`` is deprecated (``activities``). ``execution_trace_observer`` is refused
    (NotImplementedError): arraygrad records no execution trace.
    """

    def __init__(self, *, activities: Iterable[Any] | None = None,
                 schedule: Callable[[int], ProfilerAction] | None = None,
                 on_trace_ready: Callable[..., Any] | None = None, record_shapes: bool = False,
                 profile_memory: bool = False, with_stack: bool = False,
                 with_flops: bool = False, with_modules: bool = False,
                 experimental_config: Any = None, execution_trace_observer: Any = None,
                 acc_events: bool = False, use_cuda: bool | None = None,
                 custom_trace_id_callback: Callable[[], str] | None = None,
                 post_processing_timeout_s: float | None = None) -> None:
        chosen: set[ProfilerActivity] = set()
        if activities is not None:
            for item in activities:
                chosen.update(item if isinstance(item, dict) else (item,))
        else:
            chosen = supported_activities()
        if use_cuda is not None:
            warn("`use_cuda` is deprecated, use `activities` argument instead", FutureWarning,
                 stacklevel=2)
            if use_cuda:
                chosen.add(ProfilerActivity.CUDA)
            else:
                chosen.discard(ProfilerActivity.CUDA)
            activities = sorted(chosen)
        if not chosen:
            raise AssertionError("No valid profiler activities found")
        super().__init__(activities=activities, record_shapes=record_shapes,
                         profile_memory=profile_memory, with_stack=with_stack,
                         with_flops=with_flops, with_modules=with_modules,
                         experimental_config=experimental_config,
                         execution_trace_observer=execution_trace_observer,
                         acc_events=acc_events, custom_trace_id_callback=custom_trace_id_callback,
                         post_processing_timeout_s=post_processing_timeout_s)
        self.schedule = schedule if schedule else _default_schedule_fn
        self.record_steps = bool(schedule)  # step markers in the trace and table
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.step_rec_fn: _prof.record_function | None = None
        action = self.schedule(self.step_num)
        _check_action(action)
        self.current_action = action
        self.action_map = self._actions()
        KinetoStepTracker.init_step_count(PROFILER_STEP_NAME)

    def _actions(self) -> dict[tuple[ProfilerAction, ProfilerAction | None], list[Any]]:
        """PyTorch's table: (previous action, next action) -> what to do."""
        A = ProfilerAction
        prepare, start, stop, ready = (self.prepare_trace, self.start_trace, self.stop_trace,
                                       self._trace_ready)
        return {
            (A.NONE, A.NONE): [], (A.NONE, A.WARMUP): [prepare],
            (A.NONE, A.RECORD): [prepare, start], (A.NONE, A.RECORD_AND_SAVE): [prepare, start],
            (A.WARMUP, A.NONE): [partial(warn, "Incorrect schedule: WARMUP followed by NONE"),
                                 start, stop],
            (A.WARMUP, A.WARMUP): [], (A.WARMUP, A.RECORD): [start],
            (A.WARMUP, A.RECORD_AND_SAVE): [start],
            (A.RECORD, A.NONE): [partial(warn, "Incorrect schedule: RECORD followed by NONE"),
                                 stop],
            (A.RECORD, A.WARMUP): [partial(warn, "Incorrect schedule: RECORD followed by "
                                                 "WARMUP"), stop],
            (A.RECORD, A.RECORD): [], (A.RECORD, A.RECORD_AND_SAVE): [],
            (A.RECORD_AND_SAVE, A.NONE): [stop, ready],
            (A.RECORD_AND_SAVE, A.WARMUP): [stop, ready, prepare],
            (A.RECORD_AND_SAVE, A.RECORD): [stop, ready, prepare, start],
            (A.RECORD_AND_SAVE, A.RECORD_AND_SAVE): [stop, ready, prepare, start],
            (A.WARMUP, None): [start, stop], (A.RECORD, None): [stop, ready],
            (A.RECORD_AND_SAVE, None): [stop, ready],
        }

    def __enter__(self) -> profile:
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()
        KinetoStepTracker.erase_step_count(PROFILER_STEP_NAME)

    def start(self) -> None:
        """Begin profiling (the action of step 0)."""
        self._transit_action(ProfilerAction.NONE, self.current_action)
        if self.record_steps:
            self.step_rec_fn = _prof.record_function(f"ProfilerStep#{self.step_num}")
            self.step_rec_fn.__enter__()

    def stop(self) -> None:
        """End profiling: the last trace, if recording, is ready."""
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        self._transit_action(self.current_action, None)

    def step(self) -> None:
        """The next step starts: do what the schedule says for it."""
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        prev_action = self.current_action
        action = self.schedule(self.step_num + 1)
        _check_action(action)  # before any state changes
        self.step_num += 1
        self.current_action = action
        self._transit_action(prev_action, action)
        if os.environ.get("KINETO_USE_DAEMON", ""):  # PyTorch counts steps for Kineto then
            KinetoStepTracker.increment_step(PROFILER_STEP_NAME)
        if self.record_steps:
            self.step_rec_fn = _prof.record_function(f"ProfilerStep#{self.step_num}")
            self.step_rec_fn.__enter__()

    def set_custom_trace_id_callback(self, callback: Callable[[], str]) -> None:
        """The trace id generator, called as each cycle starts."""
        self.custom_trace_id_callback = callback

    def get_trace_id(self) -> str | None:
        """The current trace's id (None before any)."""
        return None if self.profiler is None else self.profiler.trace_id

    def _trace_ready(self) -> None:
        if self.on_trace_ready:
            self.on_trace_ready(self)

    def _transit_action(self, prev: ProfilerAction, current: ProfilerAction | None) -> None:
        for action in self.action_map.get((prev, current), ()):
            action()

    def total_average(self) -> FunctionEventAvg:
        """Every event of the last trace added up."""
        return self.events().total_average()


def _check_action(action: Any) -> None:
    if action == ProfilerAction.DEVICE_STOPPED:
        raise ValueError("ProfilerAction.DEVICE_STOPPED is set internally by the profiler and "
                         "must not be returned by a user-provided schedule")
