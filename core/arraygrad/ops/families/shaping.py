"""Shape ops built from the core's differentiable ones: flips, rolls, tiles, splits, triangles.

Every op here is a composite of core ops (``flip``, ``cat``, slicing, ``reshape``, ``where``,
``index_select``, ...), so its gradient, double backward and version checks are theirs: no
new rule is needed, and none could be more exact (they only move or select elements).
"""

from __future__ import annotations

from typing import Any, Sequence

from arraygrad.ops.arguments import tensor_arg
import arraygrad as ag
from arraygrad.allocation_errors import allocating
from arraygrad.ops.rule import Rule, defop
from arraygrad.tensor import Tensor, _wrap_dim

__all__ = ["fliplr", "flipud", "roll", "rot90", "tile", "repeat_interleave", "tensor_split",
           "hsplit", "vsplit", "dsplit", "moveaxis", "swapdims", "unflatten", "ravel",
           "atleast_1d", "atleast_2d", "atleast_3d", "tril", "triu", "tril_indices",
           "triu_indices"]


def _ints(value: Any, op: str) -> list[int]:
    """``value`` (an int or a sequence of ints, maybe as varargs) as a list of ints."""
    if isinstance(value, (tuple, list)) and len(value) == 1 and isinstance(value[0], (tuple, list)):
        value = value[0]
    if isinstance(value, int) and not isinstance(value, bool):
        return [value]
    out = []
    for v in value:
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"{op}(): expected a sequence of ints, but got {value!r}")
        out.append(v)
    return out


def _slice(x: Tensor, dim: int, start: int | None, stop: int | None) -> Tensor:
    """``x[..., start:stop]`` along ``dim`` (Python slice semantics)."""
    return x[(slice(None),) * dim + (slice(start, stop),)]


def fliplr(input: Tensor) -> Tensor:
    """Reverse the order of the columns (dimension 1); the input must be at least 2-D."""
    if input.dim() < 2:
        raise RuntimeError(f"fliplr: Input must be >= 2-d, but got {input.dim()}-d.")
    return ag.flip(input, 1)


def flipud(input: Tensor) -> Tensor:
    """Reverse the order of the rows (dimension 0); the input must be at least 1-D."""
    if input.dim() < 1:
        raise RuntimeError("flipud: Input must be >= 1-d, but got 0-d.")
    return ag.flip(input, 0)


def roll(input: Tensor, shifts: Any, dims: Any = None) -> Tensor:
    """Roll the tensor by ``shifts`` along ``dims`` (flattened, then restored, when ``dims`` is None)."""
    tensor_arg("roll", input)
    s = _ints(shifts, "roll")
    if dims is None:
        if len(s) != 1:
            raise RuntimeError(f"roll: shifts and dimensions must align. shifts: {len(s)}, dims: 0")
        return roll(input.flatten(), s, 0).reshape(input.shape)
    d = _ints(dims, "roll")
    if len(s) != len(d):
        raise RuntimeError(f"roll: shifts and dimensions must align. shifts: {len(s)}, dims: {len(d)}")
    axes = [_wrap_dim(a, input.dim(), "roll") for a in d]
    out = input
    for shift, axis in zip(s, axes):
        n = out.shape[axis] if out.dim() else 1
        k = shift % n if n else 0
        if k:
            out = ag.cat([_slice(out, axis, n - k, None), _slice(out, axis, None, n - k)], axis)
    return out if out is not input else input.clone()


def rot90(input: Tensor, k: int = 1, dims: Sequence[int] = (0, 1)) -> Tensor:
    """Rotate by 90 degrees ``k`` times in the plane of ``dims``, from the first towards the second."""
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"rot90: expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.dim() < 2:
        raise RuntimeError(f"rot90: expected total dims >= 2, but got total dims = {input.dim()}")
    d0, d1 = (_wrap_dim(d, input.dim(), "rot90") for d in dims)
    if d0 == d1:
        raise RuntimeError(f"rot90: expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    k %= 4
    if k == 1:
        return ag.flip(input, d1).transpose(d0, d1)
    if k == 2:
        return ag.flip(input, d0, d1)
    if k == 3:
        return ag.flip(input, d0).transpose(d0, d1)
    return input.clone()


@allocating("tile")
def tile(input: Tensor, *reps_: Any, dims: Any = None) -> Tensor:
    """Repeat the tensor ``dims[i]`` times along each dimension; missing leading reps count as 1
    (``dims`` positional, as varargs, or ``dims=``)."""
    if dims is not None and reps_:
        raise TypeError("tile() got multiple values for argument 'dims'")
    reps = _ints(reps_ if dims is None else dims, "tile")
    if len(reps) < input.dim():
        reps = [1] * (input.dim() - len(reps)) + reps
    return ag.repeat(input, *reps)


def repeat_interleave(input: Tensor, repeats: Any = None, dim: int | None = None, *,
                      output_size: int | None = None) -> Tensor:
    """Repeat each element ``repeats`` times (an int, or one count per element along ``dim``).

    ``repeat_interleave(repeats)`` (a 1-D integer tensor alone) gives the indices
    ``[0]*repeats[0] + [1]*repeats[1] + ...``.
    """
    if repeats is None:
        if not input._backend.holds_data:
            return _index_of_unknown_counts(input, output_size, input.dtype)
        counts = _counts(input, None, "repeat_interleave")
        index = [i for i, c in enumerate(counts) for _ in range(c)]
        return ag.tensor(index, dtype=input.dtype, device=input.device)
    x = input.flatten() if dim is None else input
    d = 0 if dim is None else _wrap_dim(dim, x.dim(), "repeat_interleave")
    if x.dim() == 0:
        x, d = x.reshape(1), 0
    n = x.shape[d]
    if isinstance(repeats, int) and not isinstance(repeats, bool):
        if repeats < 0:
            raise RuntimeError("repeat_interleave: repeats can not be negative")
        out_shape = list(x.shape)
        out_shape[d] = n * repeats
        result = x.unsqueeze(d + 1).expand(*x.shape[:d + 1], repeats, *x.shape[d + 1:]).reshape(out_shape)
    elif isinstance(repeats, Tensor) and not repeats._backend.holds_data:
        result = ag.index_select(x, d, _index_of_unknown_counts(repeats, output_size, ag.int64))
    else:
        counts = _counts(repeats, n, "repeat_interleave")
        index = [i for i, c in enumerate(counts) for _ in range(c)]
        result = ag.index_select(x, d, ag.tensor(index, dtype=ag.int64, device=x.device))
    if output_size is not None and result.shape[d] != output_size:
        raise RuntimeError(f"repeat_interleave: allocated size does not match required size "
                           f"({output_size} vs {result.shape[d]})")
    return result


def _index_of_unknown_counts(repeats: Tensor, output_size: int | None, dtype: Any) -> Tensor:
    """The repeated elements' index when the counts have no values (a meta tensor): of
    ``output_size`` elements; without it the length is unknown (PyTorch's RuntimeError)."""
    if output_size is None:
        raise RuntimeError(f"cannot repeat_interleave a {repeats.device.type} tensor without "
                           "output_size")
    return ag.empty(output_size, dtype=dtype, device=repeats.device)


def _counts(repeats: Any, n: int | None, op: str) -> list[int]:
    """The per-element repeat counts of a repeats tensor, checked (and a 1-element one broadcast)."""
    if not isinstance(repeats, Tensor):
        repeats = ag.tensor(repeats)
    if repeats.dtype not in (ag.int64, ag.int32):
        raise RuntimeError(f"{op}: repeats has to be Long or Int tensor, but got {repeats.dtype}")
    if repeats.dim() > 1:
        raise RuntimeError(f"{op}: repeats must be 0-dim or 1-dim tensor, but got {repeats.dim()}-dim")
    counts = [int(c) for c in repeats.reshape(-1).tolist()]
    if n is not None and len(counts) == 1:
        counts = counts * n
    if n is not None and len(counts) != n:
        raise RuntimeError(f"{op}: repeats must have the same size as input along dim, but got "
                           f"repeats.size(0) = {len(counts)} and input.size(dim) = {n}")
    if any(c < 0 for c in counts):
        raise RuntimeError(f"{op}: repeats can not be negative")
    return counts


def _one_of(op: str, **given: Any) -> Any:
    """The one of PyTorch's alternative argument names given (``sections=``, ``indices=``...)."""
    found = [(k, v) for k, v in given.items() if v is not None]
    if len(found) != 1:
        names = ", ".join(given)
        raise TypeError(f"{op}() expects exactly one of the arguments {names}, got "
                        f"{len(found)}")
    return found[0][1]


def tensor_split(input: Tensor, indices_or_sections: Any = None, dim: int = 0, *,
                 sections: Any = None, indices: Any = None,
                 tensor_indices_or_sections: Any = None) -> tuple[Tensor, ...]:
    """Split into ``sections`` near-equal pieces, or at the given ``indices``, along ``dim``
    (PyTorch's keyword names of its overloads: ``sections=``, ``indices=``,
    ``tensor_indices_or_sections=``)."""
    indices_or_sections = _one_of("tensor_split", indices_or_sections=indices_or_sections,
                                  sections=sections, indices=indices,
                                  tensor_indices_or_sections=tensor_indices_or_sections)
    if input.dim() == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    d = _wrap_dim(dim, input.dim(), "tensor_split")
    n = input.shape[d]
    ios = indices_or_sections
    if isinstance(ios, Tensor):
        if ios.dtype != ag.int64:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have Long dtype, "
                               f"but got {ios.dtype}")
        if ios.dim() > 1:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a zero-dimensional "
                               f"or one-dimensional tensor, but got a tensor with {ios.dim()} dims")
        ios = int(ios.item()) if ios.dim() == 0 else [int(i) for i in ios.tolist()]
    if isinstance(ios, int) and not isinstance(ios, bool):
        if ios <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {ios}")
        size, extra = divmod(n, ios)
        bounds, start = [], 0
        for i in range(ios):
            stop = start + size + (1 if i < extra else 0)
            bounds.append((start, stop))
            start = stop
    else:
        cuts = _ints(list(ios), "tensor_split")
        starts = [0, *cuts]
        bounds = [(a, b) for a, b in zip(starts, [*cuts, None])]
    return tuple(_slice(input, d, a, b) for a, b in bounds)


def _split_along(op: str, input: Tensor, ios: Any, dim: int, least: int) -> tuple[Tensor, ...]:
    """hsplit/vsplit/dsplit: ``tensor_split`` along ``dim``, whose int form must divide evenly."""
    if input.dim() < least:
        raise RuntimeError(f"torch.{op} requires a tensor with at least {least} dimension"
                           f"{'s' if least > 1 else ''}, but got a tensor with {input.dim()} dimensions!")
    if isinstance(ios, int) and not isinstance(ios, bool):
        size = input.shape[dim]
        if ios == 0 or size % ios:
            raise RuntimeError(f"torch.{op} attempted to split along dimension {dim}, but the size of the "
                               f"dimension {size} is not divisible by the split_size {ios}!")
    return tensor_split(input, ios, dim)


def hsplit(input: Tensor, indices_or_sections: Any = None, *, sections: Any = None,
           indices: Any = None) -> tuple[Tensor, ...]:
    """Split horizontally: along dimension 1 (0 for a 1-D tensor) (``sections=``/``indices=`` as PyTorch's overloads)."""
    indices_or_sections = _one_of("hsplit", indices_or_sections=indices_or_sections,
                                  sections=sections, indices=indices)
    return _split_along("hsplit", input, indices_or_sections, 1 if input.dim() > 1 else 0, 1)


def vsplit(input: Tensor, indices_or_sections: Any = None, *, sections: Any = None,
           indices: Any = None) -> tuple[Tensor, ...]:
    """Split vertically: along dimension 0 of a tensor of at least 2 dimensions (``sections=``/``indices=`` as PyTorch's overloads)."""
    indices_or_sections = _one_of("vsplit", indices_or_sections=indices_or_sections,
                                  sections=sections, indices=indices)
    return _split_along("vsplit", input, indices_or_sections, 0, 2)


def dsplit(input: Tensor, indices_or_sections: Any = None, *, sections: Any = None,
           indices: Any = None) -> tuple[Tensor, ...]:
    """Split depthwise: along dimension 2 of a tensor of at least 3 dimensions (``sections=``/``indices=`` as PyTorch's overloads)."""
    indices_or_sections = _one_of("dsplit", indices_or_sections=indices_or_sections,
                                  sections=sections, indices=indices)
    return _split_along("dsplit", input, indices_or_sections, 2, 3)


def moveaxis(input: Tensor, source: Any, destination: Any) -> Tensor:
    """Alias of ``movedim`` (NumPy's name)."""
    return ag.movedim(input, source, destination)


def swapdims(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """Alias of ``transpose``: swap dimensions ``dim0`` and ``dim1``."""
    return ag.transpose(input, dim0, dim1)


def unflatten(input: Tensor, dim: int, sizes: Sequence[int]) -> Tensor:
    """Expand dimension ``dim`` into ``sizes`` (one entry may be -1, inferred)."""
    d = _wrap_dim(dim, input.dim(), "unflatten")
    sizes = _ints(list(sizes), "unflatten")
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    n = input.shape[d] if input.dim() else 1
    known = 1
    for s in sizes:
        known *= s if s != -1 else 1
    if sizes.count(-1) > 1 or (-1 not in sizes and known != n) or (
            -1 in sizes and (known == 0 or n % known)):
        raise RuntimeError(f"unflatten: Provided sizes {sizes} don't multiply up to the size of dim {dim} "
                           f"({n}) in the input tensor")
    return input.reshape(*input.shape[:d], *sizes, *input.shape[d + 1:])


def ravel(input: Tensor) -> Tensor:
    """The tensor flattened to 1-D."""
    return input.reshape(-1)


def _atleast(tensors: tuple[Any, ...], fix: Any) -> Any:
    """One tensor in, one out; several (or a sequence of them) in, a tuple out."""
    if len(tensors) == 1 and isinstance(tensors[0], Tensor):
        return fix(tensors[0])
    items = tensors[0] if len(tensors) == 1 and isinstance(tensors[0], (tuple, list)) else tensors
    return tuple(fix(t) for t in items)


def atleast_1d(*tensors: Any) -> Any:
    """Each tensor viewed with at least one dimension."""
    return _atleast(tensors, lambda t: t.reshape(1) if t.dim() == 0 else t)


def atleast_2d(*tensors: Any) -> Any:
    """Each tensor viewed with at least two dimensions (a 1-D one becomes a row)."""
    return _atleast(tensors, lambda t: t.reshape(1, 1) if t.dim() == 0 else t.unsqueeze(0) if t.dim() == 1 else t)


def _to_3d(t: Tensor) -> Tensor:
    if t.dim() == 0:
        return t.reshape(1, 1, 1)
    if t.dim() == 1:
        return t.reshape(1, -1, 1)
    return t.unsqueeze(-1) if t.dim() == 2 else t


def atleast_3d(*tensors: Any) -> Any:
    """Each tensor viewed with at least three dimensions (NumPy's placement: (1, n, 1), (m, n, 1))."""
    return _atleast(tensors, _to_3d)


def triangle_keep(xp: Any, rows: int, cols: int, diagonal: int, lower: bool) -> Any:
    """A (rows, cols) bool array: True on and below (``lower``) or on and above the
    ``diagonal``-th diagonal. ``tril``/``triu``'s kept elements; a causal attention mask."""
    offset = xp.reshape(xp.arange(cols), (1, cols)) - xp.reshape(xp.arange(rows), (rows, 1))
    return offset <= diagonal if lower else offset >= diagonal


def _triangle_data(xp: Any, a: Any, diagonal: int, lower: bool) -> Any:
    """``a`` with the elements above (``lower``) or below the ``diagonal``-th diagonal of its
    last two dims zeroed: a ``where`` rather than a 0/1 multiply, so an inf or nan outside the
    triangle gives 0."""
    keep = triangle_keep(xp, a.shape[-2], a.shape[-1], diagonal, lower)
    return xp.where(keep, a, xp.zeros((), dtype=a.dtype))


def _triangle_rule(name: str, op: str, lower: bool) -> Rule:
    """``tril``'s or ``triu``'s rule: linear, its gradient (and tangent) the same triangle."""
    return defop(name, jvp=lambda t, n: _triangle(op, t, n.diagonal, lower), params=("diagonal",),
                 complex=True, vjp=(lambda g, n: _triangle(op, g, n.diagonal, lower),),
                 first_order=(lambda gd, n, b: _triangle_data(b.xp, gd, n.diagonal, lower),))


_TRIL = _triangle_rule("TrilBackward0", "tril", True)
_TRIU = _triangle_rule("TriuBackward0", "triu", False)


def _triangle(op: str, input: Tensor, diagonal: int, lower: bool) -> Tensor:
    """Zero the elements above (``lower``) or below the ``diagonal``-th diagonal of the last two
    dims: one op (PyTorch's ``TrilBackward0``/``TriuBackward0``), on the arrays."""
    tensor_arg(op, input)
    if input.dim() < 2:
        raise RuntimeError(f"{op}: input tensor must have at least 2 dimensions")
    backend = input._backend
    data = _triangle_data(backend.xp, input._data, int(diagonal), lower)
    return (_TRIL if lower else _TRIU).record(data, backend, (input,), diagonal=int(diagonal))


def tril(input: Tensor, diagonal: int = 0) -> Tensor:
    """The lower triangle (on and below the ``diagonal``-th diagonal) of the last two dims; the rest 0."""
    return _triangle("tril", input, diagonal, True)


def triu(input: Tensor, diagonal: int = 0) -> Tensor:
    """The upper triangle (on and above the ``diagonal``-th diagonal) of the last two dims; the rest 0."""
    return _triangle("triu", input, diagonal, False)


def _tri_indices(op: str, row: int, col: int, offset: int, dtype: Any, device: Any, lower: bool) -> Tensor:
    if row < 0 or col < 0:
        raise RuntimeError(f"{op}: row and col must be non-negative, got row={row}, col={col}")
    rs: list[int] = []
    cs: list[int] = []
    for i in range(row):
        lo, hi = (0, min(col, i + offset + 1)) if lower else (max(0, i + offset), col)
        rs.extend([i] * max(0, hi - lo))
        cs.extend(range(lo, hi))
    return ag.tensor([rs, cs], dtype=ag.int64 if dtype is None else dtype, device=device).reshape(2, len(rs))


def tril_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None,
                 layout: Any = None) -> Tensor:
    """The (2, N) row and column indices of the lower triangle of a ``row`` x ``col`` matrix."""
    return _tri_indices("tril_indices", row, col, offset, dtype, device, True)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None,
                 layout: Any = None) -> Tensor:
    """The (2, N) row and column indices of the upper triangle of a ``row`` x ``col`` matrix."""
    return _tri_indices("triu_indices", row, col, offset, dtype, device, False)


FUNCTIONS = {
    "fliplr": fliplr, "flipud": flipud, "roll": roll, "rot90": rot90, "tile": tile,
    "repeat_interleave": repeat_interleave, "tensor_split": tensor_split, "hsplit": hsplit,
    "vsplit": vsplit, "dsplit": dsplit, "moveaxis": moveaxis, "swapdims": swapdims,
    "unflatten": unflatten, "ravel": ravel, "atleast_1d": atleast_1d, "atleast_2d": atleast_2d,
    "atleast_3d": atleast_3d, "tril": tril, "triu": triu, "tril_indices": tril_indices,
    "triu_indices": triu_indices,
}

METHODS = {
    "fliplr": fliplr, "flipud": flipud, "roll": roll, "rot90": rot90, "tile": tile,
    "repeat_interleave": repeat_interleave, "tensor_split": tensor_split, "hsplit": hsplit,
    "vsplit": vsplit, "dsplit": dsplit, "moveaxis": moveaxis, "swapdims": swapdims,
    "unflatten": unflatten, "ravel": ravel, "tril": tril, "triu": triu,
}

INPLACE = {"tril_": tril, "triu_": triu}
