"""``ASGD``: averaged stochastic gradient descent (Polyak-Ruppert averaging after ``t0``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arraygrad.creation import zeros_like
from arraygrad.optim._checks import check_lr, check_non_negative, scalar, step_tensor
from arraygrad.optim.optimizer import Optimizer
from arraygrad.tensor import Tensor

if TYPE_CHECKING:
    from arraygrad.optim.optimizer import ParamsT

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """PyTorch's ASGD: ``g = ±grad + wd * p``; ``p *= 1 - lambd * eta``; ``p -= eta * g``;
    ``ax += mu * (p - ax)`` (``ax = p`` while ``mu == 1``); then
    ``eta = lr / (1 + lambd * lr * t)**alpha`` and ``mu = 1 / max(1, t - t0)``.

    State: ``step``, ``eta``, ``mu`` (0-d float32 tensors) and ``ax``, the averaged
    parameters. ``foreach``/``capturable`` have no effect.
    """

    def __init__(self, params: ParamsT, lr: float | Tensor = 1e-2, lambd: float = 1e-4,
                 alpha: float = 0.75, t0: float = 1e6, weight_decay: float = 0,
                 foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        check_lr(lr)
        check_non_negative("weight_decay", weight_decay)
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    def _update_group(self, group: dict[str, Any]) -> None:
        lr, lambd, alpha, t0 = scalar(group["lr"]), group["lambd"], group["alpha"], group["t0"]
        wd = group["weight_decay"]
        for p, g, state in self._grads(group):
            if not state:
                state["step"] = step_tensor(p)
                state["eta"] = step_tensor(p, lr)
                state["mu"] = step_tensor(p, 1.0)
                state["ax"] = zeros_like(p)
            state["step"] += 1
            if wd != 0:
                g = g.add(p, alpha=wd)
            eta = state["eta"].item()
            p.mul_(1 - lambd * eta)
            p.add_(g, alpha=-eta)
            ax, mu = state["ax"], state["mu"].item()
            if mu != 1:
                ax.add_(p.sub(ax).mul_(mu))
            else:
                ax.copy_(p)
            step = state["step"].item()
            state["eta"].fill_(lr / ((1 + lambd * lr * step) ** alpha))
            state["mu"].fill_(1 / max(1, step - t0))
