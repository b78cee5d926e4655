"""``arraygrad.utils.benchmark``: PyTorch's ``torch.utils.benchmark``: ``Timer`` (timing a
statement: ``timeit``, ``blocked_autorange``, ``adaptive_autorange``), ``Measurement`` (its
times, statistics and printed summary) and ``Compare`` (tables of many measurements).

>>> t = Timer("x @ x", setup="x = torch.rand(64, 64)", label="matmul")
>>> t.blocked_autorange(min_run_time=0.5)
"""

from arraygrad.utils.benchmark.utils import common as _common, timer as _timer_module
from arraygrad.utils.benchmark.utils.common import (Measurement, TaskSpec, ordered_unique,
                                                    select_unit, set_torch_threads, trim_sigfig,
                                                    unit_to_english)
from arraygrad.utils.benchmark.utils.compare import Colorize, Compare
from arraygrad.utils.benchmark.utils.timer import Language, Timer, timer
from arraygrad.utils.benchmark import utils

__all__ = ["Colorize", "Compare", "Language", "Measurement", "TaskSpec", "Timer",
           "ordered_unique", "select_unit", "set_torch_threads", "timer", "trim_sigfig",
           "unit_to_english", "utils"]

_ = (_common, _timer_module)
