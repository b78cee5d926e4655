"""``BatchedArray``: a native array carrying one vmap level's batch dimension in front.

Inside ``vmap`` a tensor's ``_data`` is a ``BatchedArray``: ``value`` is the physical array
(batch dimension first, then the *logical* shape the function sees), ``level`` the
``Level`` of the vmap call that made it. It answers what the core asks of an Array API
array (``shape``/``ndim``/``dtype``/``size``/``device``/``T``/``mT``, the Python operators,
``__getitem__``/``__setitem__``, ``__array_namespace__``) with the logical view, and
computes through the level's batching namespace (``_namespace``), so one backend call
serves the whole batch. What would need a per-sample value (``__array__``, ``__dlpack__``,
``__float__``, ``__bool__``, ``item``, ``tolist``) raises PyTorch's vmap RuntimeError: a
batched array leaking into native code fails loudly instead of computing on the wrong shape.

Levels nest: the value of a level-2 array is a level-1 ``BatchedArray`` (or a native
array), and each level computes through the namespace of the level below. Levels are
ordered by creation (``Level.depth``): an operator between two batched arrays is handled
by the inner (later) level, which sees the outer one's array as an unbatched operand.
"""

from __future__ import annotations

import itertools
import operator
from typing import Any

__all__ = ["BatchedArray", "Level", "ITEM_MESSAGE", "CONTROL_FLOW_MESSAGE", "DATA_MESSAGE",
           "INPLACE_MESSAGE", "DYNAMIC_SHAPE_MESSAGE", "RANDOM_ERROR_MESSAGE"]

ITEM_MESSAGE = (
    "vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over calling "
    ".item() on a Tensor, please try to rewrite what you're doing with other operations. If error "
    "is occurring somewhere inside PyTorch internals, please file a bug report.")
CONTROL_FLOW_MESSAGE = (
    "vmap: It looks like you're attempting to use a Tensor in some data-dependent control flow. "
    "We don't support that yet, please file an issue at https://github.com/pytorch/pytorch/issues .")
DATA_MESSAGE = "Cannot access data pointer of Tensor that doesn't have storage"
INPLACE_MESSAGE = (
    "vmap: inplace arithmetic(self, *extra_args) is not possible because there exists a Tensor "
    "`other` in extra_args that has more elements than `self`. This happened due to `other` being "
    "vmapped over but `self` not being vmapped over in a vmap. Please try to use out-of-place "
    "operators instead of inplace arithmetic. If said operator is being called inside the PyTorch "
    "framework, please file a bug report instead.")
DYNAMIC_SHAPE_MESSAGE = (
    "vmap: We do not support batching operators that can output dynamic shape. Attempted to vmap "
    "over {}. Please file an issue at https://github.com/pytorch/pytorch/issues if you need this "
    "feature.")
RANDOM_ERROR_MESSAGE = (
    "vmap: called random operation while in randomness error mode. Please either use the 'same' or "
    "'different' randomness flags on vmap or perform the randomness operation out of vmap")

_depths = itertools.count(1)


class Level:
    """One ``vmap`` call: its batch size, the namespace it computes with (``base``: the real
    backend's ``xp``, or the enclosing level's batching namespace), its ``randomness`` mode.

    ``xp`` (the batching namespace) and ``backend`` (the ``BatchingBackend``) are set by
    ``_namespace.BatchingBackend``. ``depth`` orders levels: a later (inner) level is deeper.
    """

    __slots__ = ("size", "base", "randomness", "xp", "backend", "depth", "active", "__weakref__")

    def __init__(self, size: int, base: Any, randomness: str) -> None:
        self.size = size
        self.base = base
        self.randomness = randomness
        self.depth = next(_depths)
        self.active = False  # while its vmap call runs (gradients leave ended levels summed)
        self.xp: Any = None
        self.backend: Any = None

    def check_write(self, target: Any) -> None:
        """Refuse (PyTorch's RuntimeError) to write an array batched at this level into
        ``target`` when ``target`` is not batched at this level: in place, a tensor cannot
        become batched."""
        while type(target) is BatchedArray:
            if target.level is self:
                return
            target = target.value
        raise RuntimeError(INPLACE_MESSAGE)

    def __repr__(self) -> str:
        return f"<vmap level {self.depth}: batch size {self.size}, randomness={self.randomness!r}>"


def _binary(op: Any) -> Any:
    def method(self: "BatchedArray", other: Any) -> Any:
        if type(other) is BatchedArray and other.level.depth > self.level.depth:
            # the inner level computes, we are unbatched to it (Python tries no reflected
            # method between operands of one type, so we hand over here)
            return other.level.xp._operator(op, self, other)
        return self.level.xp._operator(op, self, other)
    method.__name__ = f"__{op.__name__.strip('_')}__"
    return method


def _reflected(op: Any) -> Any:
    def method(self: "BatchedArray", other: Any) -> Any:
        return self.level.xp._operator(lambda a, b: op(b, a), self, other)
    method.__name__ = f"__r{op.__name__.strip('_')}__"
    return method


def _inplace(op: Any) -> Any:
    def method(self: "BatchedArray", other: Any) -> Any:
        self.level.xp._inplace(op, self, other)
        return self
    return method


def _unary(op: Any) -> Any:
    def method(self: "BatchedArray") -> Any:
        return BatchedArray(op(self.value), self.level)
    return method


class BatchedArray:
    """A native array whose leading dimension is a vmap level's batch (see the module doc)."""

    __slots__ = ("value", "level", "reduced", "fresh")
    __array_ufunc__ = None  # NumPy: ``ndarray op BatchedArray`` defers to our reflected operator
    __array_priority__ = 1000
    def __init__(self, value: Any, level: Level, reduced: str | None = None) -> None:
        self.value = value
        self.level = level
        self.reduced = reduced  # "min"/"max"/"any"/"all" of a whole sample (see _batch_value)
        self.fresh = False  # a buffer an op allocated (``rules_creation``): writes may widen it

    # -- the logical view ---------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        """The logical shape: the physical one without the batch dimension."""
        return tuple(self.value.shape[1:])

    @property
    def ndim(self) -> int:
        """The logical number of dimensions."""
        return self.value.ndim - 1

    @property
    def size(self) -> int:
        """The logical number of elements."""
        n = 1
        for s in self.value.shape[1:]:
            n *= s
        return n

    @property
    def dtype(self) -> Any:
        """The element type (the physical array's)."""
        return self.value.dtype

    @property
    def device(self) -> Any:
        """The physical array's device."""
        return self.value.device

    @property
    def T(self) -> "BatchedArray":
        """The logical transpose (dimensions reversed)."""
        n = self.ndim
        return self.level.xp.permute_dims(self, tuple(range(n - 1, -1, -1)))

    @property
    def mT(self) -> "BatchedArray":
        """The transpose of the last two logical dimensions."""
        return self.level.xp.matrix_transpose(self)

    def __array_namespace__(self, api_version: str | None = None) -> Any:
        """The level's batching namespace."""
        return self.level.xp

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of unsized object")
        return int(self.value.shape[1])

    def __getitem__(self, key: Any) -> Any:
        return self.level.xp._getitem(self, key)

    def __setitem__(self, key: Any, value: Any) -> None:
        self.level.xp._setitem(self, key, value)

    def __repr__(self) -> str:
        return f"BatchedArray(lvl={self.level.depth}, bdim=0, value={self.value!r})"

    # -- what needs one value per sample: PyTorch's vmap errors ----------------------------
    # Only the core's array code converts arrays to Python values directly (user code goes
    # through ``Tensor.item``/``__bool__``, which refuse as PyTorch does). The core does it to
    # check arguments (``int(xp.max(index)) < n``, ``bool(xp.any(p < 0))``) and to branch on
    # a value (``if count == 0``). A whole-sample ``min``/``max``/``any``/``all`` remembers its
    # reduction (``reduced``) and reads as that reduction over the batch too (a check then
    # covers every sample); any other 0-d value reads as itself when every sample has the
    # same one, and raises PyTorch's vmap error when they differ.
    def _python_value(self, message: str) -> Any:
        if self.ndim != 0:
            raise RuntimeError(message)
        base = self.level.base
        if self.reduced is not None:
            return getattr(base, self.reduced)(self.value)
        first = self.value[0]
        if not bool(base.all(self.value == first)):
            raise RuntimeError(message)
        return first

    def refuse_control_flow(self) -> None:
        """PyTorch's error for ``if tensor:`` inside vmap (``Tensor.__bool__`` asks any array
        for this method: an array standing for several values refuses)."""
        raise RuntimeError(CONTROL_FLOW_MESSAGE)

    def check_write_into(self, target: Any) -> None:
        """Refuse to be written into ``target`` unless it is batched at our level too (an
        in-place write cannot make a tensor batched); ``ops.inplace`` asks any array it writes."""
        self.level.check_write(target)

    def __bool__(self) -> bool:
        return bool(self._python_value(CONTROL_FLOW_MESSAGE))

    def __float__(self) -> float:
        return float(self._python_value(ITEM_MESSAGE))

    def __int__(self) -> int:
        return int(self._python_value(ITEM_MESSAGE))

    __index__ = __int__

    def __complex__(self) -> complex:
        raise RuntimeError(ITEM_MESSAGE)

    def item(self) -> Any:
        """Refused: a batched array has one value per sample."""
        raise RuntimeError(ITEM_MESSAGE)

    def tolist(self) -> Any:
        """Refused: a batched array has no single host value."""
        raise RuntimeError(DATA_MESSAGE)

    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(DATA_MESSAGE)

    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(DATA_MESSAGE)

    def __dlpack_device__(self) -> Any:
        raise RuntimeError(DATA_MESSAGE)

    def __iter__(self) -> Any:
        return (self[i] for i in range(len(self)))

    __hash__ = None  # type: ignore[assignment]  # arrays compare elementwise

    # -- operators: elementwise batching rules ---------------------------------------------
    __add__, __radd__, __iadd__ = _binary(operator.add), _reflected(operator.add), _inplace(operator.iadd)
    __sub__, __rsub__, __isub__ = _binary(operator.sub), _reflected(operator.sub), _inplace(operator.isub)
    __mul__, __rmul__, __imul__ = _binary(operator.mul), _reflected(operator.mul), _inplace(operator.imul)
    __truediv__, __rtruediv__, __itruediv__ = (_binary(operator.truediv), _reflected(operator.truediv),
                                               _inplace(operator.itruediv))
    __floordiv__, __rfloordiv__, __ifloordiv__ = (_binary(operator.floordiv),
                                                  _reflected(operator.floordiv),
                                                  _inplace(operator.ifloordiv))
    __mod__, __rmod__, __imod__ = _binary(operator.mod), _reflected(operator.mod), _inplace(operator.imod)
    __pow__, __rpow__, __ipow__ = _binary(operator.pow), _reflected(operator.pow), _inplace(operator.ipow)
    __and__, __rand__, __iand__ = _binary(operator.and_), _reflected(operator.and_), _inplace(operator.iand)
    __or__, __ror__, __ior__ = _binary(operator.or_), _reflected(operator.or_), _inplace(operator.ior)
    __xor__, __rxor__, __ixor__ = _binary(operator.xor), _reflected(operator.xor), _inplace(operator.ixor)
    __lshift__, __rlshift__ = _binary(operator.lshift), _reflected(operator.lshift)
    __rshift__, __rrshift__ = _binary(operator.rshift), _reflected(operator.rshift)
    __eq__ = _binary(operator.eq)  # elementwise, as arrays compare
    __ne__ = _binary(operator.ne)
    __lt__, __le__ = _binary(operator.lt), _binary(operator.le)
    __gt__, __ge__ = _binary(operator.gt), _binary(operator.ge)
    __neg__, __pos__ = _unary(operator.neg), _unary(operator.pos)
    __abs__, __invert__ = _unary(operator.abs), _unary(operator.invert)

    def __matmul__(self, other: Any) -> Any:
        if type(other) is BatchedArray and other.level.depth > self.level.depth:
            return other.level.xp.matmul(self, other)
        return self.level.xp.matmul(self, other)

    def __rmatmul__(self, other: Any) -> Any:
        return self.level.xp.matmul(other, self)
