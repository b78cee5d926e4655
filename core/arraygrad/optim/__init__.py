"""``arraygrad.optim``: optimizers and learning-rate schedulers with PyTorch's names and formulas.

>>> opt = arraygrad.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
>>> opt.zero_grad(); loss.backward(); opt.step()
"""

from arraygrad.optim import lr_scheduler
from arraygrad.optim.adadelta import Adadelta
from arraygrad.optim.adafactor import Adafactor
from arraygrad.optim.adagrad import Adagrad
from arraygrad.optim.adam import Adam, AdamW
from arraygrad.optim.adamax import Adamax
from arraygrad.optim.asgd import ASGD
from arraygrad.optim.lbfgs import LBFGS
from arraygrad.optim.muon import Muon
from arraygrad.optim.nadam import NAdam
from arraygrad.optim.optimizer import Optimizer
from arraygrad.optim.radam import RAdam
from arraygrad.optim.rmsprop import RMSprop
from arraygrad.optim.rprop import Rprop
from arraygrad.optim.sgd import SGD
from arraygrad.optim.sparse_adam import SparseAdam
from arraygrad.optim.swap_in import swap_in_optimizer_params_and_state
from arraygrad.optim import swa_utils  # noqa: E402 - it needs the schedulers and nn

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax",
           "NAdam", "RAdam", "ASGD", "Rprop", "SparseAdam", "LBFGS", "lr_scheduler", "Adafactor",
           "Muon", "swa_utils", "swap_in_optimizer_params_and_state"]
