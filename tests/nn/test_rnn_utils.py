"""``nn.utils.rnn``: PackedSequence, packing and padding, against hand-built layouts, gradcheck
and (where installed) PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.autograd import gradcheck, gradgradcheck
from arraygrad.nn.utils import rnn as R
from arraygrad.nn.utils.rnn import (
    PackedSequence, invert_permutation, pack_padded_sequence, pack_sequence, pad_packed_sequence,
    pad_sequence, unpack_sequence, unpad_sequence,
)

try:
    import torch
    import torch.nn.utils.rnn as TR
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def steps(values):
    """A (T, B, 1) float64 tensor whose entry (t, b) is ``values[t][b]``."""
    return ag.tensor([[[v] for v in row] for row in values], dtype=ag.float64)


# entry (t, b) = 10 * (b + 1) + t: sequence b reads 10b+10, 10b+11, ...
PADDED = [[10, 20, 30], [11, 21, 0], [12, 0, 0], [13, 0, 0]]


def test_pack_padded_sequence_layout_by_hand():
    packed = pack_padded_sequence(steps(PADDED), [4, 2, 1])
    assert isinstance(packed, PackedSequence) and isinstance(packed, tuple)
    assert packed.data.reshape(-1).tolist() == [10, 20, 30, 11, 21, 12, 13]
    assert packed.batch_sizes.tolist() == [3, 2, 1, 1]
    assert packed.batch_sizes.dtype == ag.int64 and packed.batch_sizes.device.type == "cpu"
    assert packed.sorted_indices is None and packed.unsorted_indices is None
    data, batch_sizes, sorted_indices, unsorted_indices = packed  # a four-field named tuple
    assert data is packed.data and sorted_indices is None and unsorted_indices is None
    assert PackedSequence._fields == ("data", "batch_sizes", "sorted_indices", "unsorted_indices")


def test_pack_batch_first_and_lengths_tensor():
    batch_first = steps(PADDED).transpose(0, 1)
    packed = pack_padded_sequence(batch_first, ag.tensor([4, 2, 1]), batch_first=True)
    assert packed.data.reshape(-1).tolist() == [10, 20, 30, 11, 21, 12, 13]


def test_pack_unsorted_keeps_the_order():
    # sequences of lengths 1, 4, 2 (columns 0, 1, 2)
    padded = steps([[30, 10, 20], [0, 11, 21], [0, 12, 0], [0, 13, 0]])
    packed = pack_padded_sequence(padded, [1, 4, 2], enforce_sorted=False)
    assert packed.sorted_indices.tolist() == [1, 2, 0]
    assert packed.unsorted_indices.tolist() == [2, 0, 1]
    assert packed.data.reshape(-1).tolist() == [10, 20, 30, 11, 21, 12, 13]
    out, lengths = pad_packed_sequence(packed, padding_value=-1.0)
    assert lengths.tolist() == [1, 4, 2] and lengths.dtype == ag.int64
    expected = [[30, 10, 20], [-1, 11, 21], [-1, 12, -1], [-1, 13, -1]]
    assert out.reshape(4, 3).tolist() == expected


def test_pad_packed_sequence_total_length_and_batch_first():
    packed = pack_padded_sequence(steps(PADDED), [4, 2, 1])
    out, lengths = pad_packed_sequence(packed, batch_first=True, total_length=6)
    assert tuple(out.shape) == (3, 6, 1) and lengths.tolist() == [4, 2, 1]
    assert out[:, :, 0].tolist() == [[10, 11, 12, 13, 0, 0], [20, 21, 0, 0, 0, 0],
                                     [30, 0, 0, 0, 0, 0]]
    with pytest.raises(ValueError, match="total_length=3 and max sequence length being 4"):
        pad_packed_sequence(packed, total_length=3)


def test_pad_sequence_right_left_batch_first():
    a, b = ag.tensor([1.0, 2.0, 3.0]), ag.tensor([4.0])
    assert pad_sequence([a, b]).tolist() == [[1, 4], [2, 0], [3, 0]]
    assert pad_sequence([a, b], batch_first=True, padding_value=9).tolist() == [[1, 2, 3],
                                                                                [4, 9, 9]]
    assert pad_sequence([a, b], True, 0.0, "left").tolist() == [[1, 2, 3], [0, 0, 4]]
    trailing = pad_sequence([ag.ones(2, 3), ag.ones(1, 3)])
    assert tuple(trailing.shape) == (2, 2, 3) and trailing[1, 1].tolist() == [0, 0, 0]
    # a tensor is an iterable of its rows
    assert tuple(pad_sequence(ag.ones(2, 3)).shape) == (3, 2)


def test_pad_sequence_errors():
    with pytest.raises(RuntimeError, match="size of tensor a \\(3\\) must match the size of "
                                           "tensor b \\(4\\) at non-singleton dimension 1"):
        pad_sequence([ag.ones(2, 3), ag.ones(3, 4)])
    with pytest.raises(RuntimeError, match="received an empty list of sequences"):
        pad_sequence([])
    with pytest.raises(RuntimeError, match="padding_side to be one of left or right, but got "
                                           "middle"):
        pad_sequence([ag.ones(2)], padding_side="middle")
    with pytest.raises(RuntimeError, match="Expected iterable for input sequences"):
        pad_sequence(5)
    with pytest.raises(RuntimeError, match="0-D"):
        pad_sequence([ag.tensor(1.0)])


def test_pack_errors():
    x = ag.randn(5, 3, 2)
    with pytest.raises(RuntimeError, match="must be sorted in decreasing order"):
        pack_padded_sequence(x, [5, 2, 3])
    with pytest.raises(RuntimeError, match="Length of all samples has to be greater than 0"):
        pack_padded_sequence(x, [5, 3, 0])
    with pytest.raises(RuntimeError, match="Length of all samples has to be greater than 0"):
        pack_padded_sequence(x, [0, 3, 5], enforce_sorted=False)
    with pytest.raises(RuntimeError, match=r"len\(lengths\)` to be equal to batch_size, but "
                                           r"got 2 \(batch_size=3\)"):
        pack_padded_sequence(x, [5, 3])
    with pytest.raises(RuntimeError, match="should be a 1D CPU int64 tensor, but got 2D cpu"):
        pack_padded_sequence(x, ag.tensor([[5, 3, 1]]))
    with pytest.raises(RuntimeError, match="Cannot pack empty tensors"):
        pack_padded_sequence(ag.randn(0, 3), [1, 1, 1])
    with pytest.raises(RuntimeError, match="exceeds the padded length \\(5\\)"):
        pack_padded_sequence(x, [6, 3, 1])
    with pytest.raises(IndexError, match="Dimension out of range"):
        pack_padded_sequence(ag.randn(5), [5])


def test_pack_sequence_unpack_sequence_round_trip():
    seqs = [ag.randn(2, 3), ag.randn(4, 3), ag.randn(1, 3)]
    packed = pack_sequence(seqs, enforce_sorted=False)
    assert packed.batch_sizes.tolist() == [3, 2, 1, 1]
    back = unpack_sequence(packed)
    assert [tuple(s.shape) for s in back] == [(2, 3), (4, 3), (1, 3)]
    for got, want in zip(back, seqs):
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    with pytest.raises(RuntimeError, match="sorted in decreasing order"):
        pack_sequence(seqs)


def test_unpad_sequence_does_not_transpose_its_input():
    padded = pad_sequence([ag.tensor([1.0, 2.0]), ag.tensor([3.0])])
    parts = unpad_sequence(padded, ag.tensor([2, 1]))
    assert [p.tolist() for p in parts] == [[1, 2], [3]]
    assert tuple(padded.shape) == (2, 2)  # unchanged (PyTorch transposes it in place)
    parts = unpad_sequence(padded.t(), [2, 1], batch_first=True)
    assert [p.tolist() for p in parts] == [[1, 2], [3]]


def test_invert_permutation():
    assert invert_permutation(ag.tensor([2, 0, 1])).tolist() == [1, 2, 0]
    assert invert_permutation(None) is None


def test_packed_sequence_construction_and_conversions():
    packed = pack_sequence([ag.ones(3, 2), ag.ones(1, 2)])
    again = PackedSequence((packed.data, packed.batch_sizes))  # the tuple form
    assert again.batch_sizes is packed.batch_sizes and again.sorted_indices is None
    with pytest.raises(AssertionError):
        PackedSequence(packed.data)
    assert packed.to(ag.float32) is packed and packed.cpu() is packed
    double = packed.double()
    assert double.data.dtype == ag.float64 and double.batch_sizes is packed.batch_sizes
    assert packed.long().data.dtype == ag.int64 and packed.int().data.dtype == ag.int32
    assert packed.half().data.dtype == ag.float16 and double.float().data.dtype == ag.float32
    assert packed.is_cuda is False and packed.is_pinned() is False
    assert packed.pin_memory() is packed
    unsorted = pack_sequence([ag.ones(1, 2), ag.ones(3, 2)], enforce_sorted=False).double()
    assert unsorted.sorted_indices.tolist() == [1, 0]
    assert unsorted.unsorted_indices.tolist() == [1, 0]


def test_packing_is_differentiable_twice():
    x = ag.randn(4, 3, 2, dtype=ag.float64, requires_grad=True)

    def round_trip(x):
        packed = pack_padded_sequence(x * x, [2, 4, 1], enforce_sorted=False)
        return pad_packed_sequence(packed, padding_value=0.5)[0]

    assert gradcheck(round_trip, (x,))
    assert gradgradcheck(round_trip, (x,))
    seqs = [ag.randn(n, 2, dtype=ag.float64, requires_grad=True) for n in (3, 1, 2)]
    assert gradcheck(lambda *s: pad_sequence(list(s), True, 0.0, "left") ** 2, tuple(seqs))
    # a step past a sequence's end gets no gradient
    y = ag.randn(4, 3, 2, requires_grad=True)
    pad_packed_sequence(pack_padded_sequence(y, [4, 2, 1]))[0].sum().backward()
    assert y.grad[:, :, 0].tolist() == [[1, 1, 1], [1, 1, 0], [1, 0, 0], [1, 0, 0]]


@needs_torch
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("lengths,enforce_sorted", [([5, 3, 1], True), ([2, 5, 3], False)])
def test_pack_and_pad_match_torch(batch_first, lengths, enforce_sorted):
    x = np.random.default_rng(0).standard_normal((5, 3, 2))
    if batch_first:
        x = x.transpose(1, 0, 2).copy()
    ours = pack_padded_sequence(ag.tensor(x), lengths, batch_first, enforce_sorted)
    theirs = TR.pack_padded_sequence(torch.tensor(x), lengths, batch_first, enforce_sorted)
    np.testing.assert_array_equal(ours.data.numpy(), theirs.data.numpy())
    assert ours.batch_sizes.tolist() == theirs.batch_sizes.tolist()
    for a, b in ((ours.sorted_indices, theirs.sorted_indices),
                 (ours.unsorted_indices, theirs.unsorted_indices)):
        assert (a is None and b is None) or a.tolist() == b.tolist()
    for total in (None, 7):
        out, lens = pad_packed_sequence(ours, batch_first, -2.0, total)
        t_out, t_lens = TR.pad_packed_sequence(theirs, batch_first, -2.0, total)
        np.testing.assert_array_equal(out.numpy(), t_out.numpy())
        assert lens.tolist() == t_lens.tolist()


@needs_torch
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("side", ["left", "right"])
def test_pad_sequence_matches_torch(batch_first, side):
    rng = np.random.default_rng(1)
    seqs = [rng.standard_normal((n, 2, 2)) for n in (2, 4, 3)]
    ours = pad_sequence([ag.tensor(s) for s in seqs], batch_first, 7.0, side)
    theirs = TR.pad_sequence([torch.tensor(s) for s in seqs], batch_first, 7.0, side)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_namespace():
    assert set(R.__all__) == {"PackedSequence", "invert_permutation", "pack_padded_sequence",
                              "pad_packed_sequence", "pad_sequence", "unpad_sequence",
                              "pack_sequence", "unpack_sequence"}
    assert ag.nn.utils.rnn is R
