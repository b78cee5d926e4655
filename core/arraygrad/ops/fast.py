"""Fast paths: the one seam beside the recorder where ops skip work the general path does.

Every shortcut in the op layer lives here and is taken only while
``rule.fast_paths.on`` (``ARRAYGRAD_REFERENCE=1`` turns them all off; ``make test``
runs the suite both ways). Each returns None, or is not taken, for inputs it does
not cover, and then the general path runs: it stays the reference. Fast paths compute
arrays; nodes are built by the rules' recorder alone (``Rule.record``), so names, edges,
saved values and backward formulas are the general path's; what is skipped is promotion
and broadcasting checks.

- ``binary``: ``+ - * /`` of a floating tensor with a Python number (either side), or of
  two tensors of one backend, shape and floating dtype.
- ``gradient_sum``: the engine's sum of two gradients reaching one input, on the arrays.
- ``operands``: the promotion of two operands that need none (same shape and dtype, a
  floating tensor with a Python number, or an int64 tensor with a Python int in int64's
  range: each keeps the tensor's dtype).
- ``inplace_arithmetic``: optimizers' ``p.add_(...)`` on the array itself, nothing recorded.
- ``class_onehot``: NLL's one-hot of class targets without the ignore masks, when every
  target is a class and none is ignored.
- ``inplace_arithmetic``: ``t += other * alpha`` (and ``-= *= /=``) with the array's own
  in-place operator when nothing is recorded (optimizers' updates).
- ``rows_key``: ``x[idx]`` (one 1-D integer index array on the leading dimension) read with
  one ``take`` instead of a flat position per element of the result; ``index_rows``: the
  same key given as one int64 tensor (``output[idx]``, ``embedding``), without the general
  key walk.
- ``basic_key``: an index key of Python integers and forward slices (``x[3]``,
  ``data[i:i + 8]``, ``x[:, 1:]``) checked and normalised without ``_normalize_key``'s
  general walk (tensors, lists, masks, ``None``, ``...``, booleans).
"""

from __future__ import annotations

import operator
from typing import Any

from arraygrad.autograd import engine as _engine
from arraygrad.autograd.forward_ad import state as _fw
from arraygrad.autograd.grad_mode import _state
from arraygrad.backends.scalar_operands import scalar_operand
from arraygrad.transform_state import array_kernel, recording_flag as _recording
from arraygrad.ops._linear_index import AlongKey, LinearKey, RowsKey
from arraygrad.ops.rule import Rule, bare_sum, fast_paths
from arraygrad.ops.value_checks import index_range
from arraygrad import dtypes as _dt
from arraygrad.tensor import Tensor, wrap
from arraygrad.tensor_sparse import SparseTensor

__all__ = ["binary", "operands", "BinarySpec", "inplace_arithmetic", "gradient_sum", "basic_key",
           "arrays_writable", "rows_key", "index_rows"]


class BinarySpec:
    """One operator's fast case: its native function, its rule, and whether the number may
    come first (``2 - x``; ``2 / x`` takes the general path)."""

    __slots__ = ("native", "rule", "scalar_first", "opmath", "integers")

    def __init__(self, native: Any, rule: Rule, scalar_first: bool = True,
                 opmath: bool = False, integers: bool = False) -> None:
        self.native = native
        self.rule = rule
        self.scalar_first = scalar_first
        # an int64 tensor with a Python int keeps int64 (``i + 1`` of positions): the
        # operators whose integer result is integer (not ``/``)
        self.integers = integers
        # a float16/bfloat16 tensor with a number takes the general path, which computes
        # in float32 as PyTorch's mul/div do (``promotion.scalar_in_opmath``)
        self.opmath = opmath


def binary(a: Tensor, b: Tensor, spec: BinarySpec) -> Tensor | None:
    """``a op b`` on the fast path, or None when the operands need the general one: the
    result computed without promotion or broadcasting checks (tensors of one dtype, or a
    tensor and a Python number), recorded by the rule's own recorder (``Rule.record``
    builds every node)."""
    if not fast_paths.on:
        return None
    if isinstance(a, Tensor):
        t, other, scalar_first = a, b, False
    else:
        t, other, scalar_first = b, a, True
        if not isinstance(t, Tensor) or not spec.scalar_first:
            return None
    data = t._data
    backend = t._backend
    dtype = data.dtype
    kind = type(other)
    if dtype not in backend.floating_natives:
        if spec.integers and kind is int and _int64_with_int(backend, data, other):
            # nothing to record (an integer result has no gradient): the result alone
            return wrap(spec.native(other, data) if scalar_first else spec.native(data, other),
                        backend)
        return None
    if kind is float or kind is int:
        if spec.opmath and dtype in backend.reduced_floating_natives:
            return None
        s = scalar_operand(backend, other, dtype)
        found = spec.native(s, data) if scalar_first else spec.native(data, s)
    elif scalar_first or not isinstance(other, Tensor):
        return None
    else:
        od = other._data
        if od.dtype != dtype or other._backend is not backend:
            return None
        if od.shape != data.shape:
            # operands of one dtype that broadcast (``h @ W + b``): the backend's own arrays
            # only, whose broadcasting is PyTorch's and refuses shapes that do not broadcast
            # before computing (the general path then raises PyTorch's error). The node keeps
            # the inputs' shapes: the recorder sums each gradient back to its input's
            if type(data) is not backend.array_type or type(od) is not type(data):
                return None
            try:
                found = spec.native(data, od)
            except ValueError:
                return None
            return spec.rule.record(found, backend, (a, b))
        found = spec.native(data, od)
    # the tensor operands have the result's shape and floating dtype: ``like``
    return spec.rule.record(found, backend, (a, b), True)


def gradient_sum(a: Tensor, b: Tensor) -> Tensor:
    """``a + b`` of two gradients arriving at one input, as the engine sums them outside its
    plain pass: on the arrays (``rule.bare_sum``) when nothing is recorded (no
    ``create_graph``, no forward-AD level) and both are plain tensors, else ``a + b``."""
    if fast_paths.on and not _state.enabled and not _fw.on and a.__class__ is Tensor \
            and b.__class__ is Tensor:
        found = bare_sum(a, b, a._backend)
        return found if isinstance(found, Tensor) else wrap(found, a._backend)
    return a + b


_engine.grad_sum = gradient_sum


def operands(a: Tensor, b: Tensor) -> tuple[Any, ...] | None:
    """``promotion.operands``'s answer for operands that need no promotion, else None."""
    if not fast_paths.on:
        return None
    if isinstance(a, Tensor):
        if isinstance(b, Tensor):
            da, db = a._data, b._data
            if a._backend is b._backend and da.shape == db.shape and da.dtype == db.dtype:
                return a._backend, da, db, a, b
        elif type(b) is float or type(b) is int:
            backend = a._backend
            da = a._data
            if da.dtype in backend.weak_scalar_natives or _int64_with_int(backend, da, b):
                return backend, da, b, a, None
    elif isinstance(b, Tensor) and (type(a) is float or type(a) is int):
        backend = b._backend
        db = b._data
        if db.dtype in backend.weak_scalar_natives or _int64_with_int(backend, db, a):
            return backend, a, db, None, b
    return None


_INT64_RANGE = range(-2 ** 63, 2 ** 63)


def _int64_with_int(backend: Any, data: Any, number: Any) -> bool:
    """Whether an int64 array meets a Python int that int64 holds (``i + 1``, ``n // 2`` of
    positions and counts): the result is int64 and the number passes as it is, as the
    general path's promotion would give."""
    return type(number) is int and data.dtype in backend.int64_natives and number in _INT64_RANGE


_NATIVE_OPS = {
    "add_": operator.iadd, "__iadd__": operator.iadd, "sub_": operator.isub,
    "__isub__": operator.isub, "mul_": operator.imul, "__imul__": operator.imul,
    "div_": operator.itruediv, "__itruediv__": operator.itruediv,
}


def inplace_arithmetic(t: Tensor, op: str, other: Any, alpha: Any = 1) -> Tensor | None:
    """``t op= other * alpha`` with the array's own in-place operator, when that is exact.

    The fast path of optimizers' updates: only when nothing needs recording and the
    result keeps ``t``'s dtype and shape. Returns the resulting array (``t``'s own when the
    namespace updates in place; the caller writes any other into ``t`` and bumps its
    version), or None to ask for the general mechanism (always, with fast paths off).
    """
    fn = _NATIVE_OPS.get(op)
    if fn is None or not fast_paths.on:
        return None
    if _state.enabled and (t._requires_grad or (t._base is not None and t._base._requires_grad)):
        return None
    data = t._data
    dtype = data.dtype
    if dtype not in t._backend.floating_natives:
        return None
    # float16/bfloat16 with a number or a scale: PyTorch computes in float32 and rounds once
    # (the number is not rounded to the tensor's dtype first): the general path's opmath
    reduced = dtype in t._backend.reduced_floating_natives
    if reduced and alpha != 1:
        return None
    if isinstance(other, Tensor):
        if (_state.enabled and other._requires_grad) or other._backend is not t._backend \
                or other.__class__ is SparseTensor:  # a sparse operand: ``ops.elementwise``'s
            return None
        value = other._data
        if value.dtype != dtype or len(value.shape) > len(data.shape):
            return None
        for a, b in zip(reversed(value.shape), reversed(data.shape)):
            if a != b and a != 1:
                return None
    elif (type(other) is float or type(other) is int) and not reduced:
        value = other
    else:
        return None
    try:
        if alpha != 1:
            return scaled_inplace(fn, data, value, alpha)
        return fn(data, value)
    except ValueError:  # e.g. a read-only broadcast view: the general path explains it
        return None


@array_kernel(writes=True)
def scaled_inplace(fn: Any, data: Any, value: Any, alpha: Any) -> Any:
    """``fn(data, value * alpha)``: an in-place operator (``operator.iadd``...) applied to
    ``data`` with a scaled operand; answers ``data`` (or what the operator answers)."""
    return fn(data, value * alpha)


def class_targets(xp: Any, t: Any, c: int, ignore_index: int) -> bool:
    """Whether NLL's fast path applies: every target in ``t`` (1-D) is a class below ``c``
    and none is ``ignore_index`` (the common case: no masks needed). False for the general
    path, which also raises for targets out of range (and always with fast paths off)."""
    if not fast_paths.on or not t.shape[0]:
        return False
    # one yes/no read of the targets' range, not two reads of its ends: a compiled step
    # guards this decision, which stays the same from batch to batch, where the ends
    # (each batch's smallest and largest label) would make a new recording per batch
    return bool(targets_usable(xp, t, c, ignore_index))


@array_kernel
def targets_usable(xp: Any, t: Any, c: int, ignore_index: int) -> Any:
    """Whether every class index in ``t`` (1-D, not empty) is a class below ``c`` and the
    range of them leaves ``ignore_index`` out: a boolean scalar of the backend (one read of
    it is one value guard for a compiled step, stable from batch to batch)."""
    lo, hi = xp.min(t), xp.max(t)
    usable = (lo >= 0) & (hi < c)
    if 0 <= ignore_index < c:  # (below 0 or past the classes, no target is it)
        usable = usable & ((lo > ignore_index) | (hi < ignore_index))
    return usable


@array_kernel
def onehot_data(xp: Any, t: Any, c: int, dtype: Any) -> Any:
    """The one-hot rows of class indices ``t`` (1-D) over ``c`` classes, in ``dtype``."""
    return xp.astype(t[:, None] == xp.arange(c, dtype=t.dtype), dtype)


def uniform_arrays(tensors: Any) -> tuple[Any, list[Any]] | None:
    """``(backend, arrays)`` of a non-empty list or tuple of tensors holding the backend's own
    arrays, on one backend with one shape and one dtype, read in one pass (``stack``'s common
    case: nothing to promote, nothing to explain); None for anything else, which the general
    checks take."""
    if not fast_paths.on or (type(tensors) is not list and type(tensors) is not tuple) \
            or not tensors:
        return None
    first = tensors[0]
    if not isinstance(first, Tensor):
        return None
    backend = first._backend
    kind = type(first._data)
    if kind is not backend.array_type:  # (sparse data, vmap's batched arrays: the general)
        return None
    shape, dtype = first._data.shape, first._data.dtype
    arrays = []
    for t in tensors:
        if not isinstance(t, Tensor) or t._backend is not backend:
            return None
        d = t._data
        if type(d) is not kind or d.shape != shape or d.dtype != dtype:
            return None
        arrays.append(d)
    return backend, arrays


def arrays_writable() -> bool:
    """Whether updates may be written into arrays directly: fast paths on and no
    ``arraygrad.compile`` recording (a recording sees Tensor operations, not array writes)."""
    return fast_paths.on and not _recording.on


def basic_key(input: Tensor, key: Any) -> tuple[tuple[Any, ...], bool, bool] | None:
    """``(key', integers_only, contiguous)`` for a key of Python integers in range and
    slices with integer (or integer 0-d tensor) bounds and a positive step, one entry per
    leading dimension at most: ``key'`` is the tuple of them with each tensor bound read as
    an int and ``...`` appended (the form ``indexing.getitem`` records); ``contiguous``: the
    input is and the view surely is (integers, then one slice of step 1, then whole
    dimensions), so its strides need no computing. None for any other key, which the
    general path checks (and refuses, with PyTorch's errors)."""
    if not fast_paths.on:
        return None
    keys = key if type(key) is tuple else (key,)
    shape = input._data.shape
    if not keys or len(keys) > len(shape):
        return None
    out = []
    integers = True
    contiguous = input._strides is None
    for d, k in enumerate(keys):
        kind = type(k)
        if kind is int:
            if not -shape[d] <= k < shape[d]:
                return None
            if not integers:  # an integer after a slice: strides to compute
                contiguous = False
        elif kind is slice:
            start, stop, step = k.start, k.stop, k.step
            if step is not None and (type(step) is not int or step <= 0):
                return None
            if not integers and (start is not None or stop is not None or step is not None):
                contiguous = False  # a second slice that cuts
            elif step is not None and step != 1:
                contiguous = False
            integers = False
            if not (start is None or type(start) is int) or \
                    not (stop is None or type(stop) is int):
                start, stop = _bound(start), _bound(stop)
                if start is _NO_BOUND or stop is _NO_BOUND:
                    return None
                k = slice(start, stop, step)
        else:
            return None
        out.append(k)
    out.append(Ellipsis)
    return tuple(out), integers, contiguous


_NO_BOUND = object()


def _bound(value: Any) -> Any:
    """A slice bound as the general path reads it: None or a Python int as it is, a tensor
    (``data[i:i + 8]``, ``i`` a 0-d integer tensor) as an int; ``_NO_BOUND`` for anything
    else (the general path explains it)."""
    if value is None or type(value) is int:
        return value
    if isinstance(value, Tensor) and value.__class__ is not SparseTensor:
        try:
            return operator.index(value)
        except (TypeError, RuntimeError, ValueError):
            return _NO_BOUND
    return _NO_BOUND


def _is_native(value: Any, backend: Any) -> bool:
    """Whether ``value`` is exactly the backend's own array type (not vmap's batched
    arrays, not a subclass)."""
    return type(value) is backend.array_type


def along_key(input: Tensor, index: Tensor, d: int) -> AlongKey | None:
    """``gather``'s ``AlongKey`` when its index (bounds checked by the caller, non-negative)
    is the backend's own integer array and the namespace has ``take_along_axis``; None for
    the general key (vmap's batched arrays, other namespaces)."""
    backend = index._backend
    if input._backend is not backend:
        return None
    return along_key_on(backend, index._data, d, tuple(input._data.shape))


def along_key_on(backend: Any, idx: Any, d: int, shape: tuple[Any, ...]) -> AlongKey | None:
    """``along_key`` on arrays: the ``AlongKey`` of native positions ``idx`` along ``d`` of an
    array of ``shape`` (``sort``'s and ``topk``'s reads, ``gather``'s), or None."""
    if not fast_paths.on:
        return None
    xp = backend.xp
    if not _is_native(idx, backend) or not hasattr(xp, "take_along_axis"):
        return None
    return AlongKey(xp, idx, d, shape)


def rows_key(backend: Any, shape: tuple[Any, ...], key: list[Any]) -> RowsKey | None:
    """A ``RowsKey`` for a normalised advanced key (``indexing._normalize_key``'s, bounds
    checked) that is one native integer array (of one or more dimensions: an embedding's
    (batch, sequence) indices) followed by whole dimensions only, its negative rows counted
    from the end; None for any other key (``linear_key`` lowers it)."""
    if not fast_paths.on or not key:
        return None
    rows = key[0]
    if not _is_native(rows, backend) or not rows.ndim:
        return None  # (vmap's batched arrays, a 0-d index: the general key)
    for k in key[1:]:
        if k is not Ellipsis and (type(k) is not slice or k != _WHOLE):
            return None
    xp = backend.xp
    return RowsKey(xp, xp.where(rows < 0, rows + shape[0], rows), shape)


_WHOLE = slice(None)


def mask_key(input: Tensor, key: Any) -> LinearKey | None:
    """The advanced key of ``input[mask]`` for ``key`` one bool tensor of ``input``'s backend
    whose shape is ``input``'s (``x[x > 0]``: the flat positions of its True entries) or its
    leading dimension's (``x[keep]`` of rows: a ``RowsKey``), made by one ``nonzero``; None
    for any other key (the general path lowers it: a ``nonzero`` per dimension, then a flat
    position per element of the result), and on a backend whose arrays hold no values or
    are lazy (the result's size is read from the values)."""
    if not fast_paths.on or key.__class__ is not Tensor or key._backend is not input._backend \
            or key.dtype is not _dt.bool:
        return None
    backend = input._backend
    mask: Any = key._data
    shape: Any = input._data.shape
    if not _is_native(mask, backend) or not mask.ndim or not backend.holds_data \
            or backend.lazy:
        return None
    xp = backend.xp
    if mask.shape == shape:
        found = xp.nonzero(xp.reshape(mask, (-1,)))[0]
        return LinearKey(xp.astype(found, xp.int64, copy=False), tuple(shape))
    if mask.ndim == 1 and mask.shape[0] == shape[0]:
        return RowsKey(xp, xp.astype(xp.nonzero(mask)[0], xp.int64, copy=False), tuple(shape))
    return None


def index_rows(input: Tensor, key: Any) -> RowsKey | None:
    """The ``RowsKey`` of ``input[idx]`` for ``key`` one int64 tensor (1-D or more) of ``input``'s
    backend whose rows are in range (read once, as the general path's bounds check reads
    them; negative rows counted from the end only when there are some); None for any other
    key or an out-of-range row (the general path checks, and raises PyTorch's error)."""
    if not fast_paths.on or key.__class__ is not Tensor or key._backend is not input._backend:
        return None
    backend = input._backend
    rows: Any = key._data
    shape: Any = input._data.shape
    if not _is_native(rows, backend) or not rows.ndim or not shape \
            or rows.dtype not in backend.int64_natives:
        return None
    found = index_range(backend, rows)
    if found is None:
        return None  # (empty, or no values to check: the general path)
    lo, hi = found
    size = shape[0]
    if lo < -size or hi >= size:
        return None
    if lo < 0:
        rows = backend.xp.where(rows < 0, rows + size, rows)
    return RowsKey(backend.xp, rows, tuple(shape))
