"""``cond`` and ``while_loop``: PyTorch's structured control-flow operators, run eagerly.

PyTorch compiles them (with Dynamo) so that ``torch.compile``/``torch.export`` can capture
both branches or the loop; arraygrad runs them as the Python ``if``/``while`` they are
equivalent to, after PyTorch's checks of the arguments. Only the branch taken runs, so
PyTorch's compile-time check that both branches return matching tensors is not made.
"""

from __future__ import annotations

from typing import Any, Callable

__all__ = ["cond", "while_loop"]


def _leaves(tree: Any) -> list[Any]:
    if isinstance(tree, (tuple, list)):
        return [leaf for item in tree for leaf in _leaves(item)]
    if isinstance(tree, dict):
        return [leaf for item in tree.values() for leaf in _leaves(item)]
    return [tree]


def cond(pred: Any, true_fn: Callable[..., Any], false_fn: Callable[..., Any],
         operands: tuple[Any, ...] | list[Any] = ()) -> Any:
    """``true_fn(*operands)`` if ``pred`` else ``false_fn(*operands)``; ``pred`` is a bool or
    a one-element tensor, ``operands`` a tuple or list of tensors (possibly nested)."""
    from arraygrad.tensor import Tensor

    if not isinstance(pred, (bool, Tensor)):
        raise RuntimeError(f"Expected pred to be bool or tensor, but got {pred}.")
    if isinstance(pred, Tensor) and pred.numel() != 1:
        raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got {pred}.")
    if not callable(true_fn) or not callable(false_fn):
        raise RuntimeError("Expect both branches to be callable.")
    if not isinstance(operands, (tuple, list)) or any(
            not isinstance(t, Tensor) for t in _leaves(operands)):
        raise RuntimeError("Expect operands to be a tuple of possibly nested dict/list/tuple "
                           f"that only consists of tensor leaves, but got {operands}.")
    return true_fn(*operands) if bool(pred) else false_fn(*operands)


def while_loop(cond_fn: Callable[..., Any], body_fn: Callable[..., Any],
               carried_inputs: tuple[Any, ...] | list[Any]) -> tuple[Any, ...]:
    """Run ``carried = body_fn(*carried)`` while ``cond_fn(*carried)`` (a boolean scalar
    tensor or a bool); the final values (tensors copied when the loop never ran), as a tuple.
    ``body_fn`` must return a tuple as long as ``carried_inputs``."""
    from arraygrad import dtypes
    from arraygrad.tensor import Tensor

    if not callable(cond_fn) or not callable(body_fn):
        raise RuntimeError("Expect cond_fn and body_fn to be callable.")
    if not isinstance(carried_inputs, (tuple, list)):
        raise RuntimeError(f"carried_inputs must be a tuple or list but got "
                           f"{type(carried_inputs)}")
    if any(not isinstance(t, (Tensor, int)) for t in _leaves(carried_inputs)):
        raise RuntimeError("Expect carried_inputs to be a tuple of possibly nested "
                           "dict/list/tuple that onlyconsists of tensor or int leaves, but got "
                           f"{carried_inputs}.")

    def check(pred: Any) -> bool:
        if isinstance(pred, bool) or (isinstance(pred, Tensor) and pred.dim() == 0
                                      and pred.dtype == dtypes.bool):
            return bool(pred)
        raise RuntimeError(f"cond_fn must return a boolean scalar tensor or a boolean but got "
                           f"{pred}")

    values = tuple(carried_inputs)
    if not check(cond_fn(*values)):
        return tuple(v.clone() if isinstance(v, Tensor) else v for v in values)
    while True:
        out = body_fn(*values)
        if not isinstance(out, tuple):
            raise AssertionError(f"body_fn should return a tuple but got {type(out)}")
        if len(out) != len(carried_inputs):
            raise AssertionError("body_fn should return the same number of elements as "
                                 f"carried_inputs, got {len(out)} vs {len(carried_inputs)}")
        values = out
        if not check(cond_fn(*values)):
            return values
