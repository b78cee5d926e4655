"""``SGD``: stochastic gradient descent with momentum, dampening, Nesterov and weight decay."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arraygrad.ops.fast_optim import sgd_step
from arraygrad.optim._checks import check_fused, check_lr, check_non_negative
from arraygrad.optim.optimizer import Optimizer, _get_value

from arraygrad.tensor import Tensor

if TYPE_CHECKING:
    from arraygrad.optim.optimizer import ParamsT

__all__ = ["SGD"]


class SGD(Optimizer):
    """PyTorch's SGD: ``g = ±grad + wd * p``; ``b = mu * b + (1 - dampening) * g`` (``b = g``
    at the first step); ``g = g + mu * b`` (Nesterov) or ``g = b``; ``p -= lr * g``.

    ``foreach``/``fused`` are accepted and have no effect (one implementation);
    ``differentiable=True`` records the update.
    """

    _takes_sparse_grads = True

    def __init__(self, params: ParamsT, lr: float | Tensor = 1e-3, momentum: float = 0,
                 dampening: float = 0, weight_decay: float = 0, nesterov: bool = False, *,
                 maximize: bool = False, foreach: bool | None = None, differentiable: bool = False,
                 fused: bool | None = None) -> None:
        check_lr(lr)
        check_non_negative("momentum", momentum)
        check_non_negative("weight_decay", weight_decay)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        check_fused(fused, foreach, differentiable)
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening,
                        weight_decay=weight_decay, nesterov=nesterov, maximize=maximize,
                        foreach=foreach, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)

    def _update_group(self, group: dict[str, Any]) -> None:
        momentum, dampening, nesterov = group["momentum"], group["dampening"], group["nesterov"]
        wd, maximize = group["weight_decay"], group["maximize"]
        # ``-lr`` once per group, not per parameter: under ``arraygrad.compile`` a live
        # learning rate's negation is one value read per replay, not one per parameter
        neg_lr = -_get_value(group["lr"])
        for p in group["params"]:
            # the slot, and the property (its warning) only where there is no gradient
            g = p._grad
            if g is None and p.grad is None:
                continue
            if sgd_step(p, self.state[p] if momentum != 0 else None, group, neg_lr):
                continue  # updated on its arrays, as the lines below would
            if g.is_sparse and (wd != 0 or momentum != 0):
                g = g.to_dense()  # the same update: the zeros of a sparse gradient add nothing
            if maximize:
                g = -g
            if wd != 0:
                g = g.add(p, alpha=wd)
            if momentum != 0:
                state = self.state[p]
                buf = state.get("momentum_buffer")
                if buf is None:
                    buf = state["momentum_buffer"] = g.detach().clone()
                else:
                    buf.mul_(momentum).add_(g, alpha=1 - dampening)
                g = g.add(buf, alpha=momentum) if nesterov else buf
            p.add_(g, alpha=neg_lr)
