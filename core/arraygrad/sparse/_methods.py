"""``SparseTensor``'s methods: the ops PyTorch runs on sparse COO tensors, and for every other
op method of ``Tensor`` PyTorch's NotImplementedError naming it (``Could not run 'aten::exp'
with arguments from the 'SparseCPU' backend``), so ``s.exp()`` says what is missing instead of
failing inside the array library.

``bind()`` runs once, when ``arraygrad.sparse`` is first imported (before any sparse tensor
exists: every way to make one goes through that package).
"""

from __future__ import annotations

from typing import Any, Callable, NoReturn

from arraygrad import dtypes as _dt
from arraygrad.autograd.grad_mode import _state as _grad_state, no_grad
from arraygrad.legacy_types import type_name
from arraygrad.tensor_methods import _CAST_METHODS
from arraygrad.ops import transfer
from arraygrad.ops.rule import defop
from arraygrad.sparse import _arithmetic as arith, _products as products, _reductions as red
from arraygrad.sparse._creation import to_sparse
from arraygrad.sparse._repr import sparse_repr
from arraygrad.sparse._resize import resize_as_sparse_, sparse_resize_, sparse_resize_and_clear_
from arraygrad.sparse._rules import coalesce, sparse_mask, to_dense, values_of
from arraygrad.tensor import Tensor, _wrap_dim, wrap
from arraygrad.tensor_sparse import CooData, SparseTensor, make_sparse, refusal

__all__ = ["bind", "SUPPORTED"]


def _indices(self: SparseTensor) -> Tensor:
    """The indices as stored (int64 ``(sparse_dim, nnz)``, sharing memory)."""
    return wrap(self._data.indices, self._backend)


def _values(self: SparseTensor) -> Tensor:
    """The values as stored (sharing memory, outside the graph, as PyTorch's ``_values``)."""
    return wrap(self._data.values, self._backend)


def _coalesced_only(what: str, self: SparseTensor) -> None:
    if not self._data.coalesced:
        raise RuntimeError(f"Cannot get {what} on an uncoalesced tensor, please call "
                           ".coalesce() first")


def indices(self: SparseTensor) -> Tensor:
    """The indices of a coalesced tensor (``(sparse_dim, nnz)``, sharing memory)."""
    _coalesced_only("indices", self)
    return _indices(self)


def values(self: SparseTensor) -> Tensor:
    """The values of a coalesced tensor, in the graph (``ValuesBackward0``)."""
    _coalesced_only("values", self)
    return values_of(self)


TRANSPOSE = defop("TransposeBackward0", key="sparse_transpose", inputs=("self",),
                  params=("dim0", "dim1"), vjp=(lambda g, n: g.transpose(n.dim0, n.dim1),))
T = defop("TBackward0", key="sparse_t", inputs=("self",), vjp=(lambda g, n: g.t(),))


def _swapped(self: SparseTensor, d0: int, d1: int) -> SparseTensor:
    """``self`` with sparse dimensions ``d0`` and ``d1`` swapped (rows of the indices; the
    result is not coalesced), not recorded."""
    data = self._data
    sparse_dim = data.indices.shape[0]
    if d0 >= sparse_dim or d1 >= sparse_dim:
        raise RuntimeError(f"sparse transpose: transposed dimensions must be sparse Got "
                           f"sparse_dim: {sparse_dim}, d0: {d0}, d1: {d1}")
    xp = self._backend.xp
    shape = list(data.shape)
    shape[d0], shape[d1] = shape[d1], shape[d0]
    order = list(range(sparse_dim))
    order[d0], order[d1] = order[d1], order[d0]
    indices = xp.stack([data.indices[k, ...] for k in order], axis=0)
    return make_sparse(indices, data.values, tuple(shape), self._backend,
                       data.values.shape[0] <= 1)


def transpose(self: SparseTensor, dim0: int, dim1: int) -> SparseTensor:
    """The tensor with sparse dimensions ``dim0`` and ``dim1`` swapped (PyTorch transposes
    sparse dimensions only)."""
    d0, d1 = _wrap_dim(dim0, self.ndim, "transpose"), _wrap_dim(dim1, self.ndim, "transpose")
    if d0 == d1:
        return self
    return TRANSPOSE.record_result(_swapped(self, d0, d1), (self,), dim0=d0, dim1=d1)


def t(self: SparseTensor) -> SparseTensor:
    """The transpose of a sparse matrix (the tensor itself below two dimensions)."""
    if self.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 sparse and 0 dense dimensions, "
                           f"but self is {self.sparse_dim()} sparse and {self.dense_dim()} "
                           "dense dimensions")
    return self if self.ndim < 2 else T.record_result(_swapped(self, 0, 1), (self,))


def _to_back(g: Tensor, n: Any) -> Tensor:
    """The gradient of a dtype or device change: moved and cast back."""
    return g.to(device=n.self_backend.device, dtype=n.self_dtype)


TO_COPY = defop("ToCopyBackward0", key="sparse_to_copy", inputs=("self",),
                params=("self_dtype", "self_backend"), vjp=(_to_back,))


def to(self: SparseTensor, *args: Any, **kwargs: Any) -> SparseTensor:
    """``to(dtype)``, ``to(device)``, ``to(other)``: the indices and values moved and cast."""
    kwargs.pop("memory_format", None)
    dev, dt, copy = transfer._parse(args, kwargs)
    if dt is None and dev is None:
        return self.clone() if copy else self
    data = self._data
    with no_grad():
        vals = _values(self)
        index = _indices(self)
        if dev is not None:
            vals, index = vals.to(dev), index.to(dev)
        if dt is not None:
            vals = vals.to(dt)
    if vals._backend is self._backend and vals._data is data.values and not copy:
        return self
    out = make_sparse(index._data, vals._data, data.shape, vals._backend, data.coalesced)
    return TO_COPY.record_result(out, (self,), self_dtype=self.dtype,
                                 self_backend=self._backend)


def _cast(dtype_name: str, name: str) -> Callable[..., SparseTensor]:
    def method(self: SparseTensor, memory_format: Any = None) -> SparseTensor:
        return to(self, _dt.BY_NAME[dtype_name])

    method.__name__ = name
    method.__doc__ = f"``self.to(arraygrad.{dtype_name})``."
    return method


def _type(self: SparseTensor, dtype: Any = None, non_blocking: bool = False) -> Any:
    """The legacy type name (``arraygrad.sparse.FloatTensor``), or the tensor in ``dtype``."""
    if dtype is None:
        return type_name(self)
    if isinstance(dtype, _dt.dtype):
        return to(self, dtype)
    raise TypeError(f"type(): a sparse tensor converts to a dtype, not {dtype!r}")


def cpu(self: SparseTensor, memory_format: Any = None) -> SparseTensor:
    """The tensor on the CPU (itself when it is there)."""
    return self if self.device.type == "cpu" else to(self, "cpu")


def cuda(self: SparseTensor, device: Any = None, non_blocking: bool = False,
         memory_format: Any = None) -> SparseTensor:
    """The tensor on a CUDA device (``cuda:0`` by default)."""
    index = 0 if device is None else device
    return to(self, f"cuda:{index}" if isinstance(index, int) else index)


def clone(self: SparseTensor, *, memory_format: Any = None) -> SparseTensor:
    """A copy with its own indices and values, in the graph."""
    copy = self._detached_copy()
    return transfer.CLONE.record_result(copy, (self,))


def zero_(self: SparseTensor) -> SparseTensor:
    """Drop every entry in place (the tensor keeps its shape and sparse dimensions)."""
    if self._requires_grad and _grad_state.enabled and self._grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
    data = self._data
    xp = self._backend.xp
    self._data = CooData(xp.zeros((data.indices.shape[0], 0), dtype=xp.int64),
                         xp.zeros((0, *data.values.shape[1:]), dtype=data.values.dtype),
                         data.shape, True, data.key)
    self._bump_version()
    return self


def _stride(self: SparseTensor, dim: Any = None) -> Any:
    """Zeros, as PyTorch answers for a sparse tensor (it has no strided memory)."""
    if dim is not None:
        _wrap_dim(dim, self.ndim, "stride")
        return 0
    return (0,) * self.ndim


def _storage(self: SparseTensor, *args: Any, **kwargs: Any) -> NoReturn:
    raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")


def _sum(self: SparseTensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None,
         axis: Any = None) -> Tensor:
    return red.tensor_sum(self, dim if axis is None else axis, keepdim, dtype=dtype)


def _rmatmul(self: SparseTensor, other: Any) -> Tensor:
    return products.matmul(other, self)


def _binary(fn: Callable[..., Any], reverse: bool = False) -> Callable[..., Any]:
    def method(self: SparseTensor, other: Any) -> Any:
        if not isinstance(other, (Tensor, int, float)):
            if hasattr(other, "__array__"):  # a NumPy array: say so (NumPy's fallback garbles it)
                raise TypeError(f"{fn.__name__}: a sparse tensor and a "
                                f"{type(other).__name__} (make it a tensor first: "
                                "arraygrad.as_tensor)")
            return NotImplemented
        return fn(other, self) if reverse else fn(self, other)

    method.__name__ = fn.__name__
    method.__doc__ = fn.__doc__
    return method


# the zero-preserving functions of the values PyTorch runs on sparse tensors
_VALUE_FUNCTIONS = ("abs", "absolute", "sqrt", "sin", "sinh", "tan", "tanh", "asin", "arcsin",
                    "asinh", "arcsinh", "atan", "arctan", "atanh", "arctanh", "ceil", "floor",
                    "round", "trunc", "fix", "sign", "sgn", "relu", "expm1", "log1p", "erf",
                    "erfinv", "square", "frac", "deg2rad", "rad2deg", "signbit", "isnan",
                    "isinf", "isposinf", "isneginf", "nan_to_num")


def _value_method(name: str) -> Callable[..., SparseTensor]:
    return arith.values_function(name, lambda v, *a, **k: getattr(v, name)(*a, **k))


SUPPORTED: dict[str, Any] = {
    "coalesce": coalesce, "to_dense": to_dense, "to_sparse": to_sparse,
    "to_sparse_coo": lambda self: self, "indices": indices, "values": values,
    "_indices": _indices, "_values": _values, "sparse_mask": sparse_mask,
    "add": arith.add, "sub": arith.sub, "subtract": arith.sub, "mul": arith.mul,
    "multiply": arith.mul, "div": arith.div, "divide": arith.div, "true_divide": arith.div,
    "neg": arith.neg, "negative": arith.neg, "pow": arith.pow,
    "__add__": _binary(arith.add), "__radd__": _binary(arith.add, True),
    "__sub__": _binary(arith.sub), "__rsub__": _binary(arith.sub, True),
    "__mul__": _binary(arith.mul), "__rmul__": _binary(arith.mul),
    "__truediv__": _binary(arith.div), "__pow__": _binary(arith.pow),
    "__neg__": arith.neg, "__matmul__": _binary(products.matmul), "__rmatmul__": _rmatmul,
    "mm": products.mm, "matmul": products.matmul, "smm": products.smm, "hspmm": products.hspmm,
    "sum": _sum, "t": t, "transpose": transpose, "swapaxes": transpose, "swapdims": transpose,
    "T": property(t, doc="The transpose of a sparse matrix."),
    "mT": property(lambda self: transpose(self, -2, -1), doc="The last two dimensions swapped."),
    "to": to, "type": _type, "cpu": cpu, "cuda": cuda, "clone": clone, "zero_": zero_,
    "stride": _stride, "is_contiguous": lambda self, memory_format=None: False,
    "__repr__": sparse_repr,
    "sparse_resize_": sparse_resize_, "sparse_resize_and_clear_": sparse_resize_and_clear_,
    "resize_as_sparse_": resize_as_sparse_,
    "sspaddmm": lambda self, mat1, mat2, *, beta=1, alpha=1: products.sspaddmm(
        self, mat1, mat2, beta=beta, alpha=alpha),
    **{name: _cast(dtype_name, name) for dtype_name, name in _CAST_METHODS.items()},
    **{name: _value_method(name) for name in _VALUE_FUNCTIONS},
}
"""The methods of sparse tensors (each PyTorch's), by name."""

_NO_STORAGE = ("data_ptr", "const_data_ptr", "untyped_storage", "storage", "storage_offset",
               "storage_type", "is_set_to", "set_", "is_shared", "share_memory_", "pin_memory",
               "is_pinned")


def _refused(name: str) -> Callable[..., NoReturn]:
    op = name.strip("_") if name.startswith("__") else name
    if name.startswith("__") and op[:1] in "ri" and op[1:] in _OPERATOR_NAMES:
        op = op[1:]  # __radd__, __iadd__: aten::add
    op = _ATEN_NAMES.get(op, op)

    def method(self: SparseTensor, *args: Any, **kwargs: Any) -> NoReturn:
        raise refusal(op, self._data.key)

    method.__name__ = name
    method.__doc__ = f"Not supported on sparse COO tensors (PyTorch has no sparse ``{op}``)."
    return method


_ATEN_NAMES = {"getitem": "index", "setitem": "index_put_", "truediv": "div",
               "floordiv": "floor_divide", "mod": "remainder", "invert": "bitwise_not",
               "view_as": "view"}
_OPERATOR_NAMES = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and",
                   "or", "xor", "lshift", "rshift")


def bind() -> None:
    """Put the sparse methods on ``SparseTensor`` and refuse the other op methods."""
    from arraygrad import tensor_methods
    from arraygrad.ops.families import surface

    cls: Any = SparseTensor
    op_names = set(tensor_methods.METHODS) | set(tensor_methods.OPERATORS) | set(
        tensor_methods.INPLACE) | set(surface()["METHODS"]) | set(surface()["INPLACE"])
    op_names.add("view_as")
    for name in sorted(op_names - set(SUPPORTED) - set(vars(SparseTensor))):
        setattr(cls, name, _refused(name))
    for name in _NO_STORAGE:
        setattr(cls, name, _storage)
    for name, fn in SUPPORTED.items():
        setattr(cls, name, fn)
