"""The profiler's enums, with PyTorch's member names and values: ``DeviceType`` (where an
event ran) and ``ProfilerActivity`` (what ``torch.profiler.profile(activities=...)`` times)."""

from __future__ import annotations

import enum

__all__ = ["DeviceType", "ProfilerActivity"]


class DeviceType(enum.IntEnum):
    """A device kind, as ``torch.autograd.DeviceType`` (c10's ``DeviceType``)."""

    CPU = 0
    CUDA = 1
    MKLDNN = 2
    OPENGL = 3
    OPENCL = 4
    IDEEP = 5
    HIP = 6
    FPGA = 7
    MAIA = 8
    XLA = 9
    Vulkan = 10
    Metal = 11
    XPU = 12
    MPS = 13
    Meta = 14
    HPU = 15
    VE = 16
    Lazy = 17
    IPU = 18
    MTIA = 19
    PrivateUse1 = 20


class ProfilerActivity(enum.IntEnum):
    """What a profile times: ``CPU`` (every op and backward node, on the host clock) and
    ``CUDA`` (their device time, by the device backend's timing events); arraygrad has no
    XPU, MTIA, HPU or PrivateUse1 backends to time."""

    CPU = 0
    XPU = 1
    CUDA = 2
    HPU = 3
    MTIA = 4
    PrivateUse1 = 5
