"""``RMSprop``: a running average of squared gradients scales each step."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arraygrad.creation import zeros_like
from arraygrad.optim._checks import check_lr, check_non_negative, step_tensor
from arraygrad.optim.optimizer import Optimizer, _get_value

from arraygrad.tensor import Tensor

if TYPE_CHECKING:
    from arraygrad.optim.optimizer import ParamsT

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """PyTorch's RMSprop: ``v = alpha * v + (1 - alpha) * g * g``; with ``centered`` the
    denominator is ``sqrt(v - mean(g)**2) + eps``, else ``sqrt(v) + eps``; with momentum
    ``b = mu * b + g / denom; p -= lr * b``, else ``p -= lr * g / denom``.
    ``foreach``/``capturable`` are accepted and have no effect.
    """

    def __init__(self, params: ParamsT, lr: float | Tensor = 1e-2, alpha: float = 0.99,
                 eps: float = 1e-8,
                 weight_decay: float = 0, momentum: float = 0, centered: bool = False,
                 capturable: bool = False, foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        check_lr(lr)
        check_non_negative("epsilon", eps)
        check_non_negative("momentum", momentum)
        check_non_negative("weight_decay", weight_decay)
        check_non_negative("alpha", alpha)
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                        maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    def _update_group(self, group: dict[str, Any]) -> None:
        wd, momentum, centered = group["weight_decay"], group["momentum"], group["centered"]
        alpha, eps = group["alpha"], group["eps"]
        lr = _get_value(group["lr"])
        for p, g, state in self._grads(group):
            if not state:
                state["step"] = step_tensor(p)
                state["square_avg"] = zeros_like(p)
                if momentum > 0:
                    state["momentum_buffer"] = zeros_like(p)
                if centered:
                    state["grad_avg"] = zeros_like(p)
            state["step"] += 1
            if wd != 0:
                g = g.add(p, alpha=wd)
            square_avg = state["square_avg"]
            square_avg.mul_(alpha).add_(g * g, alpha=1 - alpha)
            if centered:
                grad_avg = state["grad_avg"]
                grad_avg.add_((g - grad_avg) * (1 - alpha))
                avg = (square_avg - grad_avg * grad_avg).sqrt()
            else:
                avg = square_avg.sqrt()
            avg = avg.add(eps)  # out of place: a differentiable step keeps sqrt's output
            if momentum > 0:
                buf = state["momentum_buffer"]
                buf.mul_(momentum).add_(g / avg)
                p.add_(buf, alpha=-lr)
            else:
                p.add_(g / avg, alpha=-lr)
