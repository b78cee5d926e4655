"""``Adagrad``: per-coordinate steps shrinking with the accumulated squared gradients."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arraygrad.creation import full_like
from arraygrad.optim._checks import check_fused, check_lr, check_non_negative, step_tensor
from arraygrad.optim.optimizer import Optimizer, _get_value

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
                state["sum"] = _accumulator(p, group["initial_accumulator_value"])

    def _update_group(self, group: dict[str, Any]) -> None:
        eps, wd, lr_decay = group["eps"], group["weight_decay"], group["lr_decay"]
        lr = _get_value(group["lr"])
        for p, g, state in self._grads(group):
            if g.is_sparse:
                if wd != 0:
                    raise RuntimeError("weight_decay option is not compatible with sparse "
                                       "gradients")
                g = g.to_dense()  # the same update: where it is zero, nothing changes
            if not state:  # a parameter added by add_param_group: PyTorch's lazy state
                state["step"] = step_tensor(p)
                state["sum"] = _accumulator(p, self.defaults["initial_accumulator_value"])
            step_t = state["step"]
            step_t += 1
            step = _get_value(step_t)
            if wd != 0:
                g = g.add(p, alpha=wd)
            clr = lr / (1 + (step - 1) * lr_decay)
            state["sum"].add_(g * g)
            std = state["sum"].sqrt().add(eps)
            p.add_(g / std, alpha=-clr)


def _accumulator(p: Tensor, value: float) -> Tensor:
    """The initial sum of squares: ``value`` (``value + value*j`` for a complex parameter, as
    PyTorch's)."""
    return full_like(p, complex(value, value) if p.is_complex() else value)
