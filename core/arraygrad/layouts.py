"""Layouts and memory formats as objects: ``arraygrad.strided``, ``arraygrad.channels_last``...

arraygrad's tensors are dense (``strided``) or sparse COO (``sparse_coo``: ``arraygrad.sparse``);
the other layouts exist as values, so a program's ``t.layout == torch.sparse_csr`` asks a true
question (the answer is False), and a factory asked for one refuses it (``zeros`` and
``empty`` make a sparse COO tensor for ``layout=sparse_coo``). Memory formats are accepted wherever PyTorch takes
``memory_format=``, with PyTorch's checks (``channels_last`` needs a 4-d tensor); the
results are row-major whatever the format (``docs/differences.md``, "Strides and
contiguity"), while ``is_contiguous(memory_format=...)`` and ``dim_order()`` answer PyTorch's
rules for the tensor's logical strides.
"""

from __future__ import annotations

from typing import Any, NoReturn, Sequence

__all__ = [
    "layout", "strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc",
    "jagged", "memory_format", "contiguous_format", "channels_last", "channels_last_3d",
    "preserve_format", "legacy_contiguous_format", "check_layout", "check_memory_format",
    "check_pin_memory", "is_contiguous_for", "dim_order",
]


class _Singleton:
    """A named module-level constant: compared by identity, pickled by name."""

    __slots__ = ("name",)
    name: str

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(f"cannot create 'arraygrad.{cls.__name__}' instances")

    @classmethod
    def _make(cls, name: str) -> Any:
        obj = object.__new__(cls)
        object.__setattr__(obj, "name", name)
        return obj

    def __setattr__(self, key: str, value: Any) -> NoReturn:
        raise AttributeError(f"'arraygrad.{type(self).__name__}' objects are read-only")

    def __repr__(self) -> str:
        return f"arraygrad.{self.name}"

    def __reduce__(self) -> str:
        return self.name  # the module-level constant of that name

    def __copy__(self) -> Any:
        return self

    def __deepcopy__(self, memo: Any) -> Any:
        return self


class layout(_Singleton):
    """How a tensor's elements are stored, as ``torch.layout``: arraygrad's tensors are
    ``strided`` or ``sparse_coo``; the compressed sparse and jagged layouts are values to
    compare with, never made."""

    __slots__ = ()


class memory_format(_Singleton):
    """A requested order of a tensor's dimensions in memory, as ``torch.memory_format``."""

    __slots__ = ()


strided = layout._make("strided")
sparse_coo = layout._make("sparse_coo")
sparse_csr = layout._make("sparse_csr")
sparse_csc = layout._make("sparse_csc")
sparse_bsr = layout._make("sparse_bsr")
sparse_bsc = layout._make("sparse_bsc")
jagged = layout._make("jagged")

contiguous_format = memory_format._make("contiguous_format")
channels_last = memory_format._make("channels_last")
channels_last_3d = memory_format._make("channels_last_3d")
preserve_format = memory_format._make("preserve_format")
legacy_contiguous_format = memory_format._make("legacy_contiguous_format")

# the rank each channels-last format needs, and its dimensions from innermost to outermost
_CHANNELS_LAST = {channels_last: (4, (1, 3, 2, 0)), channels_last_3d: (5, (1, 4, 3, 2, 0))}


def check_layout(value: Any, op: str) -> None:
    """Refuse a layout other than ``strided`` (``None`` means strided), as PyTorch's argument
    parser refuses a non-layout (TypeError)."""
    if value is None or value is strided:
        return
    if not isinstance(value, layout):
        raise TypeError(f"{op}(): argument 'layout' must be torch.layout, not "
                        f"{type(value).__name__}")
    if value is sparse_coo:
        raise NotImplementedError(f"{op}(): layout {value!r} is not supported: {op} makes dense "
                                  "tensors (sparse COO ones come from sparse_coo_tensor, "
                                  "Tensor.to_sparse(), zeros and empty)")
    raise NotImplementedError(f"{op}(): layout {value!r} is not supported: arraygrad's tensors "
                              "are dense (strided) or sparse COO")


def check_memory_format(value: Any, op: str, ndim: int | None,
                        allow_preserve: bool = True) -> None:
    """PyTorch's checks of a ``memory_format=`` argument for a result of ``ndim`` dimensions:
    a memory format or None (TypeError), the rank a channels-last format needs (unless
    ``ndim`` is None: a question, not a request), and ``preserve_format`` only where the op
    can preserve (RuntimeError)."""
    if value is None:
        return
    if not isinstance(value, memory_format):
        raise TypeError(f"{op}(): argument 'memory_format' must be torch.memory_format, not "
                        f"{type(value).__name__}")
    rank = _CHANNELS_LAST.get(value)
    if rank is not None and ndim is not None and ndim != rank[0]:
        raise RuntimeError(f"required rank {rank[0]} tensor to use {value.name} format")
    if value is preserve_format and not allow_preserve:
        raise RuntimeError("unsupported memory format Preserve")


def check_pin_memory(value: Any, op: str) -> None:
    """``pin_memory=True`` needs an accelerator, as in PyTorch: without one it raises
    PyTorch's RuntimeError; with one it is accepted (arraygrad's host arrays are not
    page-locked, and its copies to the device are synchronous)."""
    if value is None or value is False:
        return
    if not isinstance(value, bool):
        raise TypeError(f"{op}(): argument 'pin_memory' must be bool, not {type(value).__name__}")
    from arraygrad.backends.registry import device_count

    if device_count("cuda") == 0:  # arraygrad's accelerator is a CUDA backend
        raise RuntimeError("pin_memory=True requires a CUDA or other accelerator backend; no "
                           "pinned memory allocator is available on this system.")


def is_contiguous_for(shape: Sequence[int], strides: Sequence[int], fmt: Any) -> bool:
    """Whether ``strides`` are contiguous in memory format ``fmt``, by PyTorch's rules
    (``is_contiguous(memory_format=...)``): a channels-last format of another rank is never."""
    from arraygrad.ops.views import is_contiguous

    found = _CHANNELS_LAST.get(fmt)
    if found is None:  # contiguous, preserve and legacy formats ask for row-major
        return is_contiguous(shape, strides)
    rank, order = found
    if len(shape) != rank:
        return False
    expected = 1
    for d in order:
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True


def dim_order(shape: Sequence[int], strides: Sequence[int], ambiguity_check: Any = False) -> \
        tuple[int, ...]:
    """``Tensor.dim_order``: the dimensions from outermost to innermost in memory, by PyTorch's
    rules (``torch._prims_common.compute_elementwise_output_logical_to_physical_perm``)."""
    if not isinstance(ambiguity_check, bool):
        if not isinstance(ambiguity_check, list) or not all(
                isinstance(f, memory_format) for f in ambiguity_check):
            raise TypeError("The ambiguity_check argument must be a bool or a list of memory "
                            "formats.")
    valid = ambiguity_check if isinstance(ambiguity_check, list) else []
    check_several = ambiguity_check if isinstance(ambiguity_check, bool) else True
    several = (any(a == b for a, b in zip(strides, strides[1:])) or any(n == 1 for n in shape))
    if check_several and several and \
            sum(is_contiguous_for(shape, strides, f) for f in valid) != 1:
        raise RuntimeError("The tensor does not have unique dim order, or cannot map to exact "
                           "one of the given memory formats.")
    ndim = len(shape)
    if ndim <= 1:
        return tuple(range(ndim))
    row_major = is_contiguous_for(shape, strides, contiguous_format)
    nhwc = is_contiguous_for(shape, strides, channels_last)
    if row_major and not nhwc:
        return tuple(range(ndim))
    if nhwc and not row_major:
        return (0, *range(2, ndim), 1)
    perm = _sorted_dims(shape, strides)
    if ambiguity_check and any(_order(shape, strides, perm[i], perm[i + 1]) != -1
                               for i in range(ndim - 1)):
        raise RuntimeError("The tensor does not have unique dim order.")
    return tuple(reversed(perm))


def _order(shape: Sequence[int], strides: Sequence[int], a: int, b: int) -> int:
    """PyTorch's ``should_swap``: 1 when dimension ``a`` is outside ``b`` in memory, -1 when
    inside, 0 when undecided (a zero stride, or equal strides and sizes)."""
    def ge(x: int, y: int) -> bool:
        return y == 0 or (x != 0 and (x >= y or x % y == 0))

    sa, sb = strides[a], strides[b]
    if sa == 0 or sb == 0:
        return 0
    if sa == sb:
        return 0 if ge(shape[b], shape[a]) else 1
    if ge(sb, sa):
        return -1
    return 1 if ge(sa, sb) else 0


def _sorted_dims(shape: Sequence[int], strides: Sequence[int]) -> list[int]:
    """The dimensions innermost first (PyTorch's insertion sort with undecided comparisons)."""
    perm = list(reversed(range(len(shape))))
    for i in range(1, len(shape)):
        dim1 = i
        for dim0 in reversed(range(i)):
            comparison = _order(shape, strides, perm[dim0], perm[dim1])
            if comparison > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif comparison < 0:
                break
    return perm
