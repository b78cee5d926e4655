"""``ASGD``: averaged stochastic gradient descent (Polyak-Ruppert averaging after ``t0``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arraygrad.creation import zeros_like
from arraygrad.optim._checks import check_lr, check_non_negative, scalar, step_tensor
from arraygrad.optim.optimizer import Optimizer, _get_value
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
        wd, lambd, alpha, t0 = group["weight_decay"], group["lambd"], group["alpha"], group["t0"]
        lr = _get_value(group["lr"])
        for p, g, state in self._grads(group):
            if not state:
                state["step"] = step_tensor(p)
                state["eta"] = step_tensor(p, scalar(group["lr"]))
                state["mu"] = step_tensor(p, 1.0)
                state["ax"] = zeros_like(p)
            step_t, eta_t, mu_t = state["step"], state["eta"], state["mu"]
            # read before this update writes them (so a compiled step checks its branches up
            # front); ``step`` is the count after the increment, as PyTorch reads it
            step = _get_value(step_t) + 1
            eta, mu = _get_value(eta_t), _get_value(mu_t)
            step_t += 1
            if wd != 0:
                g = g.add(p, alpha=wd)
            p.mul_(1 - lambd * eta)
            p.add_(g, alpha=-eta)
            ax = state["ax"]
            if mu != 1:
                ax.add_(p.sub(ax).mul_(mu))
            else:
                ax.copy_(p)
            eta_t.fill_(lr / ((1 + lambd * lr * step) ** alpha))
            mu_t.fill_(1 / max(1, step - t0))
