"""Every layer class of ``arraygrad.nn``, one family per file."""

from arraygrad.nn.modules.module import Module
from arraygrad.nn.modules.activation import (
    ELU, GELU, LeakyReLU, LogSigmoid, LogSoftmax, ReLU, SiLU, Sigmoid, Softmax, Softplus, Tanh,
)
from arraygrad.nn.modules.batchnorm import BatchNorm1d, BatchNorm2d
from arraygrad.nn.modules.container import ModuleDict, ModuleList, ParameterList, Sequential
from arraygrad.nn.modules.dropout import Dropout
from arraygrad.nn.modules.flatten import Flatten, Unflatten
from arraygrad.nn.modules.linear import Bilinear, Identity, Linear
from arraygrad.nn.modules.loss import (
    BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, HuberLoss, KLDivLoss, L1Loss, MSELoss, NLLLoss,
    SmoothL1Loss,
)
from arraygrad.nn.modules.normalization import GroupNorm, LayerNorm
from arraygrad.nn.modules.sparse import Embedding

__all__ = [
    "Module", "Identity", "Linear", "Bilinear", "Flatten", "Unflatten", "Dropout", "Embedding",
    "BatchNorm1d", "BatchNorm2d", "LayerNorm", "GroupNorm", "ReLU", "LeakyReLU", "GELU", "SiLU",
    "Tanh", "Sigmoid", "LogSigmoid", "Softmax", "LogSoftmax", "ELU", "Softplus", "Sequential",
    "ModuleList", "ModuleDict", "ParameterList", "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss",
    "CrossEntropyLoss", "NLLLoss", "BCELoss", "BCEWithLogitsLoss", "KLDivLoss",
]

# The convolution, pooling and resampling layers are written separately; each
# family joins the namespace once its file exists.
try:
    from arraygrad.nn.modules.conv import Conv1d, Conv2d, ConvTranspose2d  # noqa: F401
    __all__ += ["Conv1d", "Conv2d", "ConvTranspose2d"]
except ImportError:
    pass
try:
    from arraygrad.nn.modules.pooling import AdaptiveAvgPool2d, AvgPool2d, MaxPool2d  # noqa: F401
    __all__ += ["MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d"]
except ImportError:
    pass
try:
    from arraygrad.nn.modules.upsampling import Upsample  # noqa: F401
    __all__ += ["Upsample"]
except ImportError:
    pass
try:
    from arraygrad.nn.modules.pixelshuffle import PixelShuffle, PixelUnshuffle  # noqa: F401
    __all__ += ["PixelShuffle", "PixelUnshuffle"]
except ImportError:
    pass
