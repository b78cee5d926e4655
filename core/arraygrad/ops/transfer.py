"""Moving tensors between devices and dtypes: ``Tensor.to``, ``.cpu()``, ``.cuda()``.

A move records PyTorch's ``ToCopyBackward0`` (its own rule, ``TO_COPY_DEVICE``, whose node is named
like a dtype cast's, as PyTorch's ``_to_copy`` is one op): one node for ``to(device, dtype)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arraygrad import dtypes as _dt
from arraygrad.allocation_errors import allocating
from arraygrad.backends.registry import backend_for_device
from arraygrad.device import as_device, device as _device
from arraygrad.layouts import check_memory_format
from arraygrad.ops.casting import to_dtype
from arraygrad.ops.rule import ELEMENTWISE, VIA_VJP, defop
from arraygrad.tensor import Tensor

if TYPE_CHECKING:
    from arraygrad.ops.rule import RuleNode
    from arraygrad.backends.contract import Backend

_CPU = _device("cpu")

__all__ = ["to", "to_backend", "clone"]


def _move(data: Any, src: Backend, dst: Backend) -> Any:
    """``data`` from backend ``src`` to ``dst``: DLPack when possible, else through the host
    (to a backend stacked over ``src``, a vmap level: its view of it, ``lift``)."""
    if _stacked_over(dst, src):
        return dst.lift(data)  # type: ignore[attr-defined]
    if src.device_type == dst.device_type and src.device_type != "cpu":
        try:
            return dst.from_dlpack(data)
        except Exception:
            pass
    return dst.from_host(src.to_host(data))


def default_cpu_backend() -> Any:
    """The backend ``"cpu"`` means (``Tensor.cpu()``'s target)."""
    return backend_for_device(_CPU)


def _move_back(g: Tensor, n: RuleNode) -> Tensor:
    """The gradient of a device move: ``g`` moved back to the input's backend (the cast back
    to the input's dtype is the recorder's)."""
    return g if g._backend is n.self_backend else to_backend(g, n.self_backend)


# PyTorch records a device move as ``_to_copy``, the node of a dtype cast too
TO_COPY_DEVICE = defop("ToCopyBackward0", jvp=VIA_VJP, key="ToCopyDeviceBackward0", params=("self_backend",),
                       vjp=(_move_back,), complex=True)


def _stacked_over(have: Backend, backend: Backend) -> bool:
    """Whether ``have`` is a backend stacked over ``backend`` (``backends.stacking``: a vmap
    level's): its tensors are on that device already (``x.to(x.device)`` inside vmap keeps
    a batched ``x`` as it is)."""
    from arraygrad.backends.stacking import outer_backend

    return outer_backend(have, backend) is have


def to_backend(t: Tensor, backend: Backend, dtype: _dt.dtype | None = None) -> Tensor:
    """``t`` on another backend, in ``dtype`` if given (differentiable: the gradient moves
    back, and is cast back to ``t``'s dtype)."""
    if (t._backend is backend or _stacked_over(t._backend, backend)
            or getattr(t._backend, "_real", None) is backend):
        # (the last: ``arraygrad.compile``'s recording view of this very backend)
        return t if dtype is None else to_dtype(t, dtype)
    data = _move(t._data, t._backend, backend)
    if dtype is not None:
        native = backend.native_dtype(dtype)
        if data.dtype != native:
            data = backend.xp.astype(data, native)
    return TO_COPY_DEVICE.record(data, backend, (t,), self_backend=t._backend)


def _parse(args: Any, kwargs: Any) -> tuple[Any, ...]:
    dev = kwargs.pop("device", None)
    dt = kwargs.pop("dtype", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)  # copies are synchronous: each is complete when made
    # every memory format gives row-major results (``arraygrad.layouts``): checked, not used
    fmt = kwargs.pop("memory_format", None)
    if fmt is not None:
        check_memory_format(fmt, "to", None)
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


def to(t: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """``t`` on another device and/or dtype: ``to(device)``, ``to(dtype)``, ``to(other)``.
    Every ``memory_format`` gives a row-major result (``arraygrad.layouts``)."""
    if kwargs and kwargs.get("memory_format") is not None:
        check_memory_format(kwargs["memory_format"], "to", t.ndim)
    dev, dt, copy = _parse(args, kwargs)
    if dev is not None:
        out = to_backend(t, backend_for_device(dev), dt)
    elif dt is not None:
        out = to_dtype(t, dt)
    else:
        out = t
    if copy and out is t:
        out = t.clone()
    return out


CLONE = defop("CloneBackward0", jvp=ELEMENTWISE, vjp=(lambda g, n: g,), complex=True)


@allocating("clone")
def clone(input: Tensor, *, memory_format: Any = None) -> Tensor:
    """A copy of ``input`` with its own memory, still in the graph (row-major whatever the
    ``memory_format``: ``arraygrad.layouts``)."""
    if memory_format is not None:
        check_memory_format(memory_format, "clone", input.ndim)
    return CLONE.record(input._backend.xp.asarray(input._data, copy=True), input._backend,
                        (input,))
