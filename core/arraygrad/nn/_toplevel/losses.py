"""Top-level losses (``torch.kl_div``, ``torch.ctc_loss``...): PyTorch's ATen signatures, the
reduction an integer (0 none, 1 mean, 2 sum) or a name, over ``nn.functional``."""

from __future__ import annotations

import warnings
from typing import Any, Sequence

from arraygrad.nn._functional import loss as _loss, loss_ctc as _ctc
from arraygrad.nn._functional import loss_margin as _margin, loss_nll as _nll
from arraygrad.nn._toplevel._args import reduction_name
from arraygrad.tensor import Tensor

__all__ = ["binary_cross_entropy_with_logits", "cosine_embedding_loss", "ctc_loss",
           "hinge_embedding_loss", "kl_div", "margin_ranking_loss", "poisson_nll_loss",
           "triplet_margin_loss"]


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     pos_weight: Tensor | None = None,
                                     reduction: Any = 1) -> Tensor:
    """Binary cross entropy of logits ``input``."""
    return _loss.binary_cross_entropy_with_logits(input, target, weight,
                                                  reduction=reduction_name(reduction),
                                                  pos_weight=pos_weight)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          reduction: Any = 1) -> Tensor:
    """The cosine embedding loss."""
    return _margin.cosine_embedding_loss(input1, input2, target, margin,
                                         reduction=reduction_name(reduction))


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Tensor | Sequence[int],
             target_lengths: Tensor | Sequence[int], blank: int = 0, reduction: Any = 1,
             zero_infinity: bool = False) -> Tensor:
    """The connectionist temporal classification loss."""
    return _ctc.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                         reduction_name(reduction), zero_infinity)


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0,
                         reduction: Any = 1) -> Tensor:
    """The hinge embedding loss."""
    return _margin.hinge_embedding_loss(input, target, margin,
                                        reduction=reduction_name(reduction))


def kl_div(input: Tensor, target: Tensor, reduction: Any = 1, *,
           log_target: bool = False) -> Tensor:
    """The Kullback-Leibler divergence of log-probabilities ``input`` from ``target``
    (``mean`` over every element, without ``nn.functional``'s batchmean warning)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="reduction: 'mean' divides")
        return _loss.kl_div(input, target, reduction=reduction_name(reduction),
                            log_target=log_target)


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        reduction: Any = 1) -> Tensor:
    """The margin ranking loss."""
    return _margin.margin_ranking_loss(input1, input2, target, margin,
                                       reduction=reduction_name(reduction))


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float,
                     reduction: Any) -> Tensor:
    """The Poisson negative log likelihood (every argument required, as ATen's)."""
    return _nll.poisson_nll_loss(input, target, log_input, full, eps=eps,
                                 reduction=reduction_name(reduction))


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0,
                        p: float = 2.0, eps: float = 1e-6, swap: bool = False,
                        reduction: Any = 1) -> Tensor:
    """The triplet margin loss."""
    return _margin.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                       reduction=reduction_name(reduction))
