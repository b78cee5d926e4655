"""``arraygrad.optim``: optimizers and learning-rate schedulers with PyTorch's names and formulas.

>>> opt = arraygrad.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
>>> opt.zero_grad(); loss.backward(); opt.step()
"""

from arraygrad.optim import lr_scheduler
from arraygrad.optim.adagrad import Adagrad
from arraygrad.optim.adam import Adam, AdamW
from arraygrad.optim.optimizer import Optimizer
from arraygrad.optim.rmsprop import RMSprop
from arraygrad.optim.sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "lr_scheduler"]
