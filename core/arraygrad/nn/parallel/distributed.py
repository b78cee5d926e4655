"""``DistributedDataParallel``: the name, for imports and ``isinstance`` checks.

Multi-process training comes with ``arraygrad.distributed`` (a later issue); until then
constructing one raises NotImplementedError saying so.
"""

from __future__ import annotations

from typing import Any

from arraygrad.nn.modules.module import Module

__all__ = ["DistributedDataParallel"]


class DistributedDataParallel(Module):
    """PyTorch's multi-process data-parallel wrapper; not available yet (see module docstring).

    ``isinstance(model, DistributedDataParallel)`` works (and is False for every model).
    """

    def __init__(self, module: Module, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(
            "arraygrad.nn.parallel.DistributedDataParallel needs multi-process training, which "
            "comes with arraygrad.distributed (not available yet). On one process use the "
            "module itself, or nn.DataParallel (the identity wrapper on one device).")

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        """Never reached: construction raises."""
        raise NotImplementedError("DistributedDataParallel is not available yet")
