"""arraygrad's versions of ``torch._utils._rebuild_*``: the functions a checkpoint calls to make
its tensors, each checking every argument before it allocates anything.

A checkpoint's pickle says ``torch._utils._rebuild_tensor_v2(storage, offset, size,
stride, requires_grad, backward_hooks)``; the unpicklers (``_unpickler.py``)
resolve that name to :func:`_rebuild_tensor_v2` here, and the pickler
(``_pickler.py``) writes these functions under their ``torch._utils`` names, so
the names must stay PyTorch's.
"""

from __future__ import annotations

import math
import reprlib
import threading
from typing import TYPE_CHECKING, Any, Callable

from arraygrad import dtypes as _dt
from arraygrad.serialization._limits import MAX_EXPANDED_BYTES, LoadBudget, load_limits
from arraygrad.serialization._storage import Storage
from arraygrad.tensor import Tensor

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend

__all__ = ["MAX_EXPANDED_BYTES", "REBUILD_FUNCTIONS", "UNSUPPORTED_REBUILDS", "device_mapper",
           "current_budget", "set_load_budget", "short_repr",
           "_rebuild_tensor", "_rebuild_tensor_v2", "_rebuild_tensor_v3", "_rebuild_parameter",
           "_rebuild_parameter_with_state", "_rebuild_from_type_v2",
           "_rebuild_device_tensor_from_cpu_tensor", "_rebuild_sparse_tensor", "_get_layout"]

def _bad(msg: str) -> RuntimeError:
    return RuntimeError(f"arraygrad.load: {msg}")


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


# The load in progress maps a device named inside the pickle (``_rebuild_device_tensor_from_
# cpu_tensor``) through its map_location; threads load independently.
_tls = threading.local()


def device_mapper() -> Callable[[str], str]:
    """The running load's ``location -> device`` mapping (the identity outside a load)."""
    mapper: Callable[[str], str] | None = getattr(_tls, "mapper", None)
    return mapper if mapper is not None else (lambda loc: loc)


def device_mapper_or_none() -> Callable[[str], str] | None:
    """The running load's mapping, or None outside a load."""
    mapper: Callable[[str], str] | None = getattr(_tls, "mapper", None)
    return mapper


def set_device_mapper(mapper: Callable[[str], str] | None) -> None:
    """Install (or, with None, remove) the running load's device mapping for this thread."""
    _tls.mapper = mapper


def current_budget() -> LoadBudget:
    """The running load's budget (a fresh one for a rebuild called outside a load)."""
    budget: LoadBudget | None = getattr(_tls, "budget", None)
    return budget if budget is not None else LoadBudget(load_limits())


def set_load_budget(budget: LoadBudget | None) -> LoadBudget | None:
    """Install (or, with None, remove) the running load's budget; returns the one it replaces
    (a load nested in a full unpickle puts the outer one back)."""
    outer: LoadBudget | None = getattr(_tls, "budget", None)
    _tls.budget = budget
    return outer


def backend_for_location(device: Any) -> Backend:
    """The backend serving ``device``, with PyTorch's hint when it is not available."""
    from arraygrad.backends import backend_for_device

    try:
        return backend_for_device(device)
    except RuntimeError as exc:
        raise RuntimeError(
            f"Attempting to deserialize object on device {str(device)!r}, which is not available "
            f"({exc}). If you are running on a CPU-only machine, please use arraygrad.load with "
            "map_location='cpu' to map your storages to the CPU.") from None


def _check_geometry(storage: Any, offset: Any, size: Any, stride: Any) -> tuple[
        Storage, int, tuple[int, ...], tuple[int, ...]]:
    """Validate a tensor's place in its storage, as ``setStorage`` does, before any allocation."""
    if not isinstance(storage, Storage):
        raise _bad(f"a tensor's storage is a {type(storage).__name__}, not a storage")
    if storage.dtype is None:
        raise _bad(f"the checkpoint holds a tensor of a dtype arraygrad does not have (its "
                   f"dtypes are {', '.join(d.name for d in _dt.ALL_DTYPES)})")
    if not _is_int(offset) or offset < 0:
        raise _bad(f"invalid storage offset {short_repr(offset)}")
    if (not isinstance(size, tuple) or not isinstance(stride, tuple) or len(size) != len(stride)
            or not all(_is_int(n) and n >= 0 for n in size)
            or not all(_is_int(s) and s >= 0 for s in stride)):
        raise _bad(f"invalid tensor geometry: size {short_repr(size)}, stride {short_repr(stride)}")
    numel = math.prod(size)
    itemsize = storage.dtype.itemsize
    if numel:
        span = sum((n - 1) * s for n, s in zip(size, stride)) + 1
        if offset + span > storage.size():
            raise RuntimeError(
                f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset "
                f"{offset}, and itemsize {itemsize} requiring a storage size of "
                f"{(offset + span) * itemsize} are out of bounds for storage of size "
                f"{storage.nbytes()}")
        if numel > span:  # more elements than positions: expanded (stride 0), overlapping
            # most operations on it make it real, so it counts whether or not it stays a view
            current_budget().charge(numel * itemsize, f"an expanded tensor of size {list(size)} "
                                                      f"and strides {list(stride)}")
    return storage, offset, size, stride


def short_repr(value: Any) -> str:
    """``repr`` of a value from a file, cut short in bounded time (a pickle's memo can make a
    value whose full repr would never finish)."""
    text = reprlib.repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


def _contiguous(size: tuple[int, ...], stride: tuple[int, ...]) -> bool:
    from arraygrad.ops.views import is_contiguous

    return is_contiguous(size, stride)


def _tensor_from(storage: Any, offset: Any, size: Any, stride: Any) -> Tensor:
    """A tensor with the elements ``storage[offset + sum(i * stride)]`` for each index ``i``.

    Every tensor of one storage is made from one array of the whole storage, as a view of it
    where the backend can view memory with strides (NumPy, CuPy): ``w`` and ``w.t()`` share
    memory after loading, as in PyTorch. Elsewhere a non-contiguous tensor is a copy, charged
    to the load's budget."""
    if isinstance(size, list):  # torch.Size pickles as a tuple; be lenient with lists
        size = tuple(size)
    if isinstance(stride, list):
        stride = tuple(stride)
    storage, offset, size, stride = _check_geometry(storage, offset, size, stride)
    backend = backend_for_location(storage.device)
    if storage.dtype not in backend.supported_dtypes():  # bfloat16 onto strict, say
        raise RuntimeError(f"the checkpoint holds a tensor of dtype {storage.dtype}, but device "
                           f"{storage.device} (backend {backend.name!r}) does not support dtype "
                           f"{storage.dtype}; load it with map_location='cpu'")
    key = (backend, offset, size, stride)
    cached = storage._views.get(key)
    if cached is None:  # tensors with the same place in one storage share memory, as in PyTorch
        cached = storage._views[key] = _view_of(storage, backend, offset, size, stride)
    return cached.detach()


def _view_of(storage: Storage, backend: Backend, offset: int, size: tuple[int, ...],
             stride: tuple[int, ...]) -> Tensor:
    """The tensor at one place of ``storage``: a view of its memory, but not an arraygrad view
    (no ``_base``) and with a version counter of its own, as PyTorch's loader makes separate
    tensors over one storage (tensors at the same place share this one: ``_tensor_from``)."""
    from arraygrad.autograd.grad_mode import no_grad
    from arraygrad.ops.families.strided import as_strided

    root = storage.root(backend)
    numel = math.prod(size)
    with no_grad():
        if offset == 0 and numel == root.numel() and _contiguous(size, stride):
            out = root.reshape(size)  # the whole storage
        else:
            out = as_strided(root, size, stride, offset)
            if out._base is None:  # the backend cannot view memory: a copy was made
                assert storage.dtype is not None
                current_budget().charge(numel * storage.dtype.itemsize,
                                        f"a copy of a strided tensor of size {list(size)}")
    out = out.detach()
    out._vc = None  # its own counter, made on first use
    if not _contiguous(size, stride):  # report PyTorch's strides (stride(), is_contiguous)
        out._strides = stride
    return out


def _set_requires_grad(t: Tensor, requires_grad: Any) -> Tensor:
    if not isinstance(requires_grad, bool):
        raise _bad(f"requires_grad must be a bool, got {type(requires_grad).__name__}")
    if requires_grad:
        t.requires_grad_(True)
    return t


def _check_hooks(backward_hooks: Any) -> None:
    # PyTorch writes an empty OrderedDict; hooks are functions, which a weights-only load refuses
    # by name before this runs, and a full load has no way to re-register them either.
    if backward_hooks is not None and not isinstance(backward_hooks, dict):
        raise _bad(f"backward_hooks must be a dict, got {type(backward_hooks).__name__}")


def _rebuild_tensor(storage: Any, storage_offset: Any, size: Any, stride: Any) -> Tensor:
    """``torch._utils._rebuild_tensor``: a tensor viewing ``storage``."""
    return _tensor_from(storage, storage_offset, size, stride)


def _rebuild_tensor_v2(storage: Any, storage_offset: Any, size: Any, stride: Any,
                       requires_grad: Any = False, backward_hooks: Any = None,
                       metadata: Any = None) -> Tensor:
    """``torch._utils._rebuild_tensor_v2``: what ``torch.save`` writes for every plain tensor."""
    _check_hooks(backward_hooks)
    if metadata and not isinstance(metadata, dict):
        raise _bad(f"tensor metadata must be a dict, got {type(metadata).__name__}")
    return _set_requires_grad(_tensor_from(storage, storage_offset, size, stride), requires_grad)


def _rebuild_tensor_v3(storage: Any, storage_offset: Any, size: Any, stride: Any,
                       requires_grad: Any, backward_hooks: Any, dtype: Any,
                       metadata: Any = None) -> Tensor:
    """``torch._utils._rebuild_tensor_v3``: a tensor of ``dtype`` over an untyped (byte) storage."""
    if not isinstance(storage, Storage):
        raise _bad(f"a tensor's storage is a {type(storage).__name__}, not a storage")
    if not isinstance(dtype, _dt.dtype):
        raise _bad(f"_rebuild_tensor_v3: dtype must be a dtype, got {short_repr(dtype)}")
    if storage.dtype is not dtype:
        if storage.nbytes() % dtype.itemsize:
            raise _bad(f"a storage of {storage.nbytes()} bytes does not hold whole {dtype} "
                       "elements")
        storage = storage.retyped(dtype)
    return _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad,
                              backward_hooks, metadata)


def _parameter(data: Any, requires_grad: Any) -> Tensor:
    from arraygrad.nn.parameter import Parameter

    if not isinstance(data, Tensor):
        raise _bad(f"a parameter's data is a {type(data).__name__}, not a tensor")
    if not isinstance(requires_grad, bool):
        raise _bad(f"requires_grad must be a bool, got {type(requires_grad).__name__}")
    p = Parameter(data, requires_grad=requires_grad)
    p._strides = data._strides
    return p


def _set_state(obj: Tensor, state: Any) -> None:
    """Restore Python attributes a tensor subclass pickled (``torch._utils._set_obj_state``).

    Only new attributes: a name the class already has (``_data``, ``grad``...) is refused, so
    a file cannot rewire a tensor's internals.
    """
    if not state:
        return
    if isinstance(state, tuple) and len(state) == 2:
        dict_state, slots_state = state
        items = list((dict_state or {}).items()) + list((slots_state or {}).items())
    elif isinstance(state, dict):
        items = list(state.items())
    else:
        raise _bad(f"invalid tensor state of type {type(state).__name__}")
    for name, value in items:
        if not isinstance(name, str) or hasattr(type(obj), name) or name in ("__dict__",
                                                                           "__class__"):
            raise _bad(f"refusing to set attribute {name!r} of a loaded tensor")
        setattr(obj, name, value)


def _rebuild_parameter(data: Any, requires_grad: Any, backward_hooks: Any) -> Tensor:
    """``torch._utils._rebuild_parameter``: what ``torch.save`` writes for an ``nn.Parameter``."""
    _check_hooks(backward_hooks)
    return _parameter(data, requires_grad)


def _rebuild_parameter_with_state(data: Any, requires_grad: Any, backward_hooks: Any,
                                  state: Any) -> Tensor:
    """``torch._utils._rebuild_parameter_with_state``: a parameter with Python attributes."""
    _check_hooks(backward_hooks)
    p = _parameter(data, requires_grad)
    _set_state(p, state)
    return p


def _rebuild_from_type_v2(func: Any, new_type: Any, args: Any, state: Any) -> Tensor:
    """``torch._tensor._rebuild_from_type_v2``: a tensor (subclass) with Python attributes."""
    if not any(func is f for f in REBUILD_FUNCTIONS.values()):
        raise _bad(f"_rebuild_from_type_v2: {short_repr(func)} is not a rebuild function")
    if not isinstance(args, tuple):
        raise _bad("_rebuild_from_type_v2: args must be a tuple")
    ret = func(*args)
    if not (isinstance(new_type, type) and issubclass(new_type, Tensor)):
        raise _bad(f"_rebuild_from_type_v2: {short_repr(new_type)} is not a tensor class")
    if type(ret) is not new_type:  # PyTorch's ret.as_subclass(new_type): the same data
        sub = object.__new__(new_type)
        sub._init_from(ret._data, ret._backend)
        sub._vc = ret._version_counter()
        sub._strides = ret._strides
        sub._requires_grad = ret._requires_grad
        ret = sub
    _set_state(ret, state)
    return ret


def _rebuild_device_tensor_from_cpu_tensor(data: Any, dtype: Any, device: Any,
                                           requires_grad: Any) -> Tensor:
    """``torch._utils._rebuild_device_tensor_from_cpu_tensor``: a CPU tensor moved to ``device``."""
    from arraygrad.device import device as device_cls

    if not isinstance(data, Tensor) or not isinstance(dtype, _dt.dtype):
        raise _bad("_rebuild_device_tensor_from_cpu_tensor: invalid arguments")
    if not isinstance(device, (str, device_cls)):
        raise _bad(f"invalid device {short_repr(device)}")
    target = device_mapper()(str(device))
    backend_for_location(target)
    t = data.to(dtype=dtype).to(device=target)
    return _set_requires_grad(t.detach(), requires_grad)


def _get_layout(name: Any) -> Any:
    """``torch.serialization._get_layout``: the layout a checkpoint names (``"torch.sparse_coo"``)."""
    from arraygrad import layouts

    found = getattr(layouts, name[len("torch."):], None) if isinstance(name, str) and \
        name.startswith("torch.") else None
    if not isinstance(found, layouts.layout):
        raise _bad(f"invalid layout {short_repr(name)}")
    return found


def _rebuild_sparse_tensor(layout: Any, data: Any) -> Tensor:
    """``torch._utils._rebuild_sparse_tensor``: a sparse COO tensor from its indices, values,
    size (and whether it is coalesced), checked as ``sparse_coo_tensor`` checks them."""
    from arraygrad.layouts import layout as layout_cls, sparse_coo

    if not isinstance(layout, layout_cls):
        raise _bad(f"_rebuild_sparse_tensor: invalid layout {short_repr(layout)}")
    if layout is not sparse_coo:
        raise _bad(f"the checkpoint holds a sparse tensor of layout torch.{layout.name} "
                   "(torch._utils._rebuild_sparse_tensor); arraygrad's sparse tensors are COO "
                   "only")
    if not isinstance(data, tuple) or len(data) not in (3, 4):
        raise _bad("_rebuild_sparse_tensor: expected (indices, values, size[, is_coalesced])")
    indices, values, size = data[:3]
    coalesced = data[3] if len(data) == 4 else None
    if not isinstance(indices, Tensor) or not isinstance(values, Tensor) or \
            not isinstance(size, (tuple, list)) or not all(_is_int(n) for n in size) or \
            coalesced not in (None, True, False):
        raise _bad("_rebuild_sparse_tensor: invalid arguments")
    from arraygrad.sparse._creation import sparse_coo_tensor

    try:
        return sparse_coo_tensor(indices, values, tuple(size), is_coalesced=coalesced)
    except RuntimeError as error:
        raise _bad(f"invalid sparse tensor in the checkpoint: {error}") from None


def _unsupported(name: str, what: str) -> Callable[..., Tensor]:
    def rebuild(*args: Any, **kwargs: Any) -> Tensor:
        raise _bad(f"the checkpoint holds {what} (torch._utils.{name}); arraygrad has no such "
                   "tensors")

    rebuild.__name__ = rebuild.__qualname__ = name
    rebuild.__doc__ = f"``torch._utils.{name}``: refused ({what} are not supported)."
    return rebuild


REBUILD_FUNCTIONS: dict[str, Callable[..., Tensor]] = {
    f.__name__: f for f in (_rebuild_tensor, _rebuild_tensor_v2, _rebuild_tensor_v3,
                            _rebuild_parameter, _rebuild_parameter_with_state,
                            _rebuild_device_tensor_from_cpu_tensor, _rebuild_sparse_tensor)}
"""``torch._utils.<name>`` -> arraygrad's function."""

UNSUPPORTED_REBUILDS: dict[str, Callable[..., Tensor]] = {
    name: _unsupported(name, what) for name, what in (
        ("_rebuild_qtensor", "quantized tensors"),
        ("_rebuild_meta_tensor_no_storage", "meta-device tensors"),
        ("_rebuild_nested_tensor", "nested tensors"),
        ("_rebuild_wrapper_subclass", "wrapper-subclass tensors"),
        ("_rebuild_device_tensor_from_numpy", "NumPy-backed device tensors"))}
"""``torch._utils.<name>`` of tensor kinds arraygrad lacks: a clear error instead of a bare
"unsupported global"."""
