"""arraygrad.distributed's names beside the collectives, in one process: Backend and its
config, availability, the debug level, the error classes, launcher variables, ``group.WORLD``,
``reduce_op``, and the calls that need ``init_process_group`` first; against PyTorch's where
PyTorch is installed and the answer does not depend on the backends each has."""

import warnings

import pytest

import arraygrad as ag
import arraygrad.distributed as dist

torch_dist = None
try:
    import torch.distributed as torch_dist  # noqa: F811
except ImportError:
    pass


def test_backend_names():
    assert dist.Backend("MPI") == dist.Backend.MPI == "mpi" and type(dist.Backend("mpi")) is str
    assert dist.Backend("Custom") == "custom"
    with pytest.raises(ValueError, match="must be string-ish"):
        dist.Backend(3)
    assert str(dist.BackendConfig("mpi")) == "cpu:mpi,cuda:mpi"
    assert str(dist.BackendConfig("cpu:mpi,cuda:nccl")) == "cpu:mpi,cuda:nccl"
    with pytest.raises(ValueError, match="Invalid device:backend pairing"):
        dist.BackendConfig("cpu:mpi:x")
    if torch_dist is not None:
        for name in ("gloo", "nccl", "cpu:gloo,cuda:nccl", "Foo"):
            assert dist.Backend(name) == torch_dist.Backend(name)
        assert str(dist.BackendConfig("gloo")) == str(torch_dist.BackendConfig("gloo"))
        assert dist.Backend.backend_list == torch_dist.Backend.backend_list


def test_availability_is_what_arraygrad_can_run():
    assert dist.is_backend_available("mpi") == dist.is_mpi_available()
    assert not dist.is_gloo_available() and not dist.is_ucc_available()
    assert not dist.is_xccl_available() and not dist.is_backend_available("nope")
    assert dist.is_nccl_available() == dist.is_backend_available("nccl")
    assert dist.get_default_backend_for_device("cpu") == "mpi"
    assert dist.get_default_backend_for_device(ag.device("cuda")) == "nccl"
    with pytest.raises(ValueError, match="Default backend not registered for device : meta"):
        dist.get_default_backend_for_device("meta")


def test_debug_level(monkeypatch):
    before = dist.get_debug_level()
    try:
        for value, level in (("detail", dist.DebugLevel.DETAIL), ("INFO", dist.DebugLevel.INFO),
                             ("OFF", dist.DebugLevel.OFF)):
            monkeypatch.setenv("TORCH_DISTRIBUTED_DEBUG", value)
            dist.set_debug_level_from_env()
            assert dist.get_debug_level() is level
        monkeypatch.setenv("TORCH_DISTRIBUTED_DEBUG", "bogus")
        with pytest.raises(ValueError, match="must be OFF, INFO, or DETAIL"):
            dist.set_debug_level_from_env()
        with pytest.raises(TypeError):
            dist.set_debug_level(1)
        assert int(dist.DebugLevel.DETAIL) == 2 and str(dist.DebugLevel.INFO) == "DebugLevel.INFO"
        if torch_dist is not None:
            assert [m.name for m in dist.DebugLevel] == list(torch_dist.DebugLevel.__members__)
    finally:
        dist.set_debug_level(before)


def test_error_classes():
    assert issubclass(dist.DistError, RuntimeError)
    for cls in (dist.DistBackendError, dist.DistNetworkError, dist.DistStoreError):
        assert issubclass(cls, dist.DistError)
    assert issubclass(dist.QueueEmptyError, dist.DistStoreError)
    if torch_dist is not None:
        for name in ("DistError", "DistBackendError", "DistNetworkError", "DistStoreError",
                     "QueueEmptyError"):
            ours = [c.__name__ for c in getattr(dist, name).__mro__]
            theirs = [c.__name__ for c in getattr(torch_dist, name).__mro__]
            assert ours == theirs


def test_launcher_variables(monkeypatch):
    for name in ("LOCAL_RANK", "MPI_LOCALRANKID", "OMPI_COMM_WORLD_LOCAL_RANK", "PMI_LOCAL_RANK",
                 "SLURM_LOCALID", "TORCHELASTIC_RUN_ID"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(RuntimeError, match="LOCAL_RANK is not in the environment"):
        dist.get_node_local_rank()
    assert dist.get_node_local_rank(fallback_rank=3) == 3
    monkeypatch.setenv("MPI_LOCALRANKID", "2")  # MPICH's mpiexec
    assert dist.get_node_local_rank() == 2
    monkeypatch.setenv("LOCAL_RANK", "1")  # torchrun's wins
    assert dist.get_node_local_rank() == 1
    assert not dist.is_torchelastic_launched()
    monkeypatch.setenv("TORCHELASTIC_RUN_ID", "job")
    assert dist.is_torchelastic_launched()


def test_small_names():
    assert dist.default_pg_timeout.total_seconds() == 1800
    assert dist.constants.default_pg_timeout is dist.default_pg_timeout
    assert [dist.supports_complex(op) for op in (dist.ReduceOp.SUM, dist.ReduceOp.MAX,
                                                 dist.ReduceOp.AVG)] == [True, False, True]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert dist.reduce_op.SUM is dist.ReduceOp.SUM
    assert issubclass(caught[0].category, FutureWarning)
    assert dist.group.WORLD is None and dist.GroupName("g") == "g" and dist.RankType is int
    assert dist.distributed_c10d.all_to_all is dist.all_to_all
    assert dist.log.name == "arraygrad.distributed"


@pytest.mark.parametrize("call, args", [
    ("all_to_all_single", (ag.ones(2), ag.ones(2))), ("all_to_all", ([ag.ones(1)], [ag.ones(1)])),
    ("reduce_scatter", (ag.ones(1), [ag.ones(1)])), ("all_reduce_coalesced", ([ag.ones(1)],)),
    ("gather_object", (1,)), ("scatter_object_list", ([None],)), ("send_object_list", ([1], 1)),
    ("monitored_barrier", ()), ("get_backend_config", ()), ("new_subgroups", (1,)),
    ("get_process_group_ranks", (None,)), ("split_group", (None, [[0]])),
])
def test_before_init_is_an_error_naming_the_call(call, args):
    assert not dist.is_initialized()
    with pytest.raises(RuntimeError, match=f"^{call}: Default process group has not been "
                                           "initialized"):
        getattr(dist, call)(*args)
