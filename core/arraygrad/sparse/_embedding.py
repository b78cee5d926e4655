"""``nn.Embedding(sparse=True)`` / ``F.embedding(sparse=True)``: the rows of the weight picked
by the indices, whose weight gradient is a sparse COO tensor, as PyTorch's: one entry per
looked-up index (repeats kept, the ``padding_idx`` entries left out), the output gradient's
rows as its values. Optimizers that take sparse gradients (SGD, Adagrad, SparseAdam) then
touch only those rows' gradients."""

from __future__ import annotations

from typing import Any

from arraygrad.ops.rule import defop
from arraygrad.sparse._rules import from_values
from arraygrad.tensor import Tensor

__all__ = ["embedding"]


def _weight_grad(g: Tensor, n: Any) -> Tensor:
    flat = n.indices
    rows = g.reshape(-1, n.size[1])
    if n.padding_idx is not None:
        keep = (flat != n.padding_idx).nonzero().reshape(-1)
        flat, rows = flat[keep], rows[keep]
    return from_values(flat.reshape(1, -1), rows, n.size, False)


EMBEDDING = defop("EmbeddingBackward0", key="embedding_sparse", inputs=("weight",),
                  saves=("indices",), params=("size", "padding_idx"), vjp=(_weight_grad,))


def embedding(input: Tensor, weight: Tensor, padding_idx: Any) -> Tensor:
    """``weight[input]`` recording a sparse weight gradient (checks are ``F.embedding``'s)."""
    backend = weight._backend
    xp = backend.xp
    flat = xp.reshape(input._data, (-1,))
    if flat.dtype != xp.int64:
        flat = xp.astype(flat, xp.int64)
    rows = xp.take(weight._data, flat, axis=0)
    data = xp.reshape(rows, (*input.shape, weight.shape[1]))
    return EMBEDDING.record(data, backend, (weight,), indices=Tensor._wrap(flat, backend),
                            size=tuple(weight.shape), padding_idx=padding_idx)
