"""``arraygrad.utils.tensorboard``: PyTorch's ``torch.utils.tensorboard``: ``SummaryWriter``
writing TensorBoard event files through the ``tensorboard`` package (scalars, histograms,
images, text, hyperparameters), as PyTorch does.

PyTorch's module needs ``tensorboard`` installed too. Here the module imports without it and
naming ``SummaryWriter``, ``FileWriter`` or ``RecordWriter`` raises the ImportError that
importing ``torch.utils.tensorboard`` raises (``pip install tensorboard``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["FileWriter", "RecordWriter", "SummaryWriter"]


def __getattr__(name: str) -> Any:
    if name in ("writer", "summary"):  # its modules, as PyTorch's
        import importlib

        return importlib.import_module(f"arraygrad.utils.tensorboard.{name}")
    if name in ("FileWriter", "SummaryWriter", "RecordWriter"):
        from arraygrad.utils.tensorboard import writer

        return getattr(writer, name)
    raise AttributeError(f"module 'arraygrad.utils.tensorboard' has no attribute {name!r}")
