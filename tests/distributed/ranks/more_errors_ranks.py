"""Bad use of the added calls on 2 ranks: every rank raises together (PyTorch's error classes
and messages where it has them), monitored_barrier names the late rank, nothing hangs."""

import time
from datetime import timedelta

import numpy as np
import pytest

import arraygrad as ag
import arraygrad.distributed as dist

dist.init_process_group()
r, n = dist.get_rank(), dist.get_world_size()
assert n == 2

# split sizes that do not pair up: rank 0 sends 1 row to rank 1, which expects 2
out, inp = ag.zeros(3), ag.ones(3)
with pytest.raises(dist.DistBackendError, match="all_to_all_single: the ranks' split sizes do "
                                                "not match: .*rank 0 sends 1 elements to rank 1, "
                                                "which expects 2"):
    dist.all_to_all_single(out, inp, output_split_sizes=[2, 1], input_split_sizes=[2, 1])
np.testing.assert_array_equal(out.numpy(), np.zeros(3))  # untouched
# a local error on one rank: that rank gets PyTorch's error, the other hears of it
with pytest.raises(RuntimeError, match="Split sizes doesn't match total dim 0 size" if r == 1
                   else r"all_to_all_single: rank\(s\) \[1\]"):
    dist.all_to_all_single(ag.zeros(4), ag.ones(4), input_split_sizes=[2, 2] if r == 0 else [3, 3])
with pytest.raises(ValueError, match="Invalid usage of tensors with different dtypes"):
    dist.all_to_all_single(ag.zeros(4, dtype=ag.int64), ag.ones(4))
with pytest.raises(RuntimeError, match="output tensor list size 1 does not match world size 2"):
    dist.all_to_all([ag.zeros(1)], [ag.ones(1), ag.ones(1)])
with pytest.raises(TypeError, match="Expected parameter `input_tensor_list`"):
    dist.all_to_all([ag.zeros(1), ag.zeros(1)], ag.ones(2))
with pytest.raises(RuntimeError, match="invalid input tensor list size, must be world size"):
    dist.reduce_scatter(ag.zeros(2), [ag.ones(2)])
with pytest.raises(ValueError, match="different dtypes"):
    dist.all_reduce_coalesced([ag.ones(2), ag.ones(2, dtype=ag.float64)])
with pytest.raises(RuntimeError, match="reduce_scatter_single: input tensor size must be"):
    dist.reduce_scatter_single(ag.zeros(2), ag.ones(3))

# objects
with pytest.raises(ValueError if r == 0 else dist.DistBackendError,
                   match="gather_list`` must be specified on destination rank"
                   if r == 0 else r"gather_object: rank\(s\) \[0\]"):
    dist.gather_object(r, None, dst=0)
with pytest.raises(ValueError, match="scatter_object_output_list to be a list of size at least 1"):
    dist.scatter_object_list([], [1, 2])
with pytest.raises(RuntimeError, match="Incorrect input list size 3" if r == 0
                   else r"scatter_object_list: rank\(s\) \[0\]"):
    dist.scatter_object_list([None], [1, 2, 3] if r == 0 else None, src=0)
with pytest.raises(ValueError, match="must not be the same as the rank"):
    dist.send_object_list([1], dst=r)
if r == 0:
    dist.send_object_list([1, 2], dst=1)
else:
    with pytest.raises(dist.DistBackendError, match="rank 0 sent 2 objects but object_list has "
                                                    "1 slots"):
        dist.recv_object_list([None], src=0)
with pytest.raises(ValueError, match="Invalid ``op``"):
    dist.P2POp(dist.all_reduce, ag.ones(1), 1 - r)
with pytest.raises(ValueError, match="Invalid ``p2p_op_list``"):
    dist.batch_isend_irecv([1])

# monitored_barrier: rank 1 arrives late; rank 0 names it, rank 1 is never released
if r == 1:
    time.sleep(1.5)
    with pytest.raises(dist.DistBackendError, match="Rank 1 successfully reached "
                                                    "monitoredBarrier, but received errors"):
        dist.monitored_barrier(timeout=timedelta(seconds=0.5))
else:
    with pytest.raises(dist.DistBackendError, match=r"\[Rank 0\]: Rank 1 failed to pass "
                                                    "monitoredBarrier in 500 ms"):
        dist.monitored_barrier(timeout=timedelta(seconds=0.5))
with pytest.raises(TypeError, match="Expected timeout argument to be of type datetime.timedelta"):
    dist.monitored_barrier(timeout="1s")

# subgroups and meshes: bad input raises on every rank before any group is made
with pytest.raises(ValueError, match="Rank 0 has appeared in both subgroup"):
    dist.new_subgroups_by_enumeration([[0, 1], [0]])
with pytest.raises(ValueError, match=r"The arg 'group_size' \(3\) must not exceed"):
    dist.new_subgroups(3)
with pytest.raises(RuntimeError, match="mesh_shape and mesh_dim_names should have same length"):
    dist.init_device_mesh("cpu", (2,), mesh_dim_names=("a", "b"))
with pytest.raises(RuntimeError, match="Device type with index is not supported"):
    dist.init_device_mesh("cuda:0", (2,))
mesh = dist.init_device_mesh("cpu", (1, 2), mesh_dim_names=("dp", "tp"))
with pytest.raises(RuntimeError, match="Optional kwarg `mesh_dim` needs to be specified"):
    mesh.get_group()
with pytest.raises(KeyError, match="Mesh dim indices should be in ascending order"):
    mesh["tp", "dp"]
with pytest.raises(KeyError, match="Invalid mesh_dim_names"):
    mesh["pp"]

# the group still works
t = ag.ones(3) * (r + 1)
dist.all_reduce(t)
np.testing.assert_array_equal(t.numpy(), [3.0, 3.0, 3.0])
dist.destroy_process_group()
print(f"rank {r}: errors ok", flush=True)
