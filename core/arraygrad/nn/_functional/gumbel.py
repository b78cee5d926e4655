"""``gumbel_softmax``: a differentiable sample of a categorical distribution (Jang et al.,
"Categorical Reparameterization with Gumbel-Softmax"), PyTorch's formula and draws."""

from __future__ import annotations

import warnings

from arraygrad.tensor import Tensor

__all__ = ["gumbel_softmax"]


def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10,
                   dim: int = -1) -> Tensor:
    """``softmax((logits + g) / tau, dim)`` with ``g`` standard Gumbel noise (``-log`` of an
    exponential draw). ``hard=True``: the one-hot of its argmax in the forward, the soft
    sample's gradient in the backward (straight-through). ``eps`` is deprecated, unused."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    from arraygrad.creation import empty_like, zeros_like

    gumbels = -empty_like(logits).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = zeros_like(logits).scatter(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
