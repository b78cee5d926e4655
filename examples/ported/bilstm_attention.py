"""A bidirectional LSTM with attention over its outputs, ported by renaming the import, in the
form of graykode/nlp-tutorial's Bi-LSTM(Attention): the final forward and backward hidden
states form the query, torch.bmm scores every output step, softmax weights, the weighted sum
classifies the sentence; the attention weights are returned for inspection. Adam,
CrossEntropyLoss, synthetic sentiment sentences. PyTorch prints these numbers on arraygrad's
random stream (tools/programs/shared_stream.py)."""
import random

import arraygrad as torch
import arraygrad.nn as nn
import arraygrad.nn.functional as F
import arraygrad.optim as optim

torch.manual_seed(0)
rng = random.Random(1)
good, bad, filler = ["love", "great", "good"], ["hate", "awful", "bad"], \
    ["i", "you", "it", "this", "is", "so", "the"]
sentences, labels = [], []
for _ in range(48):
    label = rng.randrange(2)
    words = [rng.choice(filler) for _ in range(4)]
    words[rng.randrange(4)] = rng.choice(good if label else bad)
    sentences.append(" ".join(words))
    labels.append(label)
word_list = sorted(set(" ".join(sentences).split()))
word_dict = {w: i for i, w in enumerate(word_list)}
vocab_size, embedding_dim, n_hidden, num_classes = len(word_dict), 6, 5, 2


class BiLSTM_Attention(nn.Module):
    def __init__(self):
        super(BiLSTM_Attention, self).__init__()
        self.embedding = nn.Embedding(vocab_size, embedding_dim)
        self.lstm = nn.LSTM(embedding_dim, n_hidden, bidirectional=True)
        self.out = nn.Linear(n_hidden * 2, num_classes)

    def attention_net(self, lstm_output, final_state):
        hidden = final_state.view(-1, n_hidden * 2, 1)  # [batch, n_hidden * 2, 1]
        attn_weights = torch.bmm(lstm_output, hidden).squeeze(2)
        soft_attn_weights = F.softmax(attn_weights, 1)
        context = torch.bmm(lstm_output.transpose(1, 2), soft_attn_weights.unsqueeze(2)).squeeze(2)
        return context, soft_attn_weights.data

    def forward(self, X):
        input = self.embedding(X).permute(1, 0, 2)  # [len_seq, batch, embedding_dim]
        hidden_state = torch.zeros(1 * 2, len(X), n_hidden)
        cell_state = torch.zeros(1 * 2, len(X), n_hidden)
        output, (final_hidden_state, final_cell_state) = self.lstm(input, (hidden_state, cell_state))
        output = output.permute(1, 0, 2)  # [batch, len_seq, n_hidden * 2]
        # PyTorch's order: (direction, batch, hidden) -> one query per sentence
        final = final_hidden_state.permute(1, 0, 2).reshape(len(X), -1)
        attn_output, attention = self.attention_net(output, final)
        return self.out(attn_output), attention


model = BiLSTM_Attention()
criterion = nn.CrossEntropyLoss()
optimizer = optim.Adam(model.parameters(), lr=0.02)
inputs = torch.LongTensor([[word_dict[n] for n in sen.split()] for sen in sentences])
targets = torch.LongTensor(labels)
for epoch in range(120):
    optimizer.zero_grad()
    output, attention = model(inputs)
    loss = criterion(output, targets)
    if (epoch + 1) % 30 == 0:
        print("Epoch:", "%04d" % (epoch + 1), "cost =", "{:.6f}".format(loss))
    loss.backward()
    optimizer.step()

test_text = "i love it so"
tests = torch.LongTensor([[word_dict[n] for n in test_text.split()]])
predict, attention = model(tests)
print(test_text, "is", "Good" if predict.data.max(1)[1].item() == 1 else "Bad")
print("attention", " ".join(f"{a:.4f}" for a in attention[0].tolist()))
accuracy = (model(inputs)[0].argmax(1) == targets).float().mean().item()
print(f"final accuracy {accuracy:.3f}")
