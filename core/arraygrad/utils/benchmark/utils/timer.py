"""``Timer``: time a Python statement the way ``torch.utils.benchmark.Timer`` does (``timeit``,
``blocked_autorange``, ``adaptive_autorange``), returning ``Measurement``s; ``torch`` in the
statement is arraygrad."""

from __future__ import annotations

import enum
import textwrap
import timeit
from typing import Any, Callable

from arraygrad.utils.benchmark.utils import common

__all__ = ["Timer", "timer", "Language"]


def timer() -> float:
    """The clock: ``timeit.default_timer`` after waiting for the accelerator's queued work."""
    from arraygrad import accelerator

    if accelerator.is_available():
        accelerator.synchronize()
    return timeit.default_timer()


class Language(enum.Enum):
    """The language of a Timer's statement."""

    PYTHON = 0
    CPP = 1


class Timer:
    """Time ``stmt`` after ``setup``, with ``globals`` (``torch`` is arraygrad unless given).

    ``label``, ``sub_label``, ``description`` and ``env`` name the measurement for printing
    and ``Compare``. ``num_threads`` is recorded in the measurement; arraygrad has no thread
    pool of its own to set (its backend's library sizes its own). Only Python statements are
    timed: ``language="cpp"`` (PyTorch compiles C++ against libtorch) raises ValueError.
    """

    _timer_cls: type[timeit.Timer] = timeit.Timer

    def __init__(self, stmt: str = "pass", setup: str = "pass", global_setup: str = "",
                 timer: Callable[[], float] = timer, globals: dict[str, Any] | None = None,
                 label: str | None = None, sub_label: str | None = None,
                 description: str | None = None, env: str | None = None,
                 num_threads: int = 1, language: Language | str = Language.PYTHON) -> None:
        import arraygrad

        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        self._globals = dict(globals or {})
        if language in (Language.PYTHON, "py", "python"):
            self._globals.setdefault("torch", arraygrad)
            self._language = Language.PYTHON
            if global_setup:
                raise ValueError(f"global_setup is C++ only, got `{global_setup}`. Most likely "
                                 "this code can simply be moved to `setup`.")
        elif language in (Language.CPP, "cpp", "c++"):
            raise ValueError("language='cpp' times C++ compiled against PyTorch's libtorch; "
                             "arraygrad has no C++ library, so only Python statements are timed")
        else:
            raise ValueError(f"Invalid language `{language}`.")
        stmt = textwrap.dedent(stmt)
        stmt = (stmt[1:] if stmt and stmt[0] == "\n" else stmt).rstrip()
        setup = textwrap.dedent(setup)
        setup = (setup[1:] if setup and setup[0] == "\n" else setup).rstrip()
        self._timer = self._timer_cls(stmt=stmt, setup=setup, timer=timer, globals=self._globals)
        self._task_spec = common.TaskSpec(stmt=stmt, setup=setup, global_setup=global_setup,
                                          label=label, sub_label=sub_label,
                                          description=description, env=env,
                                          num_threads=num_threads)

    def _timeit(self, number: int) -> float:
        return max(self._timer.timeit(number), 1e-9)  # never 0: divided by later

    def timeit(self, number: int = 1000000) -> common.Measurement:
        """Run the statement ``number`` times (after a warm-up of ``number // 100``); one
        measurement, as ``timeit.Timer.timeit``."""
        self._timeit(number=max(int(number // 100), 2))
        return common.Measurement(number_per_run=number, raw_times=[self._timeit(number=number)],
                                  task_spec=self._task_spec)

    def repeat(self, repeat: int = -1, number: int = -1) -> None:
        """Not provided, as in PyTorch: see ``blocked_autorange``."""
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback: Callable[[int, float], Any] | None = None) -> None:
        """Not provided, as in PyTorch: see ``blocked_autorange``."""
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _measurement_loop(self, number: int, time_hook: Callable[[], float],
                          stop_hook: Callable[[list[float]], bool], min_run_time: float,
                          max_run_time: float | None = None,
                          callback: Callable[[int, float], Any] | None = None) -> list[float]:
        total_time = 0.0
        can_stop = False
        times: list[float] = []
        while (total_time < min_run_time) or (not can_stop):
            time_spent = time_hook()
            times.append(time_spent)
            total_time += time_spent
            if callback:
                callback(number, time_spent)
            can_stop = stop_hook(times)
            if max_run_time and total_time > max_run_time:
                break
        return times

    def _estimate_block_size(self, min_run_time: float) -> int:
        """Runs per block: grown tenfold until the clock's overhead is under 0.01% of a block
        and a block lasts a thousandth of ``min_run_time``."""
        overheads = sorted(self._timeit(0) for _ in range(5))
        overhead = overheads[2]
        number = 1
        while True:
            time_taken = self._timeit(number)
            if overhead / time_taken <= 1e-4 and time_taken >= min_run_time / 1000:
                break
            if time_taken > min_run_time or number * 10 > 2147483647:
                break
            number *= 10
        return number

    def blocked_autorange(self, callback: Callable[[int, float], Any] | None = None,
                          min_run_time: float = 0.2) -> common.Measurement:
        """Time blocks of runs (the block size chosen so the clock's overhead is negligible)
        until ``min_run_time`` seconds are spent; ``callback(number, seconds)`` after each."""
        number = self._estimate_block_size(min_run_time)
        times = self._measurement_loop(number, lambda: self._timeit(number), lambda t: True,
                                       min_run_time=min_run_time, callback=callback)
        return common.Measurement(number_per_run=number, raw_times=times,
                                  task_spec=self._task_spec)

    def adaptive_autorange(self, threshold: float = 0.1, *, min_run_time: float = 0.01,
                           max_run_time: float = 10.0,
                           callback: Callable[[int, float], Any] | None = None,
                           ) -> common.Measurement:
        """Like ``blocked_autorange``, going on until the interquartile range is under
        ``threshold`` of the median (at least 4 blocks and ``min_run_time`` seconds) or
        ``max_run_time`` seconds are spent."""
        number = self._estimate_block_size(min_run_time=0.05)

        def stop_hook(times: list[float]) -> bool:
            if len(times) > 3:
                return common.Measurement(number_per_run=number, raw_times=times,
                                          task_spec=self._task_spec
                                          ).meets_confidence(threshold=threshold)
            return False

        times = self._measurement_loop(number, lambda: self._timeit(number), stop_hook,
                                       min_run_time, max_run_time, callback=callback)
        return common.Measurement(number_per_run=number, raw_times=times,
                                  task_spec=self._task_spec)
