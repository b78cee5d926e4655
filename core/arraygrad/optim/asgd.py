"""``ASGD``: averaged stochastic gradient descent (Polyak-Ruppert averaging after ``t0``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arraygrad.live_scalars import live, read_guarded
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
        # scalar operands are read live (see Optimizer); a getter made in the loop binds
        # its parameter's state as a default, as the loop variable moves on
        wd = group["weight_decay"]
        if wd != 0:
            wd = live(lambda: group["weight_decay"])
        for p, g, state in self._grads(group):
            if not state:
                state["step"] = step_tensor(p)
                state["eta"] = step_tensor(p, scalar(group["lr"]))
                state["mu"] = step_tensor(p, 1.0)
                state["ax"] = zeros_like(p)
            state["step"] += 1
            if wd != 0:
                g = g.add(p, alpha=wd)
            p.mul_(live(lambda s=state: 1 - group["lambd"] * s["eta"].item()))
            p.add_(g, alpha=live(lambda s=state: -s["eta"].item()))
            ax = state["ax"]
            # a Python branch on the state: _state_key guards it for a compiled step
            if read_guarded(lambda s=state: s["mu"].item() != 1):
                ax.add_(p.sub(ax).mul_(live(lambda s=state: s["mu"].item())))
            else:
                ax.copy_(p)
            state["eta"].fill_(live(lambda s=state: _eta(group, s["step"].item())))
            state["mu"].fill_(live(lambda s=state: 1 / max(1, s["step"].item() - group["t0"])))

    def _state_key(self, group: dict[str, Any], state: dict[str, Any]) -> Any:
        """The state's keys and whether the next step averages (``mu != 1``)."""
        return tuple(state), "mu" in state and state["mu"].item() != 1


def _eta(group: dict[str, Any], step: float) -> float:
    """The step size after step ``step``: ``lr / (1 + lambd * lr * step) ** alpha``."""
    lr = scalar(group["lr"])
    return lr / ((1 + group["lambd"] * lr * step) ** group["alpha"])