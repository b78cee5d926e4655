"""DDP's gradient reducer: buckets of gradients averaged across ranks with ``Iallreduce``.

Parameters are put in buckets in *reverse* order (the order backward produces their
gradients), each bucket at most ``bucket_cap_mb`` and of one dtype. A parameter's
post-accumulate-grad hook copies its gradient into its bucket's flat buffer; a full
bucket's ``Iallreduce`` starts at once. Buckets start strictly in index order, so every
rank issues the same collectives in the same order even when their gradients arrive in
another order. The end-of-backward callback (``queue_callback``) launches what is left
(zeros for unused parameters), waits for all of them, and writes the averages into
``.grad``; in arraygrad hooks run at the end of the pass, so communication overlaps
only the other buckets' copies, not the computation.

Each synchronised backward first exchanges a small header (``_check_pairing``): how many times
this rank's parameters changed (optimizer steps) and how many synchronised backward passes it
ran since. A rank that runs backward more often per step than the others would pair its
buckets with another step's, averaging unrelated gradients and later hanging; the header
makes every rank raise at the first pass that does not pair up.
"""

from __future__ import annotations

from typing import Any

from arraygrad.autograd.engine import queue_callback
from arraygrad.distributed.buffers import Buffer, host_empty
from arraygrad.distributed.errors import DistBackendError
from arraygrad.distributed.header import encode, exchange
from arraygrad.distributed.groups import ProcessGroup
from arraygrad.tensor import Tensor

__all__ = ["Reducer"]

# The pairing header is a collective header of the usual length whose root field holds this
# mark: met by another collective's header (a rank that went on to a broadcast), it differs.
_PASS_MARK = -2


class _Bucket:
    """Parameters (indices into the reducer's list) sharing one flat host buffer."""

    def __init__(self, params: list[Tensor], indices: list[int]) -> None:
        self.indices = indices
        self.offsets: list[int] = []
        total = 0
        for p in params:
            self.offsets.append(total)
            total += p.numel()
        self.buffer = host_empty(params[0], (total,))
        self.request: Any = None
        self.pending = set(indices)


class Reducer:
    """Averages the gradients of ``params`` over ``group`` once per synchronised backward."""

    def __init__(self, params: list[Tensor], names: list[str], group: ProcessGroup,
                 bucket_bytes: int, find_unused_parameters: bool) -> None:
        assert group.backend is not None
        self.params, self.names, self.comm = params, names, group.backend
        self.ranks = list(group.ranks)
        self._versions: int | None = None  # the parameters' versions at the last pass
        self._updates = 0  # how many times they changed between synchronised passes
        self._passes = 0   # synchronised passes since they last changed
        self.find_unused = find_unused_parameters
        self.buckets: list[_Bucket] = []
        self.where: dict[int, tuple[_Bucket, int]] = {}  # param index -> (bucket, offset)
        self._fill(bucket_bytes)
        self.enabled = True  # False inside ``no_sync``
        self._running = False
        self._next = 0  # the next bucket to launch
        self._ready: set[int] = set()
        self.handles = [p.register_post_accumulate_grad_hook(self._hook_for(i))
                        for i, p in enumerate(params)]

    def _fill(self, bucket_bytes: int) -> None:
        current: list[int] = []
        size = 0
        for i in reversed(range(len(self.params))):
            p = self.params[i]
            nbytes = p.numel() * p.element_size()
            if current and (size + nbytes > bucket_bytes
                            or p.dtype != self.params[current[0]].dtype):
                self._add(current)
                current, size = [], 0
            current.append(i)
            size += nbytes
        if current:
            self._add(current)

    def _add(self, indices: list[int]) -> None:
        bucket = _Bucket([self.params[i] for i in indices], indices)
        for i, off in zip(indices, bucket.offsets):
            self.where[i] = (bucket, off)
        self.buckets.append(bucket)

    def _hook_for(self, index: int) -> Any:
        def hook(param: Tensor) -> None:
            if self.enabled:
                self._mark_ready(index, param)
        return hook

    def _mark_ready(self, index: int, param: Tensor) -> None:
        if not self._running:
            self._check_pairing()
            self._running = True
            queue_callback(self._finish)
        bucket, off = self.where[index]
        grad = param.grad
        assert grad is not None
        n = param.numel()
        bucket.buffer[off:off + n] = grad._backend.to_host(grad._data).reshape(-1)
        self._ready.add(index)
        bucket.pending.discard(index)
        self._launch_ready()
        self._progress()

    def _check_pairing(self) -> None:
        """Exchange ``[updates, passes]`` with the other ranks; raise on every rank if they
        differ (a pass of one rank would be averaged with a pass of another step)."""
        versions = sum(p._version for p in self.params)
        if versions != self._versions:
            self._versions, self._updates, self._passes = versions, self._updates + 1, 0
        else:
            self._passes += 1
        rows = exchange(self.comm, encode((self._updates, self._passes), None, _PASS_MARK))
        if all(row == rows[0] for row in rows):
            return

        def position(row: Any) -> str:
            if row[1] != _PASS_MARK:
                return "in another collective"
            return f"at backward {row[5] + 1} since parameter update {row[4] - 1}"

        shown = "; ".join(f"rank {self.ranks[r]} {position(row)}" for r, row in enumerate(rows))
        raise DistBackendError(
            "DistributedDataParallel: the ranks' backward passes do not pair up, so their "
            f"gradients would be averaged with another step's ({shown}). Every rank must run "
            "the same number of synchronised backward passes between optimizer steps (use "
            "no_sync() for local accumulation).")

    def _launch_ready(self) -> None:
        """Start every full bucket from ``_next`` on, in order."""
        while self._next < len(self.buckets) and not self.buckets[self._next].pending:
            bucket = self.buckets[self._next]
            bucket.request = self.comm.allreduce(bucket.buffer, "sum", True)
            self._next += 1

    def _progress(self) -> None:
        """Let MPI move the requests in flight (it progresses only inside MPI calls)."""
        for bucket in self.buckets[:self._next]:
            if bucket.request is not None and bucket.request.test():
                bucket.request = None

    def _finish(self) -> None:
        """End of backward: launch what is left, wait for everything, write ``.grad``."""
        unused = [i for i in range(len(self.params)) if i not in self._ready]
        for i in unused:  # zeros: this rank adds nothing for them
            bucket, off = self.where[i]
            bucket.buffer[off:off + self.params[i].numel()] = 0
            bucket.pending.discard(i)
        self._launch_ready()
        for bucket in self.buckets:
            if bucket.request is not None:
                bucket.request.wait()
                bucket.request = None
        used_anywhere = self._used_anywhere(unused)
        try:
            if unused and not self.find_unused:
                raise RuntimeError(
                    "Expected to have finished reduction in the prior iteration before starting "
                    "a new one. This error indicates that your module has parameters that were "
                    "not used in producing loss. You can enable unused parameter detection by "
                    "passing the keyword argument `find_unused_parameters=True` to "
                    "`arraygrad.nn.parallel.DistributedDataParallel`, and by making sure all "
                    "`forward` function outputs participate in calculating loss. Parameters "
                    f"which did not receive grad for rank {self.comm.rank}: "
                    + ", ".join(self.names[i] for i in unused))
            self._write(used_anywhere)
        finally:
            self._reset()

    def _used_anywhere(self, unused: list[int]) -> list[bool]:
        """Which parameters got a gradient on some rank (one small allreduce; only with
        ``find_unused_parameters``, as in PyTorch)."""
        if not self.find_unused:
            return [True] * len(self.params)
        flags = host_empty(self.params[0], (len(self.params),))
        flags[...] = 1
        for i in unused:
            flags[i] = 0
        self.comm.allreduce(flags, "max", False)
        return [bool(f) for f in flags.tolist()]

    def _write(self, used_anywhere: list[bool]) -> None:
        size = self.comm.size
        for bucket in self.buckets:
            bucket.buffer /= size
        for i, p in enumerate(self.params):
            if not used_anywhere[i]:
                continue  # unused everywhere: .grad stays as it is, as in PyTorch
            bucket, off = self.where[i]
            block = bucket.buffer[off:off + p.numel()]
            if p.grad is None:  # unused here, used elsewhere: the average arrives anyway
                from arraygrad.creation import zeros_like

                p.grad = zeros_like(p)
            Buffer(p.grad, self.comm).write(block)

    def _reset(self) -> None:
        self._running = False
        self._next = 0
        self._ready.clear()
        for bucket in self.buckets:
            bucket.pending = set(bucket.indices)

    def remove(self) -> None:
        """Take the hooks off the parameters."""
        for handle in self.handles:
            handle.remove()
