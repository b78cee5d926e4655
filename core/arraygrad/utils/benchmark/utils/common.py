"""The benchmark's shared pieces: ``TaskSpec`` (what a Timer measures), ``Measurement`` (its
times, statistics and PyTorch's printed summary) and the unit helpers, as
``torch.utils.benchmark.utils.common``."""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import math
import struct
import textwrap
from typing import Any, Iterable, Iterator, cast

__all__ = ["TaskSpec", "Measurement", "select_unit", "unit_to_english", "trim_sigfig",
           "ordered_unique", "set_torch_threads"]

_MAX_SIGNIFICANT_FIGURES = 4
_MIN_CONFIDENCE_INTERVAL = 25e-9  # 25 ns
# a Measurement warns when its spread is suspect
_IQR_WARN_THRESHOLD = 0.1
_IQR_GROSS_WARN_THRESHOLD = 0.25


@dataclasses.dataclass(init=True, repr=False, eq=True, frozen=True)
class TaskSpec:
    """What a Timer measures (everything but its globals)."""

    stmt: str
    setup: str
    global_setup: str = ""
    label: str | None = None
    sub_label: str | None = None
    description: str | None = None
    env: str | None = None
    num_threads: int = 1

    @property
    def title(self) -> str:
        """A label for the measurement: ``label``, else the statement."""
        if self.label is not None:
            return self.label + (f": {self.sub_label}" if self.sub_label else "")
        if "\n" not in self.stmt:
            return self.stmt + (f": {self.sub_label}" if self.sub_label else "")
        return (f"stmt:{f' ({self.sub_label})' if self.sub_label else ''}\n"
                f"{textwrap.indent(self.stmt, '  ')}")

    def setup_str(self) -> str:
        """The setup, as the summary prints it (nothing for ``pass``)."""
        return ("" if (self.setup == "pass" or not self.setup)
                else f"setup:\n{textwrap.indent(self.setup, '  ')}" if "\n" in self.setup
                else f"setup: {self.setup}")

    def summarize(self) -> str:
        """The task's part of a Measurement's printed summary."""
        sections = [self.title, self.description or "", self.setup_str()]
        return "\n".join([f"{i}\n" if "\n" in i else i for i in sections if i])


_TASKSPEC_FIELDS = tuple(i.name for i in dataclasses.fields(TaskSpec))


def _quantile(ordered: tuple[float, ...], q: float) -> float:
    """The ``q`` quantile of sorted values, interpolating linearly (``torch.quantile``'s)."""
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


@dataclasses.dataclass(init=True, repr=False)
class Measurement:
    """The times a Timer measured (``raw_times``, each for ``number_per_run`` runs), with their
    statistics per run (``mean``, ``median``, ``iqr``) and PyTorch's printed summary."""

    number_per_run: int
    raw_times: list[float]
    task_spec: TaskSpec
    metadata: dict[Any, Any] | None = None  # for the user

    def __post_init__(self) -> None:
        self._sorted_times: tuple[float, ...] = ()
        self._warnings: tuple[str, ...] = ()
        self._median = self._mean = self._p25 = self._p75 = -1.0

    def __getattr__(self, name: str) -> Any:
        if name in _TASKSPEC_FIELDS:  # the task's fields read through (m.label, m.stmt...)
            return getattr(self.task_spec, name)
        return super().__getattribute__(name)

    @property
    def times(self) -> list[float]:
        """Seconds per run of each measurement."""
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def median(self) -> float:
        """The median time per run."""
        self._lazy_init()
        return self._median

    @property
    def mean(self) -> float:
        """The mean time per run."""
        self._lazy_init()
        return self._mean

    @property
    def iqr(self) -> float:
        """The interquartile range of the times per run."""
        self._lazy_init()
        return self._p75 - self._p25

    @property
    def significant_figures(self) -> int:
        """A rough count (1 to 4) of the median's significant figures, from the spread of the
        interquartile times (what ``Compare.trim_significant_figures`` uses)."""
        self._lazy_init()
        n_total = len(self._sorted_times)
        points = self._sorted_times[n_total // 4:math.ceil(3 * n_total / 4)]
        mean = sum(points) / len(points)
        std = math.sqrt(sum((p - mean) ** 2 for p in points) / len(points))
        confidence_interval = max(1.645 * std / math.sqrt(len(points)), _MIN_CONFIDENCE_INTERVAL)
        figures = math.floor(math.log10(self._median / confidence_interval))
        return min(max(figures, 1), _MAX_SIGNIFICANT_FIGURES)

    @property
    def has_warnings(self) -> bool:
        """Whether the spread of the times is suspect (the summary says how)."""
        self._lazy_init()
        return bool(self._warnings)

    def _lazy_init(self) -> None:
        if self.raw_times and not self._sorted_times:
            self._sorted_times = tuple(sorted(self.times))
            ordered = self._sorted_times
            self._median = _quantile(ordered, 0.5)
            self._mean = sum(ordered) / len(ordered)
            self._p25 = _quantile(ordered, 0.25)
            self._p75 = _quantile(ordered, 0.75)

            def add_warning(msg: str) -> None:
                rel_iqr = self.iqr / self.median * 100
                self._warnings += (f"  WARNING: Interquartile range is {rel_iqr:.1f}% of the "
                                   f"median measurement.\n           {msg}",)

            if not self.meets_confidence(_IQR_GROSS_WARN_THRESHOLD):
                add_warning("This suggests significant environmental influence.")
            elif not self.meets_confidence(_IQR_WARN_THRESHOLD):
                add_warning("This could indicate system fluctuation.")

    def meets_confidence(self, threshold: float = _IQR_WARN_THRESHOLD) -> bool:
        """Whether the interquartile range is under ``threshold`` of the median."""
        return self.iqr / self.median < threshold

    @property
    def title(self) -> str:
        """The task's title."""
        return self.task_spec.title

    @property
    def env(self) -> str:
        """The task's environment label ("Unspecified env" without one)."""
        return "Unspecified env" if self.task_spec.env is None else self.task_spec.env

    @property
    def as_row_name(self) -> str:
        """The row name ``Compare`` gives this measurement."""
        return self.sub_label or self.stmt or "[Unknown]"

    def __repr__(self) -> str:
        self._lazy_init()
        skip_line, newline = "MEASUREMENT_REPR_SKIP_LINE", "\n"
        n = len(self._sorted_times)
        time_unit, time_scale = select_unit(self._median)
        iqr_filter = "" if n >= 4 else skip_line
        repr_str = f"""
{object.__repr__(self)}
{self.task_spec.summarize()}
  {'Median: ' if n > 1 else ''}{self._median / time_scale:.2f} {time_unit}
  {iqr_filter}IQR:    {self.iqr / time_scale:.2f} {time_unit} ({self._p25 / time_scale:.2f} to {self._p75 / time_scale:.2f})
  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs {'per measurement,' if n > 1 else ','} {self.num_threads} thread{'s' if self.num_threads > 1 else ''}
{newline.join(self._warnings)}""".strip()  # noqa: E501 - PyTorch's layout
        return "\n".join(line for line in repr_str.splitlines(keepends=False)
                         if skip_line not in line)

    @staticmethod
    def merge(measurements: Iterable[Measurement]) -> list[Measurement]:
        """Replicates of one task merged into one Measurement (times per run, no metadata)."""
        grouped: collections.defaultdict[TaskSpec, list[Measurement]] = \
            collections.defaultdict(list)
        for m in measurements:
            grouped[m.task_spec].append(m)
        return [Measurement(number_per_run=1, raw_times=[t for m in group for t in m.times],
                            task_spec=task_spec, metadata=None)
                for task_spec, group in grouped.items()]


def _float32(x: float) -> float:
    return cast(float, struct.unpack("f", struct.pack("f", x))[0])


def select_unit(t: float) -> tuple[str, float]:
    """The unit (``ns``, ``us``, ``ms``, ``s``) and its scale that print ``t`` seconds with
    a few digits before the point."""
    time_unit = {-3: "ns", -2: "us", -1: "ms"}.get(int(math.log10(_float32(t)) // 3), "s")
    time_scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[time_unit]
    return time_unit, time_scale


def unit_to_english(u: str) -> str:
    """The unit's English name (``us`` -> ``microsecond``)."""
    return {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second"}[u]


def trim_sigfig(x: float, n: int) -> float:
    """``x`` rounded to ``n`` significant figures (computed in float32, as PyTorch's)."""
    if n != int(n):
        raise AssertionError("Number of significant figures must be an integer")
    magnitude = math.ceil(math.log10(abs(_float32(x))))
    scale = 10 ** (magnitude - n)
    return _float32(round(_float32(x / scale)) * _float32(scale))


def ordered_unique(elements: Iterable[Any]) -> list[Any]:
    """The distinct elements in first-seen order."""
    return list(dict.fromkeys(elements).keys())


@contextlib.contextmanager
def set_torch_threads(n: int) -> Iterator[None]:
    """Run the block with ``arraygrad.set_num_threads(n)`` (the backend's thread pools, through
    threadpoolctl), then restore the previous count."""
    from arraygrad.threads import get_num_threads, set_num_threads

    prior = get_num_threads()
    try:
        set_num_threads(n)
        yield
    finally:
        set_num_threads(prior)
