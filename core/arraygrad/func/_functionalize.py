"""``functionalize``: a function with the semantics of ``f`` whose body mutates no input.

PyTorch's functionalize rewrites ``f``'s program so that no op mutates or aliases, then
copies the final values back into the inputs ``f`` mutated. Run eagerly, that is: ``f``
runs on copies of its tensor inputs, and each input whose copy was modified in place gets
the new value (``copy_``, recorded like any op); with ``remove="mutations_and_views"`` an
output that is a view of an input is returned as a copy too. The results, the inputs' final
values and the gradients are ``f``'s.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from arraygrad._pytree import tree_flatten, tree_map, tree_unflatten
from arraygrad.tensor import Tensor

__all__ = ["functionalize"]


def _copy(x: Any) -> Any:
    return x.clone() if isinstance(x, Tensor) else x


def functionalize(func: Callable[..., Any], *, remove: str = "mutations") -> Callable[..., Any]:
    """``func``, its input mutations applied by copying back (see the module docstring).

    ``remove``: ``"mutations"``, or ``"mutations_and_views"`` (outputs never alias inputs).
    """
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(f"functionalize(f, remove='mutations'): received invalid argument "
                           f"for remove={remove}. Valid options are:\n"
                           "     remove='mutations': all inplace and out= operators will be "
                           "removed from the program, and replaced with their out-of-place "
                           "equivalents.\n"
                           "     remove='mutations_and_views': In addition to the above, all "
                           "aliasing operators {view} will be replaced with their non-aliasing "
                           "counterparts, {view}_copy.\n")

    @functools.wraps(func)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        flat, spec = tree_flatten((args, kwargs))
        copies = [_copy(x) for x in flat]
        versions = [c._version if isinstance(c, Tensor) else None for c in copies]
        new_args, new_kwargs = tree_unflatten(copies, spec)
        out = func(*new_args, **new_kwargs)
        for original, copy, version in zip(flat, copies, versions):
            if isinstance(copy, Tensor) and copy._version != version:
                original.copy_(copy)  # the mutation, applied once at the end
        if remove == "mutations_and_views":
            copied = {id(c) for c in copies if isinstance(c, Tensor)}
            out = tree_map(lambda o: o.clone() if isinstance(o, Tensor) and (
                id(o) in copied or (o._base is not None and id(o._base) in copied)) else o, out)
        return out

    return wrapped
