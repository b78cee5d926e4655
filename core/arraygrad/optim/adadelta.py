"""``Adadelta``: steps scaled by the ratio of running RMS of updates and of gradients."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arraygrad.creation import zeros_like
from arraygrad.optim._checks import check_lr, check_non_negative, step_tensor
from arraygrad.optim.optimizer import Optimizer, _get_value
from arraygrad.tensor import Tensor

if TYPE_CHECKING:
    from arraygrad.optim.optimizer import ParamsT

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """PyTorch's Adadelta: ``g = ±grad + wd * p``; ``v = rho * v + (1 - rho) * g * g``;
    ``delta = sqrt(u + eps) / sqrt(v + eps) * g``; ``u = rho * u + (1 - rho) * delta**2``;
    ``p -= lr * delta``.

    State: ``step`` (0-d float32 tensor), ``square_avg`` (v), ``acc_delta`` (u).
    ``foreach``/``capturable`` are accepted and have no effect; ``differentiable=True``
    records the update.
    """

    def __init__(self, params: ParamsT, lr: float | Tensor = 1.0, rho: float = 0.9,
                 eps: float = 1e-6, weight_decay: float = 0, foreach: bool | None = None, *,
                 capturable: bool = False, maximize: bool = False,
                 differentiable: bool = False) -> None:
        check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        check_non_negative("epsilon", eps)
        check_non_negative("weight_decay", weight_decay)
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        capturable=capturable, foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    def _update_group(self, group: dict[str, Any]) -> None:
        rho, eps, wd = group["rho"], group["eps"], group["weight_decay"]
        lr = _get_value(group["lr"])
        for p, g, state in self._grads(group):
            if not state:
                state["step"] = step_tensor(p)
                state["square_avg"] = zeros_like(p)
                state["acc_delta"] = zeros_like(p)
            state["step"] += 1
            if wd != 0:
                g = g.add(p, alpha=wd)
            square_avg, acc_delta = state["square_avg"], state["acc_delta"]
            square_avg.mul_(rho).addcmul_(g, g, value=1 - rho)
            std = square_avg.add(eps).sqrt()
            delta = acc_delta.add(eps).sqrt().div(std).mul(g)
            acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
            p.add_(delta, alpha=-lr)
