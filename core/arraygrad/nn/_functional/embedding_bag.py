"""``embedding_bag``: sums, means or maxima of bags of embedding rows, without materialising
the per-index rows as a separate output (PyTorch's semantics: offsets, ``include_last_offset``,
``per_sample_weights``, ``padding_idx`` entries left out of their bag, empty bags as zeros)."""

from __future__ import annotations

import warnings
from typing import Any

from arraygrad import dtypes as _dt
from arraygrad.nn._functional.linear import _renorm_rows
from arraygrad.ops import elementwise as ew
from arraygrad.ops.promotion import same_backend
from arraygrad.tensor import Tensor

__all__ = ["embedding_bag"]

_INDEX_DTYPES = (_dt.int64, _dt.int32)


def _bags(offsets: list[int], count: int, include_last_offset: bool) -> list[tuple[int, int]]:
    """Each bag's ``[start, end)`` in the flat input, checked as PyTorch checks offsets."""
    if offsets and offsets[0] != 0:
        raise RuntimeError(
            f"embedding_bag: offsets[0] has to be 0, i.e., the first sequence in the mini-batch "
            f"has to start from position 0. However, got {offsets[0]}")
    if offsets and offsets[-1] > count:
        raise RuntimeError(f"embedding_bag: offsets[-1] can not be greater than input's length "
                           f"{count} but got offsets[-1] of {offsets[-1]}")
    if any(b < a for a, b in zip(offsets, offsets[1:])):
        raise RuntimeError(f"embedding_bag: offsets must be non-decreasing, got {offsets}")
    if include_last_offset:
        return list(zip(offsets[:-1], offsets[1:]))
    return list(zip(offsets, offsets[1:] + [count]))


def _check_padding_idx(padding_idx: Any, num: int) -> Any:
    if padding_idx is None:
        return None
    if not -num <= padding_idx < num:
        raise RuntimeError(f"embedding_bag: padding_idx must be within the number of embeddings, "
                           f"{-num} through {num - 1}, but got {padding_idx}")
    return padding_idx + num if padding_idx < 0 else padding_idx


def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None,
                  max_norm: float | None = None, norm_type: float = 2,
                  scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> Tensor:
    """Reduce bags of rows of ``weight`` (num_embeddings, D): ``(B, D)``.

    ``input`` is (B, L) (B bags of L indices) or 1-D with ``offsets`` giving each bag's start
    (``include_last_offset``: the last offset ends the last bag). ``mode``: ``'sum'``
    (optionally weighted by ``per_sample_weights``), ``'mean'`` or ``'max'`` (the gradient goes
    to the first maximal row, per feature). Indices equal to ``padding_idx`` are left out.
    """
    if weight.dtype in _INDEX_DTYPES and input.is_floating_point():
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage "
                      "`embedding_bag(weight, input, ...)` is deprecated, and should now be "
                      "`embedding_bag(input, weight, ...)`.", stacklevel=2)
        weight, input = input, weight
    same_backend("embedding_bag", weight, input,
                 *(t for t in (offsets, per_sample_weights) if t is not None))
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(
            f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, "
            f"then it must have the same shape as the input ({input.shape})")
    if weight.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.ndim}")
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError(
                "if input is 2D, then offsets has to be None, as input is treated is a mini-batch "
                f"of fixed length sequences. However, found offsets of type {type(offsets)}")
        rows_per_bag = input.shape[1]
        starts = list(range(0, input.numel(), rows_per_bag)) if rows_per_bag else [0] * input.shape[0]
        include_last_offset = False
    elif input.ndim == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.ndim != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        # (meta: the offsets' values are unknown, their count is the bags')
        starts = ([int(v) for v in offsets.tolist()] if offsets._backend.holds_data
                  else [0] * offsets.shape[0])
    else:
        raise ValueError(
            f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.ndim}")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
            "GitHub.")
    if input.dtype not in _INDEX_DTYPES:
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar types: "
            f"Long, Int; but got {input.dtype} instead (while checking arguments for "
            "embedding_bag)")
    if per_sample_weights is not None and per_sample_weights.dtype != weight.dtype:
        raise RuntimeError(
            f"embedding_bag: expected per_sample_weights of the weight's dtype {weight.dtype}, "
            f"but got {per_sample_weights.dtype}")
    if scale_grad_by_freq:
        raise NotImplementedError("embedding_bag: scale_grad_by_freq is not supported")
    num = weight.shape[0]
    padding_idx = _check_padding_idx(padding_idx, num)
    flat = input.reshape(-1)
    psw = None if per_sample_weights is None else per_sample_weights.reshape(-1)
    if not flat._backend.holds_data:
        n_bags = len(starts) - (1 if include_last_offset else 0)
        return _bags_without_values(weight, flat, n_bags, psw, mode)
    indices = [int(v) for v in flat.tolist()]
    for k, v in enumerate(indices):
        if not 0 <= v < num:
            raise RuntimeError(f"embedding_bag: Index {k} of input takes value {v} which is not "
                               f"in the valid range [0, {num})")
    bags = _bags(starts, len(indices), include_last_offset)
    if max_norm is not None:  # in place, like embedding: after every check
        _renorm_rows(weight, flat, max_norm, norm_type)
    if mode == "max":
        return _bag_max(weight, indices, bags, padding_idx)
    return _bag_sum(weight, flat, indices, bags, padding_idx, psw, mode == "mean", sparse)


def _bags_without_values(weight: Tensor, flat: Tensor, n_bags: int, psw: Tensor | None,
                         mode: str) -> Tensor:
    """The bags on a device without values (meta), whose members are unknown: the ops of
    ``_bag_sum``/``_bag_max`` on index tensors of the right shapes, so the result has its
    shape, its dtype and a graph reaching the same inputs."""
    from arraygrad.creation import empty, zeros

    device, dim = weight.device, weight.shape[1]
    if mode == "max":
        return weight.gather(0, empty(n_bags, dim, dtype=_dt.int64, device=device))
    rows = weight[flat]
    if psw is not None:
        rows = rows * psw.unsqueeze(1)
    out = zeros(n_bags, dim, dtype=weight.dtype, device=device).index_add(
        0, empty(flat.shape[0], dtype=_dt.int64, device=device), rows)
    return out / empty(n_bags, 1, dtype=weight.dtype, device=device) if mode == "mean" else out


def _bag_sum(weight: Tensor, flat: Tensor, indices: list[int], bags: list[tuple[int, int]],
             padding_idx: Any, psw: Tensor | None, mean: bool, sparse: bool) -> Tensor:
    """Each bag's (weighted) sum or mean of its non-padding rows: one ``index_add`` of the
    picked rows into the bags (so every row's gradient is a scatter of its bags'; with
    ``sparse`` the weight's gradient is a sparse COO tensor of the picked rows)."""
    from arraygrad.creation import tensor, zeros

    n_bags, dim = len(bags), weight.shape[1]
    bag_of, keep, counts = [], [], [0] * n_bags
    for b, (start, end) in enumerate(bags):
        for k in range(start, end):
            if indices[k] != padding_idx:
                bag_of.append(b)
                keep.append(k)
                counts[b] += 1
    out = zeros(n_bags, dim, dtype=weight.dtype, device=weight.device)
    if not keep:  # every bag empty: zeros, still connected to the inputs (zero gradients)
        out = out + weight[:0].sum()
        return out if psw is None else out + psw[:0].sum()
    device = weight.device
    pos = tensor(keep, dtype=_dt.int64, device=device)
    if sparse:
        from arraygrad.sparse._embedding import embedding

        rows = embedding(flat[pos], weight, None)
    else:
        rows = weight[flat[pos]]
    if psw is not None:
        rows = rows * psw[pos].unsqueeze(1)
    out = out.index_add(0, tensor(bag_of, dtype=_dt.int64, device=device), rows)
    if mean:
        out = out / tensor([max(c, 1) for c in counts], dtype=weight.dtype,
                           device=device).unsqueeze(1)
    return out


def _bag_max(weight: Tensor, indices: list[int], bags: list[tuple[int, int]],
             padding_idx: Any) -> Tensor:
    """Each bag's featurewise maximum over its non-padding rows (the first maximal row wins,
    as PyTorch's kernel keeps it); empty bags give zeros."""
    from arraygrad.creation import tensor

    w = weight.detach()
    n_bags, dim = len(bags), weight.shape[1]
    chosen, filled = [], []
    for start, end in bags:
        members = [indices[k] for k in range(start, end) if indices[k] != padding_idx]
        filled.append(bool(members))
        if not members:
            chosen.append([0] * dim)
            continue
        block = w[tensor(members, dtype=_dt.int64, device=weight.device)]
        best = [int(v) for v in block.argmax(0).tolist()]  # the first maximum
        chosen.append([members[j] for j in best])
    device = weight.device
    idx = tensor(chosen, dtype=_dt.int64, device=device).reshape(n_bags, dim)
    picked = weight.gather(0, idx)
    keep = tensor(filled, dtype=_dt.bool, device=device).reshape(n_bags, 1)
    return ew.where(keep, picked, ew.full_like_scalar(picked, 0.0))
