"""``nn.Parameter``: a tensor a ``Module`` registers as one of its parameters; ``nn.Buffer``, one
it registers as a buffer; and the lazy modules' ``UninitializedParameter``/``UninitializedBuffer``,
whose shape is still unknown."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Self

from arraygrad.tensor import Tensor

if TYPE_CHECKING:
    from arraygrad import dtypes as _dt
    from arraygrad.device import DeviceLike
    from arraygrad.nn.modules.module import Module

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer",
           "UninitializedTensorMixin", "is_lazy", "optional_parameter"]


class Parameter(Tensor):
    """A leaf tensor that, assigned as a ``Module`` attribute, joins ``parameters()``.

    ``Parameter(data)`` shares ``data``'s memory (and version counter) and
    requires grad by default.

    >>> p = Parameter(arraygrad.ones(2))
    >>> p
    Parameter containing:
    tensor([1., 1.], requires_grad=True)
    """

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> Self:
        if data is None:
            from arraygrad.creation import empty

            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): data must be a Tensor, got {type(data).__name__}")
        p = object.__new__(cls)
        p._init_from(data._data, data._backend)
        # an alias of data, as PyTorch's _make_subclass; the ignore: tensor.py's untyped code
        # leaves mypy inferring Tensor._vc as None (typed after the issue-11 merge)
        p._vc = data._version_counter()
        if requires_grad:
            p.requires_grad_(True)
        return p

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        # everything happens in __new__; Tensor.__init__ (the legacy constructor) must not run
        pass

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()


def optional_parameter(module: Module, name: str, wanted: bool, *shape: int,
                       dtype: _dt.dtype | None = None, device: DeviceLike | None = None) -> None:
    """Register ``module.<name>`` as an uninitialised Parameter of ``shape`` when ``wanted``,
    else as None (so it is listed, as PyTorch lists ``bias=False`` layers' ``bias``)."""
    if wanted:
        from arraygrad.creation import empty

        setattr(module, name, Parameter(empty(*shape, dtype=dtype, device=device)))
    else:
        module.register_parameter(name, None)


class _BufferMeta(type):
    """``isinstance(t, Buffer)`` holds for the tensors ``Buffer(...)`` made (plain Tensors
    marked ``_is_buffer``), as PyTorch's metaclass does."""

    def __instancecheck__(cls, instance: Any) -> bool:
        if cls is Buffer and isinstance(instance, Tensor) and getattr(instance, "_is_buffer",
                                                                      False):
            return True
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """A tensor that, assigned as a ``Module`` attribute, joins its ``buffers()`` (not its
    parameters): ``self.running = nn.Buffer(arraygrad.zeros(3))``.

    ``Buffer(data)`` is a detached alias of ``data`` (keeping its ``requires_grad``), marked
    with ``persistent`` (whether ``state_dict`` holds it).
    """

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True) -> Any:
        if data is None:
            from arraygrad.creation import empty

            data = empty(0)
        t: Any = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


# the slot holding a tensor's array: an uninitialised tensor keeps its 0-element placeholder
# there, and its ``_data`` property refuses every op that reads it
_DATA_SLOT: Any = Tensor.__dict__["_data"]


def _uninitialized_use(cls: type) -> ValueError:
    caller = sys._getframe(2).f_code.co_name  # the op that read the array
    return ValueError(
        f"Attempted to use an uninitialized parameter in {caller}. This error happens when you "
        f"are using a `LazyModule` or explicitly manipulating `arraygrad.nn.parameter."
        f"{cls.__name__}` objects. When using LazyModules Call `forward` with a dummy batch to "
        "initialize the parameters before calling arraygrad functions")


class UninitializedTensorMixin:
    """What the uninitialised tensors share: no shape until ``materialize``; only the dtype
    and device (``to``, ``float``, ``cpu``...), ``requires_grad`` and ``size()`` may be used."""

    __slots__ = ()
    cls_to_become: type

    @property
    def _data(self) -> Any:
        raise _uninitialized_use(type(self))

    @_data.setter
    def _data(self, value: Any) -> None:
        _DATA_SLOT.__set__(self, value)

    def _placeholder(self) -> Tensor:
        backend: Any = getattr(self, "_backend")
        return Tensor._wrap(_DATA_SLOT.__get__(self, type(self)), backend)

    @property
    def shape(self) -> Any:
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually "
            "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
            "initialized one. Call `forward` to initialize the parameters before accessing their "
            "attributes.")

    def size(self, dim: int | None = None) -> Any:
        """The placeholder's size, ``Size([0])`` (as PyTorch's)."""
        return self._placeholder().size(dim)

    @property
    def dtype(self) -> Any:
        """The dtype the tensor will have."""
        return self._placeholder().dtype

    @property
    def data(self) -> Tensor:
        """The empty placeholder (as PyTorch's ``.data`` of an uninitialised tensor)."""
        return self._placeholder()

    @data.setter
    def data(self, value: Tensor) -> None:
        source = value._placeholder() if isinstance(value, UninitializedTensorMixin) else value
        self._data = source._data
        setattr(self, "_backend", source._backend)

    def materialize(self, shape: Any, device: Any = None, dtype: Any = None) -> None:
        """Become a ``Parameter`` (a plain Tensor for a buffer) of ``shape``, uninitialised
        values, on this tensor's device and dtype unless given; the object stays the same."""
        from arraygrad.creation import empty

        held = self._placeholder()
        if isinstance(shape, int):
            shape = (shape,)
        data = empty(tuple(shape), device=held.device if device is None else device,
                     dtype=held.dtype if dtype is None else dtype)
        self._data = data._data
        setattr(self, "_backend", data._backend)
        self.__class__ = self.cls_to_become

    def share_memory_(self) -> Any:
        """Refused, as PyTorch: there is no memory to share yet."""
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
            "initialize the parameters before calling `module.share_memory()`.")

    def _converted(self, fn: Any) -> Any:
        """A new uninitialised tensor of this kind whose placeholder is ``fn(placeholder)``."""
        held = fn(self._placeholder())
        kind: Any = type(self)
        return kind(getattr(self, "requires_grad"), held.device, held.dtype)

    def to(self, *args: Any, **kwargs: Any) -> Any:
        """This tensor's kind with the dtype and/or device changed (still uninitialised)."""
        return self._converted(lambda t: t.to(*args, **kwargs))

    def cpu(self) -> Any:
        """Uninitialised, on the CPU."""
        return self._converted(lambda t: t.cpu())

    def cuda(self, device: Any = None) -> Any:
        """Uninitialised, on a CUDA device."""
        return self._converted(lambda t: t.cuda(device))

    def float(self) -> Any:
        """Uninitialised, float32."""
        return self._converted(lambda t: t.float())

    def double(self) -> Any:
        """Uninitialised, float64."""
        return self._converted(lambda t: t.double())

    def half(self) -> Any:
        """Uninitialised, float16."""
        return self._converted(lambda t: t.half())

    def bfloat16(self) -> Any:
        """Uninitialised, bfloat16."""
        return self._converted(lambda t: t.bfloat16())

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        if id(self) not in memo:
            memo[id(self)] = self._converted(lambda t: t)
        return memo[id(self)]

    def __reduce_ex__(self, protocol: Any) -> Any:
        return (type(self), (getattr(self, "requires_grad"),))

    def __copy__(self) -> Any:
        # what the reduction above rebuilds (Tensor.__copy__ would share a placeholder's data)
        cls: Any = type(self)  # a concrete subclass, which takes requires_grad
        return cls(getattr(self, "requires_grad"))

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"


def is_lazy(param: Any) -> bool:
    """Whether ``param`` is an ``UninitializedParameter`` or ``UninitializedBuffer``."""
    return isinstance(param, UninitializedTensorMixin)


def _placeholder(device: Any, dtype: Any) -> Tensor:
    from arraygrad.creation import empty

    return empty(0, device=device, dtype=dtype)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A parameter whose shape is not known yet (a lazy module's, until its first call).

    Only its dtype and device can change (``to``...) until ``materialize(shape)`` makes it a
    ``Parameter`` in place; any other use raises ValueError, its ``shape`` RuntimeError.
    """

    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device: Any = None, dtype: Any = None) -> Any:
        return super().__new__(cls, _placeholder(device, dtype), requires_grad)

    def __init__(self, requires_grad: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        pass


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape is not known yet (a lazy batch norm's running statistics);
    ``materialize(shape)`` makes it a plain Tensor in place."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad: bool = False, device: Any = None, dtype: Any = None,
                persistent: bool = True) -> Any:
        held = _placeholder(device, dtype)
        t: Any = object.__new__(cls)
        t._init_from(held._data, held._backend)
        if requires_grad:
            t.requires_grad_(True)
        t.persistent = persistent
        return t

    def __init__(self, requires_grad: bool = False, device: Any = None, dtype: Any = None,
                 persistent: bool = True) -> None:
        pass
