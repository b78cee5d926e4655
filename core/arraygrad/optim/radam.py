"""``RAdam``: Adam with the variance of the adaptive rate rectified in the first steps."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from arraygrad.live_scalars import live, read_guarded
from arraygrad.creation import zeros_like
from arraygrad.optim._checks import (
    check_betas, check_lr, check_non_negative, scalar, step_tensor, weight_decay,
)
from arraygrad.optim.optimizer import Optimizer
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
        # scalar operands are read live (see Optimizer); a getter made in the loop binds
        # its parameter's step tensor as a default, as the loop variable moves on
        one_minus_beta1 = live(lambda: 1 - group["betas"][0])
        beta2 = live(lambda: group["betas"][1])
        one_minus_beta2 = live(lambda: 1 - group["betas"][1])
        eps = live(lambda: group["eps"])
        lr = live(lambda: scalar(group["lr"]))
        for p, g, state in self._grads(group):
            if not state:
                state["step"] = step_tensor(p)
                state["exp_avg"] = zeros_like(p)
                state["exp_avg_sq"] = zeros_like(p)
            state["step"] += 1
            t = state["step"]
            g = weight_decay(p, g, group)
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            exp_avg.lerp_(g, one_minus_beta1)
            exp_avg_sq.mul_(beta2).addcmul_(g, g, value=one_minus_beta2)
            corrected = exp_avg / live(lambda t=t: 1 - group["betas"][0] ** t.item())
            # a Python branch on the step: _state_key guards it for a compiled step
            if read_guarded(lambda t=t: _rho(group["betas"][1], t.item()) > 5.0):
                adaptive = (live(lambda t=t: (1 - group["betas"][1] ** t.item()) ** 0.5)
                            / exp_avg_sq.sqrt().add(eps))
                rect = live(lambda t=t: _rectification(group["betas"][1], t.item()))
                p.add_(corrected * lr * adaptive * rect, alpha=-1.0)
            else:
                p.add_(corrected * lr, alpha=-1.0)

    def _state_key(self, group: dict[str, Any], state: dict[str, Any]) -> Any:
        """The state's keys and whether the next step rectifies (``rho_t > 5``)."""
        step = state["step"].item() + 1 if "step" in state else 1
        return tuple(state), _rho(group["betas"][1], step) > 5.0


def _rho(beta2: float, step: float) -> float:
    """The length of the approximated simple moving average, ``rho_t``."""
    rho_inf = 2 / (1 - beta2) - 1
    return rho_inf - 2 * step * beta2 ** step / (1 - beta2 ** step)


def _rectification(beta2: float, step: float) -> float:
    """The variance rectification term ``r_t``."""
    rho_inf = 2 / (1 - beta2) - 1
    rho_t = _rho(beta2, step)
    return math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf
                     / ((rho_inf - 4) * (rho_inf - 2) * rho_t))