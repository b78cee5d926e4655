"""Classifying variable-length sequences, ported by renaming the import: pad_sequence,
pack_padded_sequence(enforce_sorted=False), a bidirectional GRU, the final hidden states of
both directions, gradient clipping by value, and AdamW with a LinearLR warm-up."""
import arraygrad as torch
import arraygrad.nn as nn
from arraygrad.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence

torch.manual_seed(3)
vocab, classes = 12, 3


def make_example(label):
    length = int(torch.randint(3, 9, (1,)).item())
    noise = torch.randint(3, vocab, (length,))
    noise[int(torch.randint(0, length, (1,)).item())] = label  # the label's token appears once
    return noise


labels = torch.randint(0, classes, (120,))
sequences = [make_example(int(y)) for y in labels]


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(vocab, 16, padding_idx=vocab - 1)
        self.gru = nn.GRU(16, 24, batch_first=True, bidirectional=True)
        self.out = nn.Linear(48, classes)

    def forward(self, padded, lengths):
        packed = pack_padded_sequence(self.embed(padded), lengths, batch_first=True,
                                      enforce_sorted=False)
        outputs, h_n = self.gru(packed)
        unpacked, out_lengths = pad_packed_sequence(outputs, batch_first=True)
        assert out_lengths.tolist() == lengths.tolist()
        return self.out(torch.cat([h_n[0], h_n[1]], dim=1))


model = Classifier()
optimizer = torch.optim.AdamW(model.parameters(), lr=0.02, weight_decay=0.01)
scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.3, total_iters=5)
loss_fn = nn.CrossEntropyLoss()
for epoch in range(12):
    total = 0.0
    for start in range(0, 120, 20):
        batch = sequences[start:start + 20]
        lengths = torch.tensor([len(s) for s in batch])
        padded = pad_sequence(batch, batch_first=True, padding_value=vocab - 1)
        loss = loss_fn(model(padded, lengths), labels[start:start + 20])
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_value_(model.parameters(), 1.0)
        optimizer.step()
        total += loss.item()
    scheduler.step()
    if epoch % 3 == 0:
        print(f"epoch {epoch} loss {total / 6:.4f} lr {scheduler.get_last_lr()[0]:.4f}")
with torch.no_grad():
    lengths = torch.tensor([len(s) for s in sequences])
    logits = model(pad_sequence(sequences, batch_first=True, padding_value=vocab - 1), lengths)
    accuracy = (logits.argmax(1) == labels).float().mean().item()
print(f"final accuracy {accuracy:.3f}")
