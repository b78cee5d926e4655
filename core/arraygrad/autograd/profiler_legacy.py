"""``torch.autograd.profiler_legacy``: PyTorch's profiler from before Kineto, whose ``profile``
takes the keywords of the time (``use_cuda``, ``record_shapes``, ``with_flops``,
``profile_memory``, ``with_stack``, ``with_modules``). arraygrad has one profiler: this is
``autograd.profiler.profile``, which takes them all."""

from __future__ import annotations

from arraygrad.autograd.profiler import profile

__all__ = ["profile"]
