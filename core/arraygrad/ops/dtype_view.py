"""``Tensor.view(dtype)``: a tensor's memory read as another dtype.

The Array API cannot reinterpret bytes, so this needs the backend's ``"view_dtype"`` kernel
(NumPy and CuPy have one, ``arraygrad.backends.strided``); the result is then a view, as in
PyTorch, outside the graph (PyTorch's is not differentiable either). Viewing as the tensor's
own dtype needs no kernel.
"""

from __future__ import annotations

from arraygrad import dtypes as _dt
from arraygrad.ops.views import make_view, strides_of
from arraygrad.plugins.registry import dispatch_kernel
from arraygrad.tensor import Tensor

__all__ = ["view_as_dtype"]


def _no_kernel(*args: object) -> None:
    return None


def _check_sizes(input: Tensor, dtype: _dt.dtype) -> None:
    """PyTorch's conditions for element sizes that differ: the last dimension is rescaled."""
    old, new = input.dtype.itemsize, dtype.itemsize
    if old == new:
        return
    why = (f"to view {_dt.scalar_type_name(input.dtype)} as {_dt.scalar_type_name(dtype)} "
           f"(different element sizes)")
    if input.ndim == 0:
        raise RuntimeError(f"self.dim() cannot be 0 {why}")
    if input.shape[-1] != 1 and strides_of(input)[-1] != 1:
        raise RuntimeError(f"self.stride(-1) must be 1 {why}, but got {strides_of(input)[-1]}")
    if new > old and input.shape[-1] % (new // old):
        raise RuntimeError(f"self.size(-1) must be divisible by {new // old} {why}, but got "
                           f"{input.shape[-1]}")


def view_as_dtype(input: Tensor, dtype: _dt.dtype) -> Tensor:
    """``input``'s memory read as ``dtype`` (``Tensor.view(dtype)``)."""
    if not isinstance(dtype, _dt.dtype):
        raise TypeError(f"view(): argument 'dtype' must be torch.dtype, not {type(dtype).__name__}")
    if dtype is input.dtype:
        return input.detach()
    _check_sizes(input, dtype)
    backend = input._backend
    # no portable form: inside ``arraygrad.compile`` this kernel call breaks the graph
    data = dispatch_kernel("view_dtype", backend, _no_kernel, input._data,
                           backend.native_dtype(dtype))
    if data is None:
        raise RuntimeError(
            f"view(dtype): reading {_dt.scalar_type_name(input.dtype)} memory as "
            f"{_dt.scalar_type_name(dtype)} needs a backend that can view bytes as another dtype "
            f"(NumPy, CuPy); {backend.name} cannot. Use .to(dtype) for a converted copy.")
    out = Tensor._wrap(data, backend)
    return make_view(out, input, lambda base: view_as_dtype(base, dtype))
