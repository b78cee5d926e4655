"""Parameters as one flat vector and back, as ``torch.nn.utils.convert_parameters``."""

from __future__ import annotations

from typing import Iterable

from arraygrad.tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _check_param_device(param: Tensor, old_device: object | None) -> object:
    """The device every parameter must share; TypeError for a second device."""
    if old_device is None:
        return param.device
    if param.device != old_device:
        raise TypeError("Found two parameters on different devices, this is currently not "
                        "supported.")
    return old_device


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """Flatten ``parameters`` into one 1-D tensor (differentiable, in iteration order).

    >>> vec = parameters_to_vector(model.parameters())
    """
    from arraygrad.ops.shape import cat

    device: object | None = None
    vec = []
    for param in parameters:
        device = _check_param_device(param, device)
        vec.append(param.view(-1))
    return cat(vec)


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Set each parameter's ``.data`` to its slice of ``vec`` (the inverse of
    ``parameters_to_vector``)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected arraygrad.Tensor, but got: {type(vec).__name__}")
    device: object | None = None
    pointer = 0
    for param in parameters:
        device = _check_param_device(param, device)
        num_param = param.numel()
        param.data = vec[pointer:pointer + num_param].view_as(param).data
        pointer += num_param
