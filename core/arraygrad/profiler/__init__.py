"""``arraygrad.profiler``: PyTorch's ``torch.profiler``, on arraygrad's own profiler.

``profile`` times every op and backward node (``activities``: CPU, and CUDA device time),
over the steps a ``schedule`` marks active, handing each trace to ``on_trace_ready``
(``tensorboard_trace_handler`` writes Chrome traces); ``record_function`` labels a block.

>>> with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
...     model(x).sum().backward()
>>> print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=10))
"""

from __future__ import annotations

from typing import Unpack

from arraygrad.autograd.profiler import KinetoStepTracker, kineto_available, record_function
from arraygrad.autograd.profiler_types import DeviceType, ProfilerActivity
from arraygrad.optim.optimizer import Optimizer, register_optimizer_step_post_hook
from arraygrad.profiler import profiler
from arraygrad.profiler.profiler import (
    ProfilerAction, profile, schedule, supported_activities, tensorboard_trace_handler,
)

__all__ = ["profile", "schedule", "supported_activities", "tensorboard_trace_handler",
           "ProfilerAction", "ProfilerActivity", "kineto_available", "DeviceType",
           "record_function", "KinetoStepTracker", "Optimizer",
           "register_optimizer_step_post_hook", "is_fbcode", "profiler", "Unpack"]


def is_fbcode() -> bool:
    """Whether this is Meta's internal build of PyTorch: never."""
    return False
