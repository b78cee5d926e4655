"""``grad`` and ``grad_and_value``: the gradient of a scalar function, as a function.

As ``torch.func.grad``: ``grad(f)(*args)`` is the gradient of ``f(*args)`` with
respect to the argument(s) at ``argnums`` (pytrees of tensors: the gradient has
the same structure), computed with ``autograd.grad(create_graph=True)`` on
inputs that track gradients inside the call only (``_scope``). That makes it
compose: ``grad(grad(f))`` is the second derivative, and the result is
differentiable outside when the inputs or captured tensors require grad there.
An outer ``no_grad`` does not stop the transform (``f``'s own ``no_grad`` does),
and nothing is accumulated into any ``.grad``.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from arraygrad.autograd.grad_mode import enable_grad, is_grad_enabled
from arraygrad.func._argnums import Argnums, replace_args, slice_argnums, wrap_argnums
from arraygrad.func._scope import Scope, vjps_or_zeros
from arraygrad._pytree import tree_flatten, tree_unflatten
from arraygrad.tensor import Tensor

__all__ = ["grad", "grad_and_value"]

_API = "grad_and_value(f)(*args)"


def _call_and_check(func: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any],
                    has_aux: bool) -> tuple[Tensor, Any]:
    """``func``'s scalar output and aux, with PyTorch's errors for anything else."""
    output = func(*args, **kwargs)
    aux = None
    if has_aux:
        if not (isinstance(output, tuple) and len(output) == 2):
            raise RuntimeError(f"{_API}: output of function f should be a tuple: "
                               "(output, aux) if has_aux is True")
        output, aux = output
    if not isinstance(output, Tensor):
        raise RuntimeError(f"{_API}: Expected f(*args) to return a Tensor, got {type(output)}")
    if output.dim() != 0:
        raise RuntimeError(f"{_API}: Expected f(*args) to return a scalar Tensor, got tensor "
                           f"with {output.dim()} dims. Maybe you wanted to use the vjp or "
                           "jacrev APIs instead?")
    return output, aux


def _grad_and_value_impl(func: Callable[..., Any], argnums: Argnums, has_aux: bool,
                         args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any]:
    scope = Scope(is_grad_enabled())
    with enable_grad():  # an outer no_grad does not stop the transform
        argnums = wrap_argnums(argnums, len(args))
        diff_args = scope.differentiable_tree(slice_argnums(args, argnums))
        output, aux = _call_and_check(func, replace_args(args, argnums, diff_args), kwargs,
                                      has_aux)
        flat_diff, spec = tree_flatten(diff_args)
        # create_graph: the gradient is itself differentiable (nesting, outer graph)
        flat_grads = vjps_or_zeros([output], flat_diff, None, retain_graph=True,
                                   create_graph=True)
        grads = scope.unwrap_tree(tree_unflatten(flat_grads, spec))
        value = scope.unwrap(output)
        if has_aux:
            return grads, (value, scope.unwrap_tree(aux))
        return grads, value


def grad_and_value(func: Callable[..., Any], argnums: Argnums = 0,
                   has_aux: bool = False) -> Callable[..., Any]:
    """A function returning ``(gradient, value)`` of ``func`` at its arguments.

    ``func`` must return a scalar tensor (or ``(scalar, aux)`` with ``has_aux``, the
    value then being ``(scalar, aux)``); ``argnums`` picks the argument(s) to
    differentiate, an int or a tuple (the gradient is then a tuple).

    >>> g, v = grad_and_value(lambda x: (x ** 2).sum())(arraygrad.tensor([1., 2.]))
    >>> g, v
    (tensor([2., 4.]), tensor(5.))
    """
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return _grad_and_value_impl(func, argnums, has_aux, args, kwargs)

    return wrapper


def grad(func: Callable[..., Any], argnums: Argnums = 0,
         has_aux: bool = False) -> Callable[..., Any]:
    """A function returning the gradient of the scalar ``func`` at its arguments.

    ``argnums`` picks the argument(s) to differentiate (an int, or a tuple: the result
    is then a tuple); each may be a pytree of tensors (tuples, lists, dicts), and its
    gradient has the same structure. With ``has_aux``, ``func`` returns
    ``(scalar, aux)`` and the result is ``(gradient, aux)``. Nests: ``grad(grad(f))``.

    >>> grad(lambda x: x.sin().sum())(arraygrad.tensor([0.]))
    tensor([1.])
    """
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        grads, value = _grad_and_value_impl(func, argnums, has_aux, args, kwargs)
        if has_aux:
            return grads, value[1]
        return grads

    return wrapper
