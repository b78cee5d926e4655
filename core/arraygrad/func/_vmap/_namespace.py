"""The batching namespace and ``BatchingBackend``: one vmap level as an Array API backend.

``BatchingBackend`` wraps the backend one level down (the real one, or the enclosing
vmap's): its ``xp`` is a ``BatchingNamespace`` whose every function looks for arguments
batched at its level and, when it finds one, runs the function's batching rule
(``_table.RULES``), else calls the function one level down as it is. A function without a
rule takes the loop-and-stack fallback: once per sample, on the per-sample slices, then
the results stacked. It is correct for any function but slow, so it warns once per
function, naming it (and the op being computed, read from the call stack).
"""

from __future__ import annotations

from typing import Any, Callable

from arraygrad.backends.contract import Backend, Generator
from arraygrad.backends.wrapped_namespace import WrappedNamespace
from arraygrad.func._vmap import _table
from arraygrad.func._vmap._below import below_namespace, deepest_level
from arraygrad.func._vmap._fallback import fallback
from arraygrad.func._vmap._wrap import leave_levels
from arraygrad.func._vmap.rules_indexing import getitem, scatter_add, setitem
from arraygrad.func._vmap.rules_creation import ALLOCATORS, allocate
from arraygrad.func._vmap._batched import (
    DATA_MESSAGE, DYNAMIC_SHAPE_MESSAGE, RANDOM_ERROR_MESSAGE, BatchedArray, Level,
)

__all__ = ["BatchingBackend", "BatchingNamespace"]

# Functions whose result shape depends on the data: no batched form exists (PyTorch refuses).
_DYNAMIC = {"nonzero": "aten::nonzero", "unique_all": "aten::unique", "unique_counts": "aten::unique",
            "unique_inverse": "aten::unique", "unique_values": "aten::unique"}
# Functions of dtypes and constants: a batched array stands for its dtype only.
_DTYPE_ONLY = {"finfo", "iinfo", "result_type", "can_cast", "isdtype"}


def _has_batched(level: Level, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    for a in args:
        if type(a) is BatchedArray:
            if a.level is level:
                return True
        elif type(a) in (list, tuple):
            for b in a:
                if type(b) is BatchedArray and b.level is level:
                    return True
    for a in kwargs.values():
        if type(a) is BatchedArray and a.level is level:
            return True
    return False


def _dispatcher(level: Level, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """The batching namespace's function ``name``: ``fn`` itself without batched arguments,
    else the rule (or the fallback)."""
    if name in _DYNAMIC:
        message = DYNAMIC_SHAPE_MESSAGE.format(_DYNAMIC[name])

        def dynamic(*args: Any, **kwargs: Any) -> Any:
            if _has_batched(level, args, kwargs):
                raise RuntimeError(message)
            return fn(*args, **kwargs)
        return dynamic
    if name in _DTYPE_ONLY:
        def dtype_only(*args: Any, **kwargs: Any) -> Any:
            return fn(*[a.dtype if type(a) is BatchedArray else a for a in args], **kwargs)
        return dtype_only
    if name in ALLOCATORS:
        def allocator(*args: Any, **kwargs: Any) -> Any:
            return allocate(level, fn, *args, **kwargs)
        allocator.__name__ = name
        return allocator
    rule = _table.RULES.get(name)
    if rule is None:
        def looped(*args: Any, **kwargs: Any) -> Any:
            if not _has_batched(level, args, kwargs):
                return fn(*args, **kwargs)
            return fallback(level, name, fn, *args, **kwargs)
        looped.__name__ = name
        return looped

    def batched_fn(*args: Any, **kwargs: Any) -> Any:
        if not _has_batched(level, args, kwargs):
            return fn(*args, **kwargs)
        return rule(level, fn, *args, **kwargs)
    batched_fn.__name__ = name
    return batched_fn


class BatchingNamespace(WrappedNamespace):
    """The Array API namespace of one vmap level (see the module doc). Attributes are made on
    first use and cached: dtypes and constants are the level below's, functions dispatch."""

    def __init__(self, level: Level, base: Any, prefix: str = "") -> None:
        super().__init__(base, prefix)
        self._level = level

    def _function(self, name: str, fn: Callable[..., Any]) -> Any:
        return _dispatcher(self._level, name, fn)

    def _extension(self, base: Any, prefix: str) -> "BatchingNamespace":
        return BatchingNamespace(self._level, base, prefix)

    # -- what BatchedArray's operators and indexing call -----------------------------------
    def _operator(self, op: Callable[[Any, Any], Any], a: Any, b: Any) -> Any:
        """``op(a, b)`` for a Python operator, one of ``a``/``b`` batched at this level: the
        batched value(s) padded (``_table.pad``) only when the other operand has more logical
        dimensions (the per-op hot path inside vmap: no general ``aligned`` call)."""
        level = self._level
        if type(a) is BatchedArray and a.level is level:
            va = a.value
            if type(b) is BatchedArray and b.level is level:
                vb = b.value
                if va.ndim > vb.ndim:
                    vb = _table.pad(vb, level, va.ndim - 1)
                elif vb.ndim > va.ndim:
                    va = _table.pad(va, level, vb.ndim - 1)
                return BatchedArray(op(va, vb), level)
            nb = _table.logical_ndim(b)
            return BatchedArray(op(_table.pad(va, level, nb) if nb >= va.ndim else va, b), level)
        vb = b.value
        na = _table.logical_ndim(a)
        return BatchedArray(op(a, _table.pad(vb, level, na) if na >= vb.ndim else vb), level)

    def _inplace(self, op: Callable[[Any, Any], Any], target: BatchedArray, other: Any) -> None:
        """``target op= other`` on the physical value."""
        level = self._level
        if not hasattr(other, "shape") or not _table.is_batched(other, level):
            result = op(target.value, other)
        else:
            result = op(target.value, _table.pad(other.value, level, target.ndim))
        target.value = result

    def _getitem(self, x: BatchedArray, key: Any) -> Any:
        return getitem(self._level, x, key)

    def _setitem(self, x: BatchedArray, key: Any, value: Any) -> None:
        setitem(self._level, x, key, value)


class _BatchingGenerator(Generator):
    """Draws for one vmap level: 'different' draws one sample per batch element (a batched
    array), 'same' one for all (unbatched), 'error' refuses (PyTorch's message)."""

    def __init__(self, level: Level, base: Any) -> None:
        self._level = level
        self._base = base
        self.batched_backend = level.backend  # the backend of a batched draw's tensor

    def _draw(self, method: str, shape: tuple[int, ...], *args: Any) -> Any:
        mode = self._level.randomness
        if mode == "error":
            raise RuntimeError(RANDOM_ERROR_MESSAGE)
        draw = getattr(self._base, method)
        if mode == "same":
            return draw(*args[:-1], shape, args[-1]) if method == "integers" else draw(shape, *args)
        full = (self._level.size,) + tuple(shape)
        value = draw(*args[:-1], full, args[-1]) if method == "integers" else draw(full, *args)
        return BatchedArray(value, self._level)

    def normal(self, shape: tuple[int, ...], dtype: Any) -> Any:
        return self._draw("normal", shape, dtype)

    def uniform(self, shape: tuple[int, ...], dtype: Any) -> Any:
        return self._draw("uniform", shape, dtype)

    def integers(self, low: int, high: int, shape: tuple[int, ...], dtype: Any) -> Any:
        return self._draw("integers", shape, low, high, dtype)

    def permutation(self, n: int) -> Any:
        if self._level.randomness == "error":
            raise RuntimeError(RANDOM_ERROR_MESSAGE)
        if self._level.randomness == "same":
            return self._base.permutation(n)
        base = self._level.base
        return BatchedArray(base.stack([self._base.permutation(n) for _ in range(self._level.size)],
                                       axis=0), self._level)


class _BelowBackend:
    """``Backend.scatter_add`` below every level (as ``_below``): the deepest level among the
    arguments' arrays does it, else the real backend."""

    __slots__ = ("root",)

    def __init__(self, root: Backend) -> None:
        self.root = root

    def scatter_add(self, target: Any, key: Any, values: Any) -> Any:
        level = deepest_level((target, key, values), {})
        owner = self.root if level is None else level.backend
        return owner.scatter_add(target, key, values)


class BatchingBackend(Backend):
    """The backend of the tensors inside one vmap level: ``base``'s device and dtypes, its
    arrays ``BatchedArray``s, its ``xp`` the level's ``BatchingNamespace``."""

    array_type = BatchedArray
    scalar_operands = None

    def __init__(self, base: Backend, size: int, randomness: str) -> None:
        self.base = base
        # a name of its own: plugin kernels are looked up by backend name and take native arrays
        self.name = f"{base.name}+vmap"
        self.device_type = base.device_type
        self.index = base.index
        self.priority = base.priority
        self.root: Backend = base.root if isinstance(base, BatchingBackend) else base
        # the real arrays' kind: over an immutable library (JAX) writes make new arrays and the
        # core rebinds tensors and replays views, inside vmap as outside (``write``)
        self.mutable_arrays = self.root.mutable_arrays
        self.lazy = self.root.lazy
        # physical values are computed "below" every level (``_below``), not by ``base``'s
        # namespace: they may hold arrays of a level opened by another vmap call
        below = below_namespace(self.root.xp)
        self.level = Level(size, below, randomness)
        self._xp = BatchingNamespace(self.level, below)
        self.level.xp = self._xp
        self.level.backend = self
        # the base's (a cached property there): read on every op's fast path
        self.__dict__["floating_natives"] = base.floating_natives
        self.holds_data = base.holds_data  # a level over the meta device has no values either
        self.__dict__["complex_natives"] = base.complex_natives
        self.__dict__["differentiable_natives"] = base.differentiable_natives

    def is_available(self) -> Any:
        return self.base.is_available()

    @property
    def xp(self) -> Any:
        return self._xp

    @property
    def device(self) -> Any:
        return self.base.device

    def native_dtype(self, dtype: Any) -> Any:
        return self.base.native_dtype(dtype)

    def arraygrad_dtype(self, native: Any) -> Any:
        return self.base.arraygrad_dtype(native)

    def supported_dtypes(self) -> Any:
        return self.base.supported_dtypes()

    def coerce(self, value: Any) -> Any:
        if type(value) is BatchedArray:
            return value
        return self.base.coerce(value)

    def from_host(self, data: Any, dtype: Any = None) -> Any:
        return self.base.from_host(data, dtype)

    def to_host(self, array: Any) -> Any:
        if type(array) is BatchedArray and array.level is self.level:
            from arraygrad.func._vmap._batched import ITEM_MESSAGE
            raise RuntimeError(ITEM_MESSAGE if array.size == 1 else DATA_MESSAGE)
        return self.base.to_host(array)

    def make_generator(self, seed: int) -> Generator:
        return _BatchingGenerator(self.level, self.base.make_generator(seed))

    def batching_generator(self, generator: Any) -> Generator:
        """The level's generator drawing from ``generator`` (an ``arraygrad.Generator``)
        through the levels below (``arraygrad.random.generator_for`` asks for it)."""
        base = self.base
        native = (base.batching_generator(generator) if isinstance(base, BatchingBackend)
                  else generator.native(base))
        return _BatchingGenerator(self.level, native)

    def write(self, array: Any, key: Any, values: Any, how: str = "set") -> Any:
        """``Backend.write`` on this level's arrays; over an immutable library, a new
        ``BatchedArray`` (the batching ``__setitem__`` stores into the wrapper, never into the
        physical array: ``rules_indexing.setitem``), ``array`` left as it was."""
        if self.mutable_arrays:
            return super().write(array, key, values, how)
        if type(array) is not BatchedArray or array.level is not self.level:
            return self.base.write(array, key, values, how)  # unbatched here: the level below
        if how not in ("set", "add", "multiply"):
            raise ValueError(f"write: unknown update {how!r} (set, add or multiply)")
        out = BatchedArray(array.value, self.level)
        out.fresh = array.fresh
        if how != "set":
            values = out[key] + values if how == "add" else out[key] * values
        out[key] = values
        return out

    def scatter_add(self, target: Any, key: Any, values: Any) -> Any:
        return scatter_add(self.level, _BelowBackend(self.root), target, key, values)

    def kernel(self, op_name: str) -> None:
        return None  # backend kernels take native arrays: the portable path batches

    def is_exclusive(self, array: Any) -> bool:
        return False

    def for_device(self, index: int | None) -> Backend:
        return self if index in (None, self.index) else self.base.for_device(index)

    def lift(self, data: Any) -> BatchedArray:
        """An array of a backend below as this level's: every sample sees it (a broadcast
        view along the batch, no copy); ``ops.transfer.to_backend`` asks for it."""
        base = self.level.base
        value = base.broadcast_to(base.expand_dims(data, axis=0), (self.level.size,) + tuple(data.shape))
        return BatchedArray(value, self.level)

    def leave_levels(self, g: Any, target: Backend, ended_only: bool = False) -> Any:
        """A gradient of ours for a tensor of ``target`` (from outside the vmap call), summed
        over the batch (``_wrap.leave_levels``); autograd asks for it."""
        return leave_levels(g, target, ended_only)

    def wraps(self, other: Backend) -> bool:
        """Whether ``other`` is below this one (so its tensors mix with ours as unbatched
        operands): a backend under our level, or the level of any earlier vmap call over the
        same real backend (``_below``: ``jacrev(jacrev(f))`` differentiates one call's ops
        inside another)."""
        b: Backend = self.base
        while isinstance(b, BatchingBackend):
            if b is other:
                return True
            b = b.base
        if b is other:
            return True
        return (isinstance(other, BatchingBackend) and other.root is self.root
                and other.level.depth < self.level.depth)

    def __repr__(self) -> str:
        return f"<BatchingBackend level {self.level.depth} over {self.base!r}>"

