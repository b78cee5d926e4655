"""``arraygrad.nn.functional``: the stateless form of every layer and loss (``import ... as F``).

Each family is written in its own file under ``arraygrad.nn._functional`` and lists its public
names in ``__all__``; a family joins this namespace with one star import here and one
entry in ``_FAMILIES``.
"""

from __future__ import annotations

from arraygrad.nn._functional import activation as _activation
from arraygrad.nn._functional import attention as _attention
from arraygrad.nn._functional import conv as _conv
from arraygrad.nn._functional import conv_tbc as _conv_tbc
from arraygrad.nn._functional import distance as _distance
from arraygrad.nn._functional import dropout as _dropout
from arraygrad.nn._functional import embedding_bag as _embedding_bag
from arraygrad.nn._functional import grouped_mm as _grouped_mm
from arraygrad.nn._functional import gumbel as _gumbel
from arraygrad.nn._functional import linear as _linear
from arraygrad.nn._functional import linear_cross_entropy as _linear_cross_entropy
from arraygrad.nn._functional import loss as _loss
from arraygrad.nn._functional import loss_ctc as _loss_ctc
from arraygrad.nn._functional import loss_margin as _loss_margin
from arraygrad.nn._functional import loss_nll as _loss_nll
from arraygrad.nn._functional import normalization as _normalization
from arraygrad.nn._functional import padding as _padding
from arraygrad.nn._functional import pooling as _pooling
from arraygrad.nn._functional import pooling_fractional as _pooling_fractional
from arraygrad.nn._functional import sampling as _sampling
from arraygrad.nn._functional import script_helpers as _script_helpers
from arraygrad.nn._functional.activation import *  # noqa: F401,F403
from arraygrad.nn._functional.attention import *  # noqa: F401,F403
from arraygrad.nn._functional.conv import *  # noqa: F401,F403
from arraygrad.nn._functional.conv_tbc import *  # noqa: F401,F403
from arraygrad.nn._functional.distance import *  # noqa: F401,F403
from arraygrad.nn._functional.dropout import *  # noqa: F401,F403
from arraygrad.nn._functional.embedding_bag import *  # noqa: F401,F403
from arraygrad.nn._functional.grouped_mm import *  # noqa: F401,F403
from arraygrad.nn._functional.gumbel import *  # noqa: F401,F403
from arraygrad.nn._functional.linear import *  # noqa: F401,F403
from arraygrad.nn._functional.linear_cross_entropy import *  # noqa: F401,F403
from arraygrad.nn._functional.loss import *  # noqa: F401,F403
from arraygrad.nn._functional.loss_ctc import *  # noqa: F401,F403
from arraygrad.nn._functional.loss_margin import *  # noqa: F401,F403
from arraygrad.nn._functional.loss_nll import *  # noqa: F401,F403
from arraygrad.nn._functional.normalization import *  # noqa: F401,F403
from arraygrad.nn._functional.padding import *  # noqa: F401,F403
from arraygrad.nn._functional.pooling import *  # noqa: F401,F403
from arraygrad.nn._functional.pooling_fractional import *  # noqa: F401,F403
from arraygrad.nn._functional.sampling import *  # noqa: F401,F403
from arraygrad.nn._functional.script_helpers import *  # noqa: F401,F403

_FAMILIES = (
    _activation,
    _attention,
    _conv,
    _conv_tbc,
    _distance,
    _dropout,
    _embedding_bag,
    _grouped_mm,
    _gumbel,
    _linear,
    _linear_cross_entropy,
    _loss,
    _loss_ctc,
    _loss_margin,
    _loss_nll,
    _normalization,
    _padding,
    _pooling,
    _pooling_fractional,
    _sampling,
    _script_helpers,
)
__all__ = [name for family in _FAMILIES for name in family.__all__]


def __getattr__(name: str) -> object:
    """A name PyTorch's ``torch.nn.functional`` has and arraygrad lists as absent: AttributeError with the
    reason (``absences.toml``)."""
    from arraygrad.absences import missing_attribute

    raise missing_attribute("torch.nn.functional", name, "arraygrad.nn.functional")
