"""Word2vec skip-gram with a full softmax, ported by renaming the import, in the form of
graykode/nlp-tutorial's Word2Vec-Skipgram: one-hot centre words times an embedding matrix W,
times an output matrix WT, CrossEntropyLoss against the context word, random minibatches of
(centre, context) pairs drawn with NumPy, Adam; it ends with the nearest neighbours of a word
by cosine similarity. PyTorch prints these numbers on arraygrad's random stream
(tools/programs/shared_stream.py)."""
import numpy as np

import arraygrad as torch
import arraygrad.nn as nn
import arraygrad.optim as optim

torch.manual_seed(0)
np.random.seed(0)
sentences = ["apple banana fruit", "banana orange fruit", "orange banana fruit",
             "dog cat animal", "cat monkey animal", "monkey dog animal"]
word_sequence = " ".join(sentences).split()
word_list = sorted(set(word_sequence))
word_dict = {w: i for i, w in enumerate(word_list)}
voc_size, embedding_size, batch_size = len(word_list), 2, 8

skip_grams = []
for i in range(1, len(word_sequence) - 1):
    target = word_dict[word_sequence[i]]
    context = [word_dict[word_sequence[i - 1]], word_dict[word_sequence[i + 1]]]
    for w in context:
        skip_grams.append([target, w])


def random_batch():
    random_inputs, random_labels = [], []
    random_index = np.random.choice(range(len(skip_grams)), batch_size, replace=False)
    for i in random_index:
        random_inputs.append(np.eye(voc_size)[skip_grams[i][0]])
        random_labels.append(skip_grams[i][1])
    return random_inputs, random_labels


class Word2Vec(nn.Module):
    def __init__(self):
        super(Word2Vec, self).__init__()
        self.W = nn.Linear(voc_size, embedding_size, bias=False)
        self.WT = nn.Linear(embedding_size, voc_size, bias=False)

    def forward(self, X):
        return self.WT(self.W(X))


model = Word2Vec()
criterion = nn.CrossEntropyLoss()
optimizer = optim.Adam(model.parameters(), lr=0.01)
for epoch in range(600):
    input_batch, target_batch = random_batch()
    input_batch = torch.Tensor(np.array(input_batch))
    target_batch = torch.LongTensor(target_batch)
    optimizer.zero_grad()
    output = model(input_batch)
    loss = criterion(output, target_batch)
    if (epoch + 1) % 100 == 0:
        print("Epoch:", "%04d" % (epoch + 1), "cost =", "{:.6f}".format(loss))
    loss.backward()
    optimizer.step()

W, WT = model.parameters()
embeddings = W.detach().T
unit = embeddings / embeddings.norm(dim=1, keepdim=True)
similarity = unit @ unit.T
for word in ("banana", "cat"):
    i = word_dict[word]
    order = similarity[i].argsort(descending=True).tolist()
    print(word, "->", [word_list[j] for j in order[1:3]])
inputs = torch.eye(voc_size)
pairs = torch.LongTensor(skip_grams)
loss = criterion(model(inputs[pairs[:, 0]]), pairs[:, 1]).item()
print(f"final nll {loss:.4f}")  # chance: ln(12) = 2.48
