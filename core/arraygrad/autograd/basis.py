"""The standard basis of several tensors' joint space, as one batch: what a vectorized
Jacobian maps its product over (``func.jacrev``/``jacfwd``, and ``autograd.functional``'s
``vectorize=True`` through ``autograd.grad(is_grads_batched=True)``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    from arraygrad.tensor import Tensor

__all__ = ["standard_basis"]


def standard_basis(tensors: Sequence[Tensor]) -> list[Tensor]:
    """The standard basis of the tensors' joint space as one batch: for each tensor, a
    tensor shaped ``(N, *tensor.shape)`` (``N`` the total number of elements), where basis
    vector ``k`` is one at the ``k``-th element of the joint space and zero elsewhere."""
    from arraygrad.creation import eye
    from arraygrad.ops.shape import split

    numels = [t.numel() for t in tensors]
    total = sum(numels)
    out = []
    # one identity, split by columns: tensor i's block sits at its offset in the joint space
    columns = split(eye(total, dtype=tensors[0].dtype, device=tensors[0].device), numels, 1)
    for t, col in zip(tensors, columns):
        out.append(col.to(t.dtype).reshape((total, *t.shape)))
    return out
