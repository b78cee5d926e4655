"""ZeroRedundancyOptimizer and Join on 1, 2 and 3 ranks against a single-process reference:
Adam on the averaged gradient, computed here in one process for every rank's data."""

import copy

import numpy as np
import pytest

import arraygrad as ag
import arraygrad.distributed as dist
from arraygrad import nn
from arraygrad.distributed.algorithms.join import Join, Joinable, JoinHook
from arraygrad.distributed.optim import ZeroRedundancyOptimizer

dist.init_process_group()
r, n = dist.get_rank(), dist.get_world_size()


def make_model():
    ag.manual_seed(0)
    return nn.Sequential(nn.Linear(5, 7), nn.Tanh(), nn.Linear(7, 3), nn.Linear(3, 1)).double()


def batch(rank, step):
    rng = np.random.default_rng(100 * rank + step)
    return ag.tensor(rng.standard_normal((4, 5))), ag.tensor(rng.standard_normal((4, 1)))


def grads_of(model, rank, step):
    model.zero_grad()
    x, y = batch(rank, step)
    ((model(x) - y) ** 2).mean().backward()
    return [p.grad.clone() for p in model.parameters()]


def reference(steps_of_rank, total_steps):
    """Adam in one process: each step's gradient is the sum of the active ranks' over n."""
    model = make_model()
    opt = ag.optim.Adam(model.parameters(), lr=0.01)
    for s in range(total_steps):
        per_rank = [grads_of(model, k, s) for k in range(n) if s < steps_of_rank(k)]
        for i, p in enumerate(model.parameters()):
            p.grad = sum(g[i] for g in per_rank) / n
        opt.step()
    return model, opt


# plain training: the same steps on every rank
model = make_model()
zero = ZeroRedundancyOptimizer(model.parameters(), ag.optim.Adam, lr=0.01)
owned = [p for g in zero.optim.param_groups for p in g["params"]]
sizes = [sum(p.numel() for g in groups for p in g["params"]) for groups in zero._partition_parameters()]
assert sum(sizes) == sum(p.numel() for p in model.parameters())
for s in range(4):
    grads_of(model, r, s)
    for p in model.parameters():
        dist.all_reduce(p.grad, op=dist.ReduceOp.AVG)
    zero.step()
ref_model, ref_opt = reference(lambda k: 4, 4)
for p, q in zip(model.parameters(), ref_model.parameters()):
    np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-12, atol=1e-14)
assert all(id(p) in {id(q) for q in owned} for p in zero.optim.state)  # only its shard's state

# the whole state on rank 0, as the single-process Adam's
with pytest.raises(RuntimeError, match="has not been consolidated"):
    zero.state_dict()
zero.consolidate_state_dict(to=0)
full = [None]
if r == 0:
    sd, ref_sd = zero.state_dict(), ref_opt.state_dict()
    assert sorted(sd["state"]) == sorted(ref_sd["state"])
    assert sd["param_groups"][0]["params"] == ref_sd["param_groups"][0]["params"]
    for i in sd["state"]:
        for key in ("exp_avg", "exp_avg_sq", "step"):
            np.testing.assert_allclose(np.asarray(sd["state"][i][key].numpy()),
                                       np.asarray(ref_sd["state"][i][key].numpy()), rtol=1e-12)
    full = [sd]
dist.broadcast_object_list(full, src=0)

# a new optimizer loads it and continues as the reference does
model2 = copy.deepcopy(model)
zero2 = ZeroRedundancyOptimizer(model2.parameters(), ag.optim.Adam, lr=0.5)
zero2.load_state_dict(full[0])
assert zero2.param_groups[0]["lr"] == 0.01 and zero2.optim.param_groups[0]["lr"] == 0.01
grads_of(model2, r, 10)
for p in model2.parameters():
    dist.all_reduce(p.grad, op=dist.ReduceOp.AVG)
zero2.step()
ref_grads = [grads_of(ref_model, k, 10) for k in range(n)]
for i, p in enumerate(ref_model.parameters()):
    p.grad = sum(g[i] for g in ref_grads) / n
ref_opt.step()
for p, q in zip(model2.parameters(), ref_model.parameters()):
    np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-12, atol=1e-14)


# uneven inputs under Join: rank k has k + 2 batches
class GradSync(Joinable):
    """Sums the gradients over the ranks and divides by the world size (DDP's role here)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def sync(self):
        Join.notify_join_context(self)
        for p in self.model.parameters():
            dist.all_reduce(p.grad)
            p.grad /= n

    def join_hook(self, **kwargs):
        return _ShadowGrads(self)

    @property
    def join_device(self):
        return ag.device("cpu")

    @property
    def join_process_group(self):
        return dist.group.WORLD


class _ShadowGrads(JoinHook):
    def __init__(self, sync):
        self.sync, self.posts = sync, []

    def main_hook(self):
        for p in self.sync.model.parameters():
            p.grad = ag.zeros_like(p)
            dist.all_reduce(p.grad)
            p.grad /= n

    def post_hook(self, is_last_joiner):
        self.posts.append(is_last_joiner)


model = make_model()
zero = ZeroRedundancyOptimizer(model.parameters(), ag.optim.Adam, lr=0.01)
sync = GradSync(model)
join = Join([sync, zero])
with join:
    for s in range(r + 2):
        grads_of(model, r, s)
        sync.sync()
        zero.step()
assert join._join_hooks[0].posts == [r == n - 1]
ref_model, _ = reference(lambda k: k + 2, n + 1)
for p, q in zip(model.parameters(), ref_model.parameters()):
    np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-12, atol=1e-14)

# throw_on_early_termination: every rank raises once rank 0 is out of inputs
if n > 1:
    with pytest.raises(RuntimeError, match="Rank 0 exhausted all inputs" if r == 0
                       else "Detected at least one rank that exhausted inputs"):
        with Join([sync, zero], throw_on_early_termination=True):
            for s in range(r + 2):
                grads_of(model, r, s)
                sync.sync()
                zero.step()

with pytest.raises(ValueError, match="requires at least one joinable"):
    Join([])
with pytest.raises(RuntimeError, match="overlap_with_ddp=True"):
    ZeroRedundancyOptimizer(model.parameters(), ag.optim.SGD, overlap_with_ddp=True, lr=0.1)
with pytest.raises(ValueError, match="empty parameter list"):
    ZeroRedundancyOptimizer([], ag.optim.SGD, lr=0.1)

dist.barrier()
dist.destroy_process_group()
print(f"rank {r} of {n}: zero ok", flush=True)
