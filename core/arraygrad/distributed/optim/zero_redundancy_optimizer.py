"""``ZeroRedundancyOptimizer``: each rank keeps the optimizer state of only its shard of the
parameters (ZeRO stage 1), as PyTorch's ``torch.distributed.optim.ZeroRedundancyOptimizer``.

The parameters are partitioned as PyTorch does (each group's parameters by decreasing
size, each to the rank with the fewest elements so far), so a rank's shard and the
global state-dict numbering are PyTorch's. ``step()`` runs the wrapped optimizer on this
rank's shard, then every rank broadcasts its updated shard (one packed broadcast per
rank). ``consolidate_state_dict(to)`` gathers the shards' states on rank ``to``, whose
``state_dict()`` is then the state dict of the whole optimizer. It is a ``Joinable``: a
rank out of inputs keeps stepping (and broadcasting) inside ``Join``.
"""

from __future__ import annotations

from itertools import chain
from typing import Any, Callable

from arraygrad.distributed.algorithms.join import Join, Joinable, JoinHook
from arraygrad.distributed.collectives import broadcast
from arraygrad.distributed.groups import ProcessGroup, default_group, get_rank, get_world_size
from arraygrad.distributed.objects import gather_object
from arraygrad.distributed.ranks import get_global_rank
from arraygrad.optim.optimizer import Optimizer, _cast
from arraygrad.tensor import Tensor

__all__ = ["ZeroRedundancyOptimizer"]


class _ZeROJoinHook(JoinHook):
    """A joined rank keeps stepping: its shard is updated and broadcast as the others'."""

    def __init__(self, zero: "ZeroRedundancyOptimizer") -> None:
        self.zero = zero

    def main_hook(self) -> None:
        """One optimizer step (its broadcasts shadow the other ranks')."""
        self.zero.step()


class ZeroRedundancyOptimizer(Optimizer, Joinable):
    """Wrap ``optimizer_class`` so each rank holds the state of its shard of ``params`` only.

    ``ZeroRedundancyOptimizer(params, optimizer_class, process_group=None,
    parameters_as_bucket_view=False, overlap_with_ddp=False, **defaults)``: ``defaults``
    go to ``optimizer_class``. The parameters must share one dtype and device (as in
    PyTorch). ``parameters_as_bucket_view`` is accepted (the shards always travel packed);
    ``overlap_with_ddp=True`` needs DDP communication hooks, which arraygrad's DDP does
    not have (RuntimeError).
    """

    def __init__(self, params: Any, optimizer_class: type[Optimizer],
                 process_group: ProcessGroup | None = None,
                 parameters_as_bucket_view: bool = False, overlap_with_ddp: bool = False,
                 **defaults: Any) -> None:
        if overlap_with_ddp:
            raise RuntimeError("ZeroRedundancyOptimizer: overlap_with_ddp=True runs the step in "
                               "DistributedDataParallel's communication hook, and arraygrad's "
                               "DDP has no register_comm_hook; use overlap_with_ddp=False")
        params = self._verify_and_init_params(params)
        self._verify_same_dense_param_type()
        self.initialized = False
        Optimizer.__init__(self, params, defaults)
        Joinable.__init__(self)
        self._partition_cache: list[list[dict[str, Any]]] = []
        self._default_device = self._all_params[0].device
        self.process_group = process_group or default_group("ZeroRedundancyOptimizer")
        self.world_size: int = get_world_size(self.process_group)
        self.rank: int = get_rank(self.process_group)
        self.global_rank: int = get_global_rank(self.process_group, self.rank)
        self._overlap_with_ddp = False
        self._optim_defaults = defaults
        self._optim_constructor = optimizer_class
        self.parameters_as_bucket_view = parameters_as_bucket_view
        self.optim: Optimizer = optimizer_class(self._partition_parameters()[self.rank],
                                                **defaults)
        self._all_state_dicts: list[dict[str, Any]] = []
        self.initialized = True

    # -- checks (PyTorch's) ----------------------------------------------------------------
    def _verify_and_init_params(self, params: Any) -> list[Any]:
        if isinstance(params, Tensor):
            raise TypeError("`params` argument should be an iterable of Tensors, but got "
                            f"{type(params).__name__}")
        try:
            all_params = list(params)
        except TypeError:
            raise TypeError("`params` argument should be an iterable of Tensors or dicts, but "
                            f"got {type(params).__name__}") from None
        if len(all_params) == 0:
            raise ValueError("ZeroRedundancyOptimizer got an empty parameter list")
        if all(isinstance(p, Tensor) for p in all_params):
            self._all_params: list[Tensor] = all_params
        elif all(isinstance(p, dict) for p in all_params):
            self._all_params = []
            for group in all_params:
                if "params" not in group:
                    raise ValueError("Each parameter group passed-in via `params` must have a "
                                     "'params' key mapping to the parameters in the group")
                self._all_params.extend(group["params"])
        else:
            raise TypeError("`params` argument should be an iterable of Tensors or dicts")
        return all_params

    def _verify_same_dense_param_type(self) -> None:
        first = self._all_params[0]
        for p in self._all_params[1:]:
            if p.dtype != first.dtype or p.device != first.device:
                raise ValueError("ZeroRedundancyOptimizer only supports using the same dense "
                                 f"type for all parameters but got both {first.dtype} on "
                                 f"{first.device} and {p.dtype} on {p.device}")

    # -- the partition -----------------------------------------------------------------------
    def _partition_parameters(self) -> list[list[dict[str, Any]]]:
        """Each rank's parameter groups (the same on every rank)."""
        if not self._partition_cache:
            self._partition_cache = [[] for _ in range(self.world_size)]
            sizes = [0] * self.world_size
            for group in self.param_groups:
                per_rank: list[list[Tensor]] = [[] for _ in range(self.world_size)]
                for p in sorted(group["params"], key=lambda t: t.numel(), reverse=True):
                    rank = sizes.index(min(sizes))
                    per_rank[rank].append(p)
                    sizes[rank] += p.numel()
                for rank, params in enumerate(per_rank):
                    self._partition_cache[rank].append(dict(group, params=params))
        return self._partition_cache

    @property
    def _param_to_rank(self) -> dict[Tensor, int]:
        return {p: rank for rank, groups in enumerate(self._partition_parameters())
                for g in groups for p in g["params"]}

    @property
    def _index_to_param(self) -> list[Tensor]:
        return list(chain.from_iterable(g["params"] for g in self.param_groups))

    @property
    def _param_to_index(self) -> dict[Tensor, int]:
        return {p: i for i, p in enumerate(self._index_to_param)}

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a parameter group (on every rank: the shards are re-partitioned)."""
        super().add_param_group(param_group)
        if getattr(self, "initialized", False):
            self._partition_cache = []
            groups = self._partition_parameters()[self.rank]
            if len(groups) == len(self.optim.param_groups) + 1:
                self.optim.add_param_group(groups[-1])

    @staticmethod
    def _sync_param_groups(src: list[dict[str, Any]], dst: list[dict[str, Any]]) -> None:
        """Copy the hyper-parameters (all but ``params``) of ``src``'s groups into ``dst``'s."""
        for s, d in zip(src, dst):
            for key, value in s.items():
                if key != "params":
                    d[key] = value

    # -- stepping ---------------------------------------------------------------------------
    def _local_step(self, closure: Callable[[], Any] | None = None, **kwargs: Any) -> Any:
        Join.notify_join_context(self)
        self._sync_param_groups(self.param_groups, self.optim.param_groups)
        loss = (self.optim.step(**kwargs) if closure is None
                else self.optim.step(closure=closure, **kwargs))
        self._sync_param_groups(self.optim.param_groups, self.param_groups)
        return loss

    def _sync_params(self) -> None:
        """Every rank's updated shard to every rank: one packed broadcast per rank."""
        from arraygrad.autograd.grad_mode import no_grad
        from arraygrad.ops.shape import cat

        with no_grad():
            for rank, groups in enumerate(self._partition_parameters()):
                params = [p for g in groups for p in g["params"]]
                if not params:
                    continue
                flat = cat([p.detach().reshape(-1) for p in params])
                broadcast(flat, src=get_global_rank(self.process_group, rank),
                          group=self.process_group)
                at = 0
                for p in params:
                    p.copy_(flat[at:at + p.numel()].reshape(p.shape))
                    at += p.numel()

    def step(self, closure: Callable[[], Any] | None = None, **kwargs: Any) -> Any:
        """Step this rank's shard with the wrapped optimizer, then share every shard."""
        loss = self._local_step(closure=closure, **kwargs)
        self._sync_params()
        return loss

    # -- state dicts ---------------------------------------------------------------------------
    def consolidate_state_dict(self, to: int = 0) -> None:
        """Gather every rank's shard state on rank ``to`` (a rank of the group); every rank
        calls it. Then ``state_dict()`` on rank ``to`` is the whole optimizer's."""
        self._sync_param_groups(self.param_groups, self.optim.param_groups)
        gathered: list[Any] | None = [None] * self.world_size if self.rank == to else None
        gather_object(self.optim.state_dict(), gathered, group=self.process_group,
                      group_dst=to)
        self._all_state_dicts = list(gathered) if gathered is not None else []

    def state_dict(self) -> dict[str, Any]:
        """The whole optimizer's state dict, as consolidated on this rank (PyTorch's format:
        parameters numbered over all groups, in order)."""
        if not self._all_state_dicts:
            raise RuntimeError("Optimizer state has not been consolidated on this rank. Please "
                               f"call `consolidate_state_dict(to={self.rank})` on all ranks "
                               "beforehand if you meant to save the global state.")
        state_dict = Optimizer.state_dict(self)
        index = self._param_to_index
        for rank, local in enumerate(self._all_state_dicts):
            for local_group, global_group in zip(local["param_groups"],
                                                 self._partition_parameters()[rank]):
                for local_index, param in zip(local_group["params"], global_group["params"]):
                    if local_index in local["state"]:
                        state_dict["state"][index[param]] = local["state"][local_index]
        state_dict["state"] = dict(sorted(state_dict["state"].items()))
        return state_dict

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load the part of a whole-optimizer ``state_dict`` this rank's shard needs (and the
        hyper-parameters of every group)."""
        if len(state_dict["param_groups"]) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        owner, params = self._param_to_rank, self._index_to_param
        for index, value in state_dict["state"].items():
            param = params[index]
            if owner[param] == self.rank:
                self.optim.state[param] = _cast(param, value)
        self._sync_param_groups(state_dict["param_groups"], self.param_groups)
        self._sync_param_groups(self.param_groups, self.optim.param_groups)

    # -- Joinable ----------------------------------------------------------------------------
    def join_hook(self, **kwargs: Any) -> JoinHook:
        """The hook a rank out of inputs runs inside ``Join``: keep stepping."""
        return _ZeROJoinHook(self)

    @property
    def join_device(self) -> Any:
        """The parameters' device."""
        return self._default_device

    @property
    def join_process_group(self) -> Any:
        """The group the shards are shared in."""
        return self.process_group
