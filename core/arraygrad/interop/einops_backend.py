"""arraygrad's einops backend: ``rearrange``, ``reduce``, ``repeat``, ``einsum``, ``pack`` and
``unpack`` on arraygrad tensors, recorded like any op (gradients flow), as einops' own torch
backend does for PyTorch. Defining the class registers it (einops lists ``AbstractBackend``'s
subclasses); ``einops_hook`` does that when einops is imported."""

from __future__ import annotations

import sys
from typing import Any

from einops._backends import AbstractBackend

from arraygrad import creation, dtypes
from arraygrad.ops import shape
from arraygrad.tensor import Tensor

__all__ = ["ArraygradBackend"]

_FLOATING = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)


class ArraygradBackend(AbstractBackend):
    """einops' view of ``Tensor`` (the methods einops' torch backend has)."""

    framework_name = "arraygrad"

    def is_appropriate_type(self, tensor: Any) -> bool:
        return isinstance(tensor, Tensor)

    def from_numpy(self, x: Any) -> Tensor:
        variable = creation.from_numpy(x)
        if self.is_float_type(variable):  # as einops' torch backend: floats require grad
            variable.requires_grad = True
        return variable

    def to_numpy(self, x: Tensor) -> Any:
        return x.detach().cpu().numpy()

    def arange(self, start: int, stop: int) -> Tensor:
        return creation.arange(start, stop, dtype=dtypes.int64)

    def reduce(self, x: Tensor, operation: str, reduced_axes: Any) -> Tensor:
        if operation == "min":
            return x.amin(dim=reduced_axes)
        if operation == "max":
            return x.amax(dim=reduced_axes)
        if operation in ("sum", "mean"):
            return getattr(x, operation)(dim=reduced_axes)
        if operation in ("any", "all", "prod"):  # one dimension at a time, as in PyTorch
            for i in sorted(reduced_axes)[::-1]:
                x = getattr(x, operation)(dim=i)
            return x
        raise NotImplementedError("Unknown reduction ", operation)

    def transpose(self, x: Tensor, axes: Any) -> Tensor:
        return x.permute(axes)

    def stack_on_zeroth_dimension(self, tensors: list[Any]) -> Tensor:
        return shape.stack(tensors)

    def add_axes(self, x: Tensor, n_axes: int, pos2len: dict[int, int]) -> Any:
        repeats = [-1] * n_axes
        for axis_position, axis_length in pos2len.items():
            x = self.add_axis(x, axis_position)
            repeats[axis_position] = axis_length
        return x.expand(repeats)

    def tile(self, x: Tensor, repeats: Any) -> Tensor:
        return x.repeat(repeats)

    def concat(self, tensors: list[Any], axis: int) -> Tensor:
        return shape.cat(tensors, dim=axis)

    def add_axis(self, x: Tensor, new_position: int) -> Tensor:
        return shape.unsqueeze(x, new_position)

    def is_float_type(self, x: Tensor) -> bool:
        return x.dtype in _FLOATING

    def layers(self) -> Any:
        raise NotImplementedError("einops has no layers for arraygrad: use "
                                  "einops.rearrange/reduce inside a Module's forward")

    def einsum(self, pattern: str, *x: Tensor) -> Tensor:
        # the public namespace's einsum, read when called: ``import arraygrad`` installs this
        # backend's hook, so importing the namespace (or the einsum family, which does) here
        # would close an import cycle
        return sys.modules["arraygrad"].einsum(pattern, *x)
