"""Strided-view kernels for backends whose arrays have strides (NumPy, CuPy).

The Array API has no strides, so ``as_strided`` and ``Tensor.unfold`` compute a copy by
default, and has no way to read an array's bytes as another dtype (``Tensor.view(dtype)``). A
library that can make a strided view of an array's memory gives these kernels (through
``Backend.kernel``), and the results are then views as in PyTorch: an in-place change through
them is seen by their base, and the other way round.

``strided_kernels(array_type, as_strided)``: ``as_strided(array, shape, byte_strides)`` is the
library's (``numpy.lib.stride_tricks.as_strided``). A kernel returns ``NotImplemented`` for an
array it cannot view (not the library's array, or memory not laid out as the caller thinks),
and the op then takes its portable copy.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

__all__ = ["strided_kernels"]


def strided_kernels(array_type: Any, as_strided: Callable[..., Any]) -> dict[str, Callable[..., Any]]:
    """``{"as_strided": ..., "unfold": ..., "view_dtype": ...}`` for ``Backend.kernel`` (see the
    module docstring)."""

    def storage_view(a: Any, a_strides: Sequence[int], size: Sequence[int],
                     stride: Sequence[int], offset: int) -> Any:
        """The view of ``a``'s memory whose element ``i`` sits at storage position ``offset +
        sum(i[k] * stride[k])``; ``a`` is a root tensor's array whose storage is dense with
        logical strides ``a_strides`` (in elements)."""
        if type(a) is not array_type or a.size == 0:
            return NotImplemented
        item = a.itemsize
        for n, memory, logical in zip(a.shape, a.strides, a_strides):
            if n > 1 and memory != logical * item:
                return NotImplemented  # the memory is not laid out as the strides say
        flat = as_strided(a, (a.size,), (item,))  # the storage, in storage order
        return as_strided(flat[offset:], tuple(size), tuple(s * item for s in stride))

    def unfold(a: Any, dim: int, size: int, step: int) -> Any:
        """The windows of ``size`` elements every ``step`` along ``dim``, as a new last
        dimension, over ``a``'s own memory (any strides)."""
        if type(a) is not array_type or a.ndim == 0:
            return NotImplemented
        count = (a.shape[dim] - size) // step + 1
        shape = a.shape[:dim] + (count,) + a.shape[dim + 1:] + (size,)
        s = a.strides
        return as_strided(a, shape, s[:dim] + (s[dim] * step,) + s[dim + 1:] + (s[dim],))

    def view_dtype(a: Any, native_dtype: Any) -> Any:
        """``a``'s bytes read as ``native_dtype`` (the last dimension rescaled when the
        element sizes differ; the caller has checked PyTorch's conditions)."""
        if type(a) is not array_type:
            return NotImplemented
        if a.ndim and a.shape[-1] > 1 and a.strides[-1] != a.itemsize:
            return NotImplemented  # the last dimension's memory is not contiguous
        try:
            return a.view(native_dtype)
        except (ValueError, TypeError):
            return NotImplemented

    return {"as_strided": storage_view, "unfold": unfold, "view_dtype": view_dtype}
