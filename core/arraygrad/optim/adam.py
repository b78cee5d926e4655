"""``Adam`` and ``AdamW`` (decoupled weight decay), with AMSGrad and ``maximize``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any


from arraygrad.creation import zeros_like
from arraygrad.ops.elementwise import maximum
from arraygrad.ops.fast_optim import adam_step
from arraygrad.optim._checks import (
    check_betas, check_fused, check_lr, check_non_negative, scalar, step_tensor, weight_decay,
)
from arraygrad.optim.optimizer import Optimizer, _dispatch_sqrt, _get_value

from arraygrad.tensor import Tensor

if TYPE_CHECKING:
    from arraygrad.optim.optimizer import ParamsT

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    """PyTorch's Adam: moments ``m = lerp(m, g, 1 - b1)``, ``v = b2 * v + (1 - b2) * g * g``,
    ``p -= lr / (1 - b1**t) * m / (sqrt(v) / sqrt(1 - b2**t) + eps)``.

    ``weight_decay`` adds ``wd * p`` to the gradient (L2); with
    ``decoupled_weight_decay=True`` (``AdamW``) ``p *= 1 - lr * wd`` instead.
    ``foreach``/``fused``/``capturable`` are accepted and have no effect (one
    implementation); ``differentiable=True`` records the update.
    """

    _sparse_name = "Adam"  # AdamW's refusal too, as PyTorch words it

    def __init__(self, params: ParamsT, lr: float | Tensor = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False,
                 fused: bool | None = None, decoupled_weight_decay: bool = False) -> None:
        check_lr(lr)
        check_non_negative("epsilon", eps)
        check_betas(betas)
        check_non_negative("weight_decay", weight_decay)
        check_fused(fused, foreach, differentiable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        amsgrad=amsgrad, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)

    def _init_state(self, p: Tensor, amsgrad: bool) -> dict[str, Any]:
        state = self.state[p]
        if not state:
            # PyTorch keeps ``step`` as a float32 scalar tensor
            state["step"] = step_tensor(p)
            state["exp_avg"] = zeros_like(p)
            state["exp_avg_sq"] = zeros_like(p)
            if amsgrad:
                state["max_exp_avg_sq"] = zeros_like(p)
        return state

    def _update_group(self, group: dict[str, Any]) -> None:
        amsgrad, maximize = group["amsgrad"], group["maximize"]
        beta1, beta2 = group["betas"]
        eps = group["eps"]
        lr = _get_value(group["lr"])
        for p in group["params"]:
            # the slot, and the property (its warning) only where there is no gradient
            g = p._grad
            if g is None and p.grad is None:
                continue
            state = self._init_state(p, amsgrad)
            if adam_step(p, state, group, lr, amsgrad):
                continue  # the same update on the arrays (ops.fast_optim)
            g = -g if maximize else g
            g = weight_decay(p, g, group)
            step_t = state["step"]
            step_t += 1
            step = _get_value(step_t)
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            exp_avg.add_((g - exp_avg) * (1 - beta1))  # lerp, as PyTorch
            exp_avg_sq.mul_(beta2).add_(g * g, alpha=1 - beta2)
            step_size = lr / (1 - beta1 ** step)
            bias_correction2_sqrt = _dispatch_sqrt(1 - beta2 ** step)
            if amsgrad:
                max_sq = state["max_exp_avg_sq"]
                max_sq.copy_(maximum(max_sq, exp_avg_sq))
                denom = (max_sq.sqrt() / bias_correction2_sqrt).add(eps)
            else:
                denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add(eps)
            p.add_(exp_avg / denom, alpha=-step_size)


class AdamW(Adam):
    """Adam with decoupled weight decay: ``p *= 1 - lr * wd`` before the Adam step."""

    def __init__(self, params: ParamsT, lr: float | Tensor = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None, capturable: bool = False,
                 differentiable: bool = False,
                 fused: bool | None = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
