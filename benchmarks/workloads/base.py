"""The shape of a workload: per implementation, a prepared callable and the gradients it gives."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable


@dataclass
class Impl:
    """One implementation of a workload: ``run()`` does the timed work and returns gradients
    as a list of NumPy arrays (checked once against the NumPy floor)."""

    run: Callable[[], list]


@dataclass
class Workload:
    """A named workload, its unit, how to turn seconds into that unit, and its implementations."""

    name: str
    unit: str
    scale: float
    impls: dict = field(default_factory=dict)
    repeats: int = 30
    rtol: float = 1e-3
    note: str = ""


def to_numpy(t):
    """A tensor's (or array's) values as a NumPy array, for the gradient check."""
    import numpy as np

    if hasattr(t, "detach"):
        t = t.detach()
        return np.asarray(t.cpu().numpy() if hasattr(t, "cpu") else t.numpy())
    return np.asarray(t)


def try_torch():
    """PyTorch if installed (the bench extra), else None."""
    try:
        import torch

        torch.set_num_threads(1)
        return torch
    except ImportError:
        return None
