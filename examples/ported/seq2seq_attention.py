"""An RNN encoder-decoder with attention, ported by renaming the import, in the form of
graykode/nlp-tutorial's Seq2Seq(Attention): an nn.RNN encoder over the source, an nn.RNNCell-
style decoder (nn.RNN stepped one token at a time) whose hidden state scores every encoder
output through a Linear attention, softmax weights, the context concatenated with the hidden
state into the output layer; teacher forcing, Adam. It learns to reverse short digit strings.
PyTorch prints these numbers on arraygrad's random stream (tools/programs/shared_stream.py)."""
import random

import arraygrad as torch
import arraygrad.nn as nn
import arraygrad.nn.functional as F
import arraygrad.optim as optim

torch.manual_seed(0)
rng = random.Random(0)
symbols = ["S", "E", "P"] + [str(d) for d in range(6)]  # start, end, padding, digits
idx = {s: i for i, s in enumerate(symbols)}
n_class, n_step, n_hidden = len(symbols), 4, 16
pairs = []
for _ in range(32):
    digits = [str(rng.randrange(6)) for _ in range(n_step)]
    pairs.append((digits, digits[::-1]))


def make_batch():
    input_batch = [torch.eye(n_class)[[idx[d] for d in src]] for src, _ in pairs]
    output_batch = [torch.eye(n_class)[[idx[d] for d in ["S"] + tgt]] for _, tgt in pairs]
    target_batch = [[idx[d] for d in tgt + ["E"]] for _, tgt in pairs]
    return torch.stack(input_batch), torch.stack(output_batch), torch.LongTensor(target_batch)


class Attention(nn.Module):
    def __init__(self):
        super(Attention, self).__init__()
        self.enc_cell = nn.RNN(input_size=n_class, hidden_size=n_hidden)
        self.dec_cell = nn.RNN(input_size=n_class, hidden_size=n_hidden)
        self.attn = nn.Linear(n_hidden, n_hidden)
        self.out = nn.Linear(n_hidden * 2, n_class)

    def forward(self, enc_inputs, hidden, dec_inputs):
        enc_inputs = enc_inputs.transpose(0, 1)  # [n_step, batch, n_class]
        dec_inputs = dec_inputs.transpose(0, 1)
        enc_outputs, enc_hidden = self.enc_cell(enc_inputs, hidden)
        trained_attn = []
        hidden = enc_hidden
        model = []
        for i in range(dec_inputs.size(0)):
            dec_output, hidden = self.dec_cell(dec_inputs[i].unsqueeze(0), hidden)
            attn_weights = self.get_att_weight(dec_output, enc_outputs)  # [batch, 1, n_step]
            trained_attn.append(attn_weights[0, 0].detach())
            context = attn_weights.bmm(enc_outputs.transpose(0, 1))  # [batch, 1, n_hidden]
            dec_output = dec_output.squeeze(0)
            context = context.squeeze(1)
            model.append(self.out(torch.cat((dec_output, context), 1)))
        return torch.stack(model, 1), torch.stack(trained_attn)

    def get_att_weight(self, dec_output, enc_outputs):
        # score(h_dec, h_enc) = h_dec . W h_enc, for every encoder step at once
        scores = (self.attn(enc_outputs) * dec_output).sum(-1)  # [n_step, batch]
        return F.softmax(scores.transpose(0, 1), dim=1).unsqueeze(1)


input_batch, output_batch, target_batch = make_batch()
hidden = torch.zeros(1, len(pairs), n_hidden)
model = Attention()
criterion = nn.CrossEntropyLoss()
optimizer = optim.Adam(model.parameters(), lr=0.01)
for epoch in range(150):
    optimizer.zero_grad()
    output, _ = model(input_batch, hidden, output_batch)
    loss = criterion(output.reshape(-1, n_class), target_batch.reshape(-1))
    if (epoch + 1) % 30 == 0:
        print("Epoch:", "%04d" % (epoch + 1), "cost =", "{:.6f}".format(loss))
    loss.backward()
    optimizer.step()

with torch.no_grad():
    src = ["1", "2", "3", "4"]
    enc = torch.eye(n_class)[[idx[d] for d in src]].unsqueeze(0)
    dec = torch.eye(n_class)[[idx["S"]] + [idx["P"]] * n_step].unsqueeze(0)
    predict, trained_attn = model(enc, torch.zeros(1, 1, n_hidden), dec)
    print("".join(src), "->", "".join(symbols[i] for i in predict.argmax(-1)[0].tolist()))
    print("attention of the first output:", " ".join(f"{a:.4f}" for a in trained_attn[0].tolist()))
    output, _ = model(input_batch, hidden, output_batch)
accuracy = (output.argmax(-1) == target_batch).float().mean().item()
print(f"final accuracy {accuracy:.3f}")
