"""DistributedDataParallel's PyTorch 2.13 keywords on N ranks, in float64: the delayed
all-reduce of ``delay_all_reduce_named_params``, ``bucket_cap_mb_list``, a 1-D
``device_mesh``, ``forward_sync_buffers`` and the deprecated ``broadcast_buffers``; the
averaged gradients equal full-batch ones."""

import warnings

import numpy as np
import pytest

import arraygrad as ag
import arraygrad.distributed as dist
from arraygrad import nn
from arraygrad.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group()
r, n = dist.get_rank(), dist.get_world_size()
N = 7
rng = np.random.default_rng(0)
X, Y = rng.standard_normal((N, 4)), rng.standard_normal((N, 2))
shard = np.array_split(np.arange(N), n)[r]


def make(seed):
    ag.manual_seed(seed)
    return nn.Sequential(nn.Linear(4, 5), nn.Tanh(), nn.Linear(5, 2)).double()


def loss_of(model, idx, scale):
    return ((model(ag.tensor(X[idx])) - ag.tensor(Y[idx])) ** 2).sum() * scale


def check_grads(ddp):
    ref = make(11)
    loss_of(ddp, shard, n / N).backward()
    loss_of(ref, np.arange(N), 1 / N).backward()
    for p, q in zip(ddp.module.parameters(), ref.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-12, atol=1e-12)


# delayed all-reduce: the first layer leaves the buckets, averaged after the last one's grad
model = make(11 + r)
delayed = [("0.weight", model[0].weight), ("0.bias", model[0].bias)]
ddp = DDP(model, delay_all_reduce_named_params=delayed,
          param_to_hook_all_reduce=model[2].weight)
assert len(ddp.reducer.params) == 2
check_grads(ddp)

# per-bucket caps, and a 1-D device mesh giving the group
class Mesh:
    ndim = 1

    def get_group(self, mesh_dim=0):
        return dist.GroupMember.WORLD

check_grads(DDP(make(11 + r), bucket_cap_mb_list=[60 / 2 ** 20, 1.0], device_mesh=Mesh()))
with pytest.raises(RuntimeError, match="Cannot specify both process_group and device_mesh"):
    DDP(make(1), process_group=dist.GroupMember.WORLD, device_mesh=Mesh())
with pytest.raises(ValueError, match="need to be set at the same time"):
    DDP(make(1), delay_all_reduce_named_params=delayed)
with pytest.raises(ValueError, match="mixed_precision"):
    DDP(make(1), mixed_precision=object())

# buffers: forward_sync_buffers=False keeps rank-local buffers at forward (synced at init)
bn = nn.BatchNorm1d(4).double().eval()
with ag.no_grad():
    bn.running_mean.fill_(float(r))
quiet = DDP(bn, forward_sync_buffers=False)
assert not quiet.broadcast_buffers
np.testing.assert_array_equal(bn.running_mean.numpy(), np.zeros(4))  # init sync
with ag.no_grad():
    bn.running_mean.fill_(float(r))
    quiet(ag.tensor(X[:2]))
np.testing.assert_array_equal(bn.running_mean.numpy(), np.full(4, float(r)))
bn2 = nn.BatchNorm1d(4).double().eval()
with ag.no_grad():
    bn2.running_mean.fill_(float(r))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    DDP(bn2, broadcast_buffers=False)  # deprecated: no sync, even at init
assert any("broadcast_buffers` is deprecated" in str(w.message) for w in caught)
np.testing.assert_array_equal(bn2.running_mean.numpy(), np.full(4, float(r)))
with pytest.warns(FutureWarning, match="DistributedDataParallelCPU` is deprecated"):
    nn.parallel.DistributedDataParallelCPU(make(1))
dist.destroy_process_group()
print(f"rank {r}: ddp keywords ok", flush=True)
