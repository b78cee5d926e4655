"""Rank 1 runs two synchronised backward passes per optimizer step, the others one: its second
pass would pair with the others' next step. Every rank must raise at that pass, naming the
ranks' positions. ``twice_forward`` (argv[1]): a forward before each backward; ``retain``: one
forward, backward twice. A rank prints ``RAISED <message>`` and exits 0."""

import sys

import arraygrad as ag
import arraygrad.distributed as dist
from arraygrad import nn
from arraygrad.distributed import DistBackendError
from arraygrad.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group()
r = dist.get_rank()
ag.manual_seed(0)
model = DDP(nn.Linear(4, 2))
opt = ag.optim.SGD(model.parameters(), lr=0.1)
x = ag.randn(8, 4)
passes = 2 if r == 1 else 1
try:
    for step in range(6):
        opt.zero_grad()
        if sys.argv[1] == "retain":
            loss = model(x).sum()
            for i in range(passes):
                loss.backward(retain_graph=True)
        else:
            for i in range(passes):
                model(x).sum().backward()
        opt.step()
except DistBackendError as exc:
    print(f"RAISED step {step}: {exc}", flush=True)
else:
    print(f"rank {r} finished every step", flush=True)
