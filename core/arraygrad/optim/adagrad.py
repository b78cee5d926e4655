"""``Adagrad``: per-coordinate steps shrinking with the accumulated squared gradients."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arraygrad.live_scalars import live
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

    _takes_sparse_grads = True

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
        # scalar operands are read live (see Optimizer); a getter made in the loop binds
        # its parameter's step tensor as a default, as the loop variable moves on
        eps = live(lambda: group["eps"])
        wd = group["weight_decay"]
        if wd != 0:
            wd = live(lambda: group["weight_decay"])
        for p, g, state in self._grads(group):
            if g.is_sparse:
                if wd != 0:
                    raise RuntimeError("weight_decay option is not compatible with sparse "
                                       "gradients")
                g = g.to_dense()  # the same update: where it is zero, nothing changes
            state["step"] += 1
            t = state["step"]
            if wd != 0:
                g = g.add(p, alpha=wd)
            state["sum"].add_(g * g)
            std = state["sum"].sqrt().add(eps)
            p.add_(g / std, alpha=live(lambda t=t: -_clr(group, t.item())))


def _clr(group: dict[str, Any], step: float) -> float:
    """The decayed rate at step ``step``: ``lr / (1 + (step - 1) * lr_decay)``."""
    return scalar(group["lr"]) / (1 + (step - 1) * group["lr_decay"])