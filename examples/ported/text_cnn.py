"""Kim's convolutional sentence classifier, ported by renaming the import, in the form of
graykode/nlp-tutorial's TextCNN: word embeddings as a one-channel image, Conv2d filters
spanning 2, 3 and 4 words, ReLU, max-pool over time, the pooled features concatenated into a
Linear classifier; Adam, CrossEntropyLoss; synthetic sentiment sentences. PyTorch prints these
numbers on arraygrad's random stream (tools/programs/shared_stream.py)."""
import random

import arraygrad as torch
import arraygrad.nn as nn
import arraygrad.nn.functional as F
import arraygrad.optim as optim

torch.manual_seed(0)
rng = random.Random(0)
good, bad, filler = ["love", "great", "good", "nice"], ["hate", "awful", "bad", "sad"], \
    ["i", "you", "it", "this", "is", "so", "very", "the", "movie"]
sentences, labels = [], []
for _ in range(64):
    label = rng.randrange(2)
    words = [rng.choice(filler) for _ in range(5)]
    words[rng.randrange(5)] = rng.choice(good if label else bad)
    sentences.append(" ".join(words))
    labels.append(label)
word_list = sorted(set(" ".join(sentences).split()))
word_dict = {w: i for i, w in enumerate(word_list)}
vocab_size, embedding_size, sequence_length, num_classes = len(word_dict), 8, 5, 2
filter_sizes, num_filters = [2, 3, 4], 3
num_filters_total = num_filters * len(filter_sizes)


class TextCNN(nn.Module):
    def __init__(self):
        super(TextCNN, self).__init__()
        self.W = nn.Embedding(vocab_size, embedding_size)
        self.Weight = nn.Linear(num_filters_total, num_classes, bias=False)
        self.Bias = nn.Parameter(torch.ones([num_classes]))
        self.filter_list = nn.ModuleList(
            [nn.Conv2d(1, num_filters, (size, embedding_size)) for size in filter_sizes])

    def forward(self, X):
        embedded_chars = self.W(X).unsqueeze(1)  # [batch, 1, sequence_length, embedding_size]
        pooled_outputs = []
        for i, conv in enumerate(self.filter_list):
            h = F.relu(conv(embedded_chars))
            mp = nn.MaxPool2d((sequence_length - filter_sizes[i] + 1, 1))
            pooled_outputs.append(mp(h).permute(0, 3, 2, 1))
        h_pool = torch.cat(pooled_outputs, len(filter_sizes))
        h_pool_flat = torch.reshape(h_pool, [-1, num_filters_total])
        return self.Weight(h_pool_flat) + self.Bias


model = TextCNN()
criterion = nn.CrossEntropyLoss()
optimizer = optim.Adam(model.parameters(), lr=0.01)
inputs = torch.LongTensor([[word_dict[n] for n in sen.split()] for sen in sentences])
targets = torch.LongTensor(labels)
for epoch in range(200):
    optimizer.zero_grad()
    output = model(inputs)
    loss = criterion(output, targets)
    if (epoch + 1) % 40 == 0:
        print("Epoch:", "%04d" % (epoch + 1), "cost =", "{:.6f}".format(loss))
    loss.backward()
    optimizer.step()

tests = ["i love this movie so", "the movie is so awful"]
test_batch = torch.LongTensor([[word_dict[n] for n in t.split()] for t in tests])
with torch.no_grad():
    predict = model(test_batch).data.max(1, keepdim=True)[1]
for text, p in zip(tests, predict.squeeze().tolist()):
    print(text, "is", "Good" if p == 1 else "Bad")
accuracy = (model(inputs).argmax(1) == targets).float().mean().item()
print(f"final accuracy {accuracy:.3f}")
