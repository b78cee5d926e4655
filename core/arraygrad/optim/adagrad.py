"""``Adagrad``: per-coordinate steps shrinking with the accumulated squared gradients."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arraygrad.creation import full_like
from arraygrad.optim._checks import check_fused, check_lr, check_non_negative, scalar, step_tensor
from arraygrad.optim.optimizer import Optimizer

from arraygrad.tensor import Tensor

if TYPE_CHECKING:
    from arraygrad.optim.optimizer import ParamsT

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """PyTorch's Adagrad: ``clr = lr / (1 + (t - 1) * lr_decay)``; ``s += g * g``;
    ``p -= clr * g / (sqrt(s) + eps)``. State is created eagerly, as in PyTorch.
    ``foreach``/``fused`` are accepted and have no effect.
    """

    def __init__(self, params: ParamsT, lr: float | Tensor = 1e-2, lr_decay: float = 0,
                 weight_decay: float = 0, initial_accumulator_value: float = 0, eps: float = 1e-10,
                 foreach: bool | None = None, *, maximize: bool = False,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        check_lr(lr)
        check_non_negative("lr_decay", lr_decay)
        check_non_negative("weight_decay", weight_decay)
        check_non_negative("initial_accumulator_value", initial_accumulator_value)
        check_non_negative("epsilon", eps)
        check_fused(fused, foreach, differentiable)
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = step_tensor(p)
                state["sum"] = full_like(p, group["initial_accumulator_value"])

    def _update_group(self, group: dict[str, Any]) -> None:
        lr, lr_decay = scalar(group["lr"]), group["lr_decay"]
        wd, eps = group["weight_decay"], group["eps"]
        for p, g, state in self._grads(group):
            state["step"] += 1
            step = state["step"].item()
            if wd != 0:
                g = g.add(p, alpha=wd)
            clr = lr / (1 + (step - 1) * lr_decay)
            state["sum"].add_(g * g)
            std = state["sum"].sqrt().add(eps)
            p.add_(g / std, alpha=-clr)
