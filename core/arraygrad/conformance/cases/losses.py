"""Losses, distances and ``embedding_bag`` of ``nn.functional``: class labels, bag offsets and
CTC targets are constant inputs (``consts``); piecewise-linear losses use ``grid`` inputs,
away from their kinks."""

from __future__ import annotations

from typing import Any

import arraygrad as ag
from arraygrad.conformance.cases._make import case
from arraygrad.nn import functional as F

# CTC is differentiable once (as in PyTorch); multilabel_soft_margin's second derivative is
# checked in tests/nn (on the broken-exp backend its gradgradcheck passes or fails by chance)
_NO_DOUBLE = ("forward", "grad", "dtypes", "devices")
PM = [1.0, -1.0, 1.0]
CLS = [0, 3, 1]
MULTI = [[0, 2, -1, 1], [3, -1, 0, 0], [1, 2, 3, 0]]


def _ctc(x: Any, targets: Any) -> Any:
    return F.ctc_loss(x.log_softmax(2), targets, [4, 3], [2, 1], reduction="none")


CASES = (
    case("binary_cross_entropy", "mean", lambda x, t: F.binary_cross_entropy(x, t),
         [(2, 3), (2, 3)], low=0.1, high=0.9),
    case("smooth_l1_loss", "beta", lambda x, y: F.smooth_l1_loss(x, y, beta=0.3, reduction="none"),
         [(2, 3), (2, 3)], "grid"),
    case("huber_loss", "delta", lambda x, y: F.huber_loss(x, y, delta=0.4, reduction="sum"),
         [(2, 3), (2, 3)], "grid"),
    case("cosine_similarity", "broadcast", lambda a, b: F.cosine_similarity(a, b, dim=-1),
         [(2, 3, 4), (3, 1)], "away"),
    case("normalize", "p3", lambda a: F.normalize(a, p=3.0, dim=0), [(3, 2)], "away"),
    case("pairwise_distance", "p2", lambda a, b: F.pairwise_distance(a, b), [(3, 4), (4,)]),
    case("cdist", "p2", lambda a, b: ag.cdist(a, b), [(3, 2), (4, 2)], "grid"),
    case("cdist", "p1.5-batch", lambda a, b: ag.cdist(a, b, p=1.5), [(2, 3, 2), (1, 2, 2)],
         "grid"),
    case("cdist", "mm", lambda a, b: ag.cdist(a, b, compute_mode="use_mm_for_euclid_dist"),
         [(3, 2), (4, 2)], "grid"),
    case("cosine_embedding_loss", "margin",
         lambda a, b, y: F.cosine_embedding_loss(a, b, y, margin=-0.9, reduction="none"),
         [(3, 4), (3, 4)], "away", consts=[PM]),
    case("margin_ranking_loss", "margin",
         lambda a, b, y: F.margin_ranking_loss(a, b, y, margin=0.1, reduction="sum"),
         [(3,), (3,)], "grid", consts=[PM]),
    case("hinge_embedding_loss", "margin",
         lambda a, y: F.hinge_embedding_loss(a, y, margin=0.6, reduction="none"),
         [(3,)], "grid", consts=[PM]),
    case("soft_margin_loss", "mean", lambda a, y: F.soft_margin_loss(a, y), [(3,)], consts=[PM]),
    case("multilabel_soft_margin_loss", "weight",
         lambda a, t, w: F.multilabel_soft_margin_loss(a, t, w), [(3, 4), (3, 4), (4,)],
         low=0.1, high=0.9, checks=_NO_DOUBLE),  # gradgradcheck: tests/nn/test_losses_more.py
    case("multilabel_margin_loss", "none",
         lambda a, t: F.multilabel_margin_loss(a, t, reduction="none"), [(3, 4)], "grid",
         consts=[MULTI]),
    case("multi_margin_loss", "p2-weight",
         lambda a, w, t: F.multi_margin_loss(a, t, p=2, margin=0.8, weight=w),
         [(3, 4), (4,)], "grid", consts=[CLS]),
    case("triplet_margin_loss", "swap",
         lambda a, p, n: F.triplet_margin_loss(a, p, n, margin=2.0, swap=True, reduction="none"),
         [(3, 4), (3, 4), (3, 4)], "grid"),
    case("triplet_margin_with_distance_loss", "cosine",
         lambda a, p, n: F.triplet_margin_with_distance_loss(
             a, p, n, distance_function=lambda u, v: 1 - F.cosine_similarity(u, v), margin=2.5),
         [(3, 4), (3, 4), (3, 4)], "away"),
    case("gaussian_nll_loss", "full",
         lambda x, y, v: F.gaussian_nll_loss(x, y, v.abs(), full=True),
         [(3, 4), (3, 4), (3, 1)], "away"),
    case("poisson_nll_loss", "full",
         lambda x, t: F.poisson_nll_loss(x, t, log_input=False, full=True, reduction="none"),
         [(2, 3), (2, 3)], low=0.5, high=3.0),
    case("embedding_bag", "sum-weights",
         lambda w, p, i, o: F.embedding_bag(i, w, o, mode="sum", per_sample_weights=p),
         [(5, 3), (6,)], consts=[[1, 2, 4, 1, 0, 3], [0, 2, 2]]),
    case("embedding_bag", "mean-padding",
         lambda w, i: F.embedding_bag(i, w, mode="mean", padding_idx=2), [(5, 3)],
         consts=[[[1, 2, 4], [2, 0, 0]]]),
    case("embedding_bag", "max", lambda w, i, o: F.embedding_bag(i, w, o, mode="max"),
         [(5, 3)], "grid", consts=[[1, 2, 4, 1, 0, 3], [0, 3]]),
    case("ctc_loss", "log_softmax", _ctc, [(4, 2, 3)], consts=[[[1, 2], [2, 0]]],
         checks=_NO_DOUBLE, tags=("values_shape",)),  # (the alignment lattice is the targets' values)
)
