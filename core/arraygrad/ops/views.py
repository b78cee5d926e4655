"""Views: which tensors alias another's memory, how to rebuild them, and their logical strides.

A view (``reshape``/``view``, ``transpose``, ``expand``, basic indexing,
``split``...) shares its base's version counter and remembers how to replay
itself from the root base (``ViewInfo.replay``), so an in-place change through
the view can rebase the base's history, and a view whose base changed can
rebuild its ``grad_fn``.

The Array API has no strides, so arraygrad keeps *logical* strides, computed
as PyTorch would: a tensor is contiguous unless a view op made it otherwise
(``_strides`` is None for contiguous tensors, so fresh results pay nothing).
``view`` raises where PyTorch's would (a shape that needs a copy), ``reshape``
copies instead, and ``contiguous()`` copies a non-contiguous tensor.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:
    from arraygrad.tensor import Tensor

__all__ = [
    "ViewInfo", "make_view", "contiguous_strides", "strides_of", "is_contiguous",
    "view_strides", "normalized_strides", "permuted_strides", "expanded_strides", "indexed_strides",
]


class ViewInfo:
    """How a view was made: ``replay(root_base) -> view``, and the base version its grad_fn is for."""

    __slots__ = ("replay", "version", "multi_output")

    def __init__(self, replay: Any, version: int, multi_output: bool) -> None:
        self.replay = replay
        self.version = version
        self.multi_output = multi_output


def make_view(out: Tensor, input: Tensor, replay: Any, strides: Any = None,
              multi_output: bool = False) -> Tensor:
    """Mark ``out`` as a view of ``input`` made by ``replay(input)``; returns ``out``."""
    make_views((out,), input, (replay,), (strides,), multi_output)
    return out


def make_views(outs: Sequence[Tensor], input: Tensor, replays: Sequence[Any],
               strides: Sequence[Any], multi_output: bool = False) -> None:
    """``make_view`` of each of ``outs`` (with its replay and strides), the input's share
    read once: a multi-output op's parts (``unbind``, iterating a tensor, ``split``)."""
    counter = input._version_counter()
    version = counter[0]
    root = input._base
    parent = None
    if root is not None:
        parent = input._view.replay
    else:
        root = input
    for out, replay, s in zip(outs, replays, strides):
        out._vc = counter
        out._base = root
        if parent is not None:
            replay = _composed(parent, replay)
        out._view = ViewInfo(replay, version, multi_output)
        out._strides = s
    if not input._backend.mutable_arrays:  # no shared memory: the view is rebuilt on writes
        from arraygrad.immutable_writes import remember_view

        for out in outs:
            remember_view(out)


def _composed(parent: Any, replay: Any) -> Any:
    """``replay(parent(base))``: a view of a view, replayed from the root base."""
    return lambda base: replay(parent(base))


def contiguous_strides(shape: Any) -> tuple[Any, ...]:
    """Row-major strides, in elements."""
    strides = []
    step = 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def strides_of(t: Tensor) -> tuple[Any, ...]:
    """``t``'s logical strides."""
    s = t._strides
    return s if s is not None else contiguous_strides(t._data.shape)


def is_contiguous(shape: Any, strides: Any) -> bool:
    """PyTorch's rule: sizes-1 dimensions are ignored; the rest must be row-major."""
    expected = 1
    for n, s in zip(reversed(shape), reversed(strides)):
        if n == 0:
            return True
        if n != 1:
            if s != expected:
                return False
            expected *= n
    return True


def normalized_strides(shape: Any, strides: Any) -> Any:
    """None when ``strides`` are the contiguous ones (the cheap representation)."""
    return None if strides is None or is_contiguous(shape, strides) else tuple(strides)


def view_strides(old_shape: Any, old_strides: Any, new_shape: Any) -> tuple[Any, ...]:
    """``(viewable, strides)`` for ``new_shape`` over memory laid out as ``old_strides``.

    PyTorch's ``computeStride``: walk contiguous chunks of the old layout from the
    innermost dimension and fit the new dimensions into them. ``strides`` is None
    for a contiguous result; ``viewable`` is False when only a copy can do it.
    """
    if old_strides is None or not old_shape:
        return True, None
    numel = 1
    for n in old_shape:
        numel *= n
    if numel == 0:
        return True, None
    new_strides = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base = old_strides[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[tensor_d]
        if tensor_d == 0 or (old_shape[tensor_d - 1] != 1
                             and old_strides[tensor_d - 1] != tensor_numel * chunk_base):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_strides[view_d] = view_numel * chunk_base
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return False, None
            if tensor_d > 0:
                chunk_base = old_strides[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return False, None
    return True, normalized_strides(new_shape, new_strides)


def permuted_strides(t: Tensor, dims: Any) -> tuple[Any, ...] | None:
    """Strides after ``permute(dims)``."""
    s = strides_of(t)
    shape = t._data.shape
    # (lists, not generators: a generator's frame resumes once per dimension)
    return normalized_strides(tuple([shape[d] for d in dims]), tuple([s[d] for d in dims]))


def expanded_strides(t: Tensor, target: Tensor) -> tuple[Any, ...] | None:
    """Strides after ``expand(target)``: broadcast dimensions get stride 0."""
    s = strides_of(t)
    shape = t._data.shape
    lead = len(target) - len(shape)
    out = [0] * lead
    for i, n in enumerate(shape):
        out.append(s[i] if n == target[lead + i] else 0)
    return normalized_strides(target, out)


def indexed_strides(t: Tensor, key: Any, out_shape: Any) -> tuple[Any, ...] | None:
    """Strides after basic indexing with a normalised key (ints, slices, None, Ellipsis)."""
    shape = t._data.shape
    s = strides_of(t)
    explicit = sum(1 for k in key if k is not None and k is not Ellipsis)
    out = []
    dim = 0
    for k in key:
        if k is Ellipsis:
            for _ in range(len(shape) - explicit):
                out.append(s[dim])
                dim += 1
        elif k is None:
            out.append(s[dim] * shape[dim] if dim < len(shape) else 1)
        elif isinstance(k, slice):
            step = k.step if k.step is not None else 1
            out.append(s[dim] * step)
            dim += 1
        else:  # an integer drops the dimension
            dim += 1
    while dim < len(shape):
        out.append(s[dim])
        dim += 1
    return normalized_strides(out_shape, out)
