"""``DistributedDataParallel``: data-parallel training over the processes of a group.

Each process runs the same model on its own shard of the data; at construction
rank 0's parameters and buffers are broadcast, so every rank starts equal, and
each synchronised ``backward()`` leaves every rank with the gradients averaged
over the group (``_reducer.Reducer``), so equal optimizer steps keep them equal.
The wrapped model is ``.module``, so ``state_dict`` keys carry PyTorch's
``module.`` prefix (save ``ddp.module.state_dict()`` for a plain model's keys).
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator, Sequence

from arraygrad.nn.modules.module import Module

__all__ = ["DistributedDataParallel"]


class DistributedDataParallel(Module):
    """Wraps ``module`` for multi-process data-parallel training (PyTorch's arguments).

    ``bucket_cap_mb`` (default 25) bounds a gradient bucket; ``find_unused_parameters``
    lets parameters that got no gradient on some rank through (without it they are
    an error at the end of ``backward``); ``broadcast_buffers`` sends rank 0's buffers
    before each forward. ``device_ids``, ``output_device``, ``dim``,
    ``gradient_as_bucket_view`` and ``static_graph`` are accepted for compatibility
    (gradients are copied out of the buckets, not views of them).

    >>> dist.init_process_group()
    >>> model = DistributedDataParallel(nn.Linear(4, 2))
    >>> model(x).sum().backward()     # .grad: averaged over the ranks
    """

    def __init__(self, module: Module, device_ids: Sequence[Any] | None = None,
                 output_device: Any = None, dim: int = 0, broadcast_buffers: bool = True,
                 init_sync: bool = True, process_group: Any = None,
                 bucket_cap_mb: float | None = None, find_unused_parameters: bool = False,
                 check_reduction: bool = False, gradient_as_bucket_view: bool = False,
                 static_graph: bool = False) -> None:
        from arraygrad.distributed.group import resolve
        from arraygrad.nn.parallel._reducer import Reducer

        group = resolve(process_group, "DistributedDataParallel")
        if not isinstance(module, Module):
            raise TypeError(f"DistributedDataParallel: module must be an nn.Module, got "
                            f"{type(module).__name__}")
        named = [(n, p) for n, p in module.named_parameters() if p.requires_grad]
        if not named:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't "
                               "have any parameter that requires a gradient.")
        if group.backend is None:
            raise ValueError("DistributedDataParallel: this process is not a member of "
                             f"process_group {group}")
        cap = 25.0 if bucket_cap_mb is None else bucket_cap_mb
        if cap <= 0:
            raise ValueError(f"bucket_cap_mb must be positive, got {bucket_cap_mb}")
        super().__init__()
        self.module = module
        self.process_group = group
        self.device_ids = list(device_ids) if device_ids is not None else None
        self.output_device = output_device
        self.dim = dim
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.bucket_bytes_cap = int(cap * 1024 * 1024)
        self.require_backward_grad_sync = True
        if init_sync:
            self._sync_module_states()
        self.reducer = Reducer([p for _, p in named], [n for n, _ in named], group,
                               self.bucket_bytes_cap, find_unused_parameters)

    def _root(self) -> int:
        return self.process_group.ranks[0]

    def _sync_module_states(self) -> None:
        """Rank 0's parameters and buffers on every rank (a shape mismatch raises)."""
        from arraygrad.autograd.grad_mode import no_grad
        from arraygrad.distributed.collectives import broadcast

        with no_grad():
            for t in list(self.module.parameters()) + list(self.module.buffers()):
                broadcast(t, src=self._root(), group=self.process_group)

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        """Send rank 0's buffers (``broadcast_buffers``), then ``self.module(*inputs, **kwargs)``."""
        self.reducer.enabled = self.require_backward_grad_sync
        if self.broadcast_buffers and self.require_backward_grad_sync:
            from arraygrad.autograd.grad_mode import no_grad
            from arraygrad.distributed.collectives import broadcast

            buffers = list(self.module.buffers())
            if buffers:
                with no_grad():
                    for b in buffers:
                        broadcast(b, src=self._root(), group=self.process_group)
        return self.module(*inputs, **kwargs)

    @contextlib.contextmanager
    def no_sync(self) -> Iterator[None]:
        """Forward (and backward) passes inside only accumulate local gradients (gradient
        accumulation); the first synchronised backward after it averages the accumulated ones.
        As in PyTorch, the forward decides: run it inside the context."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False  # read by forward, as in PyTorch
        try:
            yield
        finally:
            self.require_backward_grad_sync = old
