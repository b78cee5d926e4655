"""Two small ``torch.func`` helpers: ``debug_unwrap`` (a transform's tensor as its
underlying tensor) and ``replace_all_batch_norm_modules_`` (BatchNorm layers without
running statistics, so ``vmap`` over a model does not write per-sample statistics)."""

from __future__ import annotations

from typing import Any

from arraygrad.tensor import Tensor

__all__ = ["debug_unwrap", "replace_all_batch_norm_modules_"]


def debug_unwrap(tensor: Tensor, *, recurse: bool = True) -> Tensor:
    """Inside ``vmap``: the tensor with its batch dimension(s), first (one level with
    ``recurse=False``). For debugging only. arraygrad's ``grad`` transforms work on the one
    graph with ordinary tensors, so their tensors are their own underlying tensors; a tensor
    outside any transform is returned as it is."""
    from arraygrad.func._vmap._batched import BatchedArray
    from arraygrad.func._vmap._wrap import from_batched

    data = getattr(tensor, "_data", None)
    if type(data) is not BatchedArray:
        return tensor
    result = from_batched(tensor, data.level, 0)
    return debug_unwrap(result) if recurse else result


def replace_all_batch_norm_modules_(root: Any) -> Any:
    """In place: every BatchNorm module of ``root`` (``root`` too) that tracks running
    statistics stops (``running_mean``/``running_var``/``num_batches_tracked`` None,
    ``track_running_stats`` False), so it normalizes with the batch's statistics. Returns
    ``root``."""
    from arraygrad.nn.modules.batchnorm import _BatchNorm

    for module in root.modules():
        if isinstance(module, _BatchNorm) and module.track_running_stats:
            module.running_mean = None
            module.running_var = None
            module.num_batches_tracked = None
            module.track_running_stats = False
    return root
