"""View ops and their scatters: ``select``, ``split_with_sizes``, the ``unsafe_`` splits,
``Tensor.sum_to_size``, and ``select_scatter``/``slice_scatter``/``diagonal_scatter`` (a copy
of the input with the view's elements replaced).

``select`` is basic indexing, so a view whose in-place changes reach the base. The ``unsafe_``
splits are ``split``/``chunk`` whose pieces autograd does not treat as views (PyTorch's
contract: in-place changes to the pieces are recorded as on any tensor; the memory is still
shared). The scatters are ``index_put`` at the flat positions the view reads, found by
applying the view to ``arange(input.numel())``: composites, differentiable in both inputs.
"""

from __future__ import annotations

from typing import Any, Callable

from arraygrad.ops import shape as _shape
from arraygrad.ops.broadcast import sum_to
from arraygrad.ops.indexing import getitem
from arraygrad.tensor import Tensor, _wrap_dim

__all__ = ["select", "split_with_sizes", "unsafe_split", "unsafe_chunk",
           "unsafe_split_with_sizes", "sum_to_size", "select_scatter", "slice_scatter",
           "diagonal_scatter", "FUNCTIONS", "METHODS"]


def _select_key(input: Tensor, dim: int, index: Any) -> tuple[Any, ...]:
    if input.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, input.ndim, "select")
    i = int(index)
    size = input.shape[d]
    if not -size <= i < size:
        raise IndexError(f"select(): index {i} out of range for tensor of size "
                         f"{list(input.shape)} at dimension {d}")
    return (slice(None),) * d + (i % size if size else i,)


def select(input: Tensor, dim: int, index: int) -> Tensor:
    """The slice at ``index`` along ``dim``, without that dimension: a view."""
    return getitem(input, _select_key(input, dim, index))


def split_with_sizes(input: Tensor, split_sizes: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """``split`` into pieces of the given sizes (they must add up to the dimension's size)."""
    return _shape.split(input, [int(s) for s in split_sizes], dim)


def _unviewed(pieces: tuple[Tensor, ...]) -> tuple[Tensor, ...]:
    """The pieces as tensors autograd does not treat as views (their memory stays shared)."""
    for piece in pieces:
        piece._base, piece._view, piece._vc = None, None, None
    return pieces


def unsafe_split(input: Tensor, split_size: int, dim: int = 0) -> tuple[Tensor, ...]:
    """``split`` whose pieces autograd does not treat as views of ``input`` (PyTorch's
    ``unsafe_split``: modify either the input or the pieces in place, not both)."""
    return _unviewed(_shape.split(input, int(split_size), dim))


def unsafe_split_with_sizes(input: Tensor, split_sizes: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """``split_with_sizes`` whose pieces autograd does not treat as views (see
    ``unsafe_split``)."""
    return _unviewed(split_with_sizes(input, split_sizes, dim))


def unsafe_chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    """``chunk`` whose pieces autograd does not treat as views (see ``unsafe_split``)."""
    return _unviewed(_shape.chunk(input, chunks, dim))


def sum_to_size(self: Tensor, *size: Any, **kwargs: Any) -> Tensor:
    """``self`` summed down to ``size`` (which must broadcast to ``self``'s shape), as
    ``Tensor.sum_to_size``; ``size`` as ints, one sequence, or ``size=``."""
    if kwargs:
        if set(kwargs) != {"size"} or size:
            raise TypeError(f"sum_to_size() got an unexpected keyword argument "
                            f"{next(k for k in kwargs if k != 'size' or size)!r}")
        size = (kwargs["size"],)
    target = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
    target = tuple(int(n) for n in target)
    shape = tuple(self.shape)
    lead = len(shape) - len(target)
    if lead < 0 or any(n != 1 and n != shape[lead + i] for i, n in enumerate(target)):
        raise RuntimeError(f"size {{{list(target)}}} is not expandable to size {{{list(shape)}}}.")
    return sum_to(self, target) if target != shape else self


def _embed(op: str, input: Tensor, src: Tensor, pick: Callable[[Tensor], Tensor]) -> Tensor:
    """A copy of ``input`` with the elements ``pick(input)`` shows replaced by ``src``."""
    from arraygrad.creation import arange
    from arraygrad.ops.families.scatter import _index_put_fn

    for pos, (arg, value) in enumerate((("input", input), ("src", src)), start=1):
        if not isinstance(value, Tensor):
            raise TypeError(f"{op}(): argument '{arg}' (position {pos}) must be Tensor, not "
                            f"{type(value).__name__}")
    positions = pick(arange(input.numel(), device=input.device).reshape(tuple(input.shape)))
    if tuple(src.shape) != tuple(positions.shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(positions.shape)}")
    flat = _index_put_fn(input.reshape(-1), (positions.reshape(-1),), src.reshape(-1))
    return flat.reshape(tuple(input.shape))


def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    """A copy of ``input`` with ``input.select(dim, index)`` replaced by ``src``."""
    return _embed("select_scatter", input, src, lambda p: select(p, dim, index))


def slice_scatter(input: Tensor, src: Tensor, dim: int = 0, start: int | None = None,
                  end: int | None = None, step: int = 1) -> Tensor:
    """A copy of ``input`` with the slice ``start:end:step`` along ``dim`` replaced by
    ``src``."""
    d = _wrap_dim(dim, input.ndim, "slice_scatter")
    return _embed("slice_scatter", input, src,
                  lambda p: p[(slice(None),) * d + (slice(start, end, step),)])


def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0,
                     dim2: int = 1) -> Tensor:
    """A copy of ``input`` with ``input.diagonal(offset, dim1, dim2)`` replaced by ``src``."""
    return _embed("diagonal_scatter", input, src, lambda p: p.diagonal(offset, dim1, dim2))


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "select": select, "split_with_sizes": split_with_sizes, "unsafe_split": unsafe_split,
    "unsafe_chunk": unsafe_chunk, "unsafe_split_with_sizes": unsafe_split_with_sizes,
    "select_scatter": select_scatter, "slice_scatter": slice_scatter,
    "diagonal_scatter": diagonal_scatter,
}
METHODS: dict[str, Callable[..., Any]] = {**FUNCTIONS, "sum_to_size": sum_to_size}
