"""A minimal GPT learning to sort digits, ported by renaming the import, in the form of
Karpathy's minGPT (mingpt/model.py, trainer.py and demo.ipynb): causal self-attention with a
registered tril mask buffer, GELU MLP blocks with pre-LayerNorm residuals, weight tying none,
minGPT's init (normal_ 0.02, zeros_ biases, the scaled c_proj init), AdamW with weight-decay
and no-decay parameter groups, a DataLoader over a synthetic SortDataset with a
RandomSampler(replacement=True), gradient clipping, and greedy generation. PyTorch prints
these numbers on arraygrad's random stream (tools/programs/shared_stream.py); the run is in
float64 because this training is chaotic (a float32 round-off difference grows past 1e-5
within 15 steps; in float64 the two frameworks agree throughout)."""
import math

import arraygrad as torch
import arraygrad.nn as nn
from arraygrad.nn import functional as F
from arraygrad.utils.data import DataLoader, Dataset

torch.set_default_dtype(torch.float64)
torch.manual_seed(3407)


class SortDataset(Dataset):
    """Input: 6 digits; output: the same digits sorted (loss only on the output half)."""

    def __init__(self, length=5, num_digits=3):
        self.length, self.num_digits = length, num_digits

    def __len__(self):
        return 10000

    def __getitem__(self, idx):
        inp = torch.randint(self.num_digits, size=(self.length,), dtype=torch.long)
        sol = torch.sort(inp)[0]
        cat = torch.cat((inp, sol), dim=0)
        x, y = cat[:-1].clone(), cat[1:].clone()
        y[:self.length - 1] = -1
        return x, y


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd, n_head, block_size):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.attn_dropout = nn.Dropout(0.1)
        self.resid_dropout = nn.Dropout(0.1)
        self.register_buffer("bias", torch.tril(torch.ones(block_size, block_size))
                             .view(1, 1, block_size, block_size))
        self.n_head, self.n_embd = n_head, n_embd

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        att = self.attn_dropout(att)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_dropout(self.c_proj(y))


class Block(nn.Module):
    def __init__(self, n_embd, n_head, block_size):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd)
        self.attn = CausalSelfAttention(n_embd, n_head, block_size)
        self.ln_2 = nn.LayerNorm(n_embd)
        self.mlp = nn.ModuleDict(dict(c_fc=nn.Linear(n_embd, 4 * n_embd),
                                      c_proj=nn.Linear(4 * n_embd, n_embd),
                                      act=nn.GELU(), dropout=nn.Dropout(0.1)))
        m = self.mlp
        self.mlpf = lambda x: m.dropout(m.c_proj(m.act(m.c_fc(x))))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlpf(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, vocab_size, block_size, n_layer=2, n_head=2, n_embd=32):
        super().__init__()
        self.block_size = block_size
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(vocab_size, n_embd), wpe=nn.Embedding(block_size, n_embd),
            drop=nn.Dropout(0.1), h=nn.ModuleList([Block(n_embd, n_head, block_size)
                                                   for _ in range(n_layer)]),
            ln_f=nn.LayerNorm(n_embd)))
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)
        self.apply(self._init_weights)
        for pn, p in self.named_parameters():
            if pn.endswith("c_proj.weight"):
                torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * n_layer))

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
        elif isinstance(module, nn.LayerNorm):
            torch.nn.init.zeros_(module.bias)
            torch.nn.init.ones_(module.weight)

    def configure_optimizers(self, lr, weight_decay=0.1):
        decay, no_decay = set(), set()
        for mn, m in self.named_modules():
            for pn, p in m.named_parameters():
                fpn = f"{mn}.{pn}" if mn else pn
                if pn.endswith("bias"):
                    no_decay.add(fpn)
                elif pn.endswith("weight") and isinstance(m, nn.Linear):
                    decay.add(fpn)
                elif pn.endswith("weight") and isinstance(m, (nn.LayerNorm, nn.Embedding)):
                    no_decay.add(fpn)
        param_dict = {pn: p for pn, p in self.named_parameters()}
        groups = [{"params": [param_dict[pn] for pn in sorted(decay)], "weight_decay": weight_decay},
                  {"params": [param_dict[pn] for pn in sorted(no_decay)], "weight_decay": 0.0}]
        return torch.optim.AdamW(groups, lr=lr, betas=(0.9, 0.95))

    def forward(self, idx, targets=None):
        b, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long).unsqueeze(0)
        x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))
        for block in self.transformer.h:
            x = block(x)
        logits = self.lm_head(self.transformer.ln_f(x))
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
        return logits, loss

    @torch.no_grad()
    def generate(self, idx, max_new_tokens):
        for _ in range(max_new_tokens):
            idx_cond = idx if idx.size(1) <= self.block_size else idx[:, -self.block_size:]
            logits, _ = self(idx_cond)
            _, idx_next = torch.topk(F.softmax(logits[:, -1, :], dim=-1), k=1, dim=-1)
            idx = torch.cat((idx, idx_next), dim=1)
        return idx


dataset = SortDataset()
model = GPT(vocab_size=3, block_size=dataset.length * 2 - 1)
print("number of parameters: %.2fK" % (sum(p.numel() for p in model.parameters()) / 1e3,))
optimizer = model.configure_optimizers(lr=5e-3)
sampler = torch.utils.data.RandomSampler(dataset, replacement=True, num_samples=int(1e10))
loader = DataLoader(dataset, sampler=sampler, shuffle=False, batch_size=16)
model.train()
for it, (x, y) in enumerate(loader):
    logits, loss = model(x, y)
    model.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    if it % 20 == 0:
        print(f"iter {it}: train loss {loss.item():.5f}")
    if it == 60:
        break

model.eval()
inp = torch.stack([dataset[i][0][:dataset.length] for i in range(50)])
cat = model.generate(inp, dataset.length)
correct = (cat[:, dataset.length:] == torch.sort(inp, dim=1)[0]).all(1).float()
print("input sequence  :", inp[0].tolist(), "-> predicted sorted:", cat[0, dataset.length:].tolist())
print(f"final accuracy {correct.mean().item():.3f}")
