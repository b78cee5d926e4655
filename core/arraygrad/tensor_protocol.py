"""The rest of ``Tensor`` as an object: what it is (``layout``, ``is_cpu``, ``is_sparse``...),
PyTorch's legacy and Python-callable methods (``new``, ``apply_``, ``map_``, ``resize``,
``as_subclass``, ``module_load``), ``grad_dtype``, and the device moves a CPU-only PyTorch
refuses (``ipu``, ``xpu``, ``mtia``).

``bind(cls)`` puts them on ``Tensor``; ``FUNCTIONS`` are the namespace's
(``arraygrad.typename``, ``set_default_tensor_type``...).
"""

from __future__ import annotations

import warnings
from numbers import Number
from typing import Any, Callable

from arraygrad import dtypes as _dt, layouts as _layouts, legacy_types as _legacy_types
from arraygrad.tensor import Size, Tensor

__all__ = ["bind", "FUNCTIONS", "GRAD_DTYPE_UNSET"]

GRAD_DTYPE_UNSET = False  # ``Tensor._grad_dtype`` until set: the gradient takes the dtype


# -- what the tensor is -----------------------------------------------------------------
def _never(what: str) -> property:
    return property(lambda self: False, doc=f"Whether the tensor is {what}: never here.")


PROPERTIES: dict[str, property] = {
    "layout": property(lambda self: _layouts.strided,
                       doc="The layout: ``strided`` (a sparse tensor's is ``sparse_coo``)."),
    "is_cpu": property(lambda self: self._backend.device_type == "cpu",
                       doc="Whether the tensor is on the CPU."),
    "is_meta": property(lambda self: self._backend.device_type == "meta",
                        doc="Whether the tensor is on the meta device (a shape without data)."),
    "is_sparse": property(lambda self: False, doc="Whether the tensor is sparse (COO): not a "
                          "dense one (``arraygrad.tensor_sparse.SparseTensor`` is)."),
    "is_sparse_csr": _never("sparse (CSR)"),
    "is_quantized": _never("quantized"),
    "is_mkldnn": _never("an MKL-DNN tensor"),
    "is_vulkan": _never("on a Vulkan device"),
    "is_xla": _never("on an XLA device"),
    "is_ipu": _never("on an IPU device"),
    "is_maia": _never("on a MAIA device"),
    "is_mtia": _never("on an MTIA device"),
    "is_nested": _never("nested (jagged)"),
    "name": property(lambda self: None, doc="None, as PyTorch's (a read-only attribute)."),
}


def _volatile_get(self: Tensor) -> bool:
    warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning,
                  stacklevel=2)
    return False


def _volatile_set(self: Tensor, value: Any) -> None:
    warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` "
                  "instead.", UserWarning, stacklevel=2)


PROPERTIES["volatile"] = property(
    _volatile_get, _volatile_set,
    doc="Always False, with PyTorch's warning (removed in PyTorch 0.4: use ``no_grad``).")


def _grad_dtype_get(self: Tensor) -> Any:
    if self._grad_fn is not None:
        raise RuntimeError("grad_dtype can only be accessed on leaf tensors.")
    found = self._grad_dtype
    return self.dtype if found is GRAD_DTYPE_UNSET else found


def _grad_dtype_set(self: Tensor, value: Any) -> None:
    if self._grad_fn is not None:
        raise RuntimeError("grad_dtype can only be set on leaf tensors.")
    if value is not None and not isinstance(value, _dt.dtype):
        raise RuntimeError(f"grad_dtype must be a torch.dtype or None, but got "
                           f"{type(value).__name__}")
    self._grad_dtype = value


PROPERTIES["grad_dtype"] = property(
    _grad_dtype_get, _grad_dtype_set,
    doc="The dtype a leaf's ``.grad`` takes (its own dtype by default; None: any). The "
        "engine casts the gradients it accumulates to it.")


def get_device(self: Tensor) -> int:
    """The device index: -1 on the CPU."""
    if self._backend.device_type == "cpu":
        return -1
    index = self.device.index
    return 0 if index is None else int(index)


def ndimension(self: Tensor) -> int:
    """The number of dimensions (``dim()``)."""
    return self.ndim


def dim_order(self: Tensor, *, ambiguity_check: Any = False) -> tuple[int, ...]:
    """The dimensions from outermost to innermost in memory, by PyTorch's rules for the
    logical strides (``arraygrad.layouts.dim_order``)."""
    from arraygrad.ops.views import strides_of

    return _layouts.dim_order(tuple(self.shape), strides_of(self), ambiguity_check)


def is_signed(self: Tensor) -> bool:
    """Whether the dtype is signed (every dtype but bool and the unsigned integers)."""
    return self.dtype.is_signed


def is_distributed(self: Tensor) -> bool:
    """False, as PyTorch's (a legacy query)."""
    return False


def is_same_size(self: Tensor, other: Tensor) -> bool:
    """Whether both tensors have the same shape."""
    if not isinstance(other, Tensor):
        raise TypeError(f"is_same_size(): argument 'other' must be Tensor, not "
                        f"{type(other).__name__}")
    return tuple(self.shape) == tuple(other.shape)


# -- devices a CPU-only PyTorch build refuses (arraygrad has no backend for them) -----------
def ipu(self: Tensor, device: Any = None, non_blocking: bool = False,
        memory_format: Any = None) -> Tensor:
    """Refused: there is no IPU backend (PyTorch's RuntimeError of a build without one)."""
    raise RuntimeError("PyTorch is not linked with support for ipu devices")


def xpu(self: Tensor, device: Any = None, non_blocking: bool = False,
        memory_format: Any = None) -> Tensor:
    """Refused: there is no XPU backend (PyTorch's AssertionError of a build without one)."""
    raise AssertionError("Torch not compiled with XPU enabled")


def mtia(self: Tensor, device: Any = None, non_blocking: bool = False,
         memory_format: Any = None) -> Tensor:
    """Refused: there is no MTIA backend (PyTorch's AssertionError of a build without one)."""
    raise AssertionError("Torch not compiled with MTIA enabled")


# -- Python callables over the elements (CPU, outside autograd, as PyTorch's) --------------
def _number(value: Any, dtype: _dt.dtype) -> Any:
    if not isinstance(value, Number) or isinstance(value, complex):
        raise TypeError(f"must be real number, not {type(value).__name__}")
    if dtype is _dt.bool:
        return bool(value)
    return float(value) if dtype.is_floating_point else int(value)  # type: ignore[arg-type,call-overload]


def _elementwise_(self: Tensor, op: str, fn: Any, others: tuple[Tensor, ...]) -> Tensor:
    """``self[i] = fn(self[i], *(o[i] for o in others))`` for every element, in place."""
    from arraygrad.creation import tensor
    from arraygrad.ops.inplace import apply_inplace

    if any(t.requires_grad for t in (self, *others)):
        raise RuntimeError(f"Can't call {op}() on Variable that requires grad. Use "
                           f"var.detach().{op}() instead.")
    for t in (self, *others):
        if t.device.type != "cpu":
            raise TypeError(f"{op} is only implemented on CPU tensors")
    for t in others:
        if t.dtype is not self.dtype:
            raise TypeError(f"{op}: expected {self.dtype!r} for 'other' (got {t.dtype!r})")
    if not callable(fn):
        raise TypeError(f"'{type(fn).__name__}' object is not callable")
    shape = tuple(self.shape)
    columns = [self.reshape(-1).tolist()] + [t.expand(shape).reshape(-1).tolist()
                                             for t in others]
    values = [_number(fn(*args), self.dtype) for args in zip(*columns)]
    new = tensor(values, dtype=self.dtype, device=self.device).reshape(shape)
    return apply_inplace(self, op, lambda src: new)


def apply_(self: Tensor, callable: Any) -> Tensor:
    """Replace each element ``v`` by ``callable(v)`` (Python numbers; CPU; slow)."""
    return _elementwise_(self, "apply_", callable, ())


def map_(self: Tensor, tensor: Tensor, callable: Any) -> Tensor:
    """Replace each element ``a`` by ``callable(a, b)``, ``b`` of ``tensor`` broadcast."""
    return _elementwise_(self, "map_", callable, (tensor,))


def map2_(self: Tensor, x: Tensor, y: Tensor, callable: Any) -> Tensor:
    """Replace each element ``a`` by ``callable(a, b, c)``, ``b``/``c`` of ``x``/``y``."""
    return _elementwise_(self, "map2_", callable, (x, y))


# -- legacy construction and resizing ----------------------------------------------------
def new(self: Tensor, *args: Any, device: Any = None, **named: Any) -> Tensor:
    """PyTorch's legacy constructor with this tensor's dtype: ``new()`` (empty), ``new(2,
    3)`` or ``new(Size)`` (uninitialised), ``new(data)`` (a copy), ``new(tensor)`` (the same
    memory), ``new(storage)`` (a tensor over it); the one argument may be named ``size=``,
    ``data=``, ``other=`` or ``storage=``."""
    from arraygrad import creation
    from arraygrad.storage import TypedStorage, UntypedStorage

    if named:
        if args or len(named) > 1 or not set(named) <= {"size", "data", "other", "storage"}:
            raise TypeError(f"new() received an invalid combination of arguments: "
                            f"{len(args)} positional, keywords {sorted(named)}")
        (key, value), = named.items()
        args = (Size(value),) if key == "size" else (value,)
    where = self.device if device is None else device
    if not args or (all(isinstance(a, int) and not isinstance(a, bool) for a in args)) or \
            (len(args) == 1 and isinstance(args[0], Size)):
        return creation.empty(*(args or (0,)), dtype=self.dtype, device=where)
    if len(args) > 1:
        raise TypeError(f"new(): expected sizes (ints) or one data argument, got "
                        f"{len(args)} arguments")
    data = args[0]
    if isinstance(data, Tensor):
        if data.dtype is not self.dtype:
            raise TypeError(f"new(): expected a tensor of dtype {self.dtype!r}, got "
                            f"{data.dtype!r}")
        from arraygrad.ops.alias import alias

        return alias(data)
    if isinstance(data, (UntypedStorage, TypedStorage)):
        return creation.empty(0, dtype=self.dtype, device=where).set_(data)
    if isinstance(data, str):
        raise TypeError("new(): invalid data type 'str'")
    if isinstance(data, Number):
        raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
    return creation.tensor(data, dtype=self.dtype, device=where)


def _resized(self: Tensor, sizes: tuple[int, ...], op: str) -> Tensor:
    warnings.warn(f"non-inplace {op} is deprecated", UserWarning, stacklevel=3)
    numel = 1
    for s in sizes:
        numel *= s
    if numel != self.numel():
        raise RuntimeError(
            f"requested resize to {'x'.join(map(str, sizes))} ({numel} elements in total), but "
            f"the given tensor has a size of {'x'.join(map(str, self.shape))} ({self.numel()} "
            "elements). autograd's resize can only change the shape of a given tensor, while "
            "preserving the number of elements. ")
    return self.contiguous().view(sizes)


def resize(self: Tensor, *sizes: Any) -> Tensor:
    """A view of this tensor's elements in shape ``sizes`` (PyTorch's deprecated
    out-of-place resize: the number of elements cannot change)."""
    from arraygrad.creation import _size

    return _resized(self, _size(sizes, "resize"), "resize")


def resize_as(self: Tensor, tensor: Tensor) -> Tensor:
    """``resize(*tensor.shape)`` (deprecated in PyTorch)."""
    return _resized(self, tuple(tensor.shape), "resize_as")


def as_subclass(self: Tensor, cls: type) -> Tensor:
    """This tensor's elements as an instance of Tensor subclass ``cls``: the same memory,
    in the graph (an alias, as PyTorch's ``AliasBackward0``); ``cls.__init__`` is not run."""
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError("Creating a Tensor subclass from a class that does not inherit from "
                        "Tensor is not possible. Make sure your class inherits from Tensor.")
    from arraygrad.ops.alias import alias

    out = alias(self)
    out.__class__ = cls
    return out


def to_dense(self: Tensor, dtype: _dt.dtype | None = None, *,
             masked_grad: bool | None = None) -> Tensor:
    """This dense tensor itself (in ``dtype`` if given); a sparse tensor's ``to_dense`` is
    ``arraygrad.sparse``'s."""
    return self if dtype is None else self.to(dtype)


def module_load(self: Tensor, other: Tensor, assign: bool = False) -> Tensor:
    """How ``load_state_dict`` turns state-dict value ``other`` into this parameter's new
    value when swapping: ``other.detach()`` with ``assign``, else
    ``self.copy_(other).detach()``."""
    if assign:
        return other.detach()
    return self.copy_(other).detach()


# -- binding -----------------------------------------------------------------------------
METHODS: dict[str, Callable[..., Any]] = {
    "get_device": get_device, "ndimension": ndimension, "dim_order": dim_order,
    "is_signed": is_signed, "is_distributed": is_distributed, "is_same_size": is_same_size,
    "ipu": ipu, "xpu": xpu, "mtia": mtia, "apply_": apply_, "map_": map_, "map2_": map2_,
    "new": new, "resize": resize, "resize_as": resize_as, "as_subclass": as_subclass,
    "module_load": module_load, "to_dense": to_dense,
}


def bind(cls: Any) -> None:
    """Put the object methods on ``Tensor``: these, ``tensor_storage``'s and
    ``new_empty_strided``."""
    from arraygrad import tensor_storage
    from arraygrad.creation_strided import new_empty_strided

    for table in (METHODS, tensor_storage.METHODS):
        for name, fn in table.items():
            setattr(cls, name, fn)
    for name, prop in {**PROPERTIES, **tensor_storage.PROPERTIES}.items():
        setattr(cls, name, prop)
    cls.new_empty_strided = new_empty_strided


# -- the namespace's ---------------------------------------------------------------------
def set_default_tensor_type(t: Any) -> None:
    """PyTorch's deprecated default-type setter: ``FloatTensor``/``DoubleTensor``/... (or
    their names) set the default dtype, a ``torch.cuda.*`` name the default device too."""
    warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please "
                  "use torch.set_default_dtype() and torch.set_default_device() as "
                  "alternatives.", UserWarning, stacklevel=2)
    from arraygrad import cuda
    from arraygrad.device import set_default_device

    on_cuda = False
    if isinstance(t, str):
        prefix, _, name = t.rpartition(".")
        on_cuda = prefix == "torch.cuda"
        found = getattr(_legacy_types, name, None) if prefix in ("torch", "torch.cuda",
                                                                   "arraygrad") else None
        if not isinstance(found, _legacy_types._TensorType):
            raise TypeError(f"invalid type: {t!r}")
        if on_cuda and not cuda.is_available():
            raise TypeError(f"type {t} not available. arraygrad has no usable CUDA backend.")
        t = found
    if not isinstance(t, _legacy_types._TensorType):
        raise TypeError("invalid type object: only floating-point types are supported as the "
                        "default type")
    if t._dtype is None or not t._dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _dt.set_default_dtype(t._dtype)
    if on_cuda:
        set_default_device("cuda")


def _function(method: Callable[..., Any], name: str) -> Callable[..., Any]:
    def fn(input: Tensor, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' must be Tensor, not "
                            f"{type(input).__name__}")
        return method(input, *args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = method.__doc__
    return fn


def _resize_as_(input: Tensor, the_template: Tensor, *, memory_format: Any = None) -> Tensor:
    """``input.resize_as_(the_template)``: ``input`` in ``the_template``'s shape, in place."""
    return input.resize_as_(the_template, memory_format=memory_format)


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "set_default_tensor_type": set_default_tensor_type,
    "get_device": _function(get_device, "get_device"),
    "is_signed": _function(is_signed, "is_signed"),
    "is_same_size": _function(is_same_size, "is_same_size"),
    "is_distributed": _function(is_distributed, "is_distributed"),
    "resize_as_": _resize_as_,
}
