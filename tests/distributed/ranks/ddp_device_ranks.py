"""DDP on N ranks over the device given as argv[1] (``jax``, ``dask``): each rank trains its
shard, and after every step its parameters equal single-process full-batch training on the
same device (float64, 1e-12) and are bit-identical across ranks."""

import sys

import numpy as np

import arraygrad as ag
import arraygrad.distributed as dist
from arraygrad import nn
from arraygrad.nn.parallel import DistributedDataParallel as DDP

device = sys.argv[1]
dist.init_process_group()
r, n = dist.get_rank(), dist.get_world_size()
N = 10
rng = np.random.default_rng(0)
X, Y = rng.standard_normal((N, 4)), rng.standard_normal((N, 2))
shard = np.array_split(np.arange(N), n)[r]


def make(seed):
    ag.manual_seed(seed)
    return nn.Sequential(nn.Linear(4, 5), nn.Tanh(), nn.Linear(5, 2)).double().to(device)


def loss_of(model, idx, scale):
    out = model(ag.tensor(X[idx], device=device))
    return ((out - ag.tensor(Y[idx], device=device)) ** 2).sum() * scale


def params(model):
    return [np.array(p.detach().cpu().numpy()) for p in model.parameters()]


ref, local = make(100), make(100 + r)
ddp = DDP(local)
opt = ag.optim.SGD(ddp.parameters(), lr=0.05, momentum=0.9)
ref_opt = ag.optim.SGD(ref.parameters(), lr=0.05, momentum=0.9)
for step in range(3):
    opt.zero_grad()
    loss_of(ddp, shard, n / N).backward()
    opt.step()
    ref_opt.zero_grad()
    loss_of(ref, np.arange(N), 1 / N).backward()
    ref_opt.step()
    for a, b in zip(params(local), params(ref)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    mine = b"".join(a.tobytes() for a in params(local))
    every = [None] * n
    dist.all_gather_object(every, mine)
    assert all(e == every[0] for e in every), "parameters differ across ranks"
print(f"ddp on {device} ok")
