"""The stores shared by the ranks' processes: a TCPStore served by rank 0 (loopback), a
FileStore on one file, a PrefixStore over each, and rendezvous URLs (run on 2 and 3 ranks)."""

import os
import sys
import socket
import tempfile
from datetime import timedelta

import pytest

import arraygrad.distributed as dist

dist.init_process_group()
r, n = dist.get_rank(), dist.get_world_size()
box = [None, None]
if r == 0:
    master = dist.TCPStore("127.0.0.1", 0, n, True, timedelta(seconds=30),
                           wait_for_workers=False)
    box = [master.port, tempfile.mkdtemp()]
dist.broadcast_object_list(box, src=0)
port, tmp = box
if r == 0:
    stores = [master]
else:
    stores = [dist.TCPStore("127.0.0.1", port, n, False, timedelta(seconds=30))]
stores.append(dist.FileStore(os.path.join(tmp, "store"), n))

for kind, store in zip(("tcp", "file"), stores):
    for s in (store, dist.PrefixStore(f"p{kind}", store)):
        s.set(f"from{r}", f"hello {r}")
        # every rank reads every rank's key, waiting for the late ones
        assert [s.get(f"from{k}") for k in range(n)] == [f"hello {k}".encode() for k in range(n)]
        assert s.add("counter", r + 1) > 0
        s.barrier("after-add", n)
        assert int(s.get("counter")) == n * (n + 1) // 2
        # exactly one rank wins the compare_set race
        won = s.compare_set("leader", "", f"{r}") == f"{r}".encode()
        s.queue_push("q", f"{r}")
        s.barrier("after-race", n)
        assert s.get("leader") in {f"{k}".encode() for k in range(n)}
        assert s.check(["leader", "counter"]) and not s.check(["nobody"])
        if r == 0:
            assert sorted(s.queue_pop("q") for _ in range(n)) == [f"{k}".encode() for k in range(n)]
            with pytest.raises(dist.QueueEmptyError):
                s.queue_pop("q", block=False)
        winners = [None] * n
        dist.all_gather_object(winners, won)
        assert sum(winners) == 1
        with pytest.raises(dist.DistStoreError):
            s.wait(["never"], timedelta(seconds=0.2))
        s.barrier("end", n)
    if r == 0:
        assert set(store.list_keys()) >= {f"from{k}" for k in range(n)}

# rendezvous: tcp:// (rank 0 serves) and file://
box = [None]
if r == 0:
    with socket.socket() as probe:  # a free port for rank 0's server
        probe.bind(("127.0.0.1", 0))
        box = [probe.getsockname()[1]]
dist.broadcast_object_list(box, src=0)
store, rank, size = next(dist.rendezvous(f"tcp://127.0.0.1:{box[0]}", r, n,
                                         timeout=timedelta(seconds=30)))
assert (rank, size) == (r, n)
store.set(f"k{r}", "v")
store.wait([f"k{k}" for k in range(n)])
fstore, rank, size = next(dist.rendezvous(f"file://{os.path.join(tmp, 'rdzv')}?rank={r}"
                                          f"&world_size={n}"))
fstore.add("joined", 1)
fstore.wait(["joined"])
with pytest.raises(RuntimeError, match="No rendezvous handler for nope://"):
    dist.rendezvous("nope://x", r, n)

dist.barrier()
dist.destroy_process_group()
print(f"rank {r} of {n}: stores ok", flush=True)
sys.stdout.flush()
