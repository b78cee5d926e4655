"""``arraygrad.nn``: modules, parameters, ``functional`` and ``init``, with PyTorch's API.

>>> import arraygrad as ag
>>> from arraygrad import nn
>>> model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
>>> loss = nn.MSELoss()(model(ag.randn(2, 4)), ag.zeros(2, 1))
>>> loss.backward()
"""

from arraygrad.nn import attention, common_types, functional, grad, init, parallel, utils
from arraygrad.nn._factory_kwargs import factory_kwargs
from arraygrad.nn.modules import *  # noqa: F401,F403
from arraygrad.nn.modules import __all__ as _modules_all
from arraygrad.nn.parallel import DataParallel
from arraygrad.nn.parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter

__all__ = ["Buffer", "DataParallel", "Parameter", "UninitializedBuffer", "UninitializedParameter",
           "attention", "common_types", "factory_kwargs", "functional", "grad", "init", "parallel", "utils",
           *_modules_all]


def __getattr__(name: str) -> object:
    """A name PyTorch's ``torch.nn`` has and arraygrad lists as absent: AttributeError with the
    reason (``absences.toml``)."""
    from arraygrad.absences import missing_attribute

    raise missing_attribute("torch.nn", name, "arraygrad.nn")
