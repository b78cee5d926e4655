"""``SparseTensor``: a tensor in PyTorch's sparse COO layout (``layout == arraygrad.sparse_coo``).

A sparse tensor is a ``Tensor`` (``isinstance(s, Tensor)`` holds, as in PyTorch) whose
``_data`` is not one native array but a ``CooData``: the backend's ``indices`` array (int64,
``(sparse_dim, nnz)``), its ``values`` array (``(nnz, *dense_shape)``), the shape, and whether
the indices are known to be coalesced (sorted, no repeats). ``CooData`` answers ``shape``,
``dtype`` and ``ndim`` like an array, so what reads only a tensor's metadata (``size()``,
``numel()``, ``dtype``, the recorder's input metadata) works unchanged; everything else it
refuses with PyTorch's NotImplementedError ("Could not run 'aten::exp' with arguments from the
'SparseCPU' backend"): a dense op reached with a sparse tensor stops at its first array
operation instead of computing on the wrong object.

The ops PyTorch runs on sparse tensors are ``arraygrad.sparse``'s: it binds them as this
class's methods (``__repr__`` too), and the dense ops that take a sparse operand (``add``,
``mul``, ``mm``...) hand it there through ``sparse_ops``. This module holds the state only, so
those ops can import the class cheaply and sit below ``arraygrad.sparse`` in the import graph.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable, NoReturn

from arraygrad import layouts as _layouts
from arraygrad.tensor import Tensor, _new

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend

__all__ = ["CooData", "SparseTensor", "make_sparse", "refusal", "backend_key", "sparse_ops"]


def backend_key(device_type: str) -> str:
    """PyTorch's dispatch key of a sparse tensor on ``device_type``: ``SparseCPU``..."""
    return "Sparse" + (device_type.upper() if len(device_type) <= 4 else device_type.capitalize())


def refusal(op: str, key: str) -> NotImplementedError:
    """PyTorch's error for an op that has no sparse kernel, saying what to do here."""
    return NotImplementedError(
        f"Could not run 'aten::{op}' with arguments from the '{key}' backend: arraygrad's "
        f"sparse COO tensors (layout=arraygrad.sparse_coo) do not support {op}; convert with "
        ".to_dense() first (docs/sparse.md lists the sparse ops)")


class CooData:
    """A sparse COO tensor's arrays, in the place of a dense tensor's native array.

    ``indices``: int64 ``(sparse_dim, nnz)``; ``values``: ``(nnz, *shape[sparse_dim:])``;
    ``shape``, ``dtype`` (the values' native dtype) and ``ndim`` as an array has them. Any other
    use as an array raises PyTorch's NotImplementedError naming the operation.
    """

    __slots__ = ("indices", "values", "shape", "dtype", "ndim", "coalesced", "key")

    def __init__(self, indices: Any, values: Any, shape: tuple[int, ...], coalesced: bool,
                 key: str) -> None:
        self.indices = indices
        self.values = values
        self.shape = shape
        self.dtype = values.dtype
        self.ndim = len(shape)
        self.coalesced = coalesced
        self.key = key

    @property
    def size(self) -> int:
        """The number of elements of the dense tensor this stands for."""
        return math.prod(self.shape)

    # what an array library tries on an operand: each names the operation in its refusal
    def __getattr__(self, name: str) -> NoReturn:
        if name.startswith("__") and name.endswith("__"):  # a protocol probe: not an array
            raise AttributeError(name)
        raise refusal(name, object.__getattribute__(self, "key"))

    def __array_ufunc__(self, ufunc: Any, method: str, *args: Any, **kwargs: Any) -> NoReturn:
        raise refusal(ufunc.__name__, self.key)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> NoReturn:
        raise refusal(func.__name__, self.key)

    def __array__(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise refusal("_to_dense", self.key)

    def __array_namespace__(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise refusal("_to_dense", self.key)

    def __getitem__(self, key: Any) -> NoReturn:
        raise refusal("index", self.key)

    def __setitem__(self, key: Any, value: Any) -> NoReturn:
        raise refusal("index_put_", self.key)

    def __iter__(self) -> NoReturn:
        raise refusal("unbind", self.key)

    def __len__(self) -> int:
        return self.shape[0] if self.shape else 0

    def __bool__(self) -> bool:
        return True

    def __repr__(self) -> str:
        return f"<sparse COO data: shape {self.shape}, nnz {self.values.shape[0]}>"


def _refuse_operator(name: str) -> Any:
    def method(self: CooData, *args: Any) -> NoReturn:
        raise refusal(name, self.key)

    method.__name__ = f"__{name}__"
    return method


for _name in ("add", "radd", "iadd", "sub", "rsub", "isub", "mul", "rmul", "imul", "truediv",
              "rtruediv", "itruediv", "floordiv", "rfloordiv", "mod", "rmod", "pow", "rpow",
              "matmul", "rmatmul", "neg", "pos", "abs", "invert", "lt", "le", "gt", "ge", "and",
              "rand", "or", "ror", "xor", "rxor", "float", "int", "index"):
    setattr(CooData, f"__{_name}__", _refuse_operator(_name))
CooData.__eq__ = _refuse_operator("eq")  # type: ignore[method-assign]
CooData.__ne__ = _refuse_operator("ne")  # type: ignore[method-assign]
CooData.__hash__ = object.__hash__  # type: ignore[method-assign]


class SparseTensor(Tensor):
    """A tensor in the sparse COO layout, as PyTorch's ``torch.sparse_coo`` tensors: made by
    ``arraygrad.sparse_coo_tensor`` or ``Tensor.to_sparse()``; ``is_sparse`` is True and
    ``layout`` is ``arraygrad.sparse_coo``. Its methods are those PyTorch runs on sparse
    tensors (``arraygrad.sparse`` binds them); the others raise NotImplementedError."""

    __slots__ = ()
    _data: CooData
    is_sparse = True
    is_sparse_csr = False
    layout = _layouts.sparse_coo

    def _nnz(self) -> int:
        """The number of specified elements (repeats included until coalesced)."""
        return int(self._data.values.shape[0])

    def sparse_dim(self) -> int:
        """The number of sparse dimensions (the rows of ``indices``)."""
        return int(self._data.indices.shape[0])

    def dense_dim(self) -> int:
        """The number of dense dimensions (the trailing dimensions of each value)."""
        return self._data.ndim - int(self._data.indices.shape[0])

    def is_coalesced(self) -> bool:
        """Whether the indices are known to be sorted and free of repeats."""
        return self._data.coalesced

    def _detached_copy(self) -> "SparseTensor":
        data = self._data
        xp = self._backend.xp
        return make_sparse(xp.asarray(data.indices, copy=True), xp.asarray(data.values, copy=True),
                           data.shape, self._backend, data.coalesced)

    def detach(self) -> "SparseTensor":
        """The same indices and values outside the graph (sharing the version counter)."""
        data = self._data
        t = make_sparse(data.indices, data.values, data.shape, self._backend, data.coalesced)
        t._vc = self._version_counter()
        return t

    @property
    def data(self) -> Tensor:
        """The same indices and values as a tensor outside the graph."""
        d = self._data
        return make_sparse(d.indices, d.values, d.shape, self._backend, d.coalesced)

    @data.setter
    def data(self, value: Tensor) -> None:
        if not isinstance(value, SparseTensor):
            raise RuntimeError("data set to a tensor that requires gradients must be sparse "
                               "here: a sparse tensor's data is another sparse tensor")
        self._data = value._data
        self._backend = value._backend

    def numpy(self, *, force: bool = False) -> NoReturn:
        """Refused, as in PyTorch: a sparse tensor has no one array to share."""
        raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() "
                        "first.")

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> NoReturn:
        raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() "
                        "first.")

    def tolist(self) -> NoReturn:
        """Refused, as in PyTorch (``to_dense().tolist()`` gives the elements)."""
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")

    def item(self) -> Any:
        """The one element's value (the sum of its specified values)."""
        if self.numel() != 1:
            raise RuntimeError(
                f"a Tensor with {self.numel()} elements cannot be converted to Scalar")
        return self.to_dense().item()

    def __dlpack__(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")



def make_sparse(indices: Any, values: Any, shape: tuple[int, ...], backend: Backend,
                coalesced: bool) -> SparseTensor:
    """A new sparse tensor over native ``indices`` and ``values`` (no checks, no graph)."""
    t = _new(SparseTensor)
    t._data = CooData(indices, values, tuple(shape), coalesced, backend_key(backend.device_type))
    t._backend = backend
    t._requires_grad = False
    t._grad_fn = None
    t._vc = None
    return t


class SparseOps:
    """The sparse versions of the dense ops that take a sparse operand, handed in (not
    imported) by ``arraygrad.ops.families.sparse_coo`` when arraygrad loads, as the recorder's
    ``finishers`` are: each loads ``arraygrad.sparse`` on first use. ``zeros`` makes the
    entry-less sparse tensor of ``zeros(..., layout=sparse_coo)``."""

    add: Callable[..., Any]
    sub: Callable[..., Any]
    mul: Callable[..., Any]
    div: Callable[..., Any]
    mm: Callable[..., Any]
    matmul: Callable[..., Any]
    sum: Callable[..., Any]
    zeros: Callable[..., Any]


sparse_ops = SparseOps()
