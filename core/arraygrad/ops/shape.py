"""Shape ops: reshape/view, flatten, squeeze/unsqueeze, transpose/permute, expand, repeat,
flip, cat/stack, split/chunk/unbind.

Ops that are views in PyTorch share the input's version counter, so an
in-place change through either is seen by both. Each differentiable op is one rule
(``ops.rule``); ``cat``/``stack`` take any number of inputs (the rule's one input name,
``tensors``, stands for them all) and ``split``/``unbind`` give several outputs.
"""

from __future__ import annotations

import math
import warnings
from functools import partial
from typing import TYPE_CHECKING, Any

from arraygrad import dtypes as _dt
from arraygrad.allocation_errors import allocating
from arraygrad.ops.arguments import normalize_dims, tensor_arg
from arraygrad.ops.broadcast import sum_to, sum_to_data
from arraygrad.ops import fast as _fast
from arraygrad.ops.casting import cast_data
from arraygrad.ops.promotion import same_backend
from arraygrad.ops.rule import Rule, VIA_VJP, defop
from arraygrad.ops.views import (
    expanded_strides, indexed_strides, make_view, make_views, normalized_strides,
    permuted_strides, strides_of, view_strides,
)
from arraygrad.tensor import Tensor, _wrap_dim

if TYPE_CHECKING:
    from arraygrad.ops.rule import RuleNode

__all__ = [
    "reshape", "view", "flatten", "squeeze", "unsqueeze", "transpose", "swapaxes", "permute",
    "movedim", "expand", "expand_as", "broadcast_to", "repeat", "flip", "cat", "concat",
    "concatenate", "stack", "split", "chunk", "unbind", "t", "narrow",
]


def _sizes(args: Any, op: str) -> tuple[Any, ...]:
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    out = []
    for a in args:
        if isinstance(a, Tensor):
            a = int(a.item())
        if not isinstance(a, int) or isinstance(a, bool):
            raise TypeError(f"{op}: sizes must be integers, got {type(a).__name__}")
        out.append(a)
    return tuple(out)


def _infer_shape(shape: tuple[Any, ...], numel: int, op: str, src_shape: Any) -> tuple[Any, ...]:
    if shape.count(-1) > 1:
        raise RuntimeError(f"{op}: only one dimension can be inferred")
    for s in shape:
        if s < -1:
            raise RuntimeError(f"{op}: invalid shape dimension {s}")
    if -1 in shape:
        known = math.prod(s for s in shape if s != -1)
        if known == 0 or numel % known:
            raise RuntimeError(
                f"{op}: shape '{list(shape)}' is invalid for input of size {numel}")
        shape = tuple(numel // known if s == -1 else s for s in shape)
    if math.prod(shape) != numel:
        raise RuntimeError(
            f"{op}: shape '{list(shape)}' is invalid for input of size {numel} "
            f"(input shape {list(src_shape)})")
    return shape


# -- reshape family ------------------------------------------------------------

def _reshape_rule(name: str) -> Rule:
    """A rule whose gradient is ``g`` back in the input's shape (PyTorch's ``self_sym_sizes``)."""
    return defop(name, jvp=VIA_VJP, params=("self_sym_sizes",),
                 vjp=(lambda g, n: g.reshape(n.self_sym_sizes),),
                 first_order=(lambda gd, n, b: b.xp.reshape(gd, n.self_sym_sizes),), complex=True)


VIEW = _reshape_rule("ViewBackward0")
SQUEEZE = _reshape_rule("SqueezeBackward0")
UNSQUEEZE = defop("UnsqueezeBackward0", jvp=lambda t, n: t.unsqueeze(n.dim), params=("dim",),
                  vjp=(lambda g, n: g.squeeze(n.dim),),
                  first_order=(lambda gd, n, b: b.xp.squeeze(gd, axis=n.dim),), complex=True)


def _reshape_as(input: Tensor, shape: tuple[Any, ...], rule: Rule, op: str = "reshape",
                **params: Any) -> Tensor:
    """``input`` in ``shape``: a view when the logical strides allow it, else a copy
    (``view`` raises instead, as PyTorch does). ``params``: the rule's, when not the
    input's shape (``self_sym_sizes``)."""
    viewable, strides = view_strides(input._data.shape, input._strides, shape)
    if not viewable:
        if op == "view":
            raise RuntimeError(
                f"view size is not compatible with input tensor's size and stride (at least one "
                f"dimension spans across two contiguous subspaces): input shape "
                f"{list(input._data.shape)}, requested {list(shape)}. Use .reshape(...) instead.")
        data = input._backend.xp.reshape(input._data, shape)
        return rule.record(data, input._backend, (input,),
                           **(params or {"self_sym_sizes": input._data.shape}))
    data = input._data if shape == input._data.shape else input._backend.xp.reshape(input._data, shape)
    out = rule.record(data, input._backend, (input,),
                      **(params or {"self_sym_sizes": input._data.shape}))
    return make_view(out, input, lambda base: _reshape_as(base, shape, rule, **params),
                     strides)


def _keyword(op: str, name: str, positional: tuple[Any, ...], value: Any) -> tuple[Any, ...]:
    """The sizes given as PyTorch's keyword ``name=`` (``x.reshape(shape=(2, 3))``)."""
    if value is None:
        return positional
    if positional:
        raise TypeError(f"{op}() got multiple values for argument '{name}'")
    return (value,)


def reshape(input: Tensor, *sizes: Any, shape: Any = None) -> Tensor:
    """The same elements in a new shape (one dimension may be -1)."""
    tensor_arg("reshape", input)
    new = _sizes(_keyword("reshape", "shape", sizes, shape), "reshape")
    new = _infer_shape(new, input.numel(), "reshape", input._data.shape)
    return _reshape_as(input, new, VIEW)


def view(input: Tensor, *sizes: Any, size: Any = None, dtype: Any = None) -> Tensor:
    """The same memory in a new shape (raises where only a copy could do it, as PyTorch),
    or, given a dtype, read as that dtype (``Tensor.view(dtype)``)."""
    tensor_arg("view", input)
    if dtype is None and len(sizes) == 1 and isinstance(sizes[0], _dt.dtype):
        dtype = sizes[0]
        sizes = ()
    if dtype is not None:
        if sizes or size is not None:
            raise TypeError("view() takes either sizes or a dtype, not both")
        from arraygrad.ops.dtype_view import view_as_dtype

        return view_as_dtype(input, dtype)
    shape = _sizes(_keyword("view", "size", sizes, size), "view")
    shape = _infer_shape(shape, input.numel(), "view", input._data.shape)
    return _reshape_as(input, shape, VIEW, "view")


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Merge dimensions ``start_dim..end_dim`` into one."""
    tensor_arg("flatten", input)
    shape = input._data.shape
    if not shape:
        return reshape(input, (1,))
    s = _wrap_dim(start_dim, len(shape), "flatten")
    e = _wrap_dim(end_dim, len(shape), "flatten")
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    new = shape[:s] + (math.prod(shape[s:e + 1]),) + shape[e + 1:]
    return _reshape_as(input, new, VIEW)


def squeeze(input: Tensor, dim: Any = None) -> Tensor:
    """Remove dimensions of size 1 (all, or those in ``dim``)."""
    tensor_arg("squeeze", input)
    shape = input._data.shape
    if dim is None:
        new = tuple(n for n in shape if n != 1)
    else:
        dims = normalize_dims(dim, len(shape), "squeeze") or ()
        new = tuple(n for i, n in enumerate(shape) if not (i in dims and n == 1))
    return _reshape_as(input, new, SQUEEZE)


def unsqueeze(input: Tensor, dim: int) -> Tensor:
    """Insert a dimension of size 1 at ``dim``."""
    tensor_arg("unsqueeze", input)
    shape = input._data.shape
    d = _wrap_dim(dim, len(shape) + 1, "unsqueeze")
    return _reshape_as(input, shape[:d] + (1,) + shape[d:], UNSQUEEZE, dim=d)


# -- permutations ----------------------------------------------------------------

def _inverse(dims: tuple[int, ...]) -> tuple[int, ...]:
    """The permutation that undoes ``dims``."""
    inverse = [0] * len(dims)
    for i, d in enumerate(dims):
        inverse[d] = i
    return tuple(inverse)


def _swapped(ndim: int, d0: int, d1: int) -> tuple[int, ...]:
    """The order of ``ndim`` dimensions with ``d0`` and ``d1`` swapped."""
    order = list(range(ndim))
    order[d0], order[d1] = order[d1], order[d0]
    return tuple(order)


PERMUTE = defop("PermuteBackward0", jvp=lambda t, n: t.permute(n.dims), params=("dims",),
                vjp=(lambda g, n: g.permute(_inverse(n.dims)),),
                first_order=(lambda gd, n, b: b.xp.permute_dims(gd, _inverse(n.dims)),),
                complex=True)
# PyTorch's dim0/dim1 as given (wrapped); a transposition is its own inverse
TRANSPOSE = defop("TransposeBackward0", jvp=lambda t, n: t.transpose(n.dim0, n.dim1), params=("dim0", "dim1"),
                  vjp=(lambda g, n: g.transpose(n.dim0, n.dim1),),
                  first_order=(lambda gd, n, b: gd if gd.ndim == 0 else b.xp.permute_dims(
                      gd, _swapped(gd.ndim, n.dim0, n.dim1)),), complex=True)


def _permuted(input: Tensor, order: tuple[Any, ...], rule: Rule, **params: Any) -> Tensor:
    """``input`` with its dimensions in the order ``order``, recorded as ``rule``."""
    if order == tuple(range(len(order))):
        data = input._data
    else:
        data = input._backend.xp.permute_dims(input._data, order)
    out = rule.record(data, input._backend, (input,), **params)
    return make_view(out, input, lambda base: _permuted(base, order, rule, **params),
                     permuted_strides(input, order))


def permute(input: Tensor, *order: Any, dims: Any = None) -> Tensor:
    """Reorder dimensions (``dims`` positional, as varargs, or ``dims=``)."""
    tensor_arg("permute", input)
    dims = _sizes(_keyword("permute", "dims", order, dims), "permute")
    n = input._data.ndim
    if len(dims) != n:
        raise RuntimeError(
            f"permute(sparse_coo): number of dimensions in the tensor input does not match the "
            f"length of the desired ordering of dimensions i.e. input.dim() = {n} is not equal "
            f"to len(dims) = {len(dims)}".replace("(sparse_coo)", ""))
    norm = tuple(_wrap_dim(d, n, "permute") for d in dims)
    if len(set(norm)) != n:
        raise RuntimeError(f"permute: repeated dim in {list(dims)}")
    return _permuted(input, norm, PERMUTE, dims=norm)


_T_WARNED: set[str] = set()  # PyTorch warns once per process, per message


def reversed_dims(input: Tensor) -> Tensor:
    """``input.T``: its dimensions reversed, recorded as PyTorch's ``PermuteBackward0``; with
    PyTorch's deprecation warning (once) when ``input`` is not 2-D."""
    ndim = input._data.ndim
    if ndim != 2:
        kind = "0-d" if ndim == 0 else "n-d"
        if kind not in _T_WARNED:
            _T_WARNED.add(kind)
            warnings.warn(
                "Tensor.T is deprecated on 0-D tensors. This function is the identity in these "
                "cases." if ndim == 0 else
                "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
                "deprecated and it will throw an error in a future release. Consider `x.mT` to "
                "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` "
                "to reverse the dimensions of a tensor.", UserWarning, stacklevel=3)
    order = tuple(range(ndim - 1, -1, -1))
    return _permuted(input, order, PERMUTE, dims=order)


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """Swap two dimensions."""
    tensor_arg("transpose", input)
    n = input._data.ndim
    if n == 0:
        return _permuted(input, (), TRANSPOSE, dim0=0, dim1=0)
    d0, d1 = _wrap_dim(dim0, n, "transpose"), _wrap_dim(dim1, n, "transpose")
    return _permuted(input, _swapped(n, d0, d1), TRANSPOSE, dim0=d0, dim1=d1)


def swapaxes(input: Tensor, axis0: int, axis1: int) -> Tensor:
    """``transpose`` under NumPy's name and argument names (``axis0``, ``axis1``)."""
    return transpose(input, axis0, axis1)


def t(input: Tensor) -> Tensor:
    """Transpose of a tensor of at most 2 dimensions."""
    tensor_arg("t", input)
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    return transpose(input, 0, 1) if input.ndim == 2 else input


def movedim(input: Tensor, source: Any, destination: Any) -> Tensor:
    """Move dimension(s) ``source`` to ``destination``."""
    tensor_arg("movedim", input)
    n = input._data.ndim
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    src = [_wrap_dim(d, n, "movedim") for d in src]
    dst = [_wrap_dim(d, n, "movedim") for d in dst]
    if n == 0:  # dim 0 and -1 of a scalar name the scalar itself
        return permute(input, ())
    order = [d for d in range(n) if d not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return permute(input, tuple(order))


# -- expand / repeat / flip --------------------------------------------------------

# jvp: the tangent as is (the recorder expands it to the output's shape)
EXPAND = defop("ExpandBackward0", jvp=lambda t, n: t, params=("self_sym_sizes",),
               vjp=(lambda g, n: sum_to(g, n.self_sym_sizes),),
               first_order=(lambda gd, n, b: sum_to_data(b.xp, gd, n.self_sym_sizes),),
               complex=True)


def expand(input: Tensor, *sizes: Any, size: Any = None, implicit: bool = False) -> Tensor:
    """Broadcast to a larger shape without copying (-1 keeps a dimension); ``size=`` as
    PyTorch (``implicit`` is PyTorch's internal flag, without effect)."""
    tensor_arg("expand", input)
    sizes = _sizes(_keyword("expand", "size", sizes, size), "expand")
    shape = input._data.shape
    if len(sizes) < len(shape):
        raise RuntimeError(
            f"expand: the number of sizes provided ({len(sizes)}) must be greater or equal to the "
            f"number of dimensions in the tensor ({len(shape)})")
    lead = len(sizes) - len(shape)
    target: Any = []
    for i, s in enumerate(sizes):
        if i < lead:
            if s < 0:
                raise RuntimeError("expand: -1 is not allowed in a leading, non-existing dimension")
            target.append(s)
            continue
        cur = shape[i - lead]
        if s == -1:
            s = cur
        elif cur != 1 and s != cur:
            raise RuntimeError(
                f"expand: The expanded size of the tensor ({s}) must match the existing size "
                f"({cur}) at non-singleton dimension {i}.  Target sizes: {list(sizes)}.  Tensor "
                f"sizes: {list(shape)}")
        target.append(s)
    target = tuple(target)
    data = input._data if target == shape else input._backend.xp.broadcast_to(input._data, target)
    out = EXPAND.record(data, input._backend, (input,), self_sym_sizes=shape)
    return make_view(out, input, lambda base: expand(base, target),
                     expanded_strides(input, target))


def expand_as(input: Tensor, other: Tensor) -> Tensor:
    """``expand`` to ``other``'s shape."""
    return expand(input, tuple(other.shape))


broadcast_to = expand


def _unrepeat(g: Tensor, n: RuleNode) -> Tensor:
    """The sum of ``g``'s tiles: each repeated dimension split in (repeats, size), summed."""
    shape, reps = n.self_sym_sizes, n.repeats
    lead = len(reps) - len(shape)
    full = (1,) * lead + tuple(shape)
    split = []
    for r, n in zip(reps, full):
        split += [r, n]
    summed = g.reshape(tuple(split)).sum(tuple(range(0, 2 * len(reps), 2)))
    return summed.reshape(shape)


REPEAT = defop("RepeatBackward0", jvp=VIA_VJP, params=("repeats", "self_sym_sizes"), vjp=(_unrepeat,), complex=True)


@allocating("repeat")
def repeat(input: Tensor, *sizes: Any, repeats: Any = None) -> Tensor:
    """Tile the tensor ``sizes[i]`` times along each dimension (``repeats=`` as PyTorch)."""
    tensor_arg("repeat", input)
    reps = _sizes(_keyword("repeat", "repeats", sizes, repeats), "repeat")
    shape = input._data.shape
    if len(reps) < len(shape):
        raise RuntimeError(
            "repeat: Number of dimensions of repeat dims can not be smaller than number of "
            "dimensions of tensor")
    padded = (1,) * (len(reps) - len(shape)) + tuple(shape)
    out_sizes = [s * r for s, r in zip(padded, reps)]
    if min(out_sizes, default=0) < 0:  # (a negative count of an empty dim is an empty dim)
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(out_sizes)}: "
                           f"{out_sizes}")
    data = input._backend.xp.tile(input._data, reps)
    return REPEAT.record(data, input._backend, (input,), repeats=reps, self_sym_sizes=shape)


FLIP = defop("FlipBackward0", jvp=lambda t, n: t.flip(n.dims), params=("dims",), vjp=(lambda g, n: g.flip(n.dims),), complex=True)


def flip(input: Tensor, *dims: Any, **kwargs: Any) -> Tensor:
    """Reverse the order of elements along ``dims`` (positional, or ``dims=`` as PyTorch)."""
    tensor_arg("flip", input)
    if kwargs:
        if set(kwargs) != {"dims"} or dims:
            raise TypeError(f"flip() got an unexpected keyword argument "
                            f"{next(k for k in kwargs if k != 'dims' or dims)!r}")
        dims = (kwargs["dims"],)
    dims = _sizes(dims, "flip")
    axes = normalize_dims(dims, input._data.ndim, "flip")
    xp = input._backend.xp
    # PyTorch's flip copies; NumPy's flip is a view of the input, which an in-place op on the
    # result would write through, so the result is made its own array (an empty dims too)
    data = xp.asarray(xp.flip(input._data, axis=axes) if axes else input._data, copy=True)
    return FLIP.record(data, input._backend, (input,), dims=dims)


# -- joining and splitting -------------------------------------------------------------

# one input name for any number of tensors: the vjp is joint, one gradient per tensor (the
# recorder casts each back to its tensor's dtype)
def _parts(gd: Any, d: int, sizes: Any) -> tuple[Any, ...]:
    """``gd`` cut along dimension ``d`` into parts of ``sizes`` (views): ``split`` on arrays."""
    parts, start = [], 0
    lead = (slice(None),) * d
    for size in sizes:
        parts.append(gd[lead + (slice(start, start + size), Ellipsis)])
        start += size
    return tuple(parts)


CAT = defop("CatBackward0", jvp=VIA_VJP, inputs=("tensors",), params=("dim", "sizes"),
            vjp=lambda g, n: split(g, list(n.sizes), n.dim),
            first_order=lambda gd, n, b: _parts(gd, n.dim, n.sizes), complex=True)


def _joinable(op: str, tensors: Any) -> tuple[list[Any], Any]:
    """``(tensors as a list, their one backend)`` for ``cat``/``stack``, after PyTorch's
    checks of the sequence."""
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{op}(): argument 'tensors' must be a sequence of Tensors")
    tensors = list(tensors)
    if not tensors:  # PyTorch's own classes and words for the two
        if op == "stack":
            raise RuntimeError("stack expects a non-empty TensorList")
        raise ValueError(f"{op}(): expected a non-empty list of Tensors")
    for t_ in tensors:
        if not isinstance(t_, Tensor):
            raise TypeError(f"{op}(): expected Tensors, got {type(t_).__name__}")
    return tensors, same_backend(op, *tensors)


def _joined_arrays(tensors: list[Any]) -> list[Any]:
    """The tensors' arrays in their promoted dtype: as they are when they share one (the
    common case: no dtype to look up or promote per tensor)."""
    native = tensors[0]._data.dtype
    for t_ in tensors:
        if t_._data.dtype != native:
            break
    else:
        return [t_._data for t_ in tensors]
    out_dtype = tensors[0].dtype
    for t_ in tensors[1:]:
        out_dtype = _dt.promote_types(out_dtype, t_.dtype)
    return [cast_data(t_, out_dtype) for t_ in tensors]


def cat(tensors: Any, dim: int = 0) -> Tensor:
    """Join tensors along an existing dimension (dtypes promote as in PyTorch)."""
    tensors, backend = _joinable("cat", tensors)
    ref = tensors[0]
    n = ref._data.ndim
    if n == 0:
        raise RuntimeError("cat: zero-dimensional tensor (at position 0) cannot be concatenated")
    d = _wrap_dim(dim, n, "cat")
    for i, t_ in enumerate(tensors):
        s = t_._data.shape
        if len(s) != n or any(a != b for j, (a, b) in enumerate(zip(s, ref._data.shape)) if j != d):
            raise RuntimeError(
                f"cat: Sizes of tensors must match except in dimension {d}. Expected "
                f"{list(ref._data.shape)} but got {list(s)} for tensor number {i} in the list")
    data = backend.xp.concat(_joined_arrays(tensors), axis=d)
    return CAT.record(data, backend, tensors, dim=d,
                      sizes=tuple(t_._data.shape[d] for t_ in tensors))


concat = concatenate = cat


def _slices(gd: Any, d: int) -> tuple[Any, ...]:
    """The slices of ``gd`` along dimension ``d`` (views): ``unbind`` on arrays."""
    lead = (slice(None),) * d
    return tuple(gd[lead + (i, Ellipsis)] for i in range(gd.shape[d]))


STACK = defop("StackBackward0", jvp=VIA_VJP, inputs=("tensors",), params=("dim",),
              vjp=lambda g, n: unbind(g, n.dim), first_order=lambda gd, n, b: _slices(gd, n.dim),
              complex=True)


def stack(tensors: Any, dim: int = 0) -> Tensor:
    """Join same-shaped tensors along a new dimension."""
    uniform = _fast.uniform_arrays(tensors)
    if uniform is not None:  # one backend, shape and dtype: checked in one pass
        backend, arrays = uniform
        d = _wrap_dim(dim, arrays[0].ndim + 1, "stack")
        return STACK.record(backend.xp.stack(arrays, axis=d), backend, tensors, dim=d)
    tensors, backend = _joinable("stack", tensors)
    ref = tensors[0]
    for i, t_ in enumerate(tensors):
        if t_._data.shape != ref._data.shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(ref._data.shape)} at "
                f"entry 0 and {list(t_._data.shape)} at entry {i}")
    d = _wrap_dim(dim, ref._data.ndim + 1, "stack")
    data = backend.xp.stack(_joined_arrays(tensors), axis=d)
    return STACK.record(data, backend, tensors, dim=d)


# several outputs, as many as the call makes: ``outputs`` only needs to say "more than one";
# ``g`` is the list of the outputs' gradients (zeros where none arrived)
SPLIT = defop("SplitBackward0", jvp=VIA_VJP, params=("dim", "self_sym_sizes", "split_size"), outputs=2,
              vjp=(lambda g, n: cat(g, n.dim),),
              first_order=(lambda gd, n, b: b.xp.concat(gd, axis=n.dim),), complex=True)
SPLIT_WITH_SIZES = defop("SplitWithSizesBackward0", jvp=VIA_VJP,
                         params=("dim", "self_sym_sizes", "split_sizes"), outputs=2,
                         vjp=(lambda g, n: cat(g, n.dim),),
                         first_order=(lambda gd, n, b: b.xp.concat(gd, axis=n.dim),), complex=True)


def _views_of_parts(outs: Any, input: Tensor, keys: Any, one_layout: bool = False,
                    strides: Any = None) -> tuple[Any, ...]:
    """Mark the outputs of a multi-output op as views picked from ``input`` by ``keys``;
    ``one_layout``: every part has the first's shape and strides (``unbind``'s), computed once;
    ``strides``: the parts' strides, when the caller knows them (``split``'s)."""
    if not outs:
        return outs
    if strides is None and one_layout:
        strides = (indexed_strides(input, keys[0], outs[0]._data.shape),) * len(outs)
    elif strides is None:
        strides = [indexed_strides(input, key, out._data.shape) for out, key in zip(outs, keys)]
    make_views(outs, input, [partial(_picked, key) for key in keys], strides,
               multi_output=True)
    return outs


def _picked(key: Any, base: Tensor) -> Tensor:
    """``base[key]``: a part's replay from its base."""
    from arraygrad.ops.indexing import getitem

    return getitem(base, key)


def _split_at(input: Tensor, sizes: list[Any], d: int, rule: Rule, **params: Any) -> tuple[Any, ...]:
    data = input._data
    keys, start = [], 0
    for size in sizes:
        keys.append((slice(None),) * d + (slice(start, start + size), Ellipsis))
        start += size
    outs = rule.record_many([data[k] for k in keys], input._backend, (input,), dim=d,
                            self_sym_sizes=data.shape, **params)
    # a part is a unit-step slice along ``d``: the input's strides, normalised once per part
    # shape (``chunk``'s parts share one, the last aside)
    whole = strides_of(input)
    layouts: dict[Any, Any] = {}
    for out in outs:
        part = out._data.shape
        if part not in layouts:
            layouts[part] = normalized_strides(part, whole)
    return _views_of_parts(outs, input, keys,
                           strides=[layouts[out._data.shape] for out in outs])


def split(input: Tensor | None = None, split_size_or_sections: Any = None, dim: int = 0, *,
          tensor: Tensor | None = None, split_size: Any = None) -> tuple[Any, ...]:
    """Split into chunks of a given size, or of the given list of sizes (PyTorch's keyword
    names: ``torch.split(tensor=...)``, ``Tensor.split(split_size=...)``)."""
    if tensor is not None:
        if input is not None:
            raise TypeError("split() got multiple values for argument 'tensor'")
        input = tensor
    if split_size is not None:
        if split_size_or_sections is not None:
            raise TypeError("split() got multiple values for argument 'split_size'")
        split_size_or_sections = split_size
    if input is None or split_size_or_sections is None:
        raise TypeError("split() missing required arguments 'tensor' and 'split_size_or_sections'")
    n = input._data.ndim
    if n == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = _wrap_dim(dim, n, "split")
    length = input._data.shape[d]
    if isinstance(split_size_or_sections, int):
        size = split_size_or_sections
        if size <= 0 and length:
            raise RuntimeError(f"split: split_size must be positive, got {size}")
        sizes = [min(size, length - i) for i in range(0, length, size)] if length else [0]
        return _split_at(input, sizes, d, SPLIT, split_size=size)
    sizes = [int(s) for s in split_size_or_sections]
    if sum(sizes) != length or any(s < 0 for s in sizes):
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {length} (input tensor's size "
            f"at dimension {d}), but got split_sizes={sizes}")
    return _split_at(input, sizes, d, SPLIT_WITH_SIZES, split_sizes=tuple(sizes))


def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple[Any, ...]:
    """Split into ``chunks`` pieces (the last may be smaller; fewer if the size is small)."""
    tensor_arg("chunk", input)
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    if input._data.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    d = _wrap_dim(dim, input._data.ndim, "chunk")
    length = input._data.shape[d]
    if length == 0:  # PyTorch: ``chunks`` empty pieces
        return split(input, [0] * chunks, d)
    size = -(-length // chunks)
    return split(input, size, d)


UNBIND = defop("UnbindBackward0", jvp=VIA_VJP, params=("dim",), outputs=2,
               vjp=(lambda g, n: stack(g, n.dim),),
               first_order=(lambda gd, n, b: b.xp.stack(gd, axis=n.dim),), complex=True)


def unbind(input: Tensor, dim: int = 0) -> tuple[Any, ...]:
    """The slices along ``dim``, each without that dimension."""
    d = _wrap_dim(dim, input._data.ndim, "unbind")
    data = input._data
    keys = [(slice(None),) * d + (i, Ellipsis) for i in range(data.shape[d])]
    outs = UNBIND.record_many([data[k] for k in keys], input._backend, (input,), dim=d)
    return _views_of_parts(outs, input, keys, one_layout=True)


def narrow(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    """The slice ``start:start+length`` along ``dim``; a negative ``start`` counts from the end.

    Out-of-range arguments raise (IndexError for ``start``, RuntimeError for ``length``) rather
    than being clipped as a Python slice would: ``narrow`` promises exactly ``length`` elements.
    """
    tensor_arg("narrow", input)
    if input._data.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, input._data.ndim, "narrow")
    size = input._data.shape[d]
    if not -size <= start <= size:
        raise IndexError(f"narrow: start out of range (expected to be in range of [{-size}, {size}], "
                         f"but got {start})")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if start < 0:
        start += size
    if start + length > size:
        raise RuntimeError(f"narrow: start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return input[(slice(None),) * d + (slice(start, start + length),)]
