"""``Adamax``: Adam with the infinity norm in place of the second moment."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arraygrad.creation import zeros_like
from arraygrad.ops.elementwise import maximum
from arraygrad.optim._checks import (check_betas, check_lr, check_non_negative,
                                     step_tensor)
from arraygrad.optim.optimizer import Optimizer, _get_value
from arraygrad.tensor import Tensor

if TYPE_CHECKING:
    from arraygrad.optim.optimizer import ParamsT

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """PyTorch's Adamax: ``g = ±grad + wd * p``; ``m = lerp(m, g, 1 - b1)``;
    ``u = max(b2 * u, |g| + eps)``; ``p -= lr / (1 - b1**t) * m / u``.

    State: ``step`` (0-d float32 tensor), ``exp_avg`` (m), ``exp_inf`` (u).
    ``foreach``/``capturable`` are accepted and have no effect; ``differentiable=True``
    records the update.
    """

    def __init__(self, params: ParamsT, lr: float | Tensor = 2e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False,
                 capturable: bool = False) -> None:
        check_lr(lr)
        check_non_negative("epsilon", eps)
        check_betas(betas)
        check_non_negative("weight_decay", weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _update_group(self, group: dict[str, Any]) -> None:
        beta1, beta2 = group["betas"]
        eps, wd = group["eps"], group["weight_decay"]
        lr = _get_value(group["lr"])
        for p, g, state in self._grads(group):
            if not state:
                state["step"] = step_tensor(p)
                state["exp_avg"] = zeros_like(p)
                state["exp_inf"] = zeros_like(p)
            step_t = state["step"]
            step_t += 1
            step = _get_value(step_t)
            if wd != 0:
                g = g.add(p, alpha=wd)
            exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
            exp_avg.lerp_(g, 1 - beta1)
            exp_inf.copy_(maximum(exp_inf * beta2, g.abs().add(eps)))
            clr = lr / (1 - beta1 ** step)
            p.addcdiv_(exp_avg, exp_inf, value=-clr)
