"""``arraygrad.nn.parallel``: PyTorch's data-parallel wrappers, on one device.

``DataParallel`` is the identity wrapper: it keeps the module as ``.module`` (so
``state_dict`` keys gain the ``module.`` prefix, as in PyTorch) and runs it on the
device where its parameters are; it splits nothing across devices. ``data_parallel`` is
its functional form. ``DistributedDataParallel`` is importable (``isinstance`` checks
work) but constructing one raises until ``arraygrad.distributed`` exists.
"""

from arraygrad.nn.parallel.data_parallel import DataParallel, data_parallel
from arraygrad.nn.parallel.distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel"]
