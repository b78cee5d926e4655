"""``arraygrad.autograd``: backward, grad, custom Functions, grad modes, the legacy Variable."""

from arraygrad.autograd import (
    forward_ad, functional, graph, profiler, profiler_legacy, profiler_util,
)
from arraygrad.autograd.anomaly_mode import (
    detect_anomaly, is_anomaly_check_nan_enabled, is_anomaly_enabled, set_detect_anomaly,
)
from arraygrad.autograd.api import backward, grad
from arraygrad.autograd.function import Function, FunctionCtx, once_differentiable
from arraygrad.autograd.grad_mode import (
    enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad,
    set_grad_enabled,
)
from arraygrad.autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck
from arraygrad.autograd.graph import Node, RawSavedTensor as SavedTensor
from arraygrad.autograd.multithreading import (
    is_multithreading_enabled, set_multithreading_enabled,
)
from arraygrad.autograd.profiler import kineto_available
from arraygrad.autograd.profiler_types import DeviceType, ProfilerActivity
from arraygrad.autograd.variable import Variable

graph.Variable = Variable  # type: ignore[attr-defined]  # PyTorch's graph module has it

__all__ = [
    "detect_anomaly", "forward_ad", "functional", "profiler", "is_anomaly_check_nan_enabled", "is_anomaly_enabled",
    "set_detect_anomaly",
    "Function", "FunctionCtx", "GradcheckError", "Node", "gradcheck", "gradgradcheck", "Variable", "backward", "enable_grad", "grad",
    "inference_mode", "is_grad_enabled", "is_inference_mode_enabled", "no_grad",
    "once_differentiable", "set_grad_enabled", "profiler_legacy", "profiler_util", "graph",
    "SavedTensor", "is_multithreading_enabled", "set_multithreading_enabled",
    "kineto_available", "DeviceType", "ProfilerActivity",
]
