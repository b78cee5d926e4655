"""DDP on N ranks against single-process full-batch training, in float64.

Every rank starts from different weights (DDP's broadcast makes them rank 0's), trains
on its own (uneven) shard with tiny buckets, and after every step its parameters must
equal the full-batch reference within 1e-12 and be bit-identical across ranks.
"""

import sys

import numpy as np
import pytest

import arraygrad as ag
import arraygrad.distributed as dist
from arraygrad import nn
from arraygrad.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group()
r, n = dist.get_rank(), dist.get_world_size()
N = 11  # uneven shards on 2 and 3 ranks
rng = np.random.default_rng(0)
X, Y = rng.standard_normal((N, 5)), rng.standard_normal((N, 3))
shard = np.array_split(np.arange(N), n)[r]


def make(seed):
    ag.manual_seed(seed)
    return nn.Sequential(nn.Linear(5, 7), nn.Tanh(), nn.Linear(7, 4), nn.Tanh(),
                         nn.Linear(4, 3)).double()


def loss_of(model, idx, scale):
    out = model(ag.tensor(X[idx]))
    return ((out - ag.tensor(Y[idx])) ** 2).sum() * scale


def params(model):
    return [p.detach().numpy().copy() for p in model.parameters()]


def same_everywhere(arrays):
    """Bit-identical across ranks."""
    mine = b"".join(a.tobytes() for a in arrays)
    every = [None] * n
    dist.all_gather_object(every, mine)
    assert all(e == every[0] for e in every), "parameters differ across ranks"


def train(opt_name):
    ref = make(100)  # rank 0's initial weights
    local = make(100 + r)  # different on every rank until the broadcast
    ddp = DDP(local, bucket_cap_mb=60 / 2 ** 20)  # a few parameters per bucket
    assert len(ddp.reducer.buckets) >= 3
    assert ddp.module is local
    assert list(ddp.state_dict()) == ["module." + k for k in local.state_dict()]
    for a, b in zip(params(local), params(ref)):
        np.testing.assert_array_equal(a, b)  # rank 0's weights everywhere
    make_opt = {"sgd": lambda p: ag.optim.SGD(p, lr=0.05, momentum=0.9),
                "adam": lambda p: ag.optim.Adam(p, lr=0.01)}[opt_name]
    opt, ref_opt = make_opt(ddp.parameters()), make_opt(ref.parameters())
    for step in range(5):
        opt.zero_grad()
        # the average over n ranks of n * (shard sum / N) is the full-batch mean's gradient
        loss_of(ddp, shard, n / N).backward()
        opt.step()
        ref_opt.zero_grad()
        loss_of(ref, np.arange(N), 1 / N).backward()
        ref_opt.step()
        for a, b in zip(params(local), params(ref)):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
        same_everywhere(params(local))
    return ddp, ref


def test_no_sync():
    ref = make(7)
    ddp = DDP(make(7 + r), bucket_cap_mb=60 / 2 ** 20)
    halves = np.array_split(shard, 2)
    with ddp.no_sync():  # local accumulation only
        loss_of(ddp, halves[0], n / N).backward()
    grads_local = [p.grad.numpy().copy() for p in ddp.parameters()]
    loss_of(ddp, halves[1], n / N).backward()  # synchronised: the accumulated sum averaged
    loss_of(ref, np.arange(N), 1 / N).backward()
    for p, q in zip(ddp.parameters(), ref.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-12, atol=1e-12)
    assert n == 1 or any(not np.array_equal(a, p.grad.numpy())
                         for a, p in zip(grads_local, ddp.parameters()))
    same_everywhere([p.grad.numpy() for p in ddp.parameters()])


class Branchy(nn.Module):
    """``head`` is used on rank 0 only; ``spare`` on no rank."""

    def __init__(self):
        super().__init__()
        self.body = nn.Linear(5, 3).double()
        self.head = nn.Linear(3, 3).double()
        self.spare = nn.Linear(3, 3).double()

    def forward(self, x):
        y = self.body(x)
        return self.head(y) if dist.get_rank() == 0 else y


def test_unused_parameters():
    ddp = DDP(Branchy(), find_unused_parameters=True, bucket_cap_mb=60 / 2 ** 20)
    loss_of(ddp, shard, 1.0).backward()
    m = ddp.module
    assert m.spare.weight.grad is None  # unused everywhere: untouched
    assert m.head.weight.grad is not None  # used on rank 0: the average reaches every rank
    same_everywhere([m.head.weight.grad.numpy(), m.body.weight.grad.numpy()])
    # without find_unused_parameters: PyTorch's error, on every rank, and no hang
    strict = DDP(Branchy(), bucket_cap_mb=60 / 2 ** 20)
    with pytest.raises(RuntimeError, match="find_unused_parameters=True.*spare.weight"):
        loss_of(strict, shard, 1.0).backward()
    dist.barrier()


def test_buffers_follow_rank_0():
    bn = nn.BatchNorm1d(5).double()
    ddp = DDP(bn)
    bn.eval()
    with ag.no_grad():
        bn.running_mean.fill_(float(r))  # diverge
        ddp(ag.tensor(X[:2]))  # broadcast_buffers: rank 0's buffers before the forward
    np.testing.assert_array_equal(bn.running_mean.numpy(), np.zeros(5))
    same_everywhere([b.numpy() for b in bn.buffers()])


for opt_name in ("sgd", "adam"):
    train(opt_name)
test_no_sync()
test_unused_parameters()
test_buffers_follow_rank_0()
dist.destroy_process_group()
print(f"rank {r}: ddp ok", flush=True)
