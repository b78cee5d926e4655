"""A character-level language model, ported by renaming the import: Embedding -> 2-layer LSTM
(batch_first, dropout) -> Linear, truncated backprop through time with the hidden state
detached between chunks, gradient clipping, Adam, then sampling text with multinomial."""
import arraygrad as torch
import arraygrad.nn as nn
import arraygrad.nn.functional as F

torch.manual_seed(0)
text = "the quick brown fox jumps over the lazy dog. " * 30
chars = sorted(set(text))
stoi = {c: i for i, c in enumerate(chars)}
data = torch.tensor([stoi[c] for c in text], dtype=torch.long)


class CharModel(nn.Module):
    def __init__(self, vocab, emb=16, hidden=64, layers=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, emb)
        self.rnn = nn.LSTM(emb, hidden, num_layers=layers, batch_first=True, dropout=0.1)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, x, state=None):
        out, state = self.rnn(self.embed(x), state)
        return self.head(out), state


def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


model = CharModel(len(chars))
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
batch, seq = 8, 20
starts = torch.arange(batch) * (len(text) // batch)
for epoch in range(3):
    state = None
    total = 0.0
    steps = 0
    for pos in range(0, len(text) // batch - seq - 1, seq):
        idx = starts.unsqueeze(1) + pos + torch.arange(seq + 1)
        chunk = data[idx]
        x, y = chunk[:, :-1], chunk[:, 1:]
        logits, state = model(x, state)
        state = repackage_hidden(state)
        loss = F.cross_entropy(logits.reshape(-1, len(chars)), y.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        total += loss.item()
        steps += 1
    print(f"epoch {epoch} loss {total / steps:.4f}")

model.eval()
with torch.no_grad():
    x = torch.tensor([[stoi["t"]]])
    state, out = None, ["t"]
    for _ in range(40):
        logits, state = model(x, state)
        probs = F.softmax(logits[0, -1], dim=-1)
        nxt = torch.multinomial(probs, 1)
        out.append(chars[nxt.item()])
        x = nxt.view(1, 1)
    print("sample:", "".join(out))
    x = data[:-1].unsqueeze(0)
    logits, _ = model(x)
    accuracy = (logits.argmax(-1) == data[1:]).float().mean().item()
print(f"final accuracy {accuracy:.3f}")
