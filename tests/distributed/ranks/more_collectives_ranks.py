"""The collectives added for PyTorch parity on every rank, each against its NumPy definition
(run by test_dist_more_collectives on 1, 2 and 3 ranks; 4 for the 2-D mesh)."""

import warnings

import numpy as np

import arraygrad as ag
import arraygrad.distributed as dist

dist.init_process_group()
r, n = dist.get_rank(), dist.get_world_size()
assert dist.get_pg_count() == 1 and dist.group.WORLD is dist.GroupMember.WORLD


def value(rank, shape=(2, 3), dtype=np.float64):
    return (np.arange(int(np.prod(shape))).reshape(shape) * (rank + 1) + rank).astype(dtype)


# all_to_all_single, even split: block j of rank i's input lands in block i of rank j's output
inp = value(r, (2 * n, 3))
out = ag.zeros(2 * n, 3, dtype=ag.float64)
dist.all_to_all_single(out, ag.tensor(inp))
expect = np.concatenate([value(i, (2 * n, 3))[2 * r:2 * r + 2] for i in range(n)])
np.testing.assert_array_equal(out.numpy(), expect)

# uneven splits: rank i sends (i + j + 1) rows to rank j
send_rows = [r + j + 1 for j in range(n)]
recv_rows = [i + r + 1 for i in range(n)]
inp = value(r, (sum(send_rows), 2))
out = ag.zeros(sum(recv_rows), 2, dtype=ag.float64)
work = dist.all_to_all_single(out, ag.tensor(inp), recv_rows, send_rows, async_op=True)
work.wait()
blocks = []
for i in range(n):
    start = sum(i + j + 1 for j in range(r))
    blocks.append(value(i, (sum(i + j + 1 for j in range(n)), 2))[start:start + i + r + 1])
np.testing.assert_array_equal(out.numpy(), np.concatenate(blocks))

# all_to_all with lists of tensors of different sizes (int64)
ins = [ag.tensor(np.full(r + j + 1, 10 * r + j, dtype=np.int64)) for j in range(n)]
outs = [ag.zeros(i + r + 1, dtype=ag.int64) for i in range(n)]
dist.all_to_all(outs, ins)
for i in range(n):
    np.testing.assert_array_equal(outs[i].numpy(), np.full(i + r + 1, 10 * i + r))

# reduce_scatter (a list per rank), reduce_scatter_single and all_gather_single
lists = [[value(k) + j for j in range(n)] for k in range(n)]
out = ag.zeros(2, 3, dtype=ag.float64)
dist.reduce_scatter(out, [ag.tensor(a) for a in lists[r]], op=dist.ReduceOp.MAX)
np.testing.assert_array_equal(out.numpy(), np.max([lists[k][r] for k in range(n)], axis=0))
dist.reduce_scatter(out, [ag.tensor(a) for a in lists[r]], op=dist.ReduceOp.AVG)
np.testing.assert_allclose(out.numpy(), np.mean([lists[k][r] for k in range(n)], axis=0))
big = np.stack([value(k, (n * 2, 3)) for k in range(n)])
dist.reduce_scatter_single(out, ag.tensor(value(r, (n * 2, 3))))
np.testing.assert_array_equal(out.numpy(), big.sum(0)[2 * r:2 * r + 2])
cat = ag.zeros(2 * n, 3, dtype=ag.float64)
dist.all_gather_single(cat, ag.tensor(value(r)))
np.testing.assert_array_equal(cat.numpy(), np.concatenate([value(k) for k in range(n)]))

# coalesced: several tensors in one call (sync, async, AVG), and the list gather
ts = [ag.tensor(value(r)), ag.tensor(value(r, (4,)))]
dist.all_reduce_coalesced(ts)
np.testing.assert_array_equal(ts[0].numpy(), sum(value(k) for k in range(n)))
np.testing.assert_array_equal(ts[1].numpy(), sum(value(k, (4,)) for k in range(n)))
ts = [ag.tensor(value(r)), ag.tensor(value(r, (4,)))]
dist.all_reduce_coalesced(ts, op=dist.ReduceOp.AVG, async_op=True).wait()
np.testing.assert_allclose(ts[1].numpy(), sum(value(k, (4,)) for k in range(n)) / n)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    lists = [[ag.zeros(2, 3, dtype=ag.float64), ag.zeros(5, dtype=ag.float64)] for _ in range(n)]
    dist.all_gather_coalesced(lists, [ag.tensor(value(r)), ag.tensor(value(r, (5,)))])
assert any(issubclass(w.category, FutureWarning) for w in caught)
for k in range(n):
    np.testing.assert_array_equal(lists[k][0].numpy(), value(k))
    np.testing.assert_array_equal(lists[k][1].numpy(), value(k, (5,)))

# objects: gather_object, scatter_object_list, send/recv_object_list
root = n - 1
got = [None] * n if r == root else None
dist.gather_object({"rank": r, "sq": r * r}, got, dst=root)
if r == root:
    assert got == [{"rank": k, "sq": k * k} for k in range(n)]
slot = [None]
dist.scatter_object_list(slot, [("item", k) for k in range(n)] if r == 0 else None, src=0)
assert slot == [("item", r)]
if n > 1:
    if r == 0:
        dist.send_object_list([{"a": [1, 2]}, "text", 3.5], dst=1)
    elif r == 1:
        box = [None, None, None]
        assert dist.recv_object_list(box, src=0) == 0
        assert box == [{"a": [1, 2]}, "text", 3.5]
        big_box = [None]
        assert dist.recv_object_list(big_box) == 0  # any source
        assert big_box[0] == list(range(10000))
    if r == 0:
        dist.send_object_list([list(range(10000))], dst=1)

# batch_isend_irecv: a ring in both directions at once
if n > 1:
    right, left = (r + 1) % n, (r - 1) % n
    from_left, from_right = ag.zeros(2, 3, dtype=ag.float64), ag.zeros(2, 3, dtype=ag.float64)
    ops = [dist.P2POp(dist.isend, ag.tensor(value(r)), right),
           dist.P2POp(dist.irecv, from_left, left),
           dist.P2POp(dist.isend, ag.tensor(value(r) * 2), left, tag=1),
           dist.P2POp(dist.irecv, from_right, right, tag=1)]
    works = dist.batch_isend_irecv(ops)
    assert len(works) == 4
    for w in works:
        w.wait()
    np.testing.assert_array_equal(from_left.numpy(), value(left))
    np.testing.assert_array_equal(from_right.numpy(), value(right) * 2)
    assert "P2POp(isend" in repr(ops[0])

dist.monitored_barrier()
dist.monitored_barrier(wait_all_ranks=True)

# ranks and groups
odd = dist.new_group([k for k in range(n) if k % 2 == 1]) if n > 1 else None
if odd is not None:
    assert dist.get_process_group_ranks(odd) == [k for k in range(n) if k % 2]
    assert dist.get_global_rank(odd, 0) == 1 and dist.get_group_rank(odd, 1) == 0
    assert dist.get_pg_count() == 2
assert dist.get_global_rank(dist.group.WORLD, r) == r
assert dist.get_backend_config() == "cpu:mpi,cuda:mpi"
mine, every = dist.new_subgroups(1)
assert len(every) == n and dist.get_process_group_ranks(mine) == [r]
blocks = [list(range(0, n, 2)), list(range(1, n, 2))] if n > 1 else [[0]]
mine, every = dist.new_subgroups_by_enumeration(blocks)
t = ag.tensor(value(r))
dist.all_reduce(t, group=mine)
np.testing.assert_array_equal(t.numpy(), sum(value(k) for k in range(r % 2, n, 2)))
half = dist.split_group(split_ranks=[[k] for k in range(n)])
assert dist.get_process_group_ranks(half) == [r]

# DeviceMesh: 1-D over the world; 2-D (2 x n/2) when n is even
mesh = dist.init_device_mesh("cpu", (n,), mesh_dim_names=("dp",))
assert mesh.get_group() is dist.group.WORLD and mesh.get_local_rank() == r
assert mesh.size() == n and mesh.ndim == 1 and mesh["dp"] is mesh
if n % 2 == 0:
    mesh2 = dist.init_device_mesh("cpu", (2, n // 2), mesh_dim_names=("dp", "tp"))
    row, col = divmod(r, n // 2)
    assert mesh2.get_coordinate() == (row, col) and mesh2.shape == (2, n // 2)
    assert mesh2.get_local_rank("dp") == row and mesh2.get_local_rank(1) == col
    tp = mesh2["tp"]
    assert dist.get_process_group_ranks(tp.get_group()) == [row * (n // 2) + c
                                                            for c in range(n // 2)]
    t = ag.tensor(value(r))
    dist.all_reduce(t, group=mesh2.get_group("dp"))
    np.testing.assert_array_equal(t.numpy(), value(col) + value(n // 2 + col))
    assert mesh2.mesh.tolist() == [[c + row_ * (n // 2) for c in range(n // 2)]
                                   for row_ in range(2)]

dist.barrier()
dist.destroy_process_group()
assert dist.get_pg_count() == 0
print(f"rank {r} of {n}: ok", flush=True)
