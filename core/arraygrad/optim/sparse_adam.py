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

from typing import TYPE_CHECKING, Any

from arraygrad.creation import ones_like, zeros_like
from arraygrad.ops.elementwise import where
from arraygrad.optim._checks import check_betas, scalar
from arraygrad.optim.optimizer import Optimizer, _dispatch_sqrt, _get_value
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
        beta1, beta2 = group["betas"]
        eps = group["eps"]
        lr = _get_value(group["lr"])
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
            if not bool(mask.any()):  # (read into Python: a compiled step runs eagerly)
                continue
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            exp_avg.add_(where(mask, (g - exp_avg) * (1 - beta1), 0.0))
            exp_avg_sq.add_(where(mask, (g * g - exp_avg_sq) * (1 - beta2), 0.0))
            bias_correction1 = 1 - beta1 ** state["step"]
            bias_correction2 = 1 - beta2 ** state["step"]
            step_size = lr * _dispatch_sqrt(bias_correction2) / bias_correction1
            update = exp_avg / exp_avg_sq.sqrt().add(eps)
            p.add_(where(mask, update * -step_size, 0.0))


def _entries(g: Tensor) -> Tensor:
    """Where sparse ``g`` stores an entry, as a dense boolean tensor."""
    from arraygrad.sparse._creation import sparse_coo_tensor

    marks = ones_like(g._values())
    return sparse_coo_tensor(g._indices(), marks, tuple(g.shape)).to_dense() != 0
