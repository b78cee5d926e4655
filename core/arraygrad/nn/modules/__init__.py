"""Every layer class of ``arraygrad.nn``, one family per file.

Each family file lists its classes in ``__all__``; a family joins the namespace with one star
import and one entry in ``_FAMILIES`` here.
"""

from arraygrad.nn.modules import module as _module
from arraygrad.nn.modules import activation as _activation
from arraygrad.nn.modules import adaptive as _adaptive
from arraygrad.nn.modules import attention as _attention
from arraygrad.nn.modules import batchnorm as _batchnorm
from arraygrad.nn.modules import channelshuffle as _channelshuffle
from arraygrad.nn.modules import container as _container
from arraygrad.nn.modules import conv as _conv
from arraygrad.nn.modules import distance as _distance
from arraygrad.nn.modules import dropout as _dropout
from arraygrad.nn.modules import flatten as _flatten
from arraygrad.nn.modules import fold as _fold
from arraygrad.nn.modules import instancenorm as _instancenorm
from arraygrad.nn.modules import lazy_layers as _lazy_layers
from arraygrad.nn.modules import legacy as _legacy
from arraygrad.nn.modules import linear as _linear
from arraygrad.nn.modules import linear_cross_entropy as _linear_cross_entropy
from arraygrad.nn.modules import loss as _loss
from arraygrad.nn.modules import loss_margin as _loss_margin
from arraygrad.nn.modules import normalization as _normalization
from arraygrad.nn.modules import padding as _padding
from arraygrad.nn.modules import pixelshuffle as _pixelshuffle
from arraygrad.nn.modules import pooling as _pooling
from arraygrad.nn.modules import pooling_fractional as _pooling_fractional
from arraygrad.nn.modules import rnn as _rnn
from arraygrad.nn.modules import sparse as _sparse
from arraygrad.nn.modules import transformer as _transformer
from arraygrad.nn.modules import upsampling as _upsampling
from arraygrad.nn.modules.module import *  # noqa: F401,F403
from arraygrad.nn.modules.activation import *  # noqa: F401,F403
from arraygrad.nn.modules.adaptive import *  # noqa: F401,F403
from arraygrad.nn.modules.attention import *  # noqa: F401,F403
from arraygrad.nn.modules.batchnorm import *  # noqa: F401,F403
from arraygrad.nn.modules.channelshuffle import *  # noqa: F401,F403
from arraygrad.nn.modules.container import *  # noqa: F401,F403
from arraygrad.nn.modules.conv import *  # noqa: F401,F403
from arraygrad.nn.modules.distance import *  # noqa: F401,F403
from arraygrad.nn.modules.dropout import *  # noqa: F401,F403
from arraygrad.nn.modules.flatten import *  # noqa: F401,F403
from arraygrad.nn.modules.fold import *  # noqa: F401,F403
from arraygrad.nn.modules.instancenorm import *  # noqa: F401,F403
from arraygrad.nn.modules.lazy_layers import *  # noqa: F401,F403
from arraygrad.nn.modules.legacy import *  # noqa: F401,F403
from arraygrad.nn.modules.linear import *  # noqa: F401,F403
from arraygrad.nn.modules.linear_cross_entropy import *  # noqa: F401,F403
from arraygrad.nn.modules.loss import *  # noqa: F401,F403
from arraygrad.nn.modules.loss_margin import *  # noqa: F401,F403
from arraygrad.nn.modules.normalization import *  # noqa: F401,F403
from arraygrad.nn.modules.padding import *  # noqa: F401,F403
from arraygrad.nn.modules.pixelshuffle import *  # noqa: F401,F403
from arraygrad.nn.modules.pooling import *  # noqa: F401,F403
from arraygrad.nn.modules.pooling_fractional import *  # noqa: F401,F403
from arraygrad.nn.modules.rnn import *  # noqa: F401,F403
from arraygrad.nn.modules.sparse import *  # noqa: F401,F403
from arraygrad.nn.modules.transformer import *  # noqa: F401,F403
from arraygrad.nn.modules.upsampling import *  # noqa: F401,F403

_FAMILIES = (
    _module,
    _activation,
    _adaptive,
    _attention,
    _batchnorm,
    _channelshuffle,
    _container,
    _conv,
    _distance,
    _dropout,
    _flatten,
    _fold,
    _instancenorm,
    _lazy_layers,
    _legacy,
    _linear,
    _linear_cross_entropy,
    _loss,
    _loss_margin,
    _normalization,
    _padding,
    _pixelshuffle,
    _pooling,
    _pooling_fractional,
    _rnn,
    _sparse,
    _transformer,
    _upsampling,
)
__all__ = [name for family in _FAMILIES for name in family.__all__]
