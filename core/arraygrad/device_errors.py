"""The device errors PyTorch names at its top level: ``OutOfMemoryError`` and
``AcceleratorError`` (both ``RuntimeError``s, as in PyTorch)."""

from __future__ import annotations

__all__ = ["AcceleratorError", "OutOfMemoryError"]


class OutOfMemoryError(RuntimeError):
    """A device ran out of memory (``torch.OutOfMemoryError``, also ``torch.cuda.OutOfMemoryError``)."""


class AcceleratorError(RuntimeError):
    """An accelerator runtime reported an error (``torch.AcceleratorError``)."""
