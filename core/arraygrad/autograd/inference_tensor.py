"""``torch.is_inference``: whether a tensor is an inference tensor."""

from __future__ import annotations

from typing import Any

from arraygrad.tensor import Tensor

__all__ = ["is_inference"]


def is_inference(input: Any) -> bool:
    """Whether ``input`` is an inference tensor: made under ``inference_mode``, or a view of
    such a tensor (it cannot then be updated in place, saved for backward or set to require
    grad outside ``inference_mode``)."""
    if not isinstance(input, Tensor):
        raise TypeError("is_inference(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return input.is_inference()
