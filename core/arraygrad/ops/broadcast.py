"""Broadcasting: the result shape, and undoing it in one place (``sum_to``)."""

from __future__ import annotations

from arraygrad.ops._record import backward_node, record
from arraygrad.tensor import Tensor

__all__ = ["broadcast_shapes", "sum_to", "reduce_grad"]


def broadcast_shapes(op: str, *shapes) -> tuple:
    """The broadcast of ``shapes``; RuntimeError naming the op and shapes if incompatible."""
    ndim = max(len(s) for s in shapes)
    out = [1] * ndim
    for s in shapes:
        offset = ndim - len(s)
        for i, n in enumerate(s):
            j = i + offset
            if n != 1:
                if out[j] != 1 and out[j] != n:
                    raise RuntimeError(
                        f"{op}: shapes {' and '.join(str(list(x)) for x in shapes)} cannot be "
                        f"broadcast together (mismatch at dimension {j - ndim})")
                out[j] = n
    return tuple(out)


def _sum_to_backward(node, g):
    shape = node.args
    return g.expand(shape)


SumToSizeBackward0 = backward_node("SumToSizeBackward0", _sum_to_backward)


def sum_to(g: Tensor, shape: tuple) -> Tensor:
    """Sum ``g`` over the dimensions broadcasting added, so it has ``shape``.

    The single place where broadcasting is undone in every backward.
    """
    gshape = g._data.shape
    if gshape == shape:
        return g
    lead = len(gshape) - len(shape)
    axes = list(range(lead))
    for i, n in enumerate(shape):
        if n == 1 and gshape[lead + i] != 1:
            axes.append(lead + i)
    xp = g._backend.xp
    data = xp.sum(g._data, axis=tuple(axes)) if axes else g._data
    data = xp.reshape(data, shape)
    return record(data, g._backend, SumToSizeBackward0, (g,), args=tuple(gshape))


def reduce_grad(g: Tensor, like_shape: tuple, like_dtype) -> Tensor:
    """``g`` summed to an input's shape and cast to its native dtype (after promotion)."""
    if g._data.shape != like_shape:
        g = sum_to(g, like_shape)
    if g._data.dtype != like_dtype:
        from arraygrad.ops.elementwise import to_native

        g = to_native(g, like_dtype)
    return g
