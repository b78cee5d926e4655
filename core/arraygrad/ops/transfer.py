"""Moving tensors between devices and dtypes: ``Tensor.to``, ``.cpu()``, ``.cuda()``."""

from __future__ import annotations

from arraygrad import dtypes as _dt
from arraygrad.backends.registry import backend_for_device
from arraygrad.device import as_device, device as _device
from arraygrad.ops._record import backward_node, record
from arraygrad.ops.elementwise import to_dtype
from arraygrad.tensor import Tensor

_CPU = _device("cpu")

__all__ = ["to", "to_backend", "clone"]


def _move(data, src, dst):
    """``data`` from backend ``src`` to ``dst``: DLPack when possible, else through the host."""
    if src.device_type == dst.device_type and src.device_type != "cpu":
        try:
            return dst.from_dlpack(data)
        except Exception:
            pass
    return dst.from_host(src.to_host(data))


def _transfer_backward(node, g):
    return to_backend(g, node.args)


# PyTorch records a device move as ``_to_copy``: its node is ToCopyBackward0 (as a dtype cast)
ToCopyBackward0 = backward_node("ToCopyBackward0", _transfer_backward)


def default_cpu_backend():
    """The backend ``"cpu"`` means (``Tensor.cpu()``'s target)."""
    return backend_for_device(_CPU)


def to_backend(t: Tensor, backend) -> Tensor:
    """``t`` on another backend (differentiable: the gradient moves back)."""
    if t._backend is backend:
        return t
    data = _move(t._data, t._backend, backend)
    return record(data, backend, ToCopyBackward0, (t,), args=t._backend)


def _parse(args, kwargs):
    dev = kwargs.pop("device", None)
    dt = kwargs.pop("dtype", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    if kwargs:
        raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
    for a in args:
        if isinstance(a, _dt.dtype):
            dt = a
        elif isinstance(a, Tensor):
            dev, dt = a.device, a.dtype
        elif isinstance(a, (str, _device, int)) and not isinstance(a, bool):
            dev = as_device(a)
        elif isinstance(a, bool):
            continue  # non_blocking / copy positional flags
        else:
            raise TypeError(f"to() received an invalid argument of type {type(a).__name__}")
    return dev, dt, copy


def to(t: Tensor, *args, **kwargs) -> Tensor:
    """``t`` on another device and/or dtype: ``to(device)``, ``to(dtype)``, ``to(other)``."""
    dev, dt, copy = _parse(args, kwargs)
    out = t
    if dev is not None:
        out = to_backend(out, backend_for_device(dev))
    if dt is not None:
        out = to_dtype(out, dt)
    if copy and out is t:
        out = t.clone()
    return out


def _clone_backward(node, g):
    return g


CloneBackward0 = backward_node("CloneBackward0", _clone_backward)


def clone(t: Tensor) -> Tensor:
    """A copy of ``t`` with its own memory, still in the graph."""
    return record(t._backend.xp.asarray(t._data, copy=True), t._backend, CloneBackward0, (t,))
