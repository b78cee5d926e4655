"""NumPy values as operands of tensor ops: ``t + a``, ``a * t``, ``t < a``, ``t @ a`` with a
NumPy array ``a``, and NumPy's scalars (``np.bool_(True) * t``).

PyTorch hands an array operand of its operators to NumPy and wraps NumPy's answer as a tensor,
so the result is a tensor in *NumPy's* result dtype (a float32 tensor plus an int64 array is
float64). arraygrad gives the same tensor in the same dtype, but computes it with its own ops
on the array's memory (``as_tensor``: no copy): both operands are cast to NumPy's result dtype
first, so the recorder sees an ordinary op and a tensor that requires grad gets its gradient
(PyTorch refuses it: docs/differences.md). NumPy's scalars are Python numbers of their kind, as
PyTorch takes them.

Only arrays of the CPU backend's array type (NumPy's ``ndarray``) are taken, and only with a
CPU tensor: a tensor on a device raises the TypeError PyTorch's ``numpy()`` raises there.
Nothing here names NumPy: the CPU backend says what its arrays are and how they promote.
"""

from __future__ import annotations

from typing import Any

from arraygrad import dtypes as _dt
from arraygrad.tensor import Tensor

__all__ = ["host_array", "host_scalar", "promoted_pair"]


def _cpu_array_type() -> Any:
    from arraygrad.backends import backend_for_device

    try:
        return backend_for_device("cpu").array_type
    except RuntimeError:  # no backend serves the CPU (plugin autoload off): no host arrays
        return None


def host_array(value: Any) -> bool:
    """Whether ``value`` is an array of the CPU backend's own type (a NumPy ``ndarray``)."""
    if not hasattr(value, "__array__") or isinstance(value, Tensor):
        return False
    array_type = _cpu_array_type()
    return array_type is not None and isinstance(value, array_type)


def host_scalar(value: Any) -> Any:
    """The Python number a NumPy scalar (``np.bool_``, ``np.float32``...) stands for; None
    when ``value`` is not one."""
    if (not hasattr(value, "__array__") or getattr(value, "ndim", None) != 0
            or isinstance(value, Tensor) or not callable(getattr(value, "item", None))
            or host_array(value)):
        return None
    item = value.item()
    return item if isinstance(item, (bool, int, float)) else None


def promoted_pair(op: str, a: Any, b: Any, floating: bool = False) -> tuple[Tensor, Tensor]:
    """``a`` and ``b`` (a tensor and a host array, either order) as two tensors in NumPy's
    result dtype of the pair (true division ``floating``: float64 for two integer operands,
    as NumPy's); the tensor keeps its graph through the cast."""
    from arraygrad.creation import as_tensor

    tensor, array = (a, b) if isinstance(a, Tensor) else (b, a)
    backend = tensor._backend
    if backend.device_type != "cpu":
        raise TypeError(f"can't convert {tensor.device} device type tensor to numpy. Use "
                        "Tensor.cpu() to copy the tensor to host memory first.")
    try:
        native = backend.xp.result_type(backend.native_dtype(tensor.dtype), array.dtype)
        d = backend.arraygrad_dtype(native)
    except (TypeError, ValueError, KeyError) as exc:
        raise TypeError(f"{op}: a {tensor.dtype} tensor and a NumPy array of dtype "
                        f"{array.dtype} have no common arraygrad dtype ({exc})") from None
    if floating and not d.is_floating_point:
        d = _dt.float64
    held = as_tensor(array, device=tensor.device)  # the array's memory, not a copy
    if held.dtype is not d:
        held = held.to(d)
    if tensor.dtype is not d:
        tensor = tensor.to(d)
    return (tensor, held) if isinstance(a, Tensor) else (held, tensor)
