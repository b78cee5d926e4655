"""Learning-rate schedulers, as ``torch.optim.lr_scheduler``.

Each ``step()`` advances ``last_epoch`` and writes the new rate into every
parameter group's ``"lr"``; ``get_last_lr()`` returns it; ``state_dict()`` /
``load_state_dict()`` save and restore a scheduler with PyTorch's keys.
"""

from arraygrad.optim.lr_scheduler._base import (EPOCH_DEPRECATION_WARNING, LRScheduler,
                                                _LRScheduler)
from arraygrad.optim.lr_scheduler._composite import ChainedScheduler, SequentialLR
from arraygrad.optim.lr_scheduler._cosine import CosineAnnealingLR, CosineAnnealingWarmRestarts
from arraygrad.optim.lr_scheduler._cyclic import CyclicLR, OneCycleLR
from arraygrad.optim.lr_scheduler._lambda import LambdaLR, MultiplicativeLR
from arraygrad.optim.lr_scheduler._plateau import ReduceLROnPlateau
from arraygrad.optim.lr_scheduler._step import (ConstantLR, ExponentialLR, LinearLR, MultiStepLR,
                                                PolynomialLR, StepLR)

# names PyTorch's module has from its imports, importable from it by programs
from bisect import bisect_right  # noqa: E402,F401
from math import inf  # noqa: E402,F401

from arraygrad.optim.optimizer import Optimizer  # noqa: E402,F401
from arraygrad.tensor import Tensor  # noqa: E402,F401

__all__ = ["LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR",
           "ExponentialLR", "SequentialLR", "CosineAnnealingLR", "ChainedScheduler",
           "ReduceLROnPlateau", "CyclicLR", "CosineAnnealingWarmRestarts", "OneCycleLR",
           "PolynomialLR", "LRScheduler"]
