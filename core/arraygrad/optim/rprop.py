"""``Rprop``: resilient backpropagation (per-coordinate step sizes from gradient signs)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arraygrad.creation import full_like, ones_like, zeros_like
from arraygrad.ops.elementwise import where
from arraygrad.optim._checks import check_lr, scalar, step_tensor
from arraygrad.optim.optimizer import Optimizer
from arraygrad.tensor import Tensor

if TYPE_CHECKING:
    from arraygrad.optim.optimizer import ParamsT

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """PyTorch's Rprop: with ``s = sign(g * prev)``, the step size is multiplied by
    ``etaplus`` where ``s > 0``, by ``etaminus`` where ``s < 0``, and clamped to
    ``step_sizes``; where ``s < 0`` the gradient is taken as 0 (no move, and ``prev = 0``);
    ``p -= sign(g) * step_size``; ``prev = g``.

    State: ``step`` (0-d float32 tensor), ``prev``, ``step_size`` (starts at ``lr``).
    ``foreach``/``capturable`` have no effect.
    """

    def __init__(self, params: ParamsT, lr: float | Tensor = 1e-2,
                 etas: tuple[float, float] = (0.5, 1.2),
                 step_sizes: tuple[float, float] = (1e-6, 50), *, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _update_group(self, group: dict[str, Any]) -> None:
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        for p, g, state in self._grads(group):
            if not state:
                state["step"] = step_tensor(p)
                state["prev"] = zeros_like(p)
                state["step_size"] = full_like(g, scalar(group["lr"]))
            state["step"] += 1
            prev, step_size = state["prev"], state["step_size"]
            sign = (g * prev).sign()
            # the factors in the parameter's dtype (a Python scalar in ``where`` would be float32)
            factor = where(sign > 0, full_like(sign, etaplus),
                           where(sign < 0, full_like(sign, etaminus), ones_like(sign)))
            step_size.mul_(factor).clamp_(step_size_min, step_size_max)
            # a sign change: no move this step, and the next step sees prev == 0
            g = where(sign < 0, zeros_like(g), g)
            p.addcmul_(g.sign(), step_size, value=-1)
            prev.copy_(g)
