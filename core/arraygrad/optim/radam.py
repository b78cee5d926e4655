"""``RAdam``: Adam with the variance of the adaptive rate rectified in the first steps."""

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

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """PyTorch's RAdam: Adam's moments; ``rho_inf = 2 / (1 - b2) - 1``,
    ``rho_t = rho_inf - 2 t b2**t / (1 - b2**t)``; when ``rho_t > 5``
    ``p -= lr * m_hat * r_t * sqrt(1 - b2**t) / (sqrt(v) + eps)`` with the rectification
    ``r_t = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t))``,
    else ``p -= lr * m_hat`` (``m_hat = m / (1 - b1**t)``).

    ``weight_decay`` is L2 or, with ``decoupled_weight_decay=True``, ``p *= 1 - lr * wd``.
    State: ``step`` (0-d float32 tensor), ``exp_avg``, ``exp_avg_sq``.
    ``foreach``/``capturable`` have no effect.
    """

    def __init__(self, params: ParamsT, lr: float | Tensor = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, decoupled_weight_decay: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        check_lr(lr)
        check_non_negative("epsilon", eps)
        check_betas(betas)
        check_non_negative("weight_decay", weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def _update_group(self, group: dict[str, Any]) -> None:
        beta1, beta2 = group["betas"]
        eps = group["eps"]
        lr = _get_value(group["lr"])
        for p, g, state in self._grads(group):
            if not state:
                state["step"] = step_tensor(p)
                state["exp_avg"] = zeros_like(p)
                state["exp_avg_sq"] = zeros_like(p)
            step_t = state["step"]
            # read before the increment (so a compiled step checks the branch below up front);
            # the count after it, as PyTorch reads it
            step = _get_value(step_t) + 1
            step_t += 1
            g = weight_decay(p, g, group)
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            exp_avg.lerp_(g, 1 - beta1)
            exp_avg_sq.mul_(beta2).addcmul_(g, g, value=1 - beta2)
            bias_correction1 = 1 - beta1 ** step
            bias_correction2 = 1 - beta2 ** step
            bias_corrected_exp_avg = exp_avg / bias_correction1
            # the length of the approximated simple moving average
            rho_inf = 2 / (1 - beta2) - 1
            rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
            if rho_t > 5.0:
                rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                        / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                adaptive_lr = bias_correction2 ** 0.5 / exp_avg_sq.sqrt().add(eps)
                p.add_(bias_corrected_exp_avg * lr * adaptive_lr * rect, alpha=-1.0)
            else:
                p.add_(bias_corrected_exp_avg * lr, alpha=-1.0)
