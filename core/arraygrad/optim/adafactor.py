"""``Adafactor`` (Shazeer & Stern, 2018), as ``torch.optim.Adafactor``: a second-moment
estimate factored into row and column means for matrices (``row_var``, ``col_var``: O(n + m)
state instead of O(n m)), a decay ``1 - beta2_t = t ** beta2_decay``, a relative step size
``rho_t = min(lr, 1 / sqrt(t))`` scaled by the parameter's RMS, and update clipping at ``d``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arraygrad.creation import zeros_like
from arraygrad.ops.families.dtype_queries import finfo
from arraygrad.optim._checks import scalar, step_tensor
from arraygrad.optim.optimizer import Optimizer
from arraygrad.tensor import Tensor

if TYPE_CHECKING:
    from arraygrad.optim.optimizer import ParamsT

__all__ = ["Adafactor"]


class Adafactor(Optimizer):
    """PyTorch's Adafactor. ``eps=(eps1, eps2)``: ``eps1`` (None: the dtype's machine
    epsilon) floors the variance estimate, ``eps2`` the parameter RMS in the step size;
    ``weight_decay`` is decoupled (``p *= 1 - lr * wd``). ``foreach`` is accepted and has no
    effect (one implementation)."""

    def __init__(self, params: ParamsT, lr: float | Tensor = 1e-2, beta2_decay: float = -0.8,
                 eps: tuple[float | None, float] = (None, 1e-3), d: float = 1.0,
                 weight_decay: float = 0.0, *, foreach: bool | None = None,
                 maximize: bool = False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= scalar(lr):
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d,
                        weight_decay=weight_decay, foreach=foreach, maximize=maximize)
        super().__init__(params, defaults)

    def _init_state(self, p: Tensor, grad: Tensor) -> dict[str, Any]:
        state = self.state[p]
        if not state:
            state["step"] = step_tensor(p)
            if grad.dim() > 1:
                # the variance's row and column means (reduced along the last two dims)
                state["row_var"] = grad.new_zeros((*grad.shape[:-1], 1))
                state["col_var"] = grad.new_zeros((*grad.shape[:-2], 1, grad.shape[-1]))
            else:
                state["variance"] = zeros_like(grad)
        return state

    def _update_group(self, group: dict[str, Any]) -> None:
        lr = scalar(group["lr"])
        eps1, eps2 = group["eps"]
        for p in group["params"]:
            if p.grad is None:
                continue
            grad = -p.grad if group["maximize"] else p.grad
            state = self._init_state(p, grad)
            if eps1 is None:
                eps1 = finfo(p.dtype).eps
            state["step"] += 1
            t = state["step"].item()
            one_minus_beta2_t = t ** group["beta2_decay"]
            rho_t = min(lr, 1 / (t ** 0.5))
            alpha = max(eps2, p.norm(2).item() / (p.numel() ** 0.5)) * rho_t
            if group["weight_decay"] != 0:
                p.mul_(1 - lr * group["weight_decay"])
            if grad.dim() > 1:
                row_var, col_var = state["row_var"], state["col_var"]
                row_mean = grad.norm(dim=-1, keepdim=True).square() / grad.size(-1)
                row_var.lerp_(row_mean, one_minus_beta2_t)
                col_mean = grad.norm(dim=-2, keepdim=True).square() / grad.size(-2)
                col_var.lerp_(col_mean, one_minus_beta2_t)
                var_estimate = (row_var @ col_var) / row_var.mean(
                    dim=-2, keepdim=True).clamp(min=eps1)
            else:
                variance = state["variance"]
                variance.lerp_(grad * grad, one_minus_beta2_t)
                var_estimate = variance.clone()
            # eps1 squared: the estimate's square root keeps eps1's magnitude
            update = var_estimate.clamp(min=eps1 * eps1).rsqrt() * grad
            denom = max(1.0, update.norm(2).item() / ((update.numel() ** 0.5) * group["d"]))
            p.add_(update, alpha=-alpha / denom)
