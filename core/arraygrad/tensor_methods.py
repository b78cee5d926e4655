"""Binds operators, methods and the legacy constructor onto ``Tensor``: thin calls into the ops.

Kept apart from ``tensor.py`` so the class file holds state only and the ops
can import ``Tensor`` without a cycle. Methods of plugin ops are the op
registry's to bind (``arraygrad.plugins.registry``); ``bind`` only lets the
first unknown attribute load them.
"""

from __future__ import annotations

import functools
from numbers import Number
from typing import Any, Callable

from arraygrad import creation, dtypes as _dt, legacy_types as _legacy_types
from arraygrad import layouts as _layouts
from arraygrad.layouts import check_memory_format, is_contiguous_for
from arraygrad.ops import activation, elementwise as ew, indexing, linalg, reduction, shape
from arraygrad.ops import reflected, transfer
from arraygrad.ops.host_operands import host_array, promoted_pair
from arraygrad.ops.fast_setitem import OVERWRITES as _FAST_OVERWRITES
from arraygrad.ops.fast_setitem import setitem as _fast_setitem
from arraygrad.ops.inplace import apply_inplace, native_arithmetic, overwritten
from arraygrad.plugins import registry as _op_registry
from arraygrad.tensor import Tensor
from arraygrad.tensor_str import tensor_format


__all__ = ["with_axis_alias", "bind"]


def with_axis_alias(fn: Callable[..., Any]) -> Any:
    """Accept NumPy's ``axis=`` as an alias of ``dim=`` and ``keepdims=`` of ``keepdim=``
    (as PyTorch does)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        for alias, name in (("axis", "dim"), ("keepdims", "keepdim")):
            if alias in kwargs:
                if name in kwargs:
                    raise TypeError(f"{fn.__name__}() got both '{name}' and '{alias}'")
                kwargs[name] = kwargs.pop(alias)
        return fn(*args, **kwargs)

    return wrapper


_OPERAND_TYPES = frozenset((float, int, bool))


def _binary(fn: Callable[..., Any], reverse: bool = False, floating: bool = False) -> Any:
    # ``floating``: a true division, whose NumPy-array operands promote as NumPy's do
    def method(self: Tensor, other: Any) -> Any:
        # (a float subclass, NumPy's or a live scalar of ``arraygrad.compile``, is a number:
        # no probe reads its value)
        if type(other) not in _OPERAND_TYPES and not isinstance(other, (Tensor, float)):
            if not isinstance(other, Number) and host_array(other):  # NumPy's dtype, as PyTorch
                self, other = promoted_pair(fn.__name__, self, other, floating)
            else:
                try:
                    float(other)
                except (TypeError, ValueError):
                    return NotImplemented
        return fn(other, self) if reverse else fn(self, other)

    method.__name__ = fn.__name__
    method.__doc__ = fn.__doc__
    return method


def _inplace(fn: Callable[..., Any], name: str) -> Any:
    write = _FAST_OVERWRITES.get(name)
    if write is not None:  # zero_/fill_/copy_: no arithmetic, an overwrite
        def method(self: Tensor, *args: Any, **kwargs: Any) -> Any:
            if not kwargs and write(self, args):
                return self  # nothing recorded: one write into the array
            return apply_inplace(self, name, lambda src: fn(src, *args, **kwargs),
                                 (*args, *kwargs.values()))
    else:
        def method(self: Tensor, *args: Any, **kwargs: Any) -> Any:
            if (len(args) == 1 and (not kwargs or list(kwargs) == ["alpha"])
                    and native_arithmetic(self, name, args[0], kwargs.get("alpha", 1))):
                return self
            return apply_inplace(self, name, lambda src: fn(src, *args, **kwargs),
                                 (*args, *kwargs.values()))

    method.__name__ = name
    method.__doc__ = f"In-place ``{name[:-1]}``; returns self."
    return method


def _setitem(self: Tensor, key: Any, value: Any) -> None:
    if _fast_setitem(self, key, value):  # nothing recorded: one write into the array
        return
    apply_inplace(self, "setitem", lambda src: indexing.index_put(src, key, value), (value,))


def _fill(src: Tensor, value: Any) -> Tensor:
    if isinstance(value, Tensor) and value.ndim != 0:
        raise RuntimeError(
            f"fill_ only supports 0-dimension value tensor but got tensor with {value.ndim} dimensions.")
    return overwritten(src, value, "fill_")


def _zero(src: Tensor) -> Tensor:
    return overwritten(src, 0, "zero_")


def _copy(src: Tensor, other: Any, non_blocking: bool = False) -> Tensor:
    # non_blocking: arraygrad's copies are synchronous, so every copy is already complete
    if not isinstance(other, Tensor):
        raise TypeError(f"copy_(): argument 'src' must be Tensor, not {type(other).__name__}")
    return overwritten(src, other, "copy_")


def _legacy_init(self: Tensor, *args: Any, dtype: Any = None, device: Any = None,
                 requires_grad: bool = False) -> None:
    """Legacy constructor: ``Tensor([1, 2])`` (float32 data) or ``Tensor(2, 3)`` (uninitialised)."""
    if len(args) == 1 and not isinstance(args[0], int):
        src = creation.tensor(args[0], dtype=dtype or _dt.get_default_dtype(), device=device)
    else:
        src = creation.empty(*args, dtype=dtype, device=device)
    self._init_from(src._data, src._backend)
    if requires_grad:
        self.requires_grad_(True)


def _new(factory: str) -> Any:
    def method(self: Tensor, *args: Any, dtype: Any = None, device: Any = None,
               requires_grad: bool = False, **kwargs: Any) -> Any:
        return getattr(creation, factory)(*args, dtype=dtype or self.dtype,
                                          device=device if device is not None else self.device,
                                          requires_grad=requires_grad, **kwargs)

    method.__name__ = f"new_{factory}"
    method.__doc__ = f"``{factory}`` with this tensor's dtype and device by default."
    return method


def _new_tensor(self: Tensor, data: Any, dtype: Any = None, device: Any = None,
                requires_grad: bool = False) -> Any:
    return creation.tensor(data, dtype=dtype or self.dtype,
                           device=device if device is not None else self.device,
                           requires_grad=requires_grad)


# ``Tensor.float()`` & co.: the dtype each converts to
_CAST_METHODS = {"float32": "float", "float64": "double", "float16": "half",
                 "bfloat16": "bfloat16", "int64": "long", "int32": "int", "int16": "short",
                 "int8": "char", "uint8": "byte", "bool": "bool", "complex64": "cfloat",
                 "complex128": "cdouble"}


def _cast(d: Any) -> Any:
    def method(self: Tensor, memory_format: Any = None) -> Any:
        if memory_format is not None:
            check_memory_format(memory_format, name, self.ndim)
        return ew.to_dtype(self, d)

    name = _CAST_METHODS[d.name]
    method.__name__ = name
    method.__doc__ = f"``self.to({d!r})``."
    return method


def _cpu(self: Tensor, memory_format: Any = None) -> Any:
    """This tensor on the CPU: itself when it is already there (as in PyTorch)."""
    if memory_format is not None:
        check_memory_format(memory_format, "cpu", self.ndim)
    backend = transfer.default_cpu_backend()
    return self if self._backend is backend else transfer.to_backend(self, backend)


def _cuda(self: Tensor, device: Any = None, non_blocking: bool = False,
          memory_format: Any = None) -> Any:
    """This tensor on a CUDA device (``cuda:0`` by default); the copy is synchronous whatever
    ``non_blocking`` says."""
    if memory_format is not None:
        check_memory_format(memory_format, "cuda", self.ndim)
    dev = "cuda" if device is None else (f"cuda:{device}" if isinstance(device, int) else device)
    from arraygrad.device import as_device

    d = as_device(dev)
    if d.index is None:
        d = type(d)("cuda", 0)
    return transfer.to(self, d)


def _contiguous(self: Tensor, memory_format: Any = None) -> Any:
    """This tensor if its logical layout is row-major, else a row-major copy (whatever the
    ``memory_format``: ``arraygrad.layouts``)."""
    if memory_format is not None:
        check_memory_format(memory_format, "contiguous", self.ndim)
        if self._strides is not None and memory_format is _layouts.preserve_format:
            raise RuntimeError("preserve memory format is unsupported by the contiguous "
                               "operator")
    return self if self._strides is None else transfer.clone(self)


def _is_contiguous(self: Tensor, memory_format: Any = None) -> bool:
    """Whether the logical strides are row-major (or those of ``memory_format``)."""
    if memory_format is None:
        return self._strides is None
    check_memory_format(memory_format, "is_contiguous", None)
    from arraygrad.ops.views import strides_of

    return is_contiguous_for(tuple(self.shape), strides_of(self), memory_format)


def _stride(self: Tensor, dim: Any = None) -> Any:
    """The logical strides (in elements) PyTorch would report for this tensor."""
    from arraygrad.ops.views import strides_of
    from arraygrad.tensor import _wrap_dim

    strides = strides_of(self)
    return strides if dim is None else strides[_wrap_dim(dim, self.ndim, "stride")]


def _type(self: Tensor, dtype: Any = None, non_blocking: bool = False,
          memory_format: Any = None) -> Any:
    """The type name without arguments; else this tensor as ``dtype``: a dtype, a legacy type
    (``FloatTensor``) or its name (``'torch.cuda.FloatTensor'`` moves to CUDA too)."""
    if dtype is None:
        return _legacy_types.type_name(self)
    if memory_format is not None:
        check_memory_format(memory_format, "type", self.ndim)
    if isinstance(dtype, str):
        *where, name = dtype.rsplit(".", 1)
        legacy = getattr(_legacy_types, name, None)
        found = legacy._dtype if isinstance(legacy, _legacy_types._TensorType) else \
            _dt.BY_NAME.get(name)
        if found is None or (where and where[0] not in ("torch", "torch.cuda", "arraygrad")):
            raise ValueError(f"invalid type: {dtype!r}")
        if where and where[0] == "torch.cuda" and not self.is_cuda:
            return _cuda(self).to(found)
        if where and where[0] == "torch" and self.is_cuda:
            return _cpu(self).to(found)
        dtype = found
    elif isinstance(dtype, _legacy_types._TensorType):
        dtype = dtype._dtype
    return ew.to_dtype(self, dtype)


METHODS = {
    # arithmetic
    "add": ew.add, "sub": ew.sub, "subtract": ew.sub, "mul": ew.mul, "multiply": ew.mul,
    "div": ew.div, "divide": ew.div, "true_divide": ew.div, "floor_divide": ew.floor_divide,
    "remainder": ew.remainder, "pow": ew.pow, "neg": ew.neg, "negative": ew.neg,
    "abs": ew.abs, "absolute": ew.abs, "exp": ew.exp, "log": ew.log, "log1p": ew.log1p,
    "expm1": ew.expm1, "sqrt": ew.sqrt, "rsqrt": ew.rsqrt, "sin": ew.sin, "cos": ew.cos,
    "tan": ew.tan, "tanh": ew.tanh, "sigmoid": ew.sigmoid, "relu": ew.relu, "clamp": ew.clamp,
    "clip": ew.clamp, "sign": ew.sign, "floor": ew.floor, "ceil": ew.ceil, "round": ew.round,
    "trunc": ew.trunc, "reciprocal": ew.reciprocal, "maximum": ew.maximum,
    "minimum": ew.minimum,
    # comparisons and logic
    "eq": ew.eq, "ne": ew.ne, "lt": ew.lt, "le": ew.le, "gt": ew.gt, "ge": ew.ge,
    "greater": ew.gt, "less": ew.lt, "greater_equal": ew.ge, "less_equal": ew.le,
    "not_equal": ew.ne, "logical_and": ew.logical_and, "logical_or": ew.logical_or,
    "logical_xor": ew.logical_xor, "logical_not": ew.logical_not,
    "bitwise_not": ew.bitwise_not, "isnan": ew.isnan, "isinf": ew.isinf,
    "isfinite": ew.isfinite,
    # reductions
    "sum": with_axis_alias(reduction.sum), "mean": with_axis_alias(reduction.mean),
    "prod": with_axis_alias(reduction.prod),
    "max": with_axis_alias(reduction.max), "min": with_axis_alias(reduction.min),
    "amax": with_axis_alias(reduction.amax), "amin": with_axis_alias(reduction.amin),
    "argmax": with_axis_alias(reduction.argmax), "argmin": with_axis_alias(reduction.argmin),
    "var": with_axis_alias(reduction.var), "std": with_axis_alias(reduction.std),
    "logsumexp": with_axis_alias(reduction.logsumexp), "norm": with_axis_alias(reduction.norm),
    "cumsum": with_axis_alias(reduction.cumsum), "all": with_axis_alias(reduction.all),
    "any": with_axis_alias(reduction.any),
    # linear algebra
    "matmul": linalg.matmul, "mm": linalg.mm, "bmm": linalg.bmm, "mv": linalg.mv,
    "dot": linalg.dot, "outer": linalg.outer,
    # shape
    "reshape": shape.reshape, "view": shape.view, "flatten": shape.flatten,
    "squeeze": with_axis_alias(shape.squeeze), "unsqueeze": with_axis_alias(shape.unsqueeze),
    "transpose": shape.transpose, "swapaxes": shape.swapaxes, "permute": shape.permute,
    "movedim": shape.movedim, "t": shape.t, "expand": shape.expand,
    "expand_as": shape.expand_as, "broadcast_to": shape.expand, "repeat": shape.repeat,
    "flip": shape.flip, "split": with_axis_alias(shape.split),
    "chunk": with_axis_alias(shape.chunk), "unbind": with_axis_alias(shape.unbind),
    "narrow": shape.narrow,
    # indexing
    "gather": with_axis_alias(indexing.gather),
    "index_select": with_axis_alias(indexing.index_select),
    "take_along_dim": indexing.take_along_dim,
    # activations
    "softmax": with_axis_alias(activation.softmax),
    "log_softmax": with_axis_alias(activation.log_softmax),
    # copies and moves
    "to": transfer.to, "clone": transfer.clone,
}

OPERATORS = {
    # the hottest forward operators call the op directly (it raises TypeError for operands it
    # cannot take); the others go through _binary, which returns NotImplemented for them
    "__add__": ew.add, "__radd__": _binary(reflected.radd),
    "__sub__": ew.sub, "__rsub__": _binary(reflected.rsub),
    "__mul__": ew.mul, "__rmul__": _binary(reflected.rmul),
    "__truediv__": ew.div, "__rtruediv__": _binary(reflected.rtruediv, floating=True),
    "__floordiv__": _binary(ew.floor_divide), "__rfloordiv__": _binary(reflected.rfloordiv),
    "__mod__": _binary(ew.remainder), "__rmod__": _binary(reflected.rmod),
    "__pow__": _binary(ew.pow), "__rpow__": _binary(reflected.rpow),
    "__matmul__": _binary(linalg.matmul), "__rmatmul__": _binary(linalg.matmul, True),
    "__eq__": _binary(ew.eq), "__ne__": _binary(ew.ne), "__lt__": _binary(ew.lt),
    "__le__": _binary(ew.le), "__gt__": _binary(ew.gt), "__ge__": _binary(ew.ge),
    "__and__": _binary(ew.bitwise_and), "__rand__": _binary(ew.bitwise_and, True),
    "__or__": _binary(ew.bitwise_or), "__ror__": _binary(ew.bitwise_or, True),
    "__xor__": _binary(ew.bitwise_xor), "__rxor__": _binary(ew.bitwise_xor, True),
    "__neg__": ew.neg, "__abs__": ew.abs, "__invert__": ew.bitwise_not,
    "__getitem__": indexing.getitem, "__setitem__": _setitem,
}

INPLACE: dict[str, Callable[..., Any]] = {
    "add_": ew.add, "sub_": ew.sub, "mul_": ew.mul, "div_": ew.div, "pow_": ew.pow,
    "clamp_": ew.clamp, "clip_": ew.clamp, "exp_": ew.exp, "relu_": ew.relu, "neg_": ew.neg,
    "sigmoid_": ew.sigmoid, "tanh_": ew.tanh, "zero_": _zero, "fill_": _fill, "copy_": _copy,
    "floor_divide_": ew.floor_divide, "remainder_": ew.remainder, "abs_": ew.abs,
    "sqrt_": ew.sqrt, "log_": ew.log,
    "__iadd__": ew.add, "__isub__": ew.sub, "__imul__": ew.mul, "__itruediv__": ew.div,
    "__ipow__": ew.pow, "__ifloordiv__": ew.floor_divide, "__imod__": ew.remainder,
}


def _bind_families(cls: Any) -> None:
    """The methods of the op families in ``arraygrad.ops.families`` (see there); a name the
    core's own tables define already is an error."""
    from arraygrad.ops.families import surface

    tables = surface()
    for name, fn in tables["METHODS"].items():
        if name in METHODS or name in OPERATORS:
            raise RuntimeError(f"op families: Tensor.{name} is defined by the core already")
        setattr(cls, name, fn)
    for name, fn in tables["INPLACE"].items():
        if name in INPLACE:
            raise RuntimeError(f"op families: Tensor.{name} is defined by the core already")
        setattr(cls, name, _inplace(fn, name))


def bind() -> None:
    """Attach the constructor and every method and operator to ``Tensor`` (idempotent)."""
    cls: Any = Tensor  # the methods below are bound onto the class: dynamic for mypy
    cls.__init__ = _legacy_init
    for name, fn in {**METHODS, **OPERATORS}.items():
        setattr(Tensor, name, fn)
    for name, fn in INPLACE.items():
        setattr(Tensor, name, _inplace(fn, name))
    _bind_families(cls)
    cls.__pos__ = lambda self: self
    # (the dims are valid by construction: ``permute``'s checks are skipped)
    cls.T = property(lambda self: shape.reversed_dims(self),
                     doc="The tensor with its dimensions reversed.")
    cls.mT = property(lambda self: shape.transpose(self, -2, -1),
                         doc="The last two dimensions swapped.")
    cls.view_as = lambda self, other: shape.view(self, tuple(other.shape))
    cls.reshape_as = lambda self, other: shape.reshape(self, tuple(other.shape))
    cls.type_as = lambda self, other: ew.to_dtype(self, other.dtype)
    cls.where = lambda self, condition, other: ew.where(condition, self, other)
    cls.contiguous = _contiguous
    cls.is_contiguous = _is_contiguous
    cls.stride = _stride
    cls.__format__ = tensor_format
    # no arraygrad backend serves PyTorch's xpu or mps devices
    cls.is_xpu = property(lambda self: False, doc="Whether on an XPU device: never here.")
    cls.is_mps = property(lambda self: False, doc="Whether on an MPS device: never here.")
    cls.cpu = _cpu
    cls.cuda = _cuda
    cls.type = _type
    for dtype_name, name in _CAST_METHODS.items():
        setattr(Tensor, name, _cast(_dt.BY_NAME[dtype_name]))
    cls.new_tensor = _new_tensor
    for factory in ("zeros", "ones", "empty", "full"):
        setattr(Tensor, f"new_{factory}", _new(factory))
    # the tensor as an object: memory, layout, legacy methods (``tensor_protocol``)
    from arraygrad import tensor_interop, tensor_protocol

    tensor_protocol.bind(cls)
    tensor_interop.bind(cls)  # NumPy's array protocol, the copy module, ``in``
    _op_registry.install_method_loader()  # plugin ops' methods: bound when the ops load
