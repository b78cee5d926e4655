"""``arraygrad.nn.functional``: the stateless form of every layer and loss (``import ... as F``).

Each family is written in its own file under ``arraygrad.nn._functional`` and lists its public
names in ``__all__``; a family joins this namespace with one star import here and one
entry in ``_FAMILIES``.
"""

from __future__ import annotations

from arraygrad.nn._functional import activation as _activation
from arraygrad.nn._functional import attention as _attention
from arraygrad.nn._functional import conv as _conv
from arraygrad.nn._functional import dropout as _dropout
from arraygrad.nn._functional import linear as _linear
from arraygrad.nn._functional import loss as _loss
from arraygrad.nn._functional import normalization as _normalization
from arraygrad.nn._functional import padding as _padding
from arraygrad.nn._functional import pooling as _pooling
from arraygrad.nn._functional.activation import *  # noqa: F401,F403
from arraygrad.nn._functional.attention import *  # noqa: F401,F403
from arraygrad.nn._functional.conv import *  # noqa: F401,F403
from arraygrad.nn._functional.dropout import *  # noqa: F401,F403
from arraygrad.nn._functional.linear import *  # noqa: F401,F403
from arraygrad.nn._functional.loss import *  # noqa: F401,F403
from arraygrad.nn._functional.normalization import *  # noqa: F401,F403
from arraygrad.nn._functional.padding import *  # noqa: F401,F403
from arraygrad.nn._functional.pooling import *  # noqa: F401,F403

_FAMILIES = (
    _activation,
    _attention,
    _conv,
    _dropout,
    _linear,
    _loss,
    _normalization,
    _padding,
    _pooling,
)
__all__ = [name for family in _FAMILIES for name in family.__all__]
