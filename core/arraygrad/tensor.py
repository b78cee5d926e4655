"""``arraygrad.Tensor``: a backend array plus the autograd state PyTorch users know.

The class holds data and autograd bookkeeping only; operators, methods and
the legacy constructor are thin calls into the ops (bound in
``arraygrad.tensor_methods``), and plugin ops' methods are bound by the op
registry (``arraygrad.plugins.registry``).
"""

from __future__ import annotations

import warnings
import weakref
from typing import TYPE_CHECKING, Any, Callable, ClassVar, NoReturn

from arraygrad import dtypes as _dt
from arraygrad.autograd.grad_mode import _inference_open, _state as _grad_state
from arraygrad.autograd.graph import AccumulateGrad
from arraygrad.autograd.hooks import HookDict, RemovableHandle
from arraygrad.transform_state import hooks as _transform_hooks

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend

__all__ = ["Tensor", "Size"]


class Size(tuple[Any, ...]):
    """A tensor's shape: a tuple that prints like ``torch.Size``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"arraygrad.Size({list(self)})"

    def numel(self) -> int:
        """The number of elements a tensor of this shape has."""
        n = 1
        for s in self:
            n *= s
        return n


class Tensor:
    """A multi-dimensional array that can record the operations applied to it.

    >>> x = arraygrad.tensor([1., 2.], requires_grad=True)
    >>> (x * x).sum().backward()
    >>> x.grad
    tensor([2., 4.])
    """

    # Hot attributes are slots; rarely-set ones are class-level defaults that an
    # instance overrides (in its __dict__) only when used, keeping creation cheap.
    # ``_vc`` (the version counter, created on first need) is a slot too: saving an op's
    # output creates it, and as a ``__dict__`` entry that cost a dict per saved output.
    __slots__ = ("_data", "_backend", "_requires_grad", "_grad_fn", "_vc", "__weakref__",
                 "__dict__")
    _data: Any  # the backend's native array
    _backend: Backend
    # PyTorch's: NumPy scalars and arrays defer to the tensor's reflected operators, so
    # ``np.float64(2) * t`` is a tensor (not a NumPy array of t's values)
    __array_priority__ = 1000
    _requires_grad: bool
    _grad_fn: Any  # a Node, or None for a leaf
    _vc: Any  # the version counter, a one-element list[int]; None until first needed
    _grad: Tensor | None = None
    _output_nr: int = 0
    _hooks: HookDict | None = None
    _post_acc_hooks: HookDict | None = None
    _acc_ref: weakref.ref[AccumulateGrad] | None = None
    _base: Any = None  # a view's base Tensor
    _view: Any = None  # the view's replay record (``ops.views``), or None
    _strides: tuple[int, ...] | None = None
    _inference: bool = False  # made under ``inference_mode`` (``is_inference``)
    _fw_grads: dict[int, Any] | None = None  # forward-AD tangents by level (``forward_ad``)
    _grad_dtype: Any = False  # ``grad_dtype`` once set (a dtype, or None: any); False: own dtype

    if TYPE_CHECKING:
        # Operators and op methods (``t.reshape``, ``t + u``) are bound onto the class by
        # ``arraygrad.tensor_methods`` when the package loads; for the type checker they are
        # dynamic attributes. (No ``__getattr__`` exists at run time.)
        def __getattr__(self, name: str) -> Any: ...

        # the operators, bound the same way (mypy looks dunders up on the class, not through
        # ``__getattr__``); ``other`` is a Tensor or a Python number
        _wrap: ClassVar[Callable[[Any, Backend], Tensor]]
        def __init__(self, *args: Any, **kwargs: Any) -> None: ...
        def __add__(self, other: Any) -> Tensor: ...
        def __radd__(self, other: Any) -> Tensor: ...
        def __iadd__(self, other: Any) -> Tensor: ...
        def __sub__(self, other: Any) -> Tensor: ...
        def __rsub__(self, other: Any) -> Tensor: ...
        def __isub__(self, other: Any) -> Tensor: ...
        def __mul__(self, other: Any) -> Tensor: ...
        def __rmul__(self, other: Any) -> Tensor: ...
        def __imul__(self, other: Any) -> Tensor: ...
        def __truediv__(self, other: Any) -> Tensor: ...
        def __rtruediv__(self, other: Any) -> Tensor: ...
        def __itruediv__(self, other: Any) -> Tensor: ...
        def __floordiv__(self, other: Any) -> Tensor: ...
        def __rfloordiv__(self, other: Any) -> Tensor: ...
        def __mod__(self, other: Any) -> Tensor: ...
        def __rmod__(self, other: Any) -> Tensor: ...
        def __pow__(self, other: Any) -> Tensor: ...
        def __rpow__(self, other: Any) -> Tensor: ...
        def __matmul__(self, other: Any) -> Tensor: ...
        def __rmatmul__(self, other: Any) -> Tensor: ...
        def __eq__(self, other: object) -> Tensor: ...  # type: ignore[override]  # elementwise, as in PyTorch
        def __ne__(self, other: object) -> Tensor: ...  # type: ignore[override]  # elementwise, as in PyTorch
        def __lt__(self, other: Any) -> Tensor: ...
        def __le__(self, other: Any) -> Tensor: ...
        def __gt__(self, other: Any) -> Tensor: ...
        def __ge__(self, other: Any) -> Tensor: ...
        def __and__(self, other: Any) -> Tensor: ...
        def __rand__(self, other: Any) -> Tensor: ...
        def __or__(self, other: Any) -> Tensor: ...
        def __ror__(self, other: Any) -> Tensor: ...
        def __xor__(self, other: Any) -> Tensor: ...
        def __rxor__(self, other: Any) -> Tensor: ...
        def __neg__(self) -> Tensor: ...
        def __pos__(self) -> Tensor: ...
        def __abs__(self) -> Tensor: ...
        def __invert__(self) -> Tensor: ...
        def __getitem__(self, index: Any) -> Tensor: ...
        def __setitem__(self, index: Any, value: Any) -> None: ...

    # -- construction ---------------------------------------------------------
    # The legacy constructor ``Tensor([1, 2])`` / ``Tensor(2, 3)`` builds its data with the
    # creation functions, so it is bound in ``arraygrad.tensor_methods`` (this file imports
    # no ops). Plugin ops' methods are bound by ``arraygrad.plugins.registry`` as they load.

    def _init_from(self, data: Any, backend: Backend) -> None:
        self._data = data
        self._backend = backend
        self._requires_grad = False
        self._grad_fn = None
        self._vc = None

    # ``Tensor._wrap(data, backend)``, the core's way to make a tensor around an array, is the
    # module-level ``wrap`` below, attached after the class as a static method.

    # -- basic properties -------------------------------------------------------
    @property
    def shape(self) -> Size:
        """The size of each dimension."""
        return Size(self._data.shape)

    def size(self, dim: int | None = None) -> Any:
        """The shape, or the size of dimension ``dim``."""
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_wrap_dim(dim, self._data.ndim, "size")]

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return self._data.ndim

    def dim(self) -> int:
        """The number of dimensions."""
        return self._data.ndim

    def numel(self) -> int:
        """The number of elements."""
        n = 1
        for s in self._data.shape:
            n *= s
        return n

    nelement = numel

    @property
    def dtype(self) -> _dt.dtype:
        """The element type (``arraygrad.float32``...)."""
        return self._backend.arraygrad_dtype(self._data.dtype)

    @property
    def device(self) -> Any:
        """The device holding the data."""
        return self._backend.device

    @property
    def is_cuda(self) -> bool:
        """Whether the data is on a CUDA device."""
        return self._backend.device_type == "cuda"

    def is_floating_point(self) -> bool:
        """Whether the dtype is a floating type (complex types are not)."""
        return self.dtype.is_floating_point

    def element_size(self) -> int:
        """Bytes per element."""
        return self.dtype.itemsize

    def _type_name(self) -> str:
        return f"arraygrad.{self.dtype.name} tensor"

    # -- autograd state ---------------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        """Whether gradients are computed for this tensor."""
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        # as in PyTorch, the attribute of a non-leaf cannot be set at all, while
        # requires_grad_(True) on a non-leaf is a no-op
        if self._grad_fn is not None:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables."
                + ("" if value else " If you want to use a computed variable in a subgraph that "
                   "doesn't require differentiation use var_no_grad = var.detach()."))
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        """Set ``requires_grad`` in place on a leaf; returns self."""
        if self._grad_fn is not None:
            if requires_grad:
                return self
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a "
                "computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach().")
        if requires_grad and self._inference and not _grad_state.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside "
                               "InferenceMode is not allowed.")
        if requires_grad and not (self.dtype.is_floating_point or self.dtype.is_complex):
            raise RuntimeError(
                f"only Tensors of floating point dtype can require gradients, got {self.dtype}")
        self._requires_grad = bool(requires_grad)
        return self

    def is_inference(self) -> bool:
        """Whether this tensor was made under ``inference_mode``, or is a view of such a
        tensor (it cannot be saved for backward, set to require grad, nor updated in place
        outside ``inference_mode``)."""
        return self._inference or (self._base is not None and self._base._inference)

    @property
    def is_leaf(self) -> bool:
        """True for tensors not produced by a recorded operation."""
        return self._grad_fn is None

    @property
    def grad_fn(self) -> Any:
        """The node that produced this tensor (``None`` for leaves)."""
        if self._view is not None and self._view.version != self._vc[0]:
            self._sync_view()
        return self._grad_fn

    def _sync_view(self) -> None:
        """Rebuild a view's ``grad_fn`` after its base changed in place (as PyTorch does)."""
        view = self._view
        view.version = self._vc[0]
        base = self._base
        if base._requires_grad:
            from arraygrad.autograd.grad_mode import enable_grad

            with enable_grad():
                fresh = view.replay(base)
            self._grad_fn, self._output_nr = fresh._grad_fn, fresh._output_nr
            self._requires_grad = True

    @property
    def output_nr(self) -> int:
        """Which output of ``grad_fn`` this tensor is."""
        return self._output_nr

    @property
    def grad(self) -> Any:
        """The gradient accumulated by ``backward`` (leaves, or ``retain_grad`` tensors)."""
        if self._grad is None and self._grad_fn is not None and not self.retains_grad:
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its "
                ".grad attribute won't be populated during autograd.backward(). If you indeed want "
                "the .grad field to be populated for a non-leaf Tensor, use .retain_grad() on the "
                "non-leaf Tensor.", UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value: Any) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got {type(value).__name__}")
            if tuple(value.shape) != tuple(self.shape):
                raise RuntimeError(
                    f"assigned grad has data of a different size: expected {list(self.shape)}, "
                    f"got {list(value.shape)}")
            wanted = self._grad_dtype
            if wanted is False and value.dtype is not self.dtype:
                raise RuntimeError(
                    f"assigned grad has data of a different type: expected {self.dtype}, got {value.dtype}")
            if wanted is not False and wanted is not None and value.dtype is not wanted:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{value.dtype}' to a tensor with "
                    f"grad_dtype '{wanted}'. The gradient must match the tensor's grad_dtype "
                    "(defaults to the tensor's dtype). You can set the tensor's grad_dtype "
                    "attribute with a specific dtype, or None to allow any dtype.")
            if value._backend is not self._backend:
                raise RuntimeError(
                    f"assigned grad has data located on a different device: expected {self.device}, "
                    f"got {value.device}")
        self._grad = value

    @property
    def retains_grad(self) -> bool:
        """Whether ``retain_grad()`` was called on this non-leaf tensor."""
        fn = self._grad_fn
        return fn is not None and bool(fn._retains_grad) and self._output_nr in fn._retains_grad

    def retain_grad(self) -> None:
        """Keep ``.grad`` for this non-leaf tensor during backward."""
        if self._grad_fn is None:
            if not self._requires_grad:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            return
        fn = self._grad_fn
        if fn._retains_grad is None:
            fn._retains_grad = {}
        fn._retains_grad[self._output_nr] = weakref.ref(self)
        fn._install_hooks()  # the engine retains it through the node's hook wrapper

    def _version_counter(self) -> list[Any]:
        """The one-element version list shared by this tensor, its views and detached aliases."""
        vc = self._vc
        if vc is None:
            vc = self._vc = [0]
        return vc

    @property
    def _version(self) -> int:
        """How many in-place modifications this tensor (or an alias) has had."""
        return self._vc[0] if self._vc is not None else 0

    def _bump_version(self) -> None:
        vc = self._vc  # ``_version_counter()`` inline: every in-place write (optimizers' too)
        if vc is None:
            self._vc = [1]
        else:
            vc[0] += 1

    def _gradient_edge(self) -> tuple[Any, ...] | None:
        """``(node, output_nr)`` where this tensor's gradient enters the graph, or None."""
        if self._view is not None and self._view.version != self._vc[0]:
            self._sync_view()
        if self._grad_fn is not None:
            return (self._grad_fn, self._output_nr)
        if self._requires_grad:
            acc = self._acc_ref() if self._acc_ref is not None else None
            if acc is None:
                acc = AccumulateGrad(self)
                self._acc_ref = weakref.ref(acc)
            return (acc, 0)
        return None

    # -- hooks ------------------------------------------------------------------
    def register_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """``hook(grad)`` runs when this tensor's gradient is computed; may return a new one.

        It runs once with the summed gradient even when the tensor is used twice.
        """
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        told = _transform_hooks.python_effect  # a recording transform cannot run it later
        if told is not None:
            told("a tensor hook registered inside the step")
        fn = self._grad_fn
        if fn is not None:
            hooks = fn._tensor_hooks(self._output_nr)
        else:
            if self._hooks is None:
                self._hooks = HookDict()
            hooks = self._hooks
        handle = RemovableHandle(hooks).add(hooks, hook)
        if fn is not None:
            fn._install_hooks()
        else:
            self._wrap_accumulate_grad()
        return handle

    def register_post_accumulate_grad_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """``hook(tensor)`` runs on a leaf after its ``.grad`` was accumulated."""
        if self._grad_fn is not None:
            raise RuntimeError(
                "post accumulate grad hooks cannot be registered on non-leaf tensors")
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._post_acc_hooks is None:
            self._post_acc_hooks = HookDict()
        handle = RemovableHandle(self._post_acc_hooks).add(self._post_acc_hooks, hook)
        self._wrap_accumulate_grad()
        return handle

    def _wrap_accumulate_grad(self) -> None:
        """A leaf's hooks reach the engine through its ``AccumulateGrad``'s hook wrapper: wrap
        the one a live graph already holds (a new one wraps itself when made)."""
        acc = self._acc_ref() if self._acc_ref is not None else None
        if acc is not None:
            acc._install_hooks()

    # -- graph ----------------------------------------------------------------------
    def backward(self, gradient: Any = None, retain_graph: bool | None = None,
                 create_graph: bool = False, inputs: Any = None) -> None:
        """Compute the gradient of this tensor w.r.t. graph leaves and accumulate it in ``.grad``."""
        api = _autograd_api[0] if _autograd_api else _load_autograd_api()
        api.backward(self, None if gradient is None else (gradient,), retain_graph=retain_graph,
                     create_graph=create_graph, inputs=inputs)

    def detach(self) -> "Tensor":
        """A new tensor sharing data (and version counter) with this one, outside the graph."""
        t = Tensor._wrap(self._data, self._backend)
        t._vc = self._version_counter()
        t._strides = self._strides
        return t

    def detach_(self) -> "Tensor":
        """Cut this tensor out of the graph in place; it becomes a leaf."""
        if self._base is not None:  # a view (PyTorch refuses whether or not it requires grad)
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set "
                "as True, gradients are views of DDP buckets, and hence detach_() cannot be "
                "called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")
        self._grad_fn = None
        self._output_nr = 0
        self._requires_grad = False
        return self

    def _detached_copy(self) -> "Tensor":
        """A fresh copy of the data, outside the graph (used for ``.grad``)."""
        return Tensor._wrap(self._backend.xp.asarray(self._data, copy=True), self._backend)

    @property
    def data(self) -> "Tensor":
        """The same data as a tensor outside the graph (its own version counter)."""
        t = Tensor._wrap(self._data, self._backend)
        t._strides = self._strides
        if not self._backend.mutable_arrays and self._base is None:
            # no memory to share: a write into ``t`` (``p.data.mul_(2)``) is handed on to
            # this tensor when ``t`` is rebound (``immutable_writes.rebind``; a view's would
            # have to go through its base: not handed on)
            t.__dict__["_data_of"] = self
        return t

    @data.setter
    def data(self, value: "Tensor") -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"data must be a Tensor, got {type(value).__name__}")
        self._data = value._data
        self._backend = value._backend
        self._strides = value._strides

    # -- conversion ---------------------------------------------------------------
    def numpy(self, *, force: bool = False) -> Any:
        """The data as a NumPy array (shares memory on the CPU). Refused for a tensor that
        requires grad while grad mode is on (as PyTorch: under ``no_grad``, e.g. in a custom
        Function's ``forward``, it is allowed)."""
        if self._requires_grad and _grad_state.enabled and not force:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        if self._backend.device_type != "cpu" and not force:
            raise TypeError(
                f"can't convert {self.device} device type tensor to numpy. Use Tensor.cpu() to copy "
                "the tensor to host memory first.")
        return self._backend.to_host(self._data)

    def tolist(self) -> Any:
        """The data as (nested) Python numbers."""
        return self._backend.to_host(self._data).tolist()

    def item(self) -> Any:
        """The value of a one-element tensor as a Python number."""
        if self.numel() != 1:
            raise RuntimeError(
                f"a Tensor with {self.numel()} elements cannot be converted to Scalar")
        if not self._backend.holds_data:
            raise RuntimeError(f"Tensor.item() cannot be called on {self.device.type} tensors")
        if self._backend.lazy:  # computed once: later uses start from the value
            # (``backends.materialization.materialize`` for one tensor: the tensor layer sits
            # below the backends package)
            self._data = self._backend.materialize([self._data])[0]
        value = self._backend.to_host(self._data).reshape(()).tolist()
        return value

    def __dlpack__(self, *, stream: Any = None, max_version: Any = None, dl_device: Any = None,
                   copy: bool | None = None) -> Any:
        """A DLPack capsule of the data (the Array API's keywords, as PyTorch's)."""
        # only the keywords given: a backend's array may predate the newer ones
        keywords = {"stream": stream, "max_version": max_version, "dl_device": dl_device,
                    "copy": copy}
        given = {name: value for name, value in keywords.items() if value is not None}
        return self._data.__dlpack__(**given)

    def __dlpack_device__(self) -> Any:
        return self._data.__dlpack_device__()

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self) -> Any:
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        # PyTorch's: the parts of one ``unbind`` (views of one multi-output node, which an
        # in-place write refuses while recording), made at once
        return iter(self.unbind(0))

    def __bool__(self) -> bool:
        if self.numel() != 1:
            raise RuntimeError(
                "Boolean value of Tensor with more than one value is ambiguous")
        # an array that stands for several values (vmap's batched ones) refuses with its message
        refuse = getattr(self._data, "refuse_control_flow", None)
        if refuse is not None:
            refuse()
        return bool(self.item())

    def _scalar(self) -> Any:
        """The one value, for ``float()``/``int()`` (PyTorch's ValueError for several)."""
        if self.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self.item()

    def __float__(self) -> float:
        return float(self._real_scalar("double"))

    def __int__(self) -> int:
        return int(self._real_scalar("int64_t"))

    def __complex__(self) -> complex:
        return complex(self._scalar())

    def _real_scalar(self, c_type: str) -> Any:
        """The one value as a real number: a complex one's real part when its imaginary part
        is 0, else PyTorch's RuntimeError (its conversion to ``c_type`` checks it)."""
        value = self._scalar()
        if isinstance(value, complex):
            if value.imag:
                raise RuntimeError(f"value cannot be converted to type {c_type} without overflow")
            return value.real
        return value

    def __index__(self) -> int:
        data, backend = self._data, self._backend
        kind: Any = backend.array_type  # (Any: an ``is`` test on a type narrows ``data``)
        if type(data) is kind and not data.ndim \
                and data.dtype not in backend.differentiable_natives:
            # a 0-d integer array of the backend's own type (a slice bound ``i + 8``, a
            # position): its value, without ``item``'s layers
            return int(data)
        d = self.dtype
        if d.is_floating_point or d.is_complex or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        from arraygrad.tensor_str import tensor_repr

        return tensor_repr(self)

    def __reduce_ex__(self, protocol: Any) -> NoReturn:
        # loading never runs code, so a tensor never pickles (arraygrad.save writes files);
        # ``copy.copy``/``copy.deepcopy`` have their own methods (``tensor_interop``)
        raise TypeError("arraygrad tensors are not picklable; use arraygrad.save")


def wrap(data: Any, backend: Backend) -> Tensor:
    """A new tensor around a native array (no copy, no graph).

    A plain function, not a method, because every op's result goes through it (a
    classmethod call costs a third more). Arrays of another type than the backend's
    (NumPy's scalars from 0-d operations) are coerced first.
    """
    if type(data) is not backend.array_type and backend.array_type is not None:
        data = backend.coerce(data)
    t = _new(Tensor)
    t._data = data
    t._backend = backend
    t._requires_grad = False
    t._grad_fn = None
    t._vc = None
    if _inference_open.n and _grad_state.inference:  # a slot test outside inference_mode
        t._inference = True
    return t


_new = object.__new__
Tensor._wrap = staticmethod(wrap)  # the name the core has always used


def _wrap_dim(dim: int, ndim: int, op: str) -> int:
    """Normalise a possibly negative dimension index, raising IndexError when out of range."""
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(
            f"{op}: Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n if ndim else 0


_autograd_api: list[Any] = []  # ``arraygrad.autograd.api`` once loaded (it imports this module)


def _load_autograd_api() -> Any:
    """``arraygrad.autograd.api``, imported on first use and kept: ``Tensor.backward`` runs it
    without an import statement's lookup per call."""
    from arraygrad.autograd import api

    _autograd_api.append(api)
    return api
