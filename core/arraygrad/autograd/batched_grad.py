"""``autograd.grad(..., is_grads_batched=True)``: one VJP per row of the grad_outputs, by vmap.

The first dimension of each grad_output is a batch of vectors; the result's first
dimension is the batch of VJPs. As PyTorch, the backward is mapped with ``vmap`` (``func``'s,
handed in through ``transform_state.find_transform``) rather than run once per row by hand,
so that a batched ``vmap`` computes every row in one pass. ``autograd.api`` sits below
``func``, so this module hands ``batched_grad`` to it (``set_batched_grad``) when imported.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from arraygrad.autograd.api import grad, set_batched_grad
from arraygrad import transform_state as _transforms

if TYPE_CHECKING:
    from arraygrad.tensor import Tensor

__all__ = ["check_batched_shapes", "batched_grad"]


def check_batched_shapes(outputs: Sequence[Tensor], grads: Sequence[Any]) -> None:
    """PyTorch's error when a grad_output, less its first (batch) dimension, is not shaped
    as its output."""
    for i, (out, g) in enumerate(zip(outputs, grads)):
        if g is None or not hasattr(g, "shape"):
            continue  # None: implicit (unbatched) ones; a non-tensor fails in ``grad`` itself
        got = tuple(g.shape[1:])
        if g.dim() == 0 or got != tuple(out.shape):
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each "
                "grad_output as the batch dimension. The sizes of the remaining dimensions are "
                "expected to match the shape of corresponding output, but a mismatch was "
                f"detected: grad_output[{i}] has a shape of {list(got)} and output[{i}] has a "
                f"shape of {list(out.shape)}. If you only want some tensors in `grad_output` to "
                "be considered batched, consider using vmap.")


def batched_grad(outputs: tuple[Tensor, ...], inputs: tuple[Tensor, ...], grads: tuple[Any, ...],
                 *, create_graph: bool, allow_unused: bool | None,
                 materialize_grads: bool) -> tuple[Tensor | None, ...]:
    """``autograd.grad`` of ``outputs`` w.r.t. ``inputs`` for each row of ``grads`` (their
    first dimension), stacked: an input's result is ``(batch, *input.shape)``, or None where
    it is unused (with ``allow_unused``)."""
    vmap = _transforms.transform("vmap")  # func sits above autograd: handed in from above

    check_batched_shapes(outputs, grads)
    unused: list[bool] = []

    def vjp(rows: tuple[Any, ...]) -> tuple[Tensor, ...]:
        # the graph is kept: a loop-and-stack vmap runs one backward per row
        got = grad(outputs, inputs, list(rows), retain_graph=True, create_graph=create_graph,
                   allow_unused=allow_unused, materialize_grads=materialize_grads)
        unused[:] = [g is None for g in got]
        # vmap returns tensors only: a placeholder where the input is unused, None again below
        return tuple(t.new_zeros(t.shape) if g is None else g for t, g in zip(inputs, got))

    result = vmap(vjp)(tuple(grads))
    return tuple(None if u else r for r, u in zip(result, unused))


set_batched_grad(batched_grad)
