"""PyTorch's deprecated ``add(input, Number alpha, Tensor other)`` and ``sub`` forms, which
PyTorch 2.13 still accepts with a UserWarning (``torch.add(x, 2, y)``, ``x.add_(2, y)``)."""

from __future__ import annotations

import os
import sys
import warnings
from numbers import Number
from types import FrameType
from typing import Any

from arraygrad.tensor import Tensor

__all__ = ["alpha_first"]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _caller_stacklevel() -> int:
    """The ``stacklevel`` of the first frame outside arraygrad (where PyTorch's C++ warning
    points: the user's line), counted from the ``warnings.warn`` call in ``alpha_first``."""
    frame: FrameType | None = sys._getframe(2)  # alpha_first's caller
    level = 2
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        frame = frame.f_back
        level += 1
    return level


def alpha_first(name: str, input: Any, other: Any, rest: tuple[Any, ...],
                alpha: Any) -> tuple[Any, Any, Any]:
    """``(input, other, alpha)`` of ``name(input, alpha, other)``, the deprecated form, after
    PyTorch's warning; TypeError for any other extra positional arguments."""
    if len(rest) != 1 or alpha != 1 or not isinstance(other, Number) or \
            isinstance(other, bool) or not isinstance(rest[0], Tensor):
        raise TypeError(f"{name}() takes 2 positional arguments but {2 + len(rest)} were given")
    warnings.warn(f"This overload of {name} is deprecated:\n\t{name}(Tensor input, Number "
                  f"alpha, Tensor other, *, Tensor out = None)\nConsider using one of the "
                  f"following signatures instead:\n\t{name}(Tensor input, Tensor other, *, "
                  f"Number alpha = 1, Tensor out = None)", UserWarning,
                  stacklevel=_caller_stacklevel())
    return input, rest[0], other
