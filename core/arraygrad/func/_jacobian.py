"""``jacrev`` and ``hessian``: Jacobians by reverse mode, as functions.

As ``torch.func.jacrev``: the Jacobian of ``func`` with respect to the argument(s)
at ``argnums``, one row per output element, each row a VJP with a vector of the
standard basis. PyTorch batches the rows with ``vmap``; until arraygrad has
``vmap`` the rows are computed one after the other (PyTorch's ``chunk_size=1``,
"equivalent to a for-loop"), so ``chunk_size`` is checked but every value gives
the same result with the memory of one row at a time.

``hessian`` is ``jacrev(jacrev(func))`` here: PyTorch's is ``jacfwd(jacrev(func))``
(forward-over-reverse), the same values, which arrives with forward-mode AD.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Iterator, Sequence

from arraygrad.func._argnums import Argnums, slice_argnums, wrap_argnums
from arraygrad.func._pytree import tree_flatten, tree_leaves, tree_unflatten
from arraygrad.func._vjp import vjp_with_argnums
from arraygrad.tensor import Tensor

__all__ = ["jacrev", "hessian"]


def _basis_rows(outputs: Sequence[Tensor]) -> Iterator[list[Tensor]]:
    """The standard basis of the outputs' joint space, one row at a time: a list with a
    tensor shaped as each output, zeros but for a single one."""
    from arraygrad.creation import eye

    zeros = [o.new_zeros(o.shape) for o in outputs]
    for j, out in enumerate(outputs):
        n = out.numel()
        if n == 0:
            continue
        ident = eye(n, dtype=out.dtype, device=out.device)
        for i in range(n):
            row = list(zeros)
            row[j] = ident[i].reshape(out.shape)
            yield row


def _jacobian_per_primal(flat_output: list[Tensor], flat_primals: list[Tensor],
                         vjp_fn: Callable[..., Any], output_spec: Any) -> list[list[Tensor]]:
    """``[primal][output]``: the Jacobian blocks, each shaped ``output.shape + primal.shape``."""
    from arraygrad.ops.shape import split, stack

    rows: list[list[Tensor]] = [[] for _ in flat_primals]
    for basis in _basis_rows(flat_output):
        for acc, r in zip(rows, tree_leaves(vjp_fn(tree_unflatten(basis, output_spec)))):
            acc.append(r)
    numels = [o.numel() for o in flat_output]
    blocks = []
    for acc, primal in zip(rows, flat_primals):
        full = stack(acc, 0) if acc else primal.new_zeros((0, *primal.shape))
        parts = split(full, numels, 0)
        blocks.append([p.reshape((*o.shape, *primal.shape)) for p, o in zip(parts, flat_output)])
    return blocks


def jacrev(func: Callable[..., Any], argnums: Argnums = 0, *, has_aux: bool = False,
           chunk_size: int | None = None,
           _preallocate_and_copy: bool = False) -> Callable[..., Any]:
    """A function returning the Jacobian of ``func`` at its arguments, by reverse mode.

    For each output (a pytree of tensors) and each differentiated input, a block
    shaped ``output.shape + input.shape``: the result is the output's structure
    holding, per output, the input's Jacobian (a tuple of them when ``argnums`` is a
    tuple). With ``has_aux`` it returns ``(jacobian, aux)``. The rows are computed one
    at a time until arraygrad has ``vmap``: ``chunk_size`` (> 0) and
    ``_preallocate_and_copy`` are accepted and give the same result.

    >>> jacrev(lambda x: x ** 2)(arraygrad.tensor([1., 2.]))
    tensor([[2., 0.],
            [0., 4.]])
    """
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper_fn(*args: Any) -> Any:
        vjp_out = vjp_with_argnums(func, *args, argnums=argnums, has_aux=has_aux)
        output, vjp_fn = vjp_out[0], vjp_out[1]
        flat_output, output_spec = tree_flatten(output)
        wrapped = wrap_argnums(argnums, len(args))  # checked by vjp_with_argnums already
        primals = slice_argnums(args, wrapped)
        flat_primals, primals_spec = tree_flatten((primals,) if isinstance(wrapped, int)
                                                  else primals)
        blocks = _jacobian_per_primal(flat_output, flat_primals, vjp_fn, output_spec)
        per_output = []
        for k in range(len(flat_output)):
            by_input = tree_unflatten([b[k] for b in blocks], primals_spec)
            per_output.append(by_input[0] if isinstance(wrapped, int) else by_input)
        jac = tree_unflatten(per_output, output_spec)
        if has_aux:
            return jac, vjp_out[2]
        return jac

    return wrapper_fn


def hessian(func: Callable[..., Any], argnums: Argnums = 0) -> Callable[..., Any]:
    """A function returning the Hessian of ``func`` with respect to the argument(s) at
    ``argnums``: ``jacrev(jacrev(func, argnums), argnums)`` (PyTorch computes the same
    values as ``jacfwd(jacrev(func))``, forward over reverse).

    >>> hessian(lambda x: (x ** 3).sum())(arraygrad.tensor([1., 2.]))
    tensor([[ 6.,  0.],
            [ 0., 12.]])
    """
    return jacrev(jacrev(func, argnums), argnums)
