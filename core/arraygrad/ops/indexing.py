"""Indexing: ``t[key]`` (basic, integer arrays, boolean masks), ``gather``, ``index_select``.

Their backward scatters the gradient back into zeros of the input's shape,
adding where an index repeats (the backend's ``scatter_add``). The scatter
is itself a recorded op whose backward is indexing again, so double
backward works.
"""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING, Any

from arraygrad.ops import fast as _fast
from arraygrad.ops.arguments import tensor_arg
from arraygrad import dtypes as _dt, transform_state as _transforms
from arraygrad.ops._linear_index import LinearKey, linear_key
from arraygrad.ops.broadcast import sum_to
from arraygrad.ops.indexed_operands import indexed_by
from arraygrad.ops.promotion import same_backend
from arraygrad.ops.rule import VIA_VJP, defop
from arraygrad.ops.value_checks import index_range
from arraygrad.ops.views import indexed_strides, make_view
from arraygrad.tensor import Tensor, _wrap_dim

if TYPE_CHECKING:
    from arraygrad.ops.rule import RuleNode
    from arraygrad.backends.contract import Backend

__all__ = ["getitem", "gather", "index_select", "take_along_dim", "index_add_into", "index_put"]

_INT = (int,)


def key_tuple(key: Any) -> tuple[Any, ...]:
    """An index key as a tuple of per-dimension indices (see ``_list_read_as_tuple``)."""
    if isinstance(key, tuple):
        return key
    return tuple(key) if _list_read_as_tuple(key) else (key,)


def _list_read_as_tuple(key: Any) -> bool:
    """Whether a list index means a tuple of indices, by PyTorch 2.13's (NumPy's old) rule.

    ``x[[[0, 1], [1, 2]]]`` is ``x[[0, 1], [1, 2]]`` in PyTorch, not ``x[tensor([[0, 1], [1, 2]])]``:
    a list shorter than 32 holding a tensor, a sequence, a slice, ``...`` or ``None`` is read as
    a tuple, with PyTorch's deprecation warning; a list of plain integers is one index tensor.
    """
    if not isinstance(key, list) or len(key) >= 32:
        return False
    for item in key:
        if (isinstance(item, (Tensor, list, tuple, range, slice)) or item is None
                or item is Ellipsis):
            warnings.warn(
                "Using a non-tuple sequence for multidimensional indexing is deprecated (as in "
                "PyTorch); use x[tuple(seq)] instead of x[seq]", UserWarning, stacklevel=5)
            return True
    return False


def _normalize_key(input: Tensor, key: Any) -> tuple[Any, ...]:
    """``key`` with tensors and lists turned into native arrays and boolean masks into
    integer index arrays. Returns ``(key, advanced)``: a basic key ends with ``...`` (the
    standard requires one index per axis otherwise); an advanced key is a ``LinearKey``."""
    backend = input._backend
    xp = backend.xp
    key = key_tuple(key)
    key = tuple(list(k) if isinstance(k, range) else k for k in key)  # x[range(2)] as PyTorch
    if any(isinstance(k, Tensor) and k.dtype in _NOT_INDEX_DTYPES for k in key):
        key = _index_tensors_checked(key)
    out: list[Any] = []
    advanced = False
    dim = 0
    ndim = input._data.ndim
    explicit = sum(1 for k in key if k is not None and k is not Ellipsis
                   and not _is_bool_mask(k, backend))
    explicit += sum(_mask_ndim(k, backend) for k in key if _is_bool_mask(k, backend))
    for k in key:
        if k is Ellipsis:
            out.append(k)
            dim += ndim - explicit
            continue
        if k is None:
            out.append(None)
            continue
        if isinstance(k, str):
            raise TypeError(f"index: strings are not valid indices (got {k!r})")
        if isinstance(k, Tensor):
            if k._backend is not backend:
                same_backend("index", input, k)
            k = k._data
        elif isinstance(k, (list, tuple)):
            k = xp.asarray(k)
            if not (_is_int_array(k, backend) or _is_bool_array(k, backend)):
                raise IndexError(f"index: tensors used as indices must be long, int or bool, got {k.dtype}")
        if isinstance(k, slice):
            if k.step is not None and int(k.step) <= 0:
                raise ValueError("step must be greater than zero")
            out.append(k)
            dim += 1
            continue
        if isinstance(k, _INT) or hasattr(k, "__index__") and not hasattr(k, "shape"):
            k = int(k)
            size = input._data.shape[dim] if dim < ndim else None
            if size is None:
                raise IndexError(
                    f"index: too many indices for tensor of dimension {ndim}")
            if not -size <= k < size:
                raise IndexError(
                    f"index {k} is out of bounds for dimension {dim} with size {size}")
            out.append(k)
            dim += 1
            continue
        if not hasattr(k, "shape"):
            raise IndexError(
                f"index: only integers, slices, None, Ellipsis, lists and integer or bool tensors "
                f"are valid indices (got {type(k).__name__})")
        if _is_bool_array(k, backend):
            mdim = k.ndim
            if tuple(k.shape) != tuple(input._data.shape[dim:dim + mdim]):
                if dim + mdim > ndim:
                    raise IndexError(f"too many indices for tensor of dimension {ndim}")
                j = next(j for j in range(mdim) if k.shape[j] != input._data.shape[dim + j])
                raise IndexError(  # PyTorch's words: the first dimension that differs
                    f"The shape of the mask {list(k.shape)} at index {j} does not match the "
                    f"shape of the indexed tensor {list(input._data.shape)} at index {dim + j}")
            if mdim == 0:
                raise IndexError("index: 0-dimensional boolean masks are not supported")
            out.extend(xp.nonzero(k))
            dim += mdim
            advanced = True
            continue
        if not _is_int_array(k, backend):
            raise IndexError(
                f"index: tensors used as indices must be long, int or bool tensors, got {k.dtype}")
        if k.ndim == 0:
            out.append(int(k))
            dim += 1
            continue
        size = input._data.shape[dim] if dim < ndim else 0
        found = index_range(backend, k)
        if found is not None:
            lo, hi = found
            if lo < -size or hi >= size:
                bad = hi if hi >= size else lo
                raise IndexError(
                    f"index {bad} is out of bounds for dimension {dim} with size {size}")
        out.append(k)
        dim += 1
        advanced = True
    if dim > ndim:
        raise IndexError(f"index: too many indices for tensor of dimension {ndim}")
    if advanced:
        shape = tuple(input._data.shape)
        rows = _fast.rows_key(backend, shape, out)
        return (linear_key(xp, shape, tuple(out)) if rows is None else rows), True
    if not any(k is Ellipsis for k in out):
        out.append(Ellipsis)
    return tuple(out), False


# index tensors of these dtypes are refused, but uint8, a deprecated mask (PyTorch)
_NOT_INDEX_DTYPES = frozenset((_dt.uint8, _dt.int8, _dt.int16, _dt.uint16, _dt.uint32,
                               _dt.uint64))


def _index_tensors_checked(key: tuple[Any, ...]) -> tuple[Any, ...]:
    """``key`` with its uint8 tensors read as boolean masks (PyTorch's deprecated form, with
    its warning); IndexError for an index tensor of another small or unsigned integer dtype."""
    out = []
    for k in key:
        if isinstance(k, Tensor) and k.dtype in _NOT_INDEX_DTYPES:
            if k.dtype is not _dt.uint8:
                raise IndexError("tensors used as indices must be long, int, byte or bool "
                                 f"tensors (got {k.dtype})")
            warnings.warn("indexing with dtype arraygrad.uint8 is now deprecated, please use a "
                          "dtype arraygrad.bool instead.", UserWarning, stacklevel=5)
            k = Tensor._wrap(k._data != 0, k._backend)
        out.append(k)
    return tuple(out)


def _is_bool_mask(k: Any, backend: Backend) -> bool:
    if isinstance(k, Tensor):  # maybe another backend's: compare arraygrad dtypes
        return k.dtype is _dt.bool
    return hasattr(k, "dtype") and _is_bool_array(k, backend)


def _mask_ndim(k: Any, backend: Backend) -> int:
    return k._data.ndim if isinstance(k, Tensor) else k.ndim


def _is_bool_array(k: Any, backend: Backend) -> bool:
    return backend.xp.isdtype(k.dtype, "bool")


def _is_int_array(k: Any, backend: Backend) -> bool:
    return backend.xp.isdtype(k.dtype, "integral")


def _index_vjp(g: Tensor, n: RuleNode) -> Tensor:
    """Reading at a key: the gradient added into zeros of the input's shape at that key."""
    return index_add_into(g, n.shape, n.key, n.advanced)


def _index_grad_data(gd: Any, n: RuleNode, backend: Backend) -> Any:
    """``_index_vjp`` on native arrays (first-order backward); None while a transform moves
    indexed inputs (``indexed_by``), whose hook only the Tensor op consults."""
    if _transforms.indexed_input is not None:
        return None
    return added_at(backend, gd, n.shape, n.key, n.advanced)


def _reading_rule(name: str) -> Any:
    # one formula; PyTorch names the node after the kind of key
    return defop(name, jvp=VIA_VJP, params=("shape", "key", "advanced"), vjp=(_index_vjp,),
                 first_order=(_index_grad_data,), complex=True)


SELECT = _reading_rule("SelectBackward0")   # integers only
SLICE = _reading_rule("SliceBackward0")     # a basic key with slices, None or ...
INDEX = _reading_rule("IndexBackward0")     # integer arrays or boolean masks
GATHER = _reading_rule("GatherBackward0")
INDEX_SELECT = _reading_rule("IndexSelectBackward0")


def _picked(g: Tensor, n: RuleNode) -> Tensor:
    """``g`` read at the key: the written values' gradient, summed to their shape (the
    recorder does that only where their shape differs from the result's)."""
    picked = _take(g, n.key, INDEX if n.advanced else SLICE, n.advanced)
    if n.input_shape(1) is None:  # the values had the result's shape: broadcast to the key's
        picked = sum_to(picked, tuple(g._data.shape))
    return picked


# ``index_put`` and the backward of reading (zeros with ``values`` written at a key, where
# ``self`` is None): the old values are overwritten, the written ones read back
INDEX_PUT = defop("IndexPutBackward0", jvp=VIA_VJP, inputs=("self", "values"), params=("key", "advanced"),
                  vjp=(lambda g, n: _take_zeroed(g, n.key), _picked), complex=True)


# (the key: the gradients of a read at a batched key may come unbatched, the zeros a
# transposed JVP differentiates, and the key's arrays only mix with its level's)
@indexed_by("key")
def _take(input: Tensor, key: Any, rule: Any, advanced: bool) -> Tensor:
    data = key.take(input._backend.xp, input._data) if advanced else input._data[key]
    return rule.record(data, input._backend, (input,), shape=input._data.shape, key=key,
                       advanced=advanced)


@indexed_by("key")
def index_add_into(g: Tensor, shape: tuple[Any, ...], key: Any, advanced: bool) -> Tensor:
    """Zeros of ``shape`` with ``g`` added at ``key`` (repeated indices accumulate)."""
    backend = g._backend
    out = added_at(backend, g._data, shape, key, advanced)
    return INDEX_PUT.record(out, backend, (None, g), key=key, advanced=advanced)


def added_at(backend: Backend, gd: Any, shape: tuple[Any, ...], key: Any, advanced: bool) -> Any:
    """``index_add_into`` on native arrays: zeros of ``shape`` with ``gd`` added at ``key``."""
    xp = backend.xp
    if advanced:
        out = xp.zeros((math.prod(shape),), dtype=gd.dtype)
        return xp.reshape(key.add_into(xp, backend, out, gd), tuple(shape))
    return _set_basic(backend, xp.zeros(shape, dtype=gd.dtype), key, gd)


def _bool_scalars(input: Tensor, key: Any) -> tuple[Any, int | None]:
    """``key`` with each boolean scalar (``True``, ``False``, a 0-d bool tensor) made a new
    axis, as PyTorch: ``True`` adds a dimension of size 1, ``False`` one of size 0. Returns
    ``(key, p)``: ``p`` is the result dimension to empty (a ``False``), else None."""
    key = key_tuple(key)
    if not any(_is_bool_scalar(k) for k in key):
        return key, None
    empty = None
    out: list[Any] = []
    explicit = sum(1 for k in key if k is not None and k is not Ellipsis and not _is_bool_scalar(k))
    dims = 0  # result dimensions made by the entries before (a basic key's)
    for k in key:
        if _is_bool_scalar(k):
            if not bool(k) and empty is None:
                if any(hasattr(j, "shape") and getattr(j, "ndim", 1) > 0 or isinstance(j, list)
                       for j in key):
                    raise IndexError("index: False beside index tensors is not supported")
                empty = dims
            out.append(None)
            dims += 1
            continue
        out.append(k)
        if k is Ellipsis:
            dims += input._data.ndim - explicit
        elif k is None or isinstance(k, slice):
            dims += 1
    return tuple(out), empty


def _is_bool_scalar(k: Any) -> bool:
    if isinstance(k, bool):
        return True
    return isinstance(k, Tensor) and k.dtype is _dt.bool and k._data.ndim == 0


@indexed_by("key")
def getitem(input: Tensor, key: Any) -> Tensor:
    """``input[key]``: basic slicing, integer arrays (repeats allowed) and boolean masks."""
    basic = _fast.basic_key(input, key)
    if basic is not None:  # integers and forward slices, checked on the fast path: a view
        norm, integers, contiguous = basic
        out = (SELECT if integers else SLICE).record(
            input._data[norm], input._backend, (input,), shape=input._data.shape, key=norm,
            advanced=False)
        return make_view(out, input, lambda base: getitem(base, norm),
                         None if contiguous else indexed_strides(input, norm, out._data.shape))
    rows = _fast.index_rows(input, key)
    if rows is not None:  # one int64 index tensor (``output[idx]``), checked on the fast path
        return _take(input, rows, INDEX, True)
    masked = _fast.mask_key(input, key)
    if masked is not None:  # one bool mask of the whole shape or of the rows: one nonzero
        return _take(input, masked, INDEX, True)
    key, empty = _bool_scalars(input, key)
    if empty is not None:  # a False: the new axis is empty
        return getitem(getitem(input, key), (slice(None),) * empty + (slice(0, 0),))
    norm, advanced = _normalize_key(input, key)
    if advanced:
        rule = INDEX
    elif all(isinstance(k, int) or k is Ellipsis for k in norm) and norm != (Ellipsis,):
        # integers only (a basic key ends with ...): PyTorch's select
        rule = SELECT
    else:
        rule = SLICE
    if not advanced and Ellipsis not in norm:
        norm = norm + (Ellipsis,)  # so integer keys give a 0-d view, not a copied scalar
    out = _take(input, norm, rule, advanced)
    if not advanced:  # basic indexing gives a view, as in PyTorch
        make_view(out, input, lambda base: getitem(base, norm),
                  indexed_strides(input, norm, out._data.shape))
    return out


def _along_dim_key(input: Tensor, index: Tensor, d: int) -> tuple[Any, ...]:
    """An advanced-indexing key picking ``index`` along ``d`` and every position elsewhere."""
    return along_dim_key(input._backend.xp, index._data, d)


def along_dim_key(xp: Any, idx: Any, d: int, dtype: Any = None) -> tuple[Any, ...]:
    """``_along_dim_key`` on arrays: ``idx`` (native) along ``d``, every position elsewhere
    (positions in ``dtype``, the namespace's default integer dtype when None)."""
    key = []
    for axis in range(idx.ndim):
        if axis == d:
            key.append(idx)
        else:
            shape = [1] * idx.ndim
            shape[axis] = idx.shape[axis]
            key.append(xp.reshape(xp.arange(idx.shape[axis], dtype=dtype), tuple(shape)))
    return tuple(key)


@indexed_by("index")
def gather(input: Tensor, dim: int, index: Tensor) -> Tensor:
    """``out[i][j] = input[index[i][j]][j]`` (for ``dim=0``), as ``torch.gather``."""
    tensor_arg("gather", input)
    if not isinstance(index, Tensor) or index.dtype not in (_dt.int64, _dt.int32):
        raise RuntimeError("gather(): Expected dtype int64 for index")
    same_backend("gather", input, index)
    d = _wrap_dim(dim, input._data.ndim, "gather")
    if input._data.ndim == 0 and index._data.ndim <= 1:  # a scalar as a vector of one entry
        out = gather(input.reshape(1), 0, index.reshape(-1))
        return out if index._data.ndim else out.reshape(())
    if index._data.ndim != input._data.ndim:
        raise RuntimeError(
            f"gather(): Index tensor must have the same number of dimensions as input tensor "
            f"({index._data.ndim} vs {input._data.ndim})")
    for axis, (a, b) in enumerate(zip(index._data.shape, input._data.shape)):
        if axis != d and a > b:
            raise RuntimeError(
                f"gather(): Size does not match at dimension {axis} expected index "
                f"{list(index._data.shape)} to be smaller than self {list(input._data.shape)} "
                f"apart from dimension {d}")
    size = input._data.shape[d]
    xp = input._backend.xp
    found = index_range(index._backend, index._data)
    if found is not None:
        # as PyTorch: no negative indices, and a RuntimeError
        lo, hi = found
        if lo < 0 or hi >= size:
            raise RuntimeError(f"gather(): index {hi if hi >= size else lo} is out of bounds for "
                               f"dimension {d} with size {size}")
    key: LinearKey | None = _fast.along_key(input, index, d)
    if key is None:
        key = linear_key(xp, tuple(input._data.shape), _along_dim_key(input, index, d))
    return _take(input, key, GATHER, True)


@indexed_by("indices")
def take_along_dim(input: Tensor, indices: Tensor, dim: int | None = None) -> Tensor:
    """The entries of ``input`` at ``indices`` along ``dim``, as ``torch.take_along_dim``:
    ``input`` and ``indices`` broadcast against each other in every other dimension;
    negative indices count from the end; ``dim=None`` reads ``input`` flattened."""
    op = "take_along_dim"
    if not isinstance(indices, Tensor) or indices.dtype not in (_dt.int64, _dt.int32):
        got = indices.dtype if isinstance(indices, Tensor) else type(indices).__name__
        raise RuntimeError(f"{op}(): dtype of indices should be Long but got {got}")
    same_backend(op, input, indices)
    low = None  # as PyTorch: negative indices count from the end, except with dim=None
    if dim is None:
        input, indices, d, low = input.reshape(-1), indices.reshape(-1), 0, 0
    else:
        if indices._data.ndim != input._data.ndim:
            raise RuntimeError(
                f"{op}(): input and indices should have the same number of dimensions, but got "
                f"{input._data.ndim} dimensions for input, and {indices._data.ndim} dimensions "
                f"for indices")
        d = _wrap_dim(dim, input._data.ndim, op)
    ishape, xshape = list(indices._data.shape), list(input._data.shape)
    for axis, (a, b) in enumerate(zip(ishape, xshape)):
        if axis != d and a != b and 1 not in (a, b):
            raise RuntimeError(f"{op}(): The size of tensor a ({b}) must match the size of "
                               f"tensor b ({a}) at non-singleton dimension {axis}")
    size = xshape[d]
    xp = input._backend.xp
    found = index_range(indices._backend, indices._data)
    if found is not None:
        lo, hi = found
        if lo < (-size if low is None else low) or hi >= size:
            raise RuntimeError(f"{op}(): index {hi if hi >= size else lo} is out of bounds for "
                               f"dimension {d} with size {size}")
        if lo < 0:
            from arraygrad.tensor import wrap

            data = indices._data
            indices = wrap(xp.where(data < 0, data + size, data), indices._backend)
    bshape = [max(a, b) if 0 not in (a, b) else 0 for a, b in zip(ishape, xshape)]
    xs = list(bshape)
    xs[d] = xshape[d]
    ids = list(bshape)
    ids[d] = ishape[d]
    if xs != xshape:
        input = input.expand(*xs)
    if ids != ishape:
        indices = indices.expand(*ids)
    key = linear_key(xp, tuple(input._data.shape), _along_dim_key(input, indices, d))
    return _take(input, key, GATHER, True)


@indexed_by("index")
def index_select(input: Tensor, dim: int, index: Tensor) -> Tensor:
    """The entries of ``input`` at ``index`` (1-D, repeats allowed) along ``dim``."""
    tensor_arg("index_select", input)
    if not isinstance(index, Tensor) or index.dtype not in (_dt.int64, _dt.int32):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if index._data.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    d = _wrap_dim(dim, input._data.ndim, "index_select")
    if input._data.ndim == 0:  # a scalar is a vector of one entry, as PyTorch takes it
        count = index.numel()
        if count != 1:
            raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got "
                               f"{count} value(s)")
        return index_select(input.reshape(1), 0, index.reshape(1)).reshape(())
    size = input._data.shape[d]
    xp = input._backend.xp
    found = index_range(index._backend, index._data)
    if found is not None:
        lo, hi = found
        if lo < 0 or hi >= size:  # as PyTorch, negative indices are refused too
            raise IndexError(f"index_select(): index out of range in self: index "
                             f"{hi if hi >= size else lo} is out of bounds for dimension {d} "
                             f"with size {size}")
    norm, _ = _normalize_key(input, (slice(None),) * d + (index.reshape(-1),))
    return _take(input, norm, INDEX_SELECT, True)


def _take_zeroed(g: Tensor, key: Any) -> Tensor:
    """``g`` with the entries at ``key`` set to zero (recorded: its backward does the same)."""
    xp = g._backend.xp
    if isinstance(key, LinearKey):
        # counted in the default integer type (a complex count has no order for ``> 0``)
        hit = xp.reshape(key.hits(xp, g._backend, g._backend.native_dtype(_dt.int64)),
                         tuple(key.shape)) > 0
        data = xp.where(hit, xp.zeros_like(g._data), g._data)
    else:
        data = _set_basic(g._backend, xp.asarray(g._data, copy=True), key, 0)
    return MASKED_KEY.record(data, g._backend, (g,), key=key)


MASKED_KEY = defop("MaskedKeyBackward0", jvp=VIA_VJP, params=("key",),
                   vjp=(lambda g, n: _take_zeroed(g, n.key),), complex=True)


@indexed_by("key", "value")
def index_put(input: Tensor, key: Any, value: Any) -> Tensor:
    """A copy of ``input`` with ``input[key] = value`` (out of place; ``t[key] = v`` uses it)."""
    key, empty = _bool_scalars(input, key)
    if empty is not None:  # a False selects nothing: nothing is written
        return input.clone()
    norm, advanced = _normalize_key(input, key)
    backend = input._backend
    if not isinstance(value, Tensor):
        from arraygrad.ops.arguments import as_tensor_like

        value = as_tensor_like(value, input, "index_put")
    backend = same_backend("index_put", input, value)
    data = backend.xp.asarray(input._data, copy=True)
    vdata = value._data
    if vdata.dtype != data.dtype:
        vdata = backend.xp.astype(vdata, data.dtype)
    try:
        if advanced:
            data = _put_linear(backend, data, norm, vdata)
        else:
            data = _set_basic(backend, data, norm, vdata)
    except (ValueError, TypeError) as exc:
        target = norm.lin.shape if advanced else input._data[norm].shape
        raise RuntimeError(
            f"index_put: shape mismatch: value tensor of shape {list(value.shape)} cannot be "
            f"broadcast to indexing result of {list(target)}") from exc
    return INDEX_PUT.record(data, backend, (input, value), key=norm, advanced=advanced)


def _set_basic(backend: Backend, data: Any, key: Any, values: Any) -> Any:
    """``data[key] = values`` for a basic key; returns the result (``data`` itself, written
    in place, unless the backend's arrays are immutable: ``Backend.write``).

    The standard's ``__setitem__`` takes no ``None``; those only add size-1
    dimensions, so they are dropped from the key and from the values' shape.
    """
    if any(k is None for k in key):
        xp = backend.xp
        picked = data[key].shape
        key = tuple(k for k in key if k is not None)
        if hasattr(values, "shape"):
            values = xp.reshape(xp.broadcast_to(values, tuple(picked)), tuple(data[key].shape))
    return backend.write(data, key, values)


def _put_linear(backend: Backend, data: Any, key: LinearKey, values: Any) -> Any:
    """A copy of ``data`` with the elements ``key`` selects set to ``values``.

    Written with the standard's ``where`` and the backend's scatter-add (the
    standard cannot assign through integer arrays). Where an index repeats, the
    last write wins, as sequential assignment (and PyTorch's CPU kernel) does: a
    stable sort of the positions finds each position's last occurrence, and the others
    scatter zeros, so no two values ever add up. (Masking, not selecting: the number of
    distinct positions is data-dependent, which vmap cannot batch.)
    """
    xp = backend.xp
    shape = tuple(data.shape)
    flat = key.flat(xp)
    vals = xp.reshape(xp.broadcast_to(values, tuple(key.lin.shape)), (-1,))
    if flat.shape[0] > 1:
        order = xp.argsort(flat, stable=True)
        ordered = xp.take(flat, order, axis=0)
        last = xp.concat([ordered[1:] != ordered[:-1], xp.ones((1,), dtype=xp.bool)])
        flat = ordered
        vals = xp.where(last, xp.take(vals, order, axis=0), xp.zeros((), dtype=vals.dtype))
    zeros = xp.zeros((math.prod(shape),), dtype=data.dtype)
    placed = backend.scatter_add(zeros, flat, vals)
    hit = backend.scatter_add(xp.zeros_like(zeros), flat, xp.ones_like(vals)) > 0
    return xp.reshape(xp.where(hit, placed, xp.reshape(data, (-1,))), shape)
