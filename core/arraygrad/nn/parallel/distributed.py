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
import warnings
from typing import Any, Iterator, Sequence

from arraygrad.nn.modules.module import Module

__all__ = ["DistributedDataParallel", "DistributedDataParallelCPU"]


def _buffer_sync(broadcast_buffers: bool | None,
                 forward_sync_buffers: bool | None) -> tuple[bool, bool]:
    """``(sync buffers before each forward, sync them at construction)``, PyTorch's rules for
    the deprecated ``broadcast_buffers`` and its replacement (with its FutureWarnings)."""
    if broadcast_buffers is not None:
        if forward_sync_buffers is not None:
            warnings.warn("Both `broadcast_buffers` and `forward_sync_buffers` were specified. "
                          "`broadcast_buffers` is deprecated and its value is ignored when "
                          "`forward_sync_buffers` is provided.", FutureWarning, stacklevel=3)
        else:
            warnings.warn("`broadcast_buffers` is deprecated. Use `forward_sync_buffers` "
                          "instead. IMPORTANT: unlike `broadcast_buffers=False`, "
                          "`forward_sync_buffers=False` still syncs buffers at init. If you rely "
                          "on buffers NOT being synced at init (e.g. rank-local buffers), keep "
                          "using `broadcast_buffers=False` until `init_sync_buffers` is "
                          "available.", FutureWarning, stacklevel=3)
    if forward_sync_buffers is not None:
        return forward_sync_buffers, True
    effective = broadcast_buffers if broadcast_buffers is not None else True
    return effective, effective


class DistributedDataParallel(Module):
    """Wraps ``module`` for multi-process data-parallel training (PyTorch's arguments).

    ``bucket_cap_mb`` (default 25; ``bucket_cap_mb_list``: per-bucket caps, the largest
    used) bounds a gradient bucket; ``find_unused_parameters`` lets parameters that got no
    gradient on some rank through (without it they are an error at the end of
    ``backward``); ``forward_sync_buffers`` (the deprecated ``broadcast_buffers``) sends
    rank 0's buffers before each forward. ``delay_all_reduce_named_params`` leave the
    buckets and are averaged once ``param_to_hook_all_reduce`` has its gradient (at the end
    of that backward). ``device_mesh`` (1-D) gives the group. ``device_ids``,
    ``output_device``, ``dim``, ``gradient_as_bucket_view``, ``static_graph``,
    ``skip_all_reduce_unused_params`` and ``batched_grad_copy`` are accepted: they change
    how PyTorch schedules the copies and collectives, not the averaged gradients.
    ``mixed_precision`` is refused (docs/differences.md).

    >>> dist.init_process_group()
    >>> model = DistributedDataParallel(nn.Linear(4, 2))
    >>> model(x).sum().backward()     # .grad: averaged over the ranks
    """

    def __init__(self, module: Module, device_ids: Sequence[Any] | None = None,
                 output_device: Any = None, dim: int = 0, broadcast_buffers: bool | None = None,
                 init_sync: bool = True, process_group: Any = None,
                 bucket_cap_mb: float | None = None, find_unused_parameters: bool = False,
                 check_reduction: bool = False, gradient_as_bucket_view: bool = False,
                 static_graph: bool = False,
                 delay_all_reduce_named_params: Sequence[tuple[str, Any]] | None = None,
                 param_to_hook_all_reduce: Any = None, mixed_precision: Any = None,
                 device_mesh: Any = None, skip_all_reduce_unused_params: bool = False,
                 bucket_cap_mb_list: Sequence[float] | None = None,
                 batched_grad_copy: bool = False,
                 forward_sync_buffers: bool | None = None) -> None:
        from arraygrad.distributed.groups import resolve
        from arraygrad.nn.parallel._reducer import Reducer

        if (delay_all_reduce_named_params is None) != (param_to_hook_all_reduce is None):
            raise ValueError("delay_all_reduce_named_params and param_to_hook_all_reduce need "
                             "to be set at the same time.")
        if process_group is not None and device_mesh is not None:
            raise RuntimeError("Cannot specify both process_group and device_mesh arguments.")
        if device_mesh is not None:
            if device_mesh.ndim != 1:
                raise RuntimeError(f"Only 1D device mesh is supported, but got {device_mesh}.")
            process_group = device_mesh.get_group(mesh_dim=0)
        if mixed_precision is not None:
            raise ValueError("DistributedDataParallel: mixed_precision is not supported by "
                             "arraygrad (cast the module instead: module.half())")
        group = resolve(process_group, "DistributedDataParallel")
        if not isinstance(module, Module):
            raise TypeError(f"DistributedDataParallel: module must be an nn.Module, got "
                            f"{type(module).__name__}")
        delayed = list(delay_all_reduce_named_params or ())
        ignored = set(getattr(module, "_ddp_params_and_buffers_to_ignore", ()))
        ignored |= {name for name, _ in delayed}
        named = [(n, p) for n, p in module.named_parameters()
                 if p.requires_grad and n not in ignored]
        if not named and not delayed:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't "
                               "have any parameter that requires a gradient.")
        if group.backend is None:
            raise ValueError("DistributedDataParallel: this process is not a member of "
                             f"process_group {group}")
        if bucket_cap_mb_list:
            cap = float(max(bucket_cap_mb_list))
        else:
            cap = 25.0 if bucket_cap_mb is None else bucket_cap_mb
        if cap <= 0:
            raise ValueError(f"bucket_cap_mb must be positive, got {bucket_cap_mb}")
        sync_buffers, init_sync_buffers = _buffer_sync(broadcast_buffers, forward_sync_buffers)
        super().__init__()
        self.module = module
        self.process_group = group
        self.device_mesh = device_mesh
        self.device_ids = list(device_ids) if device_ids is not None else None
        self.output_device = output_device
        self.dim = dim
        self.forward_sync_buffers = sync_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.mixed_precision = mixed_precision
        self.skip_all_reduce_unused_params = skip_all_reduce_unused_params
        self.batched_grad_copy = batched_grad_copy
        self.parameters_to_ignore = ignored
        self.bucket_bytes_cap = int(cap * 1024 * 1024)
        self.require_backward_grad_sync = True
        if init_sync:
            self._sync_module_states(init_sync_buffers)
        self.reducer = Reducer([p for _, p in named], [n for n, _ in named], group,
                               self.bucket_bytes_cap, find_unused_parameters) if named else None
        self._delay_all_reduce_params = [p for _, p in delayed]
        if delayed:
            param_to_hook_all_reduce.register_post_accumulate_grad_hook(
                lambda _: self._queue_delayed_all_reduce())

    @property
    def broadcast_buffers(self) -> bool:
        """Whether rank 0's buffers are sent before each forward (``forward_sync_buffers``)."""
        return self.forward_sync_buffers

    @broadcast_buffers.setter
    def broadcast_buffers(self, value: bool) -> None:
        self.forward_sync_buffers = value

    def _queue_delayed_all_reduce(self) -> None:
        """Average the delayed parameters' gradients at the end of this backward."""
        if not self.require_backward_grad_sync or getattr(self, "_delayed_queued", False):
            return
        from arraygrad.autograd.engine import queue_callback

        self._delayed_queued = True
        queue_callback(self._delayed_all_reduce)

    def _delayed_all_reduce(self) -> None:
        from arraygrad.autograd.grad_mode import no_grad
        from arraygrad.distributed.collectives import all_reduce

        self._delayed_queued = False
        size = len(self.process_group.ranks)
        with no_grad():
            for p in self._delay_all_reduce_params:
                if p.grad is not None:
                    all_reduce(p.grad, group=self.process_group)
                    p.grad.div_(size)

    def _root(self) -> int:
        return self.process_group.ranks[0]

    def _sync_module_states(self, buffers: bool = True) -> None:
        """Rank 0's parameters (and buffers) on every rank (a shape mismatch raises)."""
        from arraygrad.autograd.grad_mode import no_grad
        from arraygrad.distributed.collectives import broadcast

        tensors: list[Any] = list(self.module.parameters())
        if buffers:
            tensors += list(self.module.buffers())
        with no_grad():
            for t in tensors:
                broadcast(t, src=self._root(), group=self.process_group)

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        """Send rank 0's buffers (``forward_sync_buffers``), then
        ``self.module(*inputs, **kwargs)``."""
        if self.reducer is not None:
            self.reducer.enabled = self.require_backward_grad_sync
        if self.forward_sync_buffers and self.require_backward_grad_sync:
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


class DistributedDataParallelCPU(DistributedDataParallel):
    """``DistributedDataParallel`` under its deprecated CPU name (warns)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        warnings.warn("`torch.nn.parallel.DistributedDataParallelCPU` is deprecated, please use "
                      "`torch.nn.parallel.DistributedDataParallel` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__(*args, **kwargs)
