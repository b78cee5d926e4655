"""Normalizing flows on two moons, ported by renaming the import, in the form of Karpathy's
pytorch-normalizing-flows (nflib/flows.py and nflib1.ipynb): affine half (RealNVP) coupling
flows with small MLPs for scale and shift, ActNorm initialised from the first batch's
statistics, a NormalizingFlow running the flows forward (x -> z, summing log-determinants)
and backward (z -> x), a prior made with torch.distributions (TransformedDistribution of a
Uniform through SigmoidTransform().inv: a logistic), NLL training with Adam, then sampling
from the prior and inverting. PyTorch prints these numbers on arraygrad's random stream
(tools/programs/shared_stream.py); float64, because in float32 round-off parts the two runs
after about 200 steps."""
import math

import arraygrad as torch
import arraygrad.nn as nn
from arraygrad.distributions import SigmoidTransform, TransformedDistribution, Uniform

torch.set_default_dtype(torch.float64)
torch.manual_seed(0)


def moons(n):
    """Two interleaving half circles with noise (scikit-learn's make_moons, in torch)."""
    t = torch.rand(n) * math.pi
    upper = torch.rand(n) < 0.5
    x = torch.where(upper, torch.cos(t), 1 - torch.cos(t))
    y = torch.where(upper, torch.sin(t), 0.5 - torch.sin(t))
    return torch.stack([x, y], 1) + 0.05 * torch.randn(n, 2)


class MLP(nn.Module):
    def __init__(self, nin, nout, nh):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(nin, nh), nn.LeakyReLU(0.2), nn.Linear(nh, nh),
                                 nn.LeakyReLU(0.2), nn.Linear(nh, nout))

    def forward(self, x):
        return self.net(x)


class AffineHalfFlow(nn.Module):
    """RealNVP coupling: one half of the dimensions scales and shifts the other."""

    def __init__(self, dim, parity, nh=16):
        super().__init__()
        self.dim, self.parity = dim, parity
        self.s_cond = MLP(self.dim // 2, self.dim // 2, nh)
        self.t_cond = MLP(self.dim // 2, self.dim // 2, nh)

    def forward(self, x):
        x0, x1 = x[:, ::2], x[:, 1::2]
        if self.parity:
            x0, x1 = x1, x0
        s, t = self.s_cond(x0), self.t_cond(x0)
        z0, z1 = x0, torch.exp(s) * x1 + t
        if self.parity:
            z0, z1 = z1, z0
        return torch.cat([z0, z1], dim=1), torch.sum(s, dim=1)

    def backward(self, z):
        z0, z1 = z[:, ::2], z[:, 1::2]
        if self.parity:
            z0, z1 = z1, z0
        s, t = self.s_cond(z0), self.t_cond(z0)
        x0, x1 = z0, (z1 - t) * torch.exp(-s)
        if self.parity:
            x0, x1 = x1, x0
        return torch.cat([x0, x1], dim=1), torch.sum(-s, dim=1)


class ActNorm(nn.Module):
    """Per-dimension affine flow, initialised so the first batch comes out standardised."""

    def __init__(self, dim):
        super().__init__()
        self.s = nn.Parameter(torch.zeros(1, dim))
        self.t = nn.Parameter(torch.zeros(1, dim))
        self.data_dep_init_done = False

    def forward(self, x):
        if not self.data_dep_init_done:
            self.s.data = (-torch.log(x.std(dim=0, keepdim=True))).detach()
            self.t.data = (-(x * torch.exp(self.s)).mean(dim=0, keepdim=True)).detach()
            self.data_dep_init_done = True
        return x * torch.exp(self.s) + self.t, torch.sum(self.s, dim=1)

    def backward(self, z):
        return (z - self.t) * torch.exp(-self.s), torch.sum(-self.s, dim=1)


class NormalizingFlowModel(nn.Module):
    def __init__(self, prior, flows):
        super().__init__()
        self.prior = prior
        self.flows = nn.ModuleList(flows)

    def forward(self, x):
        log_det = torch.zeros(x.shape[0])
        for flow in self.flows:
            x, ld = flow.forward(x)
            log_det += ld
        prior_logprob = self.prior.log_prob(x).view(x.size(0), -1).sum(1)
        return x, prior_logprob, log_det

    def backward(self, z):
        for flow in self.flows[::-1]:
            z, _ = flow.backward(z)
        return z

    def sample(self, num_samples):
        return self.backward(self.prior.sample((num_samples,)))


prior = TransformedDistribution(Uniform(torch.zeros(2), torch.ones(2)), SigmoidTransform().inv)
flows = []
for i in range(4):
    flows += [ActNorm(dim=2), AffineHalfFlow(dim=2, parity=i % 2)]
model = NormalizingFlowModel(prior, flows)
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3, weight_decay=1e-5)
print("number of params: ", sum(p.numel() for p in model.parameters()))
model.train()
for k in range(301):
    x = moons(128)
    zs, prior_logprob, log_det = model(x)
    loss = -torch.sum(prior_logprob + log_det)
    model.zero_grad()
    loss.backward()
    optimizer.step()
    if k % 50 == 0:
        print(f"step {k} nll {loss.item() / 128:.6f}")

model.eval()
with torch.no_grad():
    samples = model.sample(256)
    x = moons(512)
    zs, prior_logprob, log_det = model(x)
print("samples mean", " ".join(f"{v:.5f}" for v in samples.mean(0).tolist()),
      "std", " ".join(f"{v:.5f}" for v in samples.std(0).tolist()))
print(f"final nll {-(prior_logprob + log_det).mean().item():.6f}")
