"""``jacrev``, ``jacfwd`` and ``hessian``: Jacobians as functions, as ``torch.func``'s.

Both build the standard basis of a joint space (all outputs for ``jacrev``, all
differentiated inputs for ``jacfwd``) as one batch of vectors and map a product over
it with ``vmap``: ``jacrev`` the VJP (one row of the Jacobian per basis vector),
``jacfwd`` the JVP (one column). The batch of rows (columns) is then split per
output and input and reshaped to ``output.shape + input.shape``. ``hessian`` is
``jacfwd(jacrev(f))``, forward over reverse, as PyTorch's.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

from arraygrad.func._argnums import Argnums, slice_argnums, wrap_argnums
from arraygrad.func._jvp import check_tensors, jvp_with_argnums
from arraygrad._pytree import tree_flatten, tree_map, tree_unflatten
from arraygrad.autograd.basis import standard_basis
from arraygrad.func._vjp import vjp_with_argnums
from arraygrad.func._vmap_entry import vmap
from arraygrad.tensor import Tensor

__all__ = ["jacrev", "jacfwd", "hessian"]


def _split_batch(batched: Tensor, sizes: Sequence[int], shapes: Sequence[tuple[int, ...]],
                 trailing: tuple[int, ...]) -> list[Tensor]:
    """``batched`` (``(N, *trailing)``) cut along dim 0 into pieces of ``sizes`` elements,
    piece ``k`` reshaped to ``shapes[k] + trailing``."""
    from arraygrad.ops.shape import split

    return [p.reshape((*shape, *trailing))
            for p, shape in zip(split(batched, list(sizes), 0), shapes)]


def _nest(blocks: list[list[Tensor]], output_spec: Any, primals_spec: Any,
          single_argnum: bool) -> Any:
    """``blocks[output][primal]`` as PyTorch nests them: the output's structure holding,
    per output, the primals' structure (the one primal itself for an int ``argnums``)."""
    per_output = []
    for row in blocks:
        by_input = tree_unflatten(row, primals_spec)
        per_output.append(by_input[0] if single_argnum else by_input)
    return tree_unflatten(per_output, output_spec)


def jacrev(func: Callable[..., Any], argnums: Argnums = 0, *, has_aux: bool = False,
           chunk_size: int | None = None,
           _preallocate_and_copy: bool = False) -> Callable[..., Any]:
    """A function returning the Jacobian of ``func`` at its arguments, by reverse mode.

    For each output (a pytree of tensors) and each differentiated input, a block
    shaped ``output.shape + input.shape``: the result is the output's structure
    holding, per output, the input's Jacobian (a tuple of them when ``argnums`` is a
    tuple). With ``has_aux`` it returns ``(jacobian, aux)``. The rows are VJPs with the
    standard basis, mapped with ``vmap``; ``chunk_size`` (> 0) bounds how many are
    computed at once (less memory, the same result); ``_preallocate_and_copy`` is
    accepted for PyTorch's signature and changes nothing.

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
        numels = [o.numel() for o in flat_output]
        out_shapes = [tuple(o.shape) for o in flat_output]
        if sum(numels) == 0:  # no rows: an empty basis has no batch to map over
            flat_rows = [p.new_zeros((0, *p.shape)) for p in flat_primals]
        else:
            basis = tree_unflatten(standard_basis(flat_output), output_spec)
            flat_rows = tree_flatten(vmap(vjp_fn, chunk_size=chunk_size)(basis))[0]
        # by_primal[j][k]: output k's rows for primal j
        by_primal = [_split_batch(rows, numels, out_shapes, tuple(p.shape))
                     for rows, p in zip(flat_rows, flat_primals)]
        blocks = [[by_primal[j][k] for j in range(len(flat_primals))]
                  for k in range(len(flat_output))]
        jac = _nest(blocks, output_spec, primals_spec, isinstance(wrapped, int))
        if has_aux:
            return jac, vjp_out[2]
        return jac

    return wrapper_fn


def jacfwd(func: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False, *,
           randomness: str = "error") -> Callable[..., Any]:
    """A function returning the Jacobian of ``func`` at its arguments, by forward mode.

    The same result as ``jacrev`` (blocks ``output.shape + input.shape``, nested
    ``[output][input]``; ``(jacobian, aux)`` with ``has_aux``), computed as JVPs with the
    standard basis of the inputs, mapped with ``vmap`` (``randomness`` is ``vmap``'s):
    cheaper than ``jacrev`` when the inputs have fewer elements than the outputs.

    >>> jacfwd(lambda x: x ** 2)(arraygrad.tensor([1., 2.]))
    tensor([[2., 0.],
            [0., 4.]])
    """
    @functools.wraps(func)
    def wrapper_fn(*args: Any) -> Any:
        from arraygrad.ops.shape import split

        wrapped = wrap_argnums(argnums, len(args))
        primals = slice_argnums(args, wrapped)
        flat_primals, primals_spec = tree_flatten(primals)
        check_tensors(flat_primals, "primals")  # before the basis is built from them
        numels = [p.numel() for p in flat_primals]
        basis = tree_unflatten(standard_basis(flat_primals), primals_spec)

        def push_jvp(tangents: Any) -> Any:
            out = jvp_with_argnums(func, args, tangents, wrapped, has_aux=has_aux)
            return (out[1], out[2]) if has_aux else out[1]

        results = vmap(push_jvp, randomness=randomness)(basis)
        aux = None
        if has_aux:
            results, aux = results
            aux = tree_map(lambda v: v[0], aux)  # every basis vector saw the same aux
        flat_cols, output_spec = tree_flatten(results)
        blocks = []
        for cols in flat_cols:  # (N, *output.shape): basis vector k's JVP is column k
            out_shape = tuple(cols.shape[1:])
            pieces = split(cols, numels, 0)
            blocks.append([c.movedim(0, -1).reshape((*out_shape, *p.shape))
                           for c, p in zip(pieces, flat_primals)])
        nest_spec = tree_flatten((primals,))[1] if isinstance(wrapped, int) else primals_spec
        jac = _nest(blocks, output_spec, nest_spec, isinstance(wrapped, int))
        if has_aux:
            return jac, aux
        return jac

    return wrapper_fn


def hessian(func: Callable[..., Any], argnums: Argnums = 0) -> Callable[..., Any]:
    """A function returning the Hessian of ``func`` with respect to the argument(s) at
    ``argnums``: ``jacfwd(jacrev(func, argnums), argnums)``, forward over reverse, as
    PyTorch's.

    >>> hessian(lambda x: (x ** 3).sum())(arraygrad.tensor([1., 2.]))
    tensor([[ 6.,  0.],
            [ 0., 12.]])
    """
    return jacfwd(jacrev(func, argnums), argnums)
