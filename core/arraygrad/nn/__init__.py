"""``arraygrad.nn``: modules, parameters, ``functional`` and ``init``, with PyTorch's API.

>>> import arraygrad as ag
>>> from arraygrad import nn
>>> model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
>>> loss = nn.MSELoss()(model(ag.randn(2, 4)), ag.zeros(2, 1))
>>> loss.backward()
"""

from arraygrad.nn import attention, common_types, functional, grad, init, parallel, utils
from arraygrad.nn._factory_kwargs import factory_kwargs
# each layer family straight from its file, star and ``__all__`` alike: the form ``mypy
# --strict`` follows (it does not see names re-exported through ``nn.modules``'s own list)
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
from arraygrad.nn.parallel import DataParallel
from arraygrad.nn.parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter

__all__ = ["Buffer", "DataParallel", "Parameter", "UninitializedBuffer", "UninitializedParameter",
           "attention", "common_types", "factory_kwargs", "functional", "grad", "init", "parallel", "utils"]
__all__ += _module.__all__
__all__ += _activation.__all__
__all__ += _adaptive.__all__
__all__ += _attention.__all__
__all__ += _batchnorm.__all__
__all__ += _channelshuffle.__all__
__all__ += _container.__all__
__all__ += _conv.__all__
__all__ += _distance.__all__
__all__ += _dropout.__all__
__all__ += _flatten.__all__
__all__ += _fold.__all__
__all__ += _instancenorm.__all__
__all__ += _lazy_layers.__all__
__all__ += _legacy.__all__
__all__ += _linear.__all__
__all__ += _linear_cross_entropy.__all__
__all__ += _loss.__all__
__all__ += _loss_margin.__all__
__all__ += _normalization.__all__
__all__ += _padding.__all__
__all__ += _pixelshuffle.__all__
__all__ += _pooling.__all__
__all__ += _pooling_fractional.__all__
__all__ += _rnn.__all__
__all__ += _sparse.__all__
__all__ += _transformer.__all__
__all__ += _upsampling.__all__


def __getattr__(name: str) -> object:
    """A name PyTorch's ``torch.nn`` has and arraygrad lists as absent: AttributeError with the
    reason (``absences.toml``)."""
    from arraygrad.absences import missing_attribute

    raise missing_attribute("torch.nn", name, "arraygrad.nn")
