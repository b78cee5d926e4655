"""MADE, the masked autoencoder for distribution estimation, ported by renaming the import,
in the form of Karpathy's pytorch-made (made.py, run.py): a MaskedLinear (nn.Linear subclass)
whose mask is a registered buffer copied from NumPy (mask.data.copy_(torch.from_numpy(...))),
connectivity drawn by a seeded NumPy RandomState and resampled every few steps (order-agnostic
training over several orderings), binary_cross_entropy_with_logits(reduction='sum'), Adam
with weight decay, StepLR; synthetic binary vectors. PyTorch prints these numbers on
arraygrad's random stream (tools/programs/shared_stream.py)."""
import numpy as np

import arraygrad as torch
import arraygrad.nn as nn
import arraygrad.nn.functional as F

np.random.seed(42)
torch.manual_seed(42)


class MaskedLinear(nn.Linear):
    def __init__(self, in_features, out_features, bias=True):
        super().__init__(in_features, out_features, bias)
        self.register_buffer("mask", torch.ones(out_features, in_features))

    def set_mask(self, mask):
        self.mask.data.copy_(torch.from_numpy(mask.astype(np.float32).T))

    def forward(self, input):
        return F.linear(input, self.mask * self.weight, self.bias)


class MADE(nn.Module):
    def __init__(self, nin, hidden_sizes, nout, num_masks=1, natural_ordering=False):
        super().__init__()
        self.nin, self.nout, self.hidden_sizes = nin, nout, hidden_sizes
        self.net = []
        hs = [nin] + hidden_sizes + [nout]
        for h0, h1 in zip(hs, hs[1:]):
            self.net.extend([MaskedLinear(h0, h1), nn.ReLU()])
        self.net.pop()
        self.net = nn.Sequential(*self.net)
        self.natural_ordering = natural_ordering
        self.num_masks = num_masks
        self.seed = 0
        self.m = {}
        self.update_masks()

    def update_masks(self):
        if self.m and self.num_masks == 1:
            return
        L = len(self.hidden_sizes)
        rng = np.random.RandomState(self.seed)
        self.seed = (self.seed + 1) % self.num_masks
        self.m[-1] = np.arange(self.nin) if self.natural_ordering else rng.permutation(self.nin)
        for l in range(L):
            self.m[l] = rng.randint(self.m[l - 1].min(), self.nin - 1, size=self.hidden_sizes[l])
        masks = [self.m[l - 1][:, None] <= self.m[l][None, :] for l in range(L)]
        masks.append(self.m[L - 1][:, None] < self.m[-1][None, :])
        layers = [l for l in self.net.modules() if isinstance(l, MaskedLinear)]
        for l, m in zip(layers, masks):
            l.set_mask(m)

    def forward(self, x):
        return self.net(x)


D = 16
templates = np.random.rand(4, D) < 0.4
rows = templates[np.random.randint(0, 4, 600)] ^ (np.random.rand(600, D) < 0.05)
xtr = torch.from_numpy(rows[:500].astype(np.float32))
xte = torch.from_numpy(rows[500:].astype(np.float32))
model = MADE(D, [32], D, num_masks=4)
opt = torch.optim.Adam(model.parameters(), 1e-2, weight_decay=1e-4)
scheduler = torch.optim.lr_scheduler.StepLR(opt, step_size=4, gamma=0.3)


def run_epoch(split, resample_every=5):
    torch.set_grad_enabled(split == "train")
    model.train() if split == "train" else model.eval()
    x = xtr if split == "train" else xte
    N, B = x.size(0), 50
    lossfs = []
    for step in range(N // B):
        xb = x[step * B:step * B + B]
        if step % resample_every == 0 or split == "test":
            model.update_masks()
        loss = F.binary_cross_entropy_with_logits(model(xb), xb, reduction="sum") / B
        lossfs.append(loss.item())
        if split == "train":
            opt.zero_grad()
            loss.backward()
            opt.step()
    torch.set_grad_enabled(True)
    print("%s epoch average loss: %f" % (split, np.mean(lossfs)))
    return float(np.mean(lossfs))


for epoch in range(6):
    run_epoch("train")
    scheduler.step()
test_nll = run_epoch("test")
print(f"final nll {test_nll / D:.6f}")
