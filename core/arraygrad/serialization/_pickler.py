"""The save side: pickle an object the way ``torch.save`` does, tensors by reference to storages.

Every tensor becomes ``torch._utils._rebuild_tensor_v2(storage, offset, size,
stride, requires_grad, OrderedDict())`` (a parameter ``_rebuild_parameter(tensor,
requires_grad, OrderedDict())``), its storage a persistent id ``('storage',
torch.FloatStorage, key, location, numel)``. arraygrad's rebuild functions,
``Size``, ``device`` and dtypes are written under PyTorch's names, so PyTorch
loads the file; anything else pickles as itself (whole modules by their
arraygrad module path, loadable with ``weights_only=False``).

A storage is a view's root tensor (``_base``), written once however many
tensors view it. arraygrad keeps no storage offsets, so a view's offset is
found by replaying the view on an index tensor of its root and checking the
result is exactly ``offset + sum(i * stride)``; a view that does not check out
(or whose values differ from its root's) is written as its own storage.
"""

from __future__ import annotations

import io
import math
import pickle
from collections import OrderedDict
from typing import Any

from arraygrad import dtypes as _dt
from arraygrad.device import device as _device
from arraygrad.serialization import _rebuild
from arraygrad.serialization._storage import (
    STORAGE_NAME, STORAGE_TYPES, UNTYPED_DTYPES, little_endian_bytes,
)
from arraygrad import layouts as _layouts
from arraygrad.tensor import Size, Tensor, wrap

__all__ = ["dump"]


def _torch_names() -> dict[int, tuple[str, str, Any]]:
    """id(arraygrad object) -> (PyTorch module, name, the object) for the GLOBALs PyTorch reads."""
    from arraygrad.nn.parameter import Parameter

    table: list[tuple[Any, str, str]] = [
        (_rebuild._rebuild_tensor_v2, "torch._utils", "_rebuild_tensor_v2"),
        (_rebuild._rebuild_tensor_v3, "torch._utils", "_rebuild_tensor_v3"),
        (STORAGE_TYPES["UntypedStorage"], "torch.storage", "UntypedStorage"),
        (_rebuild._rebuild_parameter, "torch._utils", "_rebuild_parameter"),
        (_rebuild._rebuild_parameter_with_state, "torch._utils", "_rebuild_parameter_with_state"),
        (_rebuild._rebuild_from_type_v2, "torch._tensor", "_rebuild_from_type_v2"),
        (_rebuild._rebuild_sparse_tensor, "torch._utils", "_rebuild_sparse_tensor"),
        (_rebuild._get_layout, "torch.serialization", "_get_layout"),
        (Size, "torch", "Size"), (_device, "torch", "device"), (Tensor, "torch", "Tensor"),
        (Parameter, "torch.nn.parameter", "Parameter")]
    table += [(d, "torch", d.name) for d in _dt.ALL_DTYPES]
    table += [(STORAGE_TYPES[name], "torch", name) for name in STORAGE_NAME.values()]
    return {id(obj): (module, name, obj) for obj, module, name in table}


class _StorageRef:
    """One storage being written: pickled as its persistent id."""

    __slots__ = ("key", "dtype", "location", "numel", "backend", "array", "strides")

    def __init__(self, key: str, dtype: _dt.dtype, location: str, backend: Any, array: Any,
                 strides: tuple[int, ...]) -> None:
        self.key = key
        self.dtype = dtype
        self.location = location
        self.numel = math.prod(array.shape)
        self.backend = backend
        self.array = array  # its row-major elements are the storage
        self.strides = strides  # the owning tensor's strides over it


def _location(t: Tensor) -> str:
    """PyTorch's location tag: ``cpu`` or ``<type>:<index>`` (the registered taggers':
    ``serialization.register_package``)."""
    from arraygrad.serialization._options import location_tag
    from arraygrad.serialization._storage import Storage

    return location_tag(Storage(b"", t.dtype, t.device))


def _contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    from arraygrad.ops.views import contiguous_strides

    return tuple(contiguous_strides(shape))


def _memory_order(t: Tensor) -> tuple[Any, tuple[int, ...]] | None:
    """``(array, strides)`` laying out a non-contiguous tensor that is no view as PyTorch would
    hold it (a transposed or expanded tensor loaded from a checkpoint, the ``detach()`` of a
    view): its distinct elements in memory order and its own strides; None when its strides
    describe no dense layout."""
    strides = t._strides
    shape = tuple(t.shape)
    if strides is None or len(strides) != len(shape):
        return None
    xp = t._backend.xp
    # an expanded (stride-0) dimension holds one element in memory
    key = tuple(slice(0, 1) if s == 0 and n > 1 else slice(None) for n, s in zip(shape, strides))
    reduced = tuple(1 if s == 0 else n for n, s in zip(shape, strides))
    order = sorted(range(len(shape)), key=lambda d: -strides[d])
    expected = 1
    for d in reversed(order):
        if reduced[d] == 1:
            continue
        if strides[d] != expected:
            return None
        expected *= reduced[d]
    return xp.permute_dims(t._data[key], tuple(order)), tuple(strides)


class _Storages:
    """The storages of one save, keyed by the root array they hold."""

    def __init__(self) -> None:
        self.refs: dict[int, _StorageRef] = {}
        self._index: dict[int, Tensor] = {}  # id(root array) -> its elements' storage positions
        self._keep: list[Any] = []  # keeps the keyed arrays alive, so ids stay unique

    def _ref(self, owner: Tensor) -> _StorageRef:
        """The storage holding ``owner``'s elements (in memory order) and its strides over it."""
        ref = self.refs.get(id(owner._data))
        if ref is None:
            layout = _memory_order(owner) if owner._strides is not None else None
            array, strides = layout if layout is not None else (
                owner._data, _contiguous_strides(tuple(owner.shape)))
            ref = _StorageRef(str(len(self.refs)), owner.dtype, _location(owner),
                              owner._backend, array, strides)
            self.refs[id(owner._data)] = ref
            self._keep.append(owner._data)
        return ref

    def locate(self, t: Tensor) -> tuple[_StorageRef, int, tuple[int, ...]]:
        """``(storage, offset, stride)`` for tensor ``t``."""
        root = t._base
        if root is not None and root.dtype is t.dtype:
            found = self._in_root(t, root)
            if found is not None:
                return found
        ref = self._ref(t)
        return ref, 0, ref.strides

    def _positions(self, root: Tensor, ref: _StorageRef) -> Tensor:
        """An index tensor shaped like ``root``: each element's position in its storage."""
        index = self._index.get(id(root._data))
        if index is None:
            xp = root._backend.xp
            shape = tuple(root.shape)
            dtype = xp.int32 if ref.numel < 2 ** 31 else xp.int64
            positions = xp.zeros(shape, dtype=dtype)
            for d, (n, s) in enumerate(zip(shape, ref.strides)):
                dims = [1] * len(shape)
                dims[d] = n
                positions = positions + xp.reshape(xp.arange(n, dtype=dtype) * s, tuple(dims))
            index = self._index[id(root._data)] = wrap(positions, root._backend)
        return index

    def _in_root(self, t: Tensor, root: Tensor) -> tuple[_StorageRef, int, tuple[int, ...]] | None:
        from arraygrad.autograd.grad_mode import no_grad
        from arraygrad.ops.views import strides_of

        if t.dtype is not root.dtype:  # view_as_real/complex: its parts, stored on its own
            return None
        xp = root._backend.xp
        ref = self._ref(root)
        try:
            with no_grad():
                mapped = t._view.replay(self._positions(root, ref))
        except Exception:  # a view kind that cannot replay on integers: store t on its own
            return None
        shape = tuple(t.shape)
        if tuple(mapped.shape) != shape:
            return None
        stride = tuple(strides_of(t))
        if math.prod(shape) == 0:
            return ref, 0, stride
        flat = xp.reshape(mapped._data, (-1,))
        offset = int(flat[0])
        expected = xp.full(shape, offset, dtype=flat.dtype)
        for d, (n, s) in enumerate(zip(shape, stride)):
            dims = [1] * len(shape)
            dims[d] = n
            expected = expected + xp.reshape(xp.arange(n, dtype=flat.dtype) * s, tuple(dims))
        if not bool(xp.all(mapped._data == expected)):
            return None
        # the view's elements must be the root's (true on backends whose views alias memory)
        mine = xp.reshape(t._data, (-1,))
        theirs = xp.take(xp.reshape(ref.array, (-1,)), flat)
        same = mine == theirs
        if t.dtype.is_floating_point:
            same = same | (xp.isnan(mine) & xp.isnan(theirs))
        if not bool(xp.all(same)):
            return None
        return ref, offset, stride


# the Python implementation of pickle.Pickler (typed loosely: typeshed hides its internals)
_PyPickler: Any = getattr(pickle, "_Pickler")


class _CheckpointPickler(_PyPickler):
    """``pickle``'s Python pickler writing arraygrad objects under PyTorch's global names.

    The Python implementation is used because only it lets ``save_global`` be replaced:
    the C pickler insists a global be importable under its written name (``torch._utils``
    is not, without PyTorch).
    """

    def __init__(self, file: io.BytesIO, protocol: int, storages: _Storages) -> None:
        super().__init__(file, protocol=protocol)
        self._storages = storages
        self._names = _torch_names()

    def persistent_id(self, obj: Any) -> Any:
        if type(obj) is _StorageRef:
            if obj.dtype in UNTYPED_DTYPES:  # bytes, counted in bytes (PyTorch's form)
                return ("storage", STORAGE_TYPES["UntypedStorage"], obj.key, obj.location,
                        obj.numel * obj.dtype.itemsize)
            return ("storage", STORAGE_TYPES[STORAGE_NAME[obj.dtype]], obj.key, obj.location,
                    obj.numel)
        return None

    def reducer_override(self, obj: Any) -> Any:
        entry = self._names.get(id(obj))
        if entry is not None and entry[2] is obj:
            # a string reduces to save_global (the dispatch table would call the base
            # class's save_global for functions, skipping the override below)
            return entry[1]
        if isinstance(obj, Tensor):
            return self._reduce_tensor(obj)
        if type(obj) is Size:
            return (Size, (tuple(obj),))
        if type(obj) is _device:
            return (_device, (obj.type,) if obj.index is None else (obj.type, obj.index))
        if type(obj) is _layouts.layout:  # PyTorch writes a layout by its name
            return (_rebuild._get_layout, (f"torch.{obj.name}",))
        return NotImplemented

    def _reduce_tensor(self, t: Tensor) -> Any:
        from arraygrad.nn.parameter import Parameter, is_lazy

        if is_lazy(t):  # no data yet: its class and requires_grad, as PyTorch writes it
            return (type(t), (t.requires_grad,))
        if t.is_sparse:  # its indices and values tensors, as PyTorch writes a COO tensor
            return (_rebuild._rebuild_sparse_tensor,
                    (t.layout, (t._indices(), t._values(), t.size(), t.is_coalesced())))
        if t.dtype not in STORAGE_NAME and t.dtype not in UNTYPED_DTYPES:
            raise TypeError(f"arraygrad.save: unsupported dtype {t.dtype}")
        state = {k: v for k, v in vars(t).items() if not hasattr(Tensor, k)}
        if isinstance(t, Parameter):
            plain = t.detach()
            plain._strides = t._strides
            pargs: tuple[Any, ...] = (plain, t.requires_grad, OrderedDict())
            if type(t) is Parameter:  # as Parameter.__reduce_ex__ writes it
                if not state:
                    return (_rebuild._rebuild_parameter, pargs)
                return (_rebuild._rebuild_parameter_with_state, (*pargs, state))
            # a subclass keeps its type (PyTorch would write a plain Parameter)
            return (_rebuild._rebuild_from_type_v2,
                    (_rebuild._rebuild_parameter_with_state, type(t), (*pargs, state), {}))
        ref, offset, stride = self._storages.locate(t)
        args: tuple[Any, ...] = (ref, offset, tuple(t.shape), stride, t.requires_grad,
                                 OrderedDict())
        rebuild: Any = _rebuild._rebuild_tensor_v2
        if t.dtype in UNTYPED_DTYPES:  # an untyped storage and the dtype, as PyTorch writes
            rebuild, args = _rebuild._rebuild_tensor_v3, (*args, t.dtype)
        if type(t) is Tensor and not state:
            return (rebuild, args)
        return (_rebuild._rebuild_from_type_v2, (rebuild, type(t), args, state))

    def save_global(self, obj: Any, name: str | None = None) -> None:
        entry = self._names.get(id(obj))
        if entry is None or entry[2] is not obj:
            super().save_global(obj, name)
            return
        module, gname, _ = entry
        if self.proto >= 4:
            self.save(module)
            self.save(gname)
            self.write(pickle.STACK_GLOBAL)
        else:
            self.write(pickle.GLOBAL + f"{module}\n{gname}\n".encode("utf-8"))
        self.memoize(obj)


def dump(obj: Any, protocol: int) -> tuple[bytes, list[tuple[str, bytes]]]:
    """``obj``'s ``data.pkl`` bytes and its storages' ``(key, little-endian bytes)``."""
    storages = _Storages()
    buf = io.BytesIO()
    _CheckpointPickler(buf, protocol, storages).dump(obj)
    records = [(ref.key, little_endian_bytes(ref.backend, ref.array, ref.dtype.itemsize))
               for ref in storages.refs.values()]
    return buf.getvalue(), records
