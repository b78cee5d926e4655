"""Every collective on every rank against its NumPy definition (run by test_dist_collectives)."""

import numpy as np

import arraygrad as ag
import arraygrad.distributed as dist

dist.init_process_group()
r, n = dist.get_rank(), dist.get_world_size()
assert dist.is_initialized() and dist.get_backend() == "mpi"


def value(rank, shape=(2, 3), dtype=np.float64):
    """Rank ``rank``'s input: distinct per rank, exact in float64."""
    return (np.arange(np.prod(shape)).reshape(shape) * (rank + 1) + rank).astype(dtype)


everyone = np.stack([value(k) for k in range(n)])

# all_reduce, every op, in place on the tensor's own buffer (same array object, no copy)
for op, ref in [(dist.ReduceOp.SUM, everyone.sum(0)), (dist.ReduceOp.PRODUCT, everyone.prod(0)),
                (dist.ReduceOp.MIN, everyone.min(0)), (dist.ReduceOp.MAX, everyone.max(0)),
                (dist.ReduceOp.AVG, everyone.sum(0) / n)]:
    t = ag.tensor(value(r))
    before = t._data
    assert dist.all_reduce(t, op=op) is None
    assert t._data is before, "all_reduce must work in place on the NumPy buffer"
    np.testing.assert_array_equal(t.numpy(), ref, err_msg=str(op))

# integer all_reduce, and a non-contiguous view (goes through a copy, written back)
t = ag.tensor(value(r, dtype=np.int64))
dist.all_reduce(t)
np.testing.assert_array_equal(t.numpy(), everyone.astype(np.int64).sum(0))
base = ag.tensor(value(r))
col = base[:, 1]
dist.all_reduce(col)
expect = value(r)
expect[:, 1] = everyone[:, :, 1].sum(0)
np.testing.assert_array_equal(base.numpy(), expect)

# async all_reduce: Work.wait / is_completed, several in flight at once
ts = [ag.tensor(value(r) + i) for i in range(4)]
works = [dist.all_reduce(t, op=dist.ReduceOp.AVG, async_op=True) for t in ts]
assert all(isinstance(w, dist.Work) for w in works)
for i, (w, t) in enumerate(zip(works[::-1], ts[::-1])):
    assert w.wait() is True and w.is_completed()
for i, t in enumerate(ts):
    np.testing.assert_array_equal(t.numpy(), everyone.sum(0) / n + i)

# is_completed alone (no wait) polls until the result is there
t = ag.tensor(value(r, shape=(64, 1024)))
w = dist.all_reduce(t, async_op=True)
while not w.is_completed():
    pass
np.testing.assert_array_equal(t.numpy(), sum(value(k, shape=(64, 1024)) for k in range(n)))
if n > 1:  # p2p: is_completed polls too
    got = ag.zeros(64, 1024, dtype=ag.float64)
    wr = dist.irecv(got, src=(r - 1) % n, tag=3)
    ws = dist.isend(ag.tensor(value(r, shape=(64, 1024))), dst=(r + 1) % n, tag=3)
    while not (wr.is_completed() and ws.is_completed()):
        pass
    np.testing.assert_array_equal(got.numpy(), value((r - 1) % n, shape=(64, 1024)))

# broadcast from every root
for src in range(n):
    t = ag.tensor(value(r))
    dist.broadcast(t, src=src)
    np.testing.assert_array_equal(t.numpy(), value(src))

# reduce to every root (others unchanged)
for dst in range(n):
    t = ag.tensor(value(r))
    dist.reduce(t, dst=dst, op=dist.ReduceOp.MAX)
    np.testing.assert_array_equal(t.numpy(), everyone.max(0) if r == dst else value(r))

# all_gather (list) and all_gather_into_tensor (concatenated and stacked)
out = [ag.zeros(2, 3, dtype=ag.float64) for _ in range(n)]
dist.all_gather(out, ag.tensor(value(r)))
for k in range(n):
    np.testing.assert_array_equal(out[k].numpy(), value(k))
cat = ag.zeros(2 * n, 3, dtype=ag.float64)
dist.all_gather_into_tensor(cat, ag.tensor(value(r)))
np.testing.assert_array_equal(cat.numpy(), np.concatenate([value(k) for k in range(n)]))
stacked = ag.zeros(n, 2, 3, dtype=ag.float64)
dist.all_gather_into_tensor(stacked, ag.tensor(value(r)))
np.testing.assert_array_equal(stacked.numpy(), everyone)

# reduce_scatter_tensor: rank r gets block r of the sum
big = np.stack([value(k, shape=(n * 2, 3)) for k in range(n)])
out = ag.zeros(2, 3, dtype=ag.float64)
dist.reduce_scatter_tensor(out, ag.tensor(value(r, shape=(n * 2, 3))))
np.testing.assert_array_equal(out.numpy(), big.sum(0)[2 * r:2 * r + 2])
dist.reduce_scatter_tensor(out, ag.tensor(value(r, shape=(n * 2, 3))), op=dist.ReduceOp.AVG)
np.testing.assert_array_equal(out.numpy(), big.sum(0)[2 * r:2 * r + 2] / n)

# gather / scatter
root = n - 1
glist = [ag.zeros(2, 3, dtype=ag.float64) for _ in range(n)] if r == root else None
dist.gather(ag.tensor(value(r)), glist, dst=root)
if r == root:
    for k in range(n):
        np.testing.assert_array_equal(glist[k].numpy(), value(k))
slist = [ag.tensor(value(k) * 10) for k in range(n)] if r == root else None
got = ag.zeros(2, 3, dtype=ag.float64)
dist.scatter(got, slist, src=root)
np.testing.assert_array_equal(got.numpy(), value(r) * 10)

# point to point: a ring of send/recv, then isend/irecv
if n > 1:
    right, left = (r + 1) % n, (r - 1) % n
    got = ag.zeros(2, 3, dtype=ag.float64)
    if r % 2 == 0:
        dist.send(ag.tensor(value(r)), dst=right)
        assert dist.recv(got, src=left) == left
    else:
        assert dist.recv(got) == left  # any source
        dist.send(ag.tensor(value(r)), dst=right)
    np.testing.assert_array_equal(got.numpy(), value(left))
    got = ag.zeros(2, 3, dtype=ag.float64)
    wr = dist.irecv(got, src=left, tag=7)
    ws = dist.isend(ag.tensor(value(r) + 1), dst=right, tag=7)
    ws.wait()
    wr.wait()
    assert wr.is_completed()
    np.testing.assert_array_equal(got.numpy(), value(left) + 1)

# objects
objs = [{"from": r}, "x"] if r == 0 else [None, None]
dist.broadcast_object_list(objs, src=0)
assert objs == [{"from": 0}, "x"]
gathered = [None] * n
dist.all_gather_object(gathered, ("rank", r))
assert gathered == [("rank", k) for k in range(n)]

# groups: the even ranks, reversed order given (sorted as in PyTorch)
evens = list(range(0, n, 2))[::-1]
g = dist.new_group(evens)
t = ag.tensor(value(r))
dist.all_reduce(t, group=g)
if r % 2 == 0:
    assert dist.get_world_size(g) == len(evens) and dist.get_rank(g) == r // 2
    np.testing.assert_array_equal(t.numpy(), sum(value(k) for k in evens))
else:
    assert dist.get_rank(g) == -1
    np.testing.assert_array_equal(t.numpy(), value(r))  # not a member: untouched
if r % 2 == 0:
    t = ag.tensor(value(r))
    dist.broadcast(t, src=max(evens), group=g)  # src is a global rank
    np.testing.assert_array_equal(t.numpy(), value(max(evens)))

# another array backend (array-api-strict): through a host copy, written back into the tensor
if "strict" in {b.name for b in ag.backends.available() if b.available}:
    t = ag.tensor(value(r), device="strict")
    dist.all_reduce(t, op=dist.ReduceOp.AVG, async_op=True).wait()
    assert t.device.type == "strict"
    np.testing.assert_array_equal(np.asarray(t.cpu().numpy()), everyone.sum(0) / n)
    out = [ag.zeros(2, 3, dtype=ag.float64, device="strict") for _ in range(n)]
    dist.all_gather(out, ag.tensor(value(r), device="strict"))
    for k in range(n):
        np.testing.assert_array_equal(out[k].cpu().numpy(), value(k))

dist.barrier()
dist.destroy_process_group()
assert not dist.is_initialized()
dist.init_process_group()  # a second life after destroy
assert dist.get_world_size() == n
dist.destroy_process_group()
print(f"rank {r} of {n}: ok", flush=True)
