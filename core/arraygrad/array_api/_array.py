"""``Array``: the namespace's array type, a ``Tensor`` whose array-object members follow the
standard where PyTorch's differ, and the wrapper that makes every namespace function return
one.

What differs from a plain tensor (arrays that the namespace's functions return; a PyTorch
user's tensors keep PyTorch's rules):

- operators between two arrays of the namespace, or one and a Python scalar, are the
  namespace's functions: they promote by the standard (``_promotion``): ``uint16``/
  ``uint32``/``uint64`` with another integer dtype (PyTorch refuses), a 0-d array like any
  other (PyTorch lets the dimensioned operand's dtype win: ``int16_0d >> int8_1d`` is int16
  here, int8 there), and ``//`` has the standard's special cases. Where the standard defines
  no promotion (``bool`` with an integer) and where the other operand is a plain tensor (a
  PyTorch user's), the tensor's operator answers, with PyTorch's rules: core code that
  combines a namespace array with its own tensors computes as it always has;
- in-place operators compute with those functions and store the result as the tensor's own
  in-place operators do (the same checks, version counter and autograd);
- ``__getitem__``/``__setitem__`` take negative slice steps (``_negative_steps``);
- results of operators, indexing, ``mT``, ``T`` and ``to_device`` are ``Array``.

Everything else is the tensor's: autograd (results keep their ``grad_fn``; ``.grad`` is a
plain tensor), methods outside the standard (``x.reshape(...)`` returns a plain tensor).
A namespace function's result becomes an ``Array`` by assigning its class (no copy, no node);
a result that *is* one of the function's arguments (``asarray(x)``) is aliased instead, so a
caller's own tensor never changes class."""

from __future__ import annotations

import functools
from types import FunctionType
from typing import Any, Callable

from arraygrad.array_api import _negative_steps
from arraygrad.array_api._promotion import result_type
from arraygrad.ops.inplace import apply_inplace
from arraygrad.tensor import Tensor

__all__ = ["Array", "as_array", "returning_arrays", "export", "use_functions"]

_SCALARS = (bool, int, float, complex)


class Array(Tensor):
    """A tensor made by ``arraygrad.array_api``: its operators, indexing and ``mT``/``T``
    follow the Array API standard (type promotion, negative slice steps) and return
    ``Array``; otherwise it is the ``Tensor`` it subclasses."""

    __slots__ = ()

    def __getitem__(self, key: Any) -> Array:
        if _negative_steps.has_negative_step(key):
            return _retyped(_negative_steps.getitem(self, key))
        return _retyped(Tensor.__getitem__(self, key))

    def __setitem__(self, key: Any, value: Any) -> None:
        if _negative_steps.has_negative_step(key):
            _negative_steps.setitem(self, key, value)
        else:
            Tensor.__setitem__(self, key, value)

    @property
    def mT(self) -> Array:
        """The last two dimensions swapped."""
        return _retyped(Tensor.mT.fget(self))  # type: ignore[attr-defined]

    @property
    def T(self) -> Array:
        """The dimensions reversed (the standard defines it for two dimensions)."""
        return _retyped(Tensor.T.fget(self))  # type: ignore[attr-defined]

    def to_device(self, device: Any, /, *, stream: Any = None) -> Array:
        """The array on ``device`` (itself when it is there already)."""
        moved = Tensor.to_device(self, device, stream=stream)  # type: ignore[attr-defined]
        return as_array(moved, (self,))


def _retyped(out: Any) -> Any:
    """A result the tensor's own member made (a new tensor) as an ``Array``."""
    if type(out) is Tensor:
        out.__class__ = Array
    return out


def _is_input(t: Tensor, inputs: tuple[Any, ...]) -> bool:
    for a in inputs:
        if a is t or (isinstance(a, (list, tuple)) and any(b is t for b in a)):
            return True
    return False


def as_array(out: Any, inputs: tuple[Any, ...] = ()) -> Any:
    """``out`` (a tensor, or a tuple, named tuple or list of them) with its tensors as
    ``Array``: a new plain tensor by assigning its class, one of ``inputs`` by an alias."""
    if isinstance(out, Tensor):
        if type(out) is Array:
            return out
        if _is_input(out, inputs):
            return out.as_subclass(Array)
        return _retyped(out)
    if isinstance(out, tuple):
        items = [as_array(o, inputs) for o in out]
        return type(out)(*items) if hasattr(out, "_fields") else tuple(items)
    if isinstance(out, list):
        return [as_array(o, inputs) for o in out]
    return out


def returning_arrays(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` returning ``Array`` where it returns tensors (its signature and docstring
    kept: ``inspect.signature`` follows ``__wrapped__``)."""
    if getattr(fn, "_returns_arrays", False):
        return fn

    @functools.wraps(fn)
    def function(*args: Any, **kwargs: Any) -> Any:
        return as_array(fn(*args, **kwargs), args)

    function._returns_arrays = True  # type: ignore[attr-defined]
    return function


def export(namespace: dict[str, Any], names: Any) -> None:
    """Replace each function among ``names`` in module dict ``namespace`` by its
    ``returning_arrays`` form."""
    for name in names:
        value = namespace.get(name)
        if isinstance(value, FunctionType):
            namespace[name] = returning_arrays(value)


# -- operators ---------------------------------------------------------------------------

# operator -> the namespace function that computes it (the standard defines each operator
# as its function)
_BINARY = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "divide",
    "floordiv": "floor_divide", "mod": "remainder", "pow": "pow", "matmul": "matmul",
    "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
    "lshift": "bitwise_left_shift", "rshift": "bitwise_right_shift",
}
_COMPARISONS = {"eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal",
                "gt": "greater", "ge": "greater_equal"}
_UNARY = ("neg", "pos", "abs", "invert")


# the namespace's functions by name, handed over by the package once they are exported
# (``use_functions``): this module sits below the package and does not import it
_FUNCTIONS: dict[str, Callable[..., Any]] = {}


def use_functions(namespace: dict[str, Any]) -> None:
    """Take the functions the operators compute with from the package's ``namespace``."""
    for name in (*_BINARY.values(), *_COMPARISONS.values()):
        _FUNCTIONS[name] = namespace[name]


def _function(name: str) -> Callable[..., Any]:
    return _FUNCTIONS[name]


def _standard(self: Array, other: Any) -> bool:
    """Whether ``self`` and ``other`` combine by the standard: ``other`` a namespace array or
    a Python scalar, with a promotion the standard defines. Plain tensors, NumPy arrays,
    lists, and pairs the standard leaves undefined are the tensor's operator's."""
    if type(other) is not Array and not isinstance(other, _SCALARS):
        return False
    try:
        result_type(self, other)
    except TypeError:
        return False
    return True


def _named(method: Callable[..., Any], name: str, doc: str) -> Callable[..., Any]:
    method.__name__ = method.__qualname__ = name
    method.__doc__ = doc
    return method


def _forward(op: str, fn_name: str) -> Callable[..., Any]:
    plain = getattr(Tensor, f"__{op}__")
    # two arrays of one dtype: the tensor's operator computes what the standard's function
    # does (promotion is moot), a third of the time; ``//`` has the standard's special cases
    same_dtype_is_plain = op != "floordiv"

    def method(self: Array, other: Any) -> Any:
        if same_dtype_is_plain and type(other) is Array and other._data.dtype == self._data.dtype:
            return _retyped(plain(self, other))
        if _standard(self, other):
            return _function(fn_name)(self, other)
        return _retyped(plain(self, other))

    return _named(method, f"__{op}__", f"``{fn_name}(self, other)``, the standard's ``__{op}__``.")


def _reflected(op: str, fn_name: str) -> Callable[..., Any]:
    plain = getattr(Tensor, f"__r{op}__", None)

    def method(self: Array, other: Any) -> Any:
        if _standard(self, other):
            return _function(fn_name)(other, self)
        return NotImplemented if plain is None else _retyped(plain(self, other))

    return _named(method, f"__r{op}__",
                  f"``{fn_name}(other, self)``, the standard's ``__r{op}__``.")


def _inplace(op: str, fn_name: str) -> Callable[..., Any]:
    plain = getattr(Tensor, f"__i{op}__", None)

    def method(self: Array, other: Any) -> Any:
        if not _standard(self, other):
            return NotImplemented if plain is None else plain(self, other)
        fn = _function(fn_name)
        # the tensor's in-place machinery checks the result's dtype and shape against self's
        return apply_inplace(self, f"__i{op}__", lambda src: fn(src, other), (other,))

    return _named(method, f"__i{op}__",
                  f"``self = {fn_name}(self, other)`` in place, the standard's ``__i{op}__``.")


def _unary(op: str) -> Callable[..., Any]:
    plain = getattr(Tensor, f"__{op}__")

    def method(self: Array) -> Any:
        return _retyped(plain(self))

    return _named(method, f"__{op}__", f"The tensor's ``__{op}__``, as an ``Array``.")


for _op, _name in _BINARY.items():
    setattr(Array, f"__{_op}__", _forward(_op, _name))
    setattr(Array, f"__r{_op}__", _reflected(_op, _name))
    setattr(Array, f"__i{_op}__", _inplace(_op, _name))
for _op, _name in _COMPARISONS.items():
    setattr(Array, f"__{_op}__", _forward(_op, _name))
for _op in _UNARY:
    setattr(Array, f"__{_op}__", _unary(_op))
