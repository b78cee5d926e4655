"""``functional_call`` and ``stack_module_state``: modules as functions of their tensors.

``functional_call`` is ``arraygrad.nn.utils.stateless.functional_call`` under
``torch.func``'s argument name (``parameter_and_buffer_dicts``: one dict or a
sequence of dicts); ``stack_module_state`` stacks the parameters and buffers of
several models of one class (an ensemble) into one tensor per name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

from arraygrad.tensor import Tensor

if TYPE_CHECKING:
    from arraygrad.nn.modules.module import Module

__all__ = ["functional_call", "stack_module_state"]


def functional_call(module: Module,
                    parameter_and_buffer_dicts: Mapping[str, Any] | Sequence[Mapping[str, Any]],
                    args: Any = None, kwargs: dict[str, Any] | None = None, *,
                    tie_weights: bool = True, strict: bool = False) -> Any:
    """``module(*args, **kwargs)`` with the named tensors of ``parameter_and_buffer_dicts``
    (a dict, or a sequence of dicts with distinct keys) in place of its own.

    The module is unchanged afterwards; gradients flow to the given tensors, so
    ``grad(lambda p, x: loss(functional_call(model, p, (x,))))(params, x)`` is the
    gradient with respect to the parameters. ``tie_weights`` and ``strict`` as in
    ``arraygrad.nn.utils.stateless.functional_call``, which this calls.

    >>> params = {k: v.detach() for k, v in model.named_parameters()}
    >>> out = functional_call(model, params, (x,))
    """
    from arraygrad.nn.utils.stateless import functional_call as _stateless_call

    return _stateless_call(module, parameter_and_buffer_dicts, args, kwargs,
                           tie_weights=tie_weights, strict=strict)


def _stacked_leaf(tensors: Sequence[Tensor], name: str) -> Tensor:
    """The tensors stacked along a new first dim: a new leaf that requires grad when they
    all do (detached from the models), PyTorch's error when only some do."""
    from arraygrad.ops.shape import stack

    requiring = [t.requires_grad for t in tensors]
    if any(requiring) and not all(requiring):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    result = stack([t.detach() for t in tensors], 0)
    return result.requires_grad_() if all(requiring) else result


def stack_module_state(models: Sequence[Module]) -> tuple[dict[str, Tensor], dict[str, Tensor]]:
    """``(params, buffers)``: each of the models' parameters and buffers stacked along a
    new first dim, under its ``named_parameters``/``named_buffers`` name.

    The models must be of one class and all in training or all in eval mode. The
    stacked parameters are new leaves (unrelated to the models' own, so an optimizer
    can take them) and require grad as the models' do; buffers do not. Model ``i``
    is ``functional_call(models[0], ({k: v[i] for k, v in params.items()}, ...), x)``.

    >>> params, buffers = stack_module_state([nn.Linear(3, 2) for _ in range(4)])
    >>> params["weight"].shape
    arraygrad.Size([4, 2, 3])
    """
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError(
            "stack_module_state: Expected all models to have the same training/eval mode.")
    first = type(models[0])
    if not all(type(m) is first for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(m.named_parameters()) for m in models]
    params = {k: _stacked_leaf([p[k] for p in all_params], k) for k in all_params[0]}
    all_buffers = [dict(m.named_buffers()) for m in models]
    buffers = {k: _stacked_leaf([b[k] for b in all_buffers], k) for k in all_buffers[0]}
    return params, buffers
