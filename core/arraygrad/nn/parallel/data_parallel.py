"""``DataParallel`` as the identity wrapper on one device (see the package docstring)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from arraygrad.nn.modules.module import Module

if TYPE_CHECKING:
    from arraygrad.device import DeviceLike

__all__ = ["DataParallel", "data_parallel"]


def _device_index(device: int | DeviceLike) -> int:
    """The index of ``device`` (an int, ``'cuda:1'`` or a device object); 0 when it has none."""
    from arraygrad.device import device as make_device

    if isinstance(device, bool):
        raise TypeError(f"device ids must be ints or devices, got {device!r}")
    if isinstance(device, int):
        return device
    index = make_device(device).index
    return 0 if index is None else index


class DataParallel(Module):
    """Wraps ``module``; calling it calls ``module`` on the inputs unchanged.

    PyTorch's ``DataParallel`` splits the batch along ``dim`` over ``device_ids`` and
    gathers the outputs on ``output_device``; arraygrad runs the whole batch on the device
    of the module's parameters, which gives the same result on one device. The
    arguments are kept as attributes (``device_ids``, ``output_device``, ``dim``).

    >>> model = nn.DataParallel(nn.Linear(4, 2))
    >>> list(model.state_dict())
    ['module.weight', 'module.bias']
    """

    def __init__(self, module: Module, device_ids: Sequence[int | DeviceLike] | None = None,
                 output_device: int | DeviceLike | None = None, dim: int = 0) -> None:
        super().__init__()
        if not isinstance(module, Module):
            raise TypeError(f"DataParallel: module must be an nn.Module, got "
                            f"{type(module).__name__}")
        ids = [] if device_ids is None else [_device_index(d) for d in device_ids]
        out = output_device if output_device is None else _device_index(output_device)
        self.module = module
        self.device_ids = ids
        self.output_device = ids[0] if out is None and ids else out
        self.dim = dim

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        """``self.module(*inputs, **kwargs)``."""
        return self.module(*inputs, **kwargs)


def data_parallel(module: Module, inputs: Any, device_ids: Sequence[int | DeviceLike] | None = None,
                  output_device: int | DeviceLike | None = None, dim: int = 0,
                  module_kwargs: dict[str, Any] | None = None) -> Any:
    """Functional ``DataParallel``: ``module(*inputs, **module_kwargs)`` on one device.

    ``inputs`` that is not a tuple is the single positional argument, as in PyTorch.
    """
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    return module(*inputs, **(module_kwargs or {}))
