"""Forward-mode AD (``torch.autograd.forward_ad``): dual tensors and their tangents.

Inside a dual level, ``make_dual(x, v)`` gives a tensor that carries the tangent ``v``; every
op whose rule has a forward-mode rule (``jvp`` in the rule table, ``ops.rule``) gives its
result the tangent ``J v``, and ``unpack_dual(y)`` reads it back::

    with forward_ad.dual_level():
        y = f(forward_ad.make_dual(x, v))
        jvp = forward_ad.unpack_dual(y).tangent

Tangents live on the tensor, in a small dict keyed by dual level (``Tensor._fw_grads``), and
are dropped when their dual level exits. As in PyTorch 2.13 only one dual level can be open at
a time. While none is open the recorder pays one attribute test per op (``state.on``). The
state lives in ``arraygrad.transform_state`` (the layers below read it from there); the public
functions keep PyTorch's keyword ``level`` for a dual level.
"""

from __future__ import annotations

import weakref
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Iterator, NamedTuple

from arraygrad import transform_state as _transform_state

if TYPE_CHECKING:
    from arraygrad.tensor import Tensor

__all__ = ["dual_level", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual",
           "UnpackedDualTensor"]


state = _transform_state.dual
"""The forward-AD state the recorder reads (``transform_state.DualState``)."""


class UnpackedDualTensor(NamedTuple):
    """What ``unpack_dual`` returns: the ``primal`` and its ``tangent`` (None when it has none)."""

    primal: Any
    tangent: Any


def enter_dual_level() -> int:
    """Open a forward-AD level and make it the current one; returns it.

    Nested levels are not supported (PyTorch 2.13's RuntimeError)."""
    if state.dual_level >= 0:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    state.dual_level = 0
    fast = state.fast_paths
    if fast is not None:
        state.fast_before = fast.on
        fast.on = False
    state.on = True
    return 0


def exit_dual_level(*, level: int | None = None) -> None:
    """Close the current level (``level``, when given, must be it), dropping every tangent
    recorded at it."""
    if level is None:
        level = state.dual_level
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    if level != state.dual_level:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was "
                           "created. This is not supported.")
    for ref in list(state.tracked.values()):
        t = ref()
        if t is None:
            continue
        grads = t._fw_grads
        if grads is not None:
            grads.pop(level, None)
            if not grads:
                t._fw_grads = None
    state.tracked = {}
    state.on = False
    state.dual_level = -1
    if state.fast_paths is not None:
        state.fast_paths.on = state.fast_before


@contextmanager
def dual_level() -> Iterator[int]:
    """Context manager: a forward-AD level for the block (``enter``/``exit_dual_level``)."""
    level = enter_dual_level()
    try:
        yield level
    finally:
        exit_dual_level(level=level)


def set_tangent(t: Tensor, tangent: Tensor, dual_level: int) -> None:
    """Attach ``tangent`` to ``t`` at ``dual_level`` (the recorder's and ``make_dual``'s write)."""
    grads = t._fw_grads
    if grads is None:
        t._fw_grads = {dual_level: tangent}
    else:
        grads[dual_level] = tangent
    key = id(t)
    tracked = state.tracked
    if key not in tracked:
        def forget(_: Any, key: int = key) -> None:
            tracked.pop(key, None)

        tracked[key] = weakref.ref(t, forget)


def tangent_of(t: Any, dual_level: int | None = None) -> Any:
    """``t``'s tangent at ``dual_level`` (default: the open one), or None."""
    grads = getattr(t, "_fw_grads", None)
    if grads is None:
        return None
    return grads.get(state.dual_level if dual_level is None else dual_level)


def make_dual(tensor: Tensor, tangent: Tensor, *, level: int | None = None) -> Tensor:
    """A tensor aliasing ``tensor`` (a view, differentiable like one) with ``tangent`` attached
    at ``level``: the input of a forward-mode computation.

    The tangent must have ``tensor``'s shape; it is cast to ``tensor``'s dtype."""
    if level is None:
        level = state.dual_level
    if level < 0:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, make "
                           "sure to enter_dual_level() first.")
    if level != state.dual_level:
        raise RuntimeError("Invalid level given to _make_dual")
    if not (tensor.is_floating_point() or tensor.is_complex()):
        raise ValueError(f"Expected primal to be floating point or complex, but got: {tensor.dtype}")
    if not (tangent.is_floating_point() or tangent.is_complex()):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: {tangent.dtype}")
    if tuple(tangent.shape) != tuple(tensor.shape):
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the original "
            f"Tensor, this is not supported. Tensor is of size {list(tensor.shape)} while the given "
            f"forward gradient is of size {list(tangent.shape)}.")
    if tangent_of(tensor, level) is not None:
        raise RuntimeError("Making a dual Tensor based on a Tensor that already has a forward "
                           f"gradient at the same level {level} is not supported.")
    state.on = False  # the alias and the cast are not themselves forward-differentiated
    try:
        out = tensor.view_as(tensor)
        if tangent.dtype != tensor.dtype:
            tangent = tangent.to(tensor.dtype)
    finally:
        state.on = True
    set_tangent(out, tangent, level)
    return out


def unpack_dual(tensor: Tensor, *, level: int | None = None) -> UnpackedDualTensor:
    """``(primal, tangent)`` of ``tensor`` at ``level``: the primal a view without the tangent,
    the tangent as stored (None when the tensor has none)."""
    if level is None:
        level = state.dual_level
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    if level != state.dual_level:
        raise RuntimeError("Invalid level given to _fw_primal")
    found = tangent_of(tensor, level)
    if found is None:
        return UnpackedDualTensor(tensor, None)
    state.on = False
    try:
        primal = tensor.view_as(tensor)
    finally:
        state.on = True
    return UnpackedDualTensor(primal, found)
