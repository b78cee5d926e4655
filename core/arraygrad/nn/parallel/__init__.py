"""``arraygrad.nn.parallel``: PyTorch's data-parallel wrappers.

``DataParallel`` is the identity wrapper: it keeps the module as ``.module`` (so
``state_dict`` keys gain the ``module.`` prefix, as in PyTorch) and runs it on the
device where its parameters are; it splits nothing across devices. ``data_parallel`` is
its functional form. ``DistributedDataParallel`` trains over the processes of an
``arraygrad.distributed`` process group (MPI), averaging gradients across them.
"""

from arraygrad.nn.parallel.data_parallel import DataParallel, data_parallel
from arraygrad.nn.parallel.distributed import DistributedDataParallel, DistributedDataParallelCPU

__all__ = ["DataParallel", "DistributedDataParallel", "DistributedDataParallelCPU", "data_parallel"]


def __getattr__(name: str) -> object:
    """A name PyTorch's ``torch.nn.parallel`` has and arraygrad lists as absent: AttributeError with the
    reason (``absences.toml``)."""
    from arraygrad.absences import missing_attribute

    raise missing_attribute("torch.nn.parallel", name, "arraygrad.nn.parallel")
