"""The older, hook-based ``nn.utils.weight_norm`` / ``remove_weight_norm`` (deprecated in
PyTorch in favour of ``nn.utils.parametrizations.weight_norm``, still common in published
models): parameters ``<name>_g`` and ``<name>_v``, the weight recomputed before each forward."""

from __future__ import annotations

import warnings
from typing import Any

from arraygrad.nn.modules.module import Module
from arraygrad.nn.parameter import Parameter
from arraygrad.nn.utils._norms import hook_on, norm_except_dim, put_back, weight_norm_weight

__all__ = ["weight_norm", "remove_weight_norm", "WeightNorm"]


class WeightNorm:
    """The forward pre-hook that recomputes ``module.<name>`` from ``<name>_g``/``<name>_v``."""

    def __init__(self, name: str, dim: int) -> None:
        self.name = name
        self.dim = dim

    def compute_weight(self, module: Module) -> Any:
        """``v * g / ||v||`` from the module's current parameters."""
        return weight_norm_weight(getattr(module, self.name + "_g"),
                                  getattr(module, self.name + "_v"), self.dim)

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Split ``module.<name>`` into ``<name>_g`` (magnitude) and ``<name>_v`` (direction)
    parameters; returns ``module``."""
    warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                  "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=2)
    if hook_on(module, WeightNorm, name) is not None:
        raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
    weight = module._parameters.get(name)
    if weight is None:
        raise ValueError(f"Module '{type(module).__name__}' has no parameter '{name}'")
    dim = -1 if dim is None else dim
    fn = WeightNorm(name, dim)
    del module._parameters[name]
    module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, dim).detach()))
    module.register_parameter(name + "_v", Parameter(weight.detach()))
    setattr(module, name, fn.compute_weight(module))
    module.register_forward_pre_hook(fn)
    return module


def remove_weight_norm(module: Module, name: str = "weight") -> Module:
    """Put ``module.<name>`` back as one parameter (its current value); returns ``module``."""
    found = hook_on(module, WeightNorm, name)
    if found is None:
        raise ValueError(f"weight_norm of '{name}' not found in {module}")
    key, hook = found
    return put_back(module, name, key, hook.compute_weight(module).detach(),
                    (name + "_g", name + "_v"))
