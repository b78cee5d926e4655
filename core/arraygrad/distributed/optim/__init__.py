"""``torch.distributed.optim``: ``ZeroRedundancyOptimizer`` (optimizer states sharded over the
ranks). PyTorch's RPC ``DistributedOptimizer`` and functional optimizers are not provided."""

from arraygrad.distributed.optim.zero_redundancy_optimizer import ZeroRedundancyOptimizer

__all__ = ["ZeroRedundancyOptimizer"]
