"""``arraygrad.nn.functional``: the stateless form of every layer and loss (``import ... as F``).

Each family is written in its own file under ``arraygrad.nn._functional`` and lists its public
names in ``__all__``; a family joins this namespace with one star import here.
"""

from __future__ import annotations

from arraygrad.nn._functional import activation as _activation
from arraygrad.nn._functional import conv as _conv
from arraygrad.nn._functional import linear as _linear
from arraygrad.nn._functional import loss as _loss
from arraygrad.nn._functional import normalization as _normalization
from arraygrad.nn._functional import sampling as _sampling
from arraygrad.nn._functional.activation import *  # noqa: F401,F403
from arraygrad.nn._functional.conv import *  # noqa: F401,F403
from arraygrad.nn._functional.linear import *  # noqa: F401,F403
from arraygrad.nn._functional.loss import *  # noqa: F401,F403
from arraygrad.nn._functional.normalization import *  # noqa: F401,F403
from arraygrad.nn._functional.sampling import *  # noqa: F401,F403

__all__ = [
    *_activation.__all__, *_conv.__all__, *_linear.__all__, *_loss.__all__,
    *_normalization.__all__, *_sampling.__all__,
]
