"""``arraygrad.nn``: modules, parameters, ``functional`` and ``init``, with PyTorch's API.

>>> import arraygrad as ag
>>> from arraygrad import nn
>>> model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
>>> loss = nn.MSELoss()(model(ag.randn(2, 4)), ag.zeros(2, 1))
>>> loss.backward()
"""

from arraygrad.nn import functional, init, parallel, utils
from arraygrad.nn.modules import *  # noqa: F401,F403
from arraygrad.nn.modules import __all__ as _modules_all
from arraygrad.nn.parallel import DataParallel
from arraygrad.nn.parameter import Parameter

__all__ = ["DataParallel", "Parameter", "functional", "init", "parallel", "utils", *_modules_all]
