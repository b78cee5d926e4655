"""The NumPy backend's kernel of NLL over class targets (``cross_entropy``'s, ``nll_loss``'s):
each row's loss read at one flat position, and the gradient's rows written at the same
positions, instead of the portable one-hot compare of every class of every row."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["nll_class_rows"]

_WIDE = (np.dtype(np.float32), np.dtype(np.float64))


def nll_class_rows(xp: Any, x: Any, t: Any, denom: int, reduction: str) -> Any:
    """``loss._nll_class_rows`` on NumPy arrays, its values bit for bit: ``(losses, picks)``
    of (N, C) log-probabilities ``x`` and class targets ``t`` (every one a class below C),
    the picks ``-1/denom`` at each row's target and ``-0.0`` elsewhere (the portable
    one-hot's ``0 * (-1/denom)``). ``NotImplemented`` for other arrays and dtypes (float16
    and bfloat16 sum in float32 there)."""
    if type(x) is not np.ndarray or type(t) is not np.ndarray or x.dtype not in _WIDE:
        return NotImplemented
    n, c = x.shape
    positions = np.arange(0, n * c, c, dtype=t.dtype)
    positions += t
    picked = x.reshape(-1).take(positions)
    # (a 0-d array, not NumPy's scalar: a compiled step records the kernel's results as arrays)
    data = -picked if reduction == "none" else np.asarray(-np.add.reduce(picked) / denom)
    picks = np.empty((n, c), x.dtype)
    picks.fill(-0.0)  # (the array's method: NumPy's ``full`` is two Python frames more)
    picks.reshape(-1)[positions] = -1.0 / denom
    return data, picks
