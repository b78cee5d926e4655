"""Process-group backends are plugins (the ``arraygrad_register_distributed`` hook): a
third-party one-process backend plugs in and runs collectives in this process; ``mpi`` is
registered by the core's own plugin, ``nccl`` by the CuPy backend's; NCCL's run needs two GPUs."""

import numpy as np
import pytest

import arraygrad as ag
import arraygrad.distributed as dist
from arraygrad.distributed.backend import ProcessGroupBackend
from arraygrad.distributed.registry import backend_factories
from arraygrad.plugins import hookimpl, manager


class Loopback(ProcessGroupBackend):
    """A world of one: every collective is the identity; it counts the calls it gets."""

    name = "loopback"

    def __init__(self):
        self.calls = []

    def accepts(self, array):
        return isinstance(array, np.ndarray) and array.flags.c_contiguous

    def split(self, ranks):
        return Loopback()

    def allgather_header(self, header):
        return header

    def allreduce(self, buf, op, async_op):
        self.calls.append(("allreduce", op))

    def broadcast(self, buf, root): ...
    def reduce(self, buf, root, op): ...
    def allgather(self, send, recv): recv.reshape(-1)[...] = send.reshape(-1)
    def reduce_scatter(self, send, recv, op): recv[...] = send.reshape(recv.shape)
    def gather(self, send, recv, root): recv[...] = send
    def scatter(self, send, recv, root): recv[...] = send[0]
    def send(self, buf, dst, tag, async_op): raise RuntimeError("a world of one")
    def recv(self, buf, src, tag, async_op): raise RuntimeError("a world of one")
    def send_header(self, header, dst, tag): ...
    def recv_header(self, header, src, tag): return 0
    def barrier(self): ...
    def allgather_object(self, obj): return [obj]
    def broadcast_object(self, obj, root): return obj


class LoopbackPlugin:
    made = []

    @hookimpl
    def arraygrad_register_distributed(self, register):
        register("loopback", lambda timeout=None: self.made.append(Loopback()) or self.made[-1])


@pytest.fixture
def loopback():
    pm = manager.get_plugin_manager()
    plugin = LoopbackPlugin()
    pm.register(plugin, name="test-loopback")
    try:
        yield plugin
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()
        pm.unregister(plugin)


def test_mpi_and_nccl_are_registered():
    assert {"mpi", "nccl"} <= set(backend_factories())


def test_a_third_party_backend_plugs_in(loopback):
    dist.init_process_group(backend="loopback")
    assert dist.get_backend() == "loopback" and dist.get_world_size() == 1
    t = ag.tensor([1.0, 2.0])
    dist.all_reduce(t, op=dist.ReduceOp.AVG)
    assert loopback.made[-1].calls == [("allreduce", "sum")]  # AVG is a sum, then / size
    np.testing.assert_array_equal(t.numpy(), [1.0, 2.0])
    out = [ag.zeros(2)]
    dist.all_gather(out, t)
    np.testing.assert_array_equal(out[0].numpy(), [1.0, 2.0])


def test_init_checks_world_size_and_rank(loopback):
    with pytest.raises(ValueError, match="world_size=2 but the launcher started 1"):
        dist.init_process_group(backend="loopback", world_size=2)
    assert not dist.is_initialized()
    with pytest.raises(ValueError, match="Invalid backend: 'nope'"):
        dist.init_process_group(backend="nope")


@pytest.mark.cuda
def test_nccl_on_two_gpus():
    cupy = pytest.importorskip("cupy", reason="the nccl backend needs CuPy")
    try:
        gpus = cupy.cuda.runtime.getDeviceCount()
    except Exception:  # no driver
        gpus = 0
    if gpus < 2:
        pytest.skip(f"the nccl backend needs 2 GPUs, this machine has {gpus}")
    from _mpi_launch import run_ranks

    proc = run_ranks("nccl_ranks.py", 2)
    assert proc.stdout.count("nccl ok") == 2
