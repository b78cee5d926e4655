"""``SparseAdam``: Adam that updates only the entries a gradient touches.

A sparse gradient (``nn.Embedding(sparse=True)``'s) touches its stored entries: PyTorch's
masked update runs on those, and the moments and parameters of the other entries are left
untouched. Where PyTorch raises ``RuntimeError("SparseAdam does not support dense
gradients")``, this SparseAdam takes the non-zero entries of a dense gradient as the entries
(what ``grad.to_sparse()`` keeps), the semantics PyTorch documents for SparseAdam ("masking
out the parameter and moment updates corresponding to the zero values in the gradients").
arraygrad has no complex dtypes, so PyTorch's refusal of complex parameters cannot arise.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from arraygrad.live_scalars import live
from arraygrad.creation import ones_like, zeros_like
from arraygrad.ops.elementwise import where
from arraygrad.optim._checks import check_betas, scalar
from arraygrad.optim.optimizer import Optimizer
from arraygrad.tensor import Tensor

if TYPE_CHECKING:
    from arraygrad.optim.optimizer import ParamsT

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """PyTorch's SparseAdam, on a sparse gradient's entries (or a dense gradient's non-zero
    entries: see the module docstring). On those entries: ``m += (g - m) * (1 - b1)``,
    ``v += (g * g - v) * (1 - b2)``,
    ``p -= lr * sqrt(1 - b2**t) / (1 - b1**t) * m / (sqrt(v) + eps)``.

    State: ``step`` (a Python int, as PyTorch), ``exp_avg``, ``exp_avg_sq``.
    """

    _takes_sparse_grads = True

    def __init__(self, params: ParamsT, lr: float | Tensor = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 maximize: bool = False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 < scalar(lr):
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        check_betas(betas)
        defaults = dict(lr=lr, betas=betas, eps=eps, maximize=maximize)
        super().__init__(params, defaults)

    def _update_group(self, group: dict[str, Any]) -> None:
        # scalar operands are read live (see Optimizer), although reading the mask into
        # Python (``bool(mask.any())``) makes a compiled step run eagerly anyway
        one_minus_beta1 = live(lambda: 1 - group["betas"][0])
        one_minus_beta2 = live(lambda: 1 - group["betas"][1])
        eps = live(lambda: group["eps"])
        for p in group["params"]:
            if p.grad is None:
                continue
            state = self.state[p]
            if not state:
                state["step"] = 0
                state["exp_avg"] = zeros_like(p)
                state["exp_avg_sq"] = zeros_like(p)
            state["step"] += 1
            g = -p.grad if group.get("maximize", False) else p.grad
            if g.is_sparse:  # its stored entries, explicit zeros included
                mask = _entries(g)
                g = g.to_dense()
            else:
                mask = g != 0
            if not bool(mask.any()):
                continue
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            exp_avg.add_(where(mask, (g - exp_avg) * one_minus_beta1, 0.0))
            exp_avg_sq.add_(where(mask, (g * g - exp_avg_sq) * one_minus_beta2, 0.0))
            neg_step_size = live(lambda s=state: -_step_size(group, s["step"]))
            update = exp_avg / exp_avg_sq.sqrt().add(eps)
            p.add_(where(mask, update * neg_step_size, 0.0))


def _step_size(group: dict[str, Any], step: int) -> float:
    """``lr * sqrt(1 - b2**t) / (1 - b1**t)``."""
    beta1, beta2 = group["betas"]
    return scalar(group["lr"]) * math.sqrt(1 - beta2 ** step) / (1 - beta1 ** step)

def _entries(g: Tensor) -> Tensor:
    """Where sparse ``g`` stores an entry, as a dense boolean tensor."""
    from arraygrad.sparse._creation import sparse_coo_tensor

    marks = ones_like(g._values())
    return sparse_coo_tensor(g._indices(), marks, tuple(g.shape)).to_dense() != 0
