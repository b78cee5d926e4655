"""The helpers of ``torch._utils`` that user code and distributed wrappers call:
``_flatten_dense_tensors`` (tensors joined into one 1-D buffer) and
``_unflatten_dense_tensors`` (a buffer cut back into tensors shaped like given ones).
"""

from __future__ import annotations

from typing import Any, Sequence

from arraygrad.tensor import Tensor

__all__ = ["_flatten_dense_tensors", "_unflatten_dense_tensors"]


def _flatten_dense_tensors(tensors: Sequence[Tensor]) -> Tensor:
    """One contiguous 1-D tensor holding every tensor's elements in order (``cat`` of the
    flattened tensors; a single tensor is flattened alone)."""
    from arraygrad.ops.shape import cat

    tensors = list(tensors)
    if len(tensors) == 1:
        return tensors[0].reshape(-1).clone()
    return cat([t.reshape(-1) for t in tensors], 0)


def _unflatten_dense_tensors(flat: Tensor, tensors: Sequence[Tensor]) -> tuple[Any, ...]:
    """``flat`` cut into consecutive pieces with the shapes of ``tensors`` (views of
    ``flat``)."""
    outputs = []
    offset = 0
    for t in tensors:
        n = t.numel()
        outputs.append(flat.narrow(0, offset, n).view(tuple(t.shape)))
        offset += n
    return tuple(outputs)
