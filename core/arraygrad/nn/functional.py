"""``arraygrad.nn.functional``: the stateless form of every layer and loss (``import ... as F``).

Each family is written in its own file under ``arraygrad.nn._functional`` and lists its public
names in ``__all__``; a family joins this namespace with one star import here.
"""

from __future__ import annotations

from arraygrad.nn._functional import activation as _activation
from arraygrad.nn._functional import conv as _conv
from arraygrad.nn._functional import distance as _distance
from arraygrad.nn._functional import embedding_bag as _embedding_bag
from arraygrad.nn._functional import linear as _linear
from arraygrad.nn._functional import loss as _loss
from arraygrad.nn._functional import loss_ctc as _loss_ctc
from arraygrad.nn._functional import loss_margin as _loss_margin
from arraygrad.nn._functional import loss_nll as _loss_nll
from arraygrad.nn._functional import normalization as _normalization
from arraygrad.nn._functional.activation import *  # noqa: F401,F403
from arraygrad.nn._functional.conv import *  # noqa: F401,F403
from arraygrad.nn._functional.distance import *  # noqa: F401,F403
from arraygrad.nn._functional.embedding_bag import *  # noqa: F401,F403
from arraygrad.nn._functional.linear import *  # noqa: F401,F403
from arraygrad.nn._functional.loss import *  # noqa: F401,F403
from arraygrad.nn._functional.loss_ctc import *  # noqa: F401,F403
from arraygrad.nn._functional.loss_margin import *  # noqa: F401,F403
from arraygrad.nn._functional.loss_nll import *  # noqa: F401,F403
from arraygrad.nn._functional.normalization import *  # noqa: F401,F403

__all__ = [
    *_activation.__all__, *_conv.__all__, *_distance.__all__, *_embedding_bag.__all__,
    *_linear.__all__,
    *_loss.__all__, *_loss_ctc.__all__,
    *_loss_margin.__all__, *_loss_nll.__all__,
    *_normalization.__all__,
]
