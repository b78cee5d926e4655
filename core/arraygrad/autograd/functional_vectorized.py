"""The ``vectorize=True`` Jacobians of ``autograd.functional``, built on ``vmap``.

Reverse mode (PyTorch's): one ``autograd.grad(..., is_grads_batched=True)`` whose batch
of grad_outputs is the standard basis of the outputs' joint space: row ``k`` of the
result is the VJP with basis vector ``k``. Forward mode: the JVPs with the standard
basis of the inputs, mapped with ``vmap`` (``func.jacfwd``, which the package root hands in
through ``transform_state.find_transform``: ``arraygrad.func`` sits above autograd). Both
then cut the batch per output and input, into blocks shaped ``output.shape + input.shape``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence

if TYPE_CHECKING:
    from arraygrad.tensor import Tensor

__all__ = ["reverse_jacobian_vectorized", "forward_jacobian"]

_FWD = "torch.autograd.functional.jacobian: `{}=True` and `strategy=\"forward-mode\"` are not " \
       "supported together (yet). Please either set `{}=False` or `strategy=\"reverse-mode\"`."


def reverse_jacobian_vectorized(outputs: Sequence[Tensor], inputs: Sequence[Tensor],
                                create_graph: bool) -> list[list[Tensor]]:
    """``blocks[output][input]`` of the Jacobian of ``outputs`` (computed from ``inputs``,
    which require grad) by one batched backward over the outputs' standard basis."""
    from arraygrad.autograd.api import grad
    from arraygrad.autograd.basis import standard_basis

    numels = [o.numel() for o in outputs]
    total = sum(numels)
    diff = [k for k, o in enumerate(outputs) if o.requires_grad]
    rows: list[Tensor | None] = [None] * len(inputs)
    if diff and total:
        basis = standard_basis(outputs)
        rows = list(grad([outputs[k] for k in diff], list(inputs), [basis[k] for k in diff],
                         create_graph=create_graph, allow_unused=True, is_grads_batched=True))
    blocks: list[list[Tensor]] = [[] for _ in outputs]
    for x, r in zip(inputs, rows):
        if r is None:  # unused: zeros (strict is refused with vectorize before this)
            r = x.new_zeros((total, *x.shape))
        start = 0
        for k, (o, n) in enumerate(zip(outputs, numels)):
            blocks[k].append(r[start:start + n].reshape((*o.shape, *x.shape)))
            start += n
    return blocks


def forward_jacobian(outputs_of: Callable[..., tuple[Tensor, ...]], inputs: tuple[Tensor, ...],
                     strict: bool, vectorize: bool, create_graph: bool) -> list[list[Tensor]]:
    """``blocks[output][input]`` by forward mode (``jacfwd``) of ``outputs_of`` (the user's
    function, its outputs checked and made a tuple), with PyTorch's errors for what forward
    mode does not do."""
    from arraygrad import transform_state  # func sits above autograd: handed in from above

    if create_graph:
        raise NotImplementedError(_FWD.format("create_graph", "create_graph"))
    if strict:
        raise RuntimeError(_FWD.format("strict", "strict"))
    if not vectorize:
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse "
                                  "Hessian isonly implemented for `vectorize=True`.")
    jacfwd = transform_state.transform("jacfwd")
    jac = jacfwd(outputs_of, argnums=tuple(range(len(inputs))))(*inputs)
    return [[b.detach() for b in row] for row in jac]
