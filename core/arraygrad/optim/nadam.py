"""``NAdam``: Adam with Nesterov momentum and PyTorch's momentum-decay schedule."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arraygrad.creation import zeros_like
from arraygrad.optim._checks import (
    check_betas, check_lr, check_non_negative, step_tensor, weight_decay,
)
from arraygrad.optim.optimizer import Optimizer, _get_value
from arraygrad.tensor import Tensor

if TYPE_CHECKING:
    from arraygrad.optim.optimizer import ParamsT

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """PyTorch's NAdam: ``mu_t = b1 * (1 - 0.5 * 0.96**(t * momentum_decay))``;
    ``mu_product *= mu_t``; ``m = lerp(m, g, 1 - b1)``; ``v = b2 * v + (1 - b2) * g * g``;
    ``denom = sqrt(v / (1 - b2**t)) + eps``;
    ``p -= lr * (1 - mu_t) / (1 - mu_product) * g / denom
    + lr * mu_{t+1} / (1 - mu_product * mu_{t+1}) * m / denom``.

    ``weight_decay`` is L2 (added to ``g``) or, with ``decoupled_weight_decay=True``,
    ``p *= 1 - lr * wd`` (NAdamW). State: ``step`` and ``mu_product`` (0-d float32
    tensors), ``exp_avg``, ``exp_avg_sq``. ``foreach``/``capturable`` have no effect.
    """

    def __init__(self, params: ParamsT, lr: float | Tensor = 2e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, momentum_decay: float = 4e-3,
                 decoupled_weight_decay: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        check_lr(lr)
        check_non_negative("epsilon", eps)
        check_betas(betas)
        check_non_negative("weight_decay", weight_decay)
        check_non_negative("momentum_decay", momentum_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    def _update_group(self, group: dict[str, Any]) -> None:
        beta1, beta2 = group["betas"]
        eps, momentum_decay = group["eps"], group["momentum_decay"]
        lr = _get_value(group["lr"])
        for p, g, state in self._grads(group):
            if not state:
                state["step"] = step_tensor(p)
                state["mu_product"] = step_tensor(p, 1.0)
                state["exp_avg"] = zeros_like(p)
                state["exp_avg_sq"] = zeros_like(p)
            step_t, mu_product_t = state["step"], state["mu_product"]
            step_t += 1
            step = _get_value(step_t)
            g = weight_decay(p, g, group)
            # the momentum coefficients of this step and the next
            mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * momentum_decay))
            mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * momentum_decay))
            mu_product_t *= mu  # kept in the state's float32, as PyTorch
            mu_product = _get_value(mu_product_t)
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            exp_avg.lerp_(g, 1 - beta1)
            exp_avg_sq.mul_(beta2).addcmul_(g, g, value=1 - beta2)
            denom = exp_avg_sq.div(1 - beta2 ** step).sqrt()
            denom = denom.add(eps)
            p.addcdiv_(g, denom, value=-lr * (1.0 - mu) / (1.0 - mu_product))
            p.addcdiv_(exp_avg, denom, value=-lr * mu_next / (1.0 - mu_product * mu_next))
