"""Two programs written as PyTorch code, run on PyTorch and on arraygrad (the module passed in
as ``torch``): a LLaMA-style attention block with rotary embeddings (``polar``,
``view_as_complex``, ``view_as_real``, as LLaMA's reference code writes them), and a model
trained with an ``rfft`` spectral loss. Outputs, gradients and every training step agree."""

from __future__ import annotations

import math

import numpy as np

import arraygrad as ag
from tests.complex.torch_pairs import as_numpy, needs_torch, torch


# -- LLaMA's rotary embeddings and attention (github.com/meta-llama/llama, model.py) -------

def precompute_freqs_cis(torch, dim: int, end: int, theta: float = 10000.0):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
    t = torch.arange(end, device=freqs.device)
    freqs = torch.outer(t, freqs).float()
    return torch.polar(torch.ones_like(freqs), freqs)  # complex64


def reshape_for_broadcast(freqs_cis, x):
    ndim = x.ndim
    assert freqs_cis.shape == (x.shape[1], x.shape[-1])
    shape = [d if i == 1 or i == ndim - 1 else 1 for i, d in enumerate(x.shape)]
    return freqs_cis.view(*shape)


def apply_rotary_emb(torch, xq, xk, freqs_cis):
    xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    xk_ = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
    freqs_cis = reshape_for_broadcast(freqs_cis, xq_)
    xq_out = torch.view_as_real(xq_ * freqs_cis).flatten(3)
    xk_out = torch.view_as_real(xk_ * freqs_cis).flatten(3)
    return xq_out.type_as(xq), xk_out.type_as(xk)


def attention_block(torch, dim: int, n_heads: int):
    nn, F = torch.nn, torch.nn.functional

    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.n_heads, self.head_dim = n_heads, dim // n_heads
            self.wq = nn.Linear(dim, dim, bias=False)
            self.wk = nn.Linear(dim, dim, bias=False)
            self.wv = nn.Linear(dim, dim, bias=False)
            self.wo = nn.Linear(dim, dim, bias=False)

        def forward(self, x, freqs_cis, mask):
            bsz, seqlen, _ = x.shape
            xq, xk, xv = self.wq(x), self.wk(x), self.wv(x)
            xq = xq.view(bsz, seqlen, self.n_heads, self.head_dim)
            xk = xk.view(bsz, seqlen, self.n_heads, self.head_dim)
            xv = xv.view(bsz, seqlen, self.n_heads, self.head_dim)
            xq, xk = apply_rotary_emb(torch, xq, xk, freqs_cis=freqs_cis)
            xq, keys, values = xq.transpose(1, 2), xk.transpose(1, 2), xv.transpose(1, 2)
            scores = torch.matmul(xq, keys.transpose(2, 3)) / math.sqrt(self.head_dim)
            scores = scores + mask
            scores = F.softmax(scores.float(), dim=-1).type_as(xq)
            output = torch.matmul(scores, values)
            output = output.transpose(1, 2).contiguous().view(bsz, seqlen, -1)
            return self.wo(output)

    return Attention()


def _copy_weights(ours, theirs):
    for (name, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        with ag.no_grad():
            p.copy_(ag.tensor(q.detach().numpy()))


@needs_torch
def test_rotary_attention_block_equals_pytorchs():
    dim, n_heads, seqlen, bsz = 32, 4, 6, 2
    torch.manual_seed(0)
    theirs = attention_block(torch, dim, n_heads)
    ours = attention_block(ag, dim, n_heads)
    _copy_weights(ours, theirs)
    data = np.random.default_rng(0).standard_normal((bsz, seqlen, dim)).astype(np.float32)
    results = []
    for lib, model in ((torch, theirs), (ag, ours)):
        freqs = precompute_freqs_cis(lib, dim // n_heads, seqlen)
        assert str(freqs.dtype).endswith("complex64")
        mask = lib.triu(lib.full((seqlen, seqlen), float("-inf")), diagonal=1)
        x = lib.tensor(data, requires_grad=True)
        out = model(x, freqs, mask)
        (out * out).sum().backward()
        results.append((out, x.grad, [p.grad for p in model.parameters()]))
    (t_out, t_gx, t_gp), (a_out, a_gx, a_gp) = results
    np.testing.assert_allclose(as_numpy(a_out), as_numpy(t_out), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(as_numpy(a_gx), as_numpy(t_gx), rtol=1e-4, atol=1e-4)
    for a, t in zip(a_gp, t_gp):
        np.testing.assert_allclose(as_numpy(a), as_numpy(t), rtol=1e-4, atol=1e-4)


def test_rotary_embeddings_rotate_pairs_without_pytorch():
    freqs = precompute_freqs_cis(ag, 8, 5)
    assert freqs.dtype is ag.complex64 and ag.allclose(freqs.abs(), ag.ones(5, 4))
    xq = ag.randn(1, 5, 2, 8)
    rotated, _ = apply_rotary_emb(ag, xq, xq, freqs)
    # a rotation keeps each pair's length, and position 0 is not rotated
    pairs = lambda t: t.reshape(1, 5, 2, 4, 2).pow(2).sum(-1)  # noqa: E731
    assert ag.allclose(pairs(rotated), pairs(xq), atol=1e-5)
    assert ag.allclose(rotated[:, 0], xq[:, 0])


# -- a spectral loss ---------------------------------------------------------------------

def spectral_training(torch, steps: int, init):
    """A linear model from noise to a signal, trained to match a target's magnitude spectrum
    (the loss compares ``rfft`` magnitudes)."""
    nn = torch.nn
    model = nn.Linear(16, 32, dtype=torch.float64)
    with torch.no_grad():
        model.weight.copy_(torch.tensor(init[0]))
        model.bias.copy_(torch.tensor(init[1]))
    noise = torch.tensor(init[2])
    target = torch.sin(torch.arange(32, dtype=torch.float64) * 0.7) * 2
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    losses = []
    for _ in range(steps):
        spectrum = torch.fft.rfft(model(noise), norm="ortho")
        wanted = torch.fft.rfft(target, norm="ortho")
        loss = (spectrum.abs() - wanted.abs()).pow(2).mean() + \
            torch.view_as_real(spectrum - wanted).pow(2).mean() * 0.1
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(float(loss.detach()))
    return losses


def _init():
    rng = np.random.default_rng(1)
    return (rng.standard_normal((32, 16)) * 0.2, rng.standard_normal(32) * 0.1,
            rng.standard_normal((4, 16)))


def test_a_spectral_loss_trains():
    losses = spectral_training(ag, 60, _init())
    assert losses[-1] < 0.2 * losses[0]
    assert all(math.isfinite(v) for v in losses)


@needs_torch
def test_a_spectral_loss_trains_as_pytorchs_step_by_step():
    ours, theirs = spectral_training(ag, 40, _init()), spectral_training(torch, 40, _init())
    np.testing.assert_allclose(ours, theirs, rtol=1e-9)
