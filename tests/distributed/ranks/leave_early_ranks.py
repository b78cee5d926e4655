"""DDP training where the last rank leaves at step 5 of 20: ``sys.exit(0)``, ``os._exit(0)``,
or (``finish``) no early leave at all, with rank 0 working on without MPI after the others
finished (not an error). Every rank prints ``rank R done`` when it finishes the loop."""

import os
import sys
import time

import arraygrad as ag
import arraygrad.distributed as dist
from arraygrad import nn
from arraygrad.nn.parallel import DistributedDataParallel as DDP

how = sys.argv[1]
dist.init_process_group()
r, n = dist.get_rank(), dist.get_world_size()
ag.manual_seed(0)
model = DDP(nn.Linear(4, 2))
opt = ag.optim.SGD(model.parameters(), lr=0.1)
for step in range(20):
    if r == n - 1 and step == 5 and how != "finish":
        print(f"rank {r} leaves via {how}", flush=True)
        if how == "_exit":
            os._exit(0)
        sys.exit(0)
    opt.zero_grad()
    model(ag.randn(8, 4)).sum().backward()
    opt.step()
dist.barrier()
if r == 0:
    time.sleep(3)  # the others have exited meanwhile; rank 0 needs none of them any more
print(f"rank {r} done", flush=True)
