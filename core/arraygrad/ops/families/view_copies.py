"""The ``*_copy`` functions: each view op's result as a fresh tensor of its own
(``torch.permute_copy(x, dims)`` is ``x.permute(dims).clone()``), as PyTorch's functionalized
programs call them. Composites of the view op and ``clone``: the gradient is theirs, and
nothing written into the copy reaches the input.
"""

from __future__ import annotations

from typing import Any, Callable

from arraygrad.tensor import Tensor

__all__ = ["FUNCTIONS", "METHODS"]


def _fresh(value: Any) -> Any:
    """``value`` (a tensor, or a tuple of them) cloned."""
    if isinstance(value, tuple):
        return tuple(t.clone() for t in value)
    return value.clone()


def _tensor(op: str, input: Any) -> Tensor:
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return input


def alias_copy(input: Tensor) -> Tensor:
    """A copy of ``input`` (``alias`` is the identity view)."""
    return _tensor("alias_copy", input).clone()


def as_strided_copy(input: Tensor, size: Any, stride: Any,
                    storage_offset: int | None = None) -> Tensor:
    """``input.as_strided(size, stride, storage_offset)`` as a fresh tensor."""
    return _tensor("as_strided_copy", input).as_strided(size, stride, storage_offset).clone()


def detach_copy(input: Tensor) -> Tensor:
    """``input.detach()`` as a fresh tensor (outside the graph)."""
    return _tensor("detach_copy", input).detach().clone()


def diagonal_copy(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """``input.diagonal(offset, dim1, dim2)`` as a fresh tensor."""
    return _tensor("diagonal_copy", input).diagonal(offset, dim1, dim2).clone()


def expand_copy(input: Tensor, size: Any, *, implicit: bool = False) -> Tensor:
    """``input.expand(size)`` as a fresh tensor (every element its own memory)."""
    return _tensor("expand_copy", input).expand(size).clone()


def narrow_copy(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    """``input.narrow(dim, start, length)`` as a fresh tensor."""
    return _tensor("narrow_copy", input).narrow(dim, start, length).clone()


def permute_copy(input: Tensor, dims: Any) -> Tensor:
    """``input.permute(dims)`` as a fresh tensor."""
    return _tensor("permute_copy", input).permute(dims).clone()


def select_copy(input: Tensor, dim: int, index: int) -> Tensor:
    """``input.select(dim, index)`` as a fresh tensor."""
    return _tensor("select_copy", input).select(dim, index).clone()


def slice_copy(input: Tensor, dim: int = 0, start: int | None = None, end: int | None = None,
               step: int = 1) -> Tensor:
    """``input[..., start:end:step]`` along ``dim`` as a fresh tensor."""
    from arraygrad.tensor import _wrap_dim

    t = _tensor("slice_copy", input)
    d = _wrap_dim(dim, t.ndim, "slice_copy")
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    return t[(slice(None),) * d + (slice(start, end, step),)].clone()


def split_copy(input: Tensor, split_size: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """``input.split(split_size, dim)``, each piece a fresh tensor."""
    return _fresh(_tensor("split_copy", input).split(split_size, dim))


def split_with_sizes_copy(input: Tensor, split_sizes: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """``input.split_with_sizes(split_sizes, dim)``, each piece a fresh tensor."""
    return _fresh(_tensor("split_with_sizes_copy", input).split_with_sizes(split_sizes, dim))


def squeeze_copy(input: Tensor, dim: Any = None) -> Tensor:
    """``input.squeeze(dim)`` as a fresh tensor."""
    t = _tensor("squeeze_copy", input)
    return (t.squeeze() if dim is None else t.squeeze(dim)).clone()


def t_copy(input: Tensor) -> Tensor:
    """``input.t()`` as a fresh tensor."""
    return _tensor("t_copy", input).t().clone()


def transpose_copy(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """``input.transpose(dim0, dim1)`` as a fresh tensor."""
    return _tensor("transpose_copy", input).transpose(dim0, dim1).clone()


def unbind_copy(input: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    """``input.unbind(dim)``, each slice a fresh tensor."""
    return _fresh(_tensor("unbind_copy", input).unbind(dim))


def unfold_copy(input: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """``input.unfold(dimension, size, step)`` as a fresh tensor (the windows copied)."""
    return _tensor("unfold_copy", input).unfold(dimension, size, step).clone()


def unsqueeze_copy(input: Tensor, dim: int) -> Tensor:
    """``input.unsqueeze(dim)`` as a fresh tensor."""
    return _tensor("unsqueeze_copy", input).unsqueeze(dim).clone()


def view_copy(input: Tensor, size: Any = None, *, dtype: Any = None) -> Tensor:
    """``input.view(size)`` (or ``input.view(dtype)``) as a fresh tensor."""
    t = _tensor("view_copy", input)
    return (t.view(size) if dtype is None else t.view(dtype=dtype)).clone()


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "alias_copy": alias_copy, "as_strided_copy": as_strided_copy, "detach_copy": detach_copy,
    "diagonal_copy": diagonal_copy, "expand_copy": expand_copy, "narrow_copy": narrow_copy,
    "permute_copy": permute_copy, "select_copy": select_copy, "slice_copy": slice_copy,
    "split_copy": split_copy, "split_with_sizes_copy": split_with_sizes_copy,
    "squeeze_copy": squeeze_copy, "t_copy": t_copy, "transpose_copy": transpose_copy,
    "unbind_copy": unbind_copy, "unfold_copy": unfold_copy, "unsqueeze_copy": unsqueeze_copy,
    "view_copy": view_copy,
}
METHODS: dict[str, Callable[..., Any]] = {"narrow_copy": narrow_copy}
