"""``Muon`` (Keller Jordan's MomentUm Orthogonalized by Newton-schulz), as
``torch.optim.Muon``: SGD momentum (Nesterov by default) whose update, a matrix, is
orthogonalized by a quintic Newton-Schulz iteration before it is applied, with decoupled
weight decay and PyTorch's learning-rate adjustment for the matrix's shape.

PyTorch runs the Newton-Schulz iteration in bfloat16; arraygrad has no bfloat16 and runs it
in the gradient's dtype, so its updates agree with PyTorch's to bfloat16's precision (and
with PyTorch's formula exactly).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from arraygrad.creation import zeros_like
from arraygrad.ops.families.products import addmm
from arraygrad.optim._checks import scalar
from arraygrad.optim.optimizer import Optimizer
from arraygrad.tensor import Tensor

if TYPE_CHECKING:
    from arraygrad.optim.optimizer import ParamsT

__all__ = ["Muon"]

# Keller Jordan's constants (https://kellerjordan.github.io/posts/muon/)
EPS = 1e-7
DEFAULT_A = 3.4445
DEFAULT_B = -4.7750
DEFAULT_C = 2.0315
DEFAULT_NS_STEPS = 5


def zeropower_via_newtonschulz(grad: Tensor, ns_coefficients: tuple[float, float, float],
                               ns_steps: int, eps: float) -> Tensor:
    """The Newton-Schulz orthogonalization of the matrix ``grad`` (roughly ``U V^T`` of its
    SVD ``U S V^T``, with singular values near 1 rather than exactly 1)."""
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if len(grad.shape) != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = ns_coefficients
    ortho = grad.T if grad.size(0) > grad.size(1) else grad
    ortho = ortho / ortho.norm().clamp(min=eps)  # spectral norm at most 1
    for _ in range(ns_steps):
        gram = ortho @ ortho.T
        gram_update = addmm(gram, gram, gram, beta=b, alpha=c)
        ortho = addmm(ortho, gram_update, ortho, beta=a)
    return ortho.T if grad.size(0) > grad.size(1) else ortho


def _adjust_lr(lr: float, adjust_lr_fn: str | None, shape: tuple[int, ...]) -> float:
    """PyTorch's learning rate for a matrix of ``shape``: ``"original"`` (the default)
    ``lr * sqrt(max(1, rows / cols))``, ``"match_rms_adamw"`` ``lr * 0.2 * sqrt(max(rows,
    cols))``."""
    rows, cols = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        return lr * math.sqrt(max(1, rows / cols))
    if adjust_lr_fn == "match_rms_adamw":
        return lr * 0.2 * math.sqrt(max(rows, cols))
    return lr


class Muon(Optimizer):
    """PyTorch's Muon, for 2-D parameters only (use another optimizer for biases,
    embeddings and norms, as the Muon authors advise)."""

    def __init__(self, params: ParamsT, lr: float = 1e-3, weight_decay: float = 0.1,
                 momentum: float = 0.95, nesterov: bool = True,
                 ns_coefficients: tuple[float, float, float] = (DEFAULT_A, DEFAULT_B, DEFAULT_C),
                 eps: float = EPS, ns_steps: int = DEFAULT_NS_STEPS,
                 adjust_lr_fn: str | None = None) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= scalar(lr):
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ("original", "match_rms_adamw"):
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = dict(lr=lr, weight_decay=weight_decay, momentum=momentum, nesterov=nesterov,
                        ns_coefficients=ns_coefficients, eps=eps, ns_steps=ns_steps,
                        adjust_lr_fn=adjust_lr_fn)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError("Muon only supports 2D parameters whereas we found a "
                                     f"parameter with size: {p.size()}")

    def _update_group(self, group: dict[str, Any]) -> None:
        lr = scalar(group["lr"])
        momentum = group["momentum"]
        for p in group["params"]:
            if p.grad is None:
                continue
            grad = p.grad
            if grad.ndim != 2:
                raise ValueError("Param gradient must be a 2D matrix")
            state = self.state[p]
            if "momentum_buffer" not in state:
                state["momentum_buffer"] = zeros_like(grad)
            buf = state["momentum_buffer"]
            buf.lerp_(grad, 1 - momentum)
            update = grad.lerp(buf, momentum) if group["nesterov"] else buf
            update = zeropower_via_newtonschulz(update, group["ns_coefficients"],
                                                group["ns_steps"], group["eps"])
            p.mul_(1 - lr * group["weight_decay"])
            p.add_(update, alpha=-_adjust_lr(lr, group["adjust_lr_fn"], tuple(p.shape)))
