"""A Transformer language model, ported by renaming the import: positional encoding as a
buffer, TransformerEncoder with a causal mask, batchified data, SGD with StepLR and clipping,
perplexity, and the whole model saved and loaded back (weights_only=False)."""
import math
import os
import tempfile

import arraygrad as torch
import arraygrad.nn as nn

torch.manual_seed(0)


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.1, max_len=500):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, 1, d_model)
        pe[:, 0, 0::2] = torch.sin(position * div_term)
        pe[:, 0, 1::2] = torch.cos(position * div_term)
        self.register_buffer('pe', pe)

    def forward(self, x):
        x = x + self.pe[:x.size(0)]
        return self.dropout(x)


class TransformerModel(nn.Module):
    def __init__(self, ntoken, ninp, nhead, nhid, nlayers, dropout=0.1):
        super().__init__()
        self.model_type = 'Transformer'
        self.pos_encoder = PositionalEncoding(ninp, dropout)
        encoder_layers = nn.TransformerEncoderLayer(ninp, nhead, nhid, dropout)
        self.transformer_encoder = nn.TransformerEncoder(encoder_layers, nlayers)
        self.input_emb = nn.Embedding(ntoken, ninp)
        self.ninp = ninp
        self.decoder = nn.Linear(ninp, ntoken)
        initrange = 0.1
        nn.init.uniform_(self.input_emb.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -initrange, initrange)

    def forward(self, src, has_mask=True):
        mask = nn.Transformer.generate_square_subsequent_mask(len(src)) if has_mask else None
        src = self.input_emb(src) * math.sqrt(self.ninp)
        src = self.pos_encoder(src)
        output = self.transformer_encoder(src, mask)
        output = self.decoder(output)
        return torch.nn.functional.log_softmax(output, dim=-1)


words = ("a b c d e f g h " * 40).split()
vocab = sorted(set(words))
ids = torch.tensor([vocab.index(w) for w in words])


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    return data.view(bsz, -1).t().contiguous()


bptt = 12
train_data = batchify(ids, 4)


def get_batch(source, i):
    seq_len = min(bptt, len(source) - 1 - i)
    data = source[i:i + seq_len]
    target = source[i + 1:i + 1 + seq_len].view(-1)
    return data, target


model = TransformerModel(len(vocab), 32, 2, 64, 2)
criterion = nn.NLLLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1, gamma=0.9)
for epoch in range(1, 4):
    model.train()
    total_loss = 0.0
    batches = 0
    for i in range(0, train_data.size(0) - 1, bptt):
        data, targets = get_batch(train_data, i)
        optimizer.zero_grad()
        output = model(data)
        loss = criterion(output.view(-1, len(vocab)), targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
        optimizer.step()
        total_loss += loss.item()
        batches += 1
    scheduler.step()
    cur_loss = total_loss / batches
    print('| epoch {:3d} | lr {:02.2f} | loss {:5.2f} | ppl {:8.2f}'.format(
        epoch, scheduler.get_last_lr()[0], cur_loss, math.exp(cur_loss)))

path = os.path.join(tempfile.mkdtemp(), "model.pt")
with open(path, 'wb') as f:
    torch.save(model, f)
with open(path, 'rb') as f:
    model = torch.load(f, weights_only=False)
model.eval()
with torch.no_grad():
    data, targets = get_batch(train_data, 0)
    accuracy = (model(data).view(-1, len(vocab)).argmax(-1) == targets).float().mean().item()
print(f"final accuracy {accuracy:.3f}")
