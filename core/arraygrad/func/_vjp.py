"""``vjp``: a function's output and a function computing vector-Jacobian products.

As ``torch.func.vjp``: ``output, vjp_fn = vjp(f, *primals)``; ``vjp_fn(cotangents)``
(cotangents shaped as ``output``, a pytree) returns the VJP with respect to every
primal, a tuple. ``vjp_fn`` keeps the graph, so it can be called any number of
times (``retain_graph=True`` by default); it builds a differentiable result when
grad mode is on where it is called (``create_graph=None``), as PyTorch's.
"""

from __future__ import annotations

from typing import Any, Callable

from arraygrad.autograd.grad_mode import enable_grad, is_grad_enabled
from arraygrad.func._argnums import Argnums, replace_args, slice_argnums, wrap_argnums
from arraygrad.func._scope import Scope, vjps_or_zeros
from arraygrad._pytree import tree_flatten, tree_unflatten
from arraygrad.tensor import Tensor

__all__ = ["vjp", "vjp_with_argnums"]


def _check_outputs(flat_out: list[Any]) -> None:
    """PyTorch's errors for an output that is empty, holds a non-tensor or an integer."""
    if (len(flat_out) == 1 and flat_out[0] is None) or not flat_out:
        raise RuntimeError("vjp(f, *primals): Expected f to be a function that has non-empty "
                           f"output (got output = {flat_out})")
    for o in flat_out:
        if not isinstance(o, Tensor):
            raise RuntimeError("vjp(f, *primals): expected f(*primals) to return only tensors, "
                               f"got unsupported type {type(o)}")
    for o in flat_out:
        if not o.is_floating_point():
            raise RuntimeError("vjp(f, ...): All outputs of f must be floating-point or complex "
                               f"Tensors, got Tensor with dtype {o.dtype}")


def vjp_with_argnums(func: Callable[..., Any], *primals: Any, argnums: Argnums | None = None,
                     has_aux: bool = False) -> tuple[Any, ...]:
    """``vjp`` differentiating only the primals at ``argnums`` (None: all of them, as a
    tuple); ``jacrev`` uses it. Returns ``(output, vjp_fn)`` or ``(output, vjp_fn, aux)``."""
    scope = Scope(is_grad_enabled())
    with enable_grad():  # an outer no_grad does not stop the transform
        if argnums is None:
            diff = scope.differentiable_tree(primals)
            args = diff
        else:
            argnums = wrap_argnums(argnums, len(primals))
            diff = scope.differentiable_tree(slice_argnums(primals, argnums))
            args = replace_args(primals, argnums, diff)
        out = func(*args)
        aux = None
        if has_aux:
            if not (isinstance(out, tuple) and len(out) == 2):
                raise RuntimeError("vjp(f, *primals): output of function f should be a tuple: "
                                   "(output, aux) if has_aux is True")
            out, aux = out
            aux = scope.unwrap_tree(aux)
        flat_out, out_spec = tree_flatten(out)
        _check_outputs(flat_out)
        flat_diff, diff_spec = tree_flatten(diff)
        result = scope.unwrap_tree(out)

    def vjp_fn(cotangents: Any, retain_graph: bool = True,
               create_graph: bool | None = None) -> Any:
        """The vector-Jacobian product of the cotangents (shaped as the output) with the
        Jacobian at the primals, one entry per primal."""
        if create_graph is None:
            create_graph = is_grad_enabled()
        flat_ct, ct_spec = tree_flatten(cotangents)
        if ct_spec != out_spec:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as "
                               "pytree structure of outputs to the function. "
                               f"cotangents: {ct_spec}, primal output: {out_spec}")
        grads = vjps_or_zeros(flat_out, flat_diff, flat_ct, retain_graph=retain_graph,
                              create_graph=create_graph)
        return scope.unwrap_tree(tree_unflatten(grads, diff_spec))

    if has_aux:
        return result, vjp_fn, aux
    return result, vjp_fn


def vjp(func: Callable[..., Any], *primals: Any, has_aux: bool = False) -> tuple[Any, ...]:
    """``(func(*primals), vjp_fn)``; with ``has_aux`` (``func`` returning ``(output, aux)``)
    ``(output, vjp_fn, aux)``.

    ``vjp_fn(cotangents)`` returns a tuple with the VJP for each primal (pytrees keep
    their structure); it may be called more than once.

    >>> out, vjp_fn = vjp(arraygrad.sin, arraygrad.tensor([0., 1.]))
    >>> vjp_fn(arraygrad.ones(2))
    (tensor([1.0000, 0.5403]),)
    """
    return vjp_with_argnums(func, *primals, has_aux=has_aux)
