"""``nn.utils.rnn``: variable-length sequences for the recurrent layers, as ``torch.nn.utils.rnn``.

A batch of sequences of different lengths is either *padded* (one tensor of shape (T, B, *) or
(B, T, *) with filler past each sequence's end) or *packed*: a :class:`PackedSequence` holds only
the valid steps, time step after time step, with ``batch_sizes[t]`` sequences still running at
step ``t`` (the sequences sorted longest first). Packing and padding are each one indexing op,
so gradients (and double backward) flow through them.

>>> from arraygrad.nn.utils.rnn import pad_sequence, pack_padded_sequence, pad_packed_sequence
>>> a, b = arraygrad.ones(3, 2), arraygrad.ones(1, 2)
>>> packed = pack_padded_sequence(pad_sequence([a, b]), [3, 1])
>>> packed.batch_sizes
tensor([2, 1, 1])
>>> padded, lengths = pad_packed_sequence(packed)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Callable, NamedTuple, Self, TypeVar

from arraygrad import dtypes as _dt
from arraygrad.creation import full, tensor as _tensor
from arraygrad.ops.shape import cat, stack
from arraygrad.tensor import Tensor

__all__ = [
    "PackedSequence",
    "invert_permutation",
    "pack_padded_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpad_sequence",
    "pack_sequence",
    "unpack_sequence",
]  # PyTorch's __all__; ``bind`` and ``copy_method_params`` are public helpers outside it

_T = TypeVar("_T")
_R = TypeVar("_R")


def bind(optional: _T | None, fn: Callable[[_T], _R]) -> _R | None:
    """``fn(optional)``, or None when ``optional`` is None (how ``PackedSequence.to`` treats
    its optional index tensors)."""
    if optional is None:
        return None
    return fn(optional)


def copy_method_params(source_method: Callable[..., Any]) -> Callable[[Callable[..., _R]],
                                                                      Callable[..., _R]]:
    """A decorator giving a method ``source_method``'s call signature for type checkers; at
    run time it returns the method unchanged (PyTorch's typing helper)."""
    def return_func(func: Callable[..., _R]) -> Callable[..., _R]:
        return func

    return return_func


class PackedSequence_(NamedTuple):
    """The four fields of a :class:`PackedSequence` (PyTorch's named-tuple base)."""

    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


class PackedSequence(PackedSequence_):
    """A batch of variable-length sequences packed step after step (a named tuple).

    ``data`` is (sum(batch_sizes), *): step 0 of every sequence, then step 1 of those still
    running, ...; ``batch_sizes`` (int64, on the CPU) how many sequences run at each step;
    ``sorted_indices`` the batch order used to pack (longest first) when the input was not
    sorted, and ``unsorted_indices`` its inverse. Build one with :func:`pack_padded_sequence`
    or :func:`pack_sequence`, not by hand.
    """

    def __new__(cls, data: Any, batch_sizes: Tensor | None = None,
                sorted_indices: Tensor | None = None,
                unsorted_indices: Tensor | None = None) -> Self:
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            # PackedSequence((data, batch_sizes)): the form PyTorch's C++ functions return
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        elif batch_sizes.device.type != "cpu":
            raise ValueError(
                "batch_sizes should always be on CPU. Instances of PackedSequence should never "
                "be created manually. They should be instantiated by functions like "
                "pack_sequence and pack_padded_sequences in nn.utils.rnn.")
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args: Any, **kwargs: Any) -> Self:
        """``data.to(*args, **kwargs)``; the indices follow ``data`` to its device (``batch_sizes``
        stays on the CPU). Returns ``self`` when ``data`` does not change."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return self._with_data(data)

    def cuda(self, *args: Any, **kwargs: Any) -> Self:
        """The sequence on a CUDA device (``Tensor.cuda``'s arguments)."""
        data = self.data.cuda(*args, **kwargs)
        return self if data is self.data else self._with_data(data)

    def cpu(self) -> Self:
        """The sequence on the CPU."""
        return self.to("cpu")

    def _with_data(self, data: Tensor) -> Self:
        """This sequence with ``data`` replaced; the indices follow it to its device."""
        def move(t: Tensor | None) -> Tensor | None:
            return None if t is None else t.to(data.device)

        return type(self)(data, self.batch_sizes, move(self.sorted_indices),
                          move(self.unsorted_indices))

    def double(self) -> Self:
        """``data`` as float64."""
        return self.to(dtype=_dt.float64)

    def float(self) -> Self:
        """``data`` as float32."""
        return self.to(dtype=_dt.float32)

    def half(self) -> Self:
        """``data`` as float16."""
        return self.to(dtype=_dt.float16)

    def long(self) -> Self:
        """``data`` as int64."""
        return self.to(dtype=_dt.int64)

    def short(self) -> Self:
        """``data`` as int16."""
        return self.to(dtype=_dt.int16)

    def char(self) -> Self:
        """``data`` as int8."""
        return self.to(dtype=_dt.int8)

    def byte(self) -> Self:
        """``data`` as uint8."""
        return self.to(dtype=_dt.uint8)

    def int(self) -> Self:
        """``data`` as int32."""
        return self.to(dtype=_dt.int32)

    def pin_memory(self) -> Self:
        """The sequence itself: arraygrad has no pinned host memory (as ``Tensor``)."""
        return self

    def is_pinned(self) -> bool:
        """False: arraygrad has no pinned host memory."""
        return False

    @property
    def is_cuda(self) -> bool:
        """Whether ``data`` is on a CUDA device."""
        return bool(self.data.is_cuda)


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The inverse of a permutation of ``0..n-1`` (None for None)."""
    if permutation is None:
        return None
    inverse = [0] * permutation.numel()
    for i, p in enumerate(permutation.tolist()):
        inverse[p] = i
    return _tensor(inverse, dtype=permutation.dtype, device=permutation.device)


def _int_list(values: Tensor | Sequence[Any]) -> list[int]:
    return [int(v) for v in (values.tolist() if isinstance(values, Tensor) else values)]


def _type_name(t: Tensor) -> str:
    """PyTorch's scalar-type name of a tensor's dtype (``Long``, ``Float``, ...)."""
    names = {"int64": "Long", "int32": "Int", "float32": "Float", "float64": "Double",
             "float16": "Half", "bool": "Bool"}
    short = str(t.dtype).rsplit(".", 1)[-1]
    return names.get(short, short)


def pack_padded_sequence(input: Tensor, lengths: Tensor | Sequence[int],
                         batch_first: bool = False, enforce_sorted: bool = True
                         ) -> PackedSequence:
    """Pack a padded batch (T, B, *) (or (B, T, *) with ``batch_first``) of sequences whose
    lengths are ``lengths``.

    With ``enforce_sorted`` the lengths must be in decreasing order; otherwise the batch is
    sorted first and the order is kept in ``sorted_indices`` (so the RNNs' results come back in
    the input's order). Raises RuntimeError for lengths that are not 1-D, of the wrong count,
    not positive, unsorted (with ``enforce_sorted``) or longer than the padded length.
    """
    if isinstance(lengths, Tensor) and lengths.dim() != 1:
        raise RuntimeError(
            f"'lengths' argument should be a 1D CPU int64 tensor, but got {lengths.dim()}D "
            f"{lengths.device.type} {_type_name(lengths)} tensor")
    lens = _int_list(lengths)
    sorted_indices: Tensor | None = None
    if not enforce_sorted:
        order = sorted(range(len(lens)), key=lambda i: -lens[i])  # stable: ties keep order
        lens = [lens[i] for i in order]
        sorted_indices = _tensor(order, dtype=_dt.int64, device=input.device)
    index, batch_sizes = _pack_index(input, lens, batch_first)
    if sorted_indices is not None:
        # the sort folds into the gather: column b of the sorted batch is column order[b]
        order_list = sorted_indices.tolist()
        index = (index[0], [order_list[b] for b in index[1]])
    t_idx, b_idx = index
    time = _tensor(t_idx, dtype=_dt.int64, device=input.device)
    batch = _tensor(b_idx, dtype=_dt.int64, device=input.device)
    data = input[batch, time] if batch_first else input[time, batch]
    return PackedSequence(data, _tensor(batch_sizes, dtype=_dt.int64, device="cpu"),
                          sorted_indices, None)


def _pack_index(input: Tensor, lens: list[int], batch_first: bool
                ) -> tuple[tuple[list[int], list[int]], list[int]]:
    """Check a padded batch against its (sorted) lengths; the (time, batch) index of every
    valid step in packed order, and the batch sizes."""
    if input.dim() < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[-{max(input.dim(), 1)}, {max(input.dim(), 1) - 1}], but got 1)")
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    steps, batch = (input.shape[1], input.shape[0]) if batch_first else input.shape[:2]
    if len(lens) != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{len(lens)} (batch_size={batch})")
    if lens[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if any(a < b for a, b in zip(lens, lens[1:])):
        raise RuntimeError(
            "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
            "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence "
            "to sidestep this requirement if you do not need ONNX exportability.")
    if lens[0] > steps:
        raise RuntimeError(f"pack_padded_sequence: a sequence length ({lens[0]}) exceeds the "
                           f"padded length ({steps}) of input of shape {list(input.shape)}")
    batch_sizes = [sum(1 for n in lens if n > t) for t in range(lens[0])]
    t_idx = [t for t, b in enumerate(batch_sizes) for _ in range(b)]
    b_idx = [j for b in batch_sizes for j in range(b)]
    return (t_idx, b_idx), batch_sizes


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False,
                        padding_value: float = 0.0, total_length: int | None = None
                        ) -> tuple[Tensor, Tensor]:
    """Undo :func:`pack_padded_sequence`: the padded batch (T, B, *) (or (B, T, *)) filled with
    ``padding_value`` past each end, and the lengths (int64, CPU), both in the original batch
    order. ``total_length`` pads to that many steps (ValueError when shorter than the longest
    sequence)."""
    data = sequence.data
    batch_sizes = _int_list(sequence.batch_sizes)
    steps = len(batch_sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in "
                f"input, but got total_length={total_length} and max sequence length being "
                f"{steps}")
        steps = total_length
    batch = batch_sizes[0] if batch_sizes else 0
    lengths = [sum(1 for b in batch_sizes if b > j) for j in range(batch)]
    offsets = [0]
    for b in batch_sizes:
        offsets.append(offsets[-1] + b)
    filler = data.shape[0]  # the index of the padding row appended below
    # column k of the result is sorted column order[k] (the inverse of the packing sort)
    order = (list(range(batch)) if sequence.unsorted_indices is None
             else _int_list(sequence.unsorted_indices))
    index = [[offsets[t] + j if t < len(batch_sizes) and j < batch_sizes[t] else filler
              for j in order] for t in range(steps)]
    if batch_first:
        index = [list(row) for row in zip(*index)] if steps else [[] for _ in order]
    pad_row = full((1, *data.shape[1:]), padding_value, dtype=data.dtype, device=data.device)
    padded = cat([data, pad_row], 0)[_tensor(index, dtype=_dt.int64, device=data.device)]
    return padded, _tensor([lengths[j] for j in order], dtype=_dt.int64, device="cpu")


def pad_sequence(sequences: Tensor | Iterable[Tensor], batch_first: bool = False,
                 padding_value: float = 0.0, padding_side: str = "right") -> Tensor:
    """Stack sequences of shapes (L_i, *) into (max L, B, *) (or (B, max L, *)), filling with
    ``padding_value`` after (``padding_side='right'``) or before (``'left'``) each one.

    The trailing dimensions must agree (RuntimeError naming them otherwise).
    """
    if not isinstance(sequences, Iterable):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg "
                           f"of type: {type(sequences)}")
    seqs = list(sequences)
    if padding_side not in ("left", "right"):
        raise RuntimeError(
            f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if not seqs:
        raise RuntimeError("received an empty list of sequences")
    for s in seqs:
        if s.dim() == 0:
            raise RuntimeError("pad_sequence: expected each sequence to have at least one "
                               "dimension, but got a 0-D tensor")
    trailing = tuple(seqs[0].shape[1:])
    for s in seqs[1:]:
        if s.dim() != seqs[0].dim():
            raise RuntimeError(f"pad_sequence: expected every sequence to have "
                               f"{seqs[0].dim()} dimensions (as the first, of shape "
                               f"{list(seqs[0].shape)}), but got shape {list(s.shape)}")
        for d, (a, b) in enumerate(zip(trailing, s.shape[1:]), start=1):
            if a != b:
                raise RuntimeError(f"pad_sequence: The size of tensor a ({a}) must match the "
                                   f"size of tensor b ({b}) at non-singleton dimension {d}")
    dtype = seqs[0].dtype
    for s in seqs[1:]:
        dtype = _dt.promote_types(dtype, s.dtype)
    longest = max(s.shape[0] for s in seqs)
    padded = []
    for s in seqs:
        s = s.to(dtype)
        short = longest - s.shape[0]
        if short:
            fill = full((short, *trailing), padding_value, dtype=dtype, device=s.device)
            s = cat([s, fill] if padding_side == "right" else [fill, s], 0)
        padded.append(s)
    return stack(padded, 0 if batch_first else 1)


def unpad_sequence(padded_sequences: Tensor, lengths: Tensor | Sequence[int],
                   batch_first: bool = False) -> list[Tensor]:
    """Split a right-padded batch back into its sequences (``lengths`` long each).

    Unlike PyTorch, a time-major input is not transposed in place.
    """
    padded = padded_sequences if batch_first else padded_sequences.transpose(0, 1)
    lens = _int_list(lengths)
    if len(lens) != padded.shape[0]:
        raise ValueError(f"unpad_sequence: got {len(lens)} lengths for a batch of "
                         f"{padded.shape[0]} sequences")
    return [padded[b, :n] for b, n in enumerate(lens)]


def pack_sequence(sequences: Sequence[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of sequences of shapes (L_i, *): :func:`pad_sequence` then
    :func:`pack_padded_sequence` (``enforce_sorted``: the lengths must decrease)."""
    lengths = [int(v.size(0)) for v in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """Undo :func:`pack_sequence`: the list of sequences, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
