"""A neural probabilistic language model (Bengio et al.), ported by renaming the import, in the
form of graykode/nlp-tutorial's NNLM: an Embedding table C, a tanh hidden layer H with its own
bias parameter d, a direct Linear path W from the embeddings to the output and an output
layer U, trained with Adam and CrossEntropyLoss on toy sentences; it then predicts each
sentence's last word. Random initialisation: PyTorch prints these numbers when it draws
arraygrad's random stream (tools/programs/shared_stream.py)."""
import arraygrad as torch
import arraygrad.nn as nn
import arraygrad.optim as optim

torch.manual_seed(0)
sentences = ["i like dog", "i love coffee", "i hate milk", "you like cat", "you love tea",
             "we hate rain"]
word_list = sorted(set(" ".join(sentences).split()))
word_dict = {w: i for i, w in enumerate(word_list)}
number_dict = {i: w for i, w in enumerate(word_list)}
n_class, n_step, n_hidden, m = len(word_dict), 2, 8, 4


def make_batch():
    input_batch, target_batch = [], []
    for sen in sentences:
        word = sen.split()
        input_batch.append([word_dict[n] for n in word[:-1]])
        target_batch.append(word_dict[word[-1]])
    return input_batch, target_batch


class NNLM(nn.Module):
    def __init__(self):
        super(NNLM, self).__init__()
        self.C = nn.Embedding(n_class, m)
        self.H = nn.Linear(n_step * m, n_hidden, bias=False)
        self.d = nn.Parameter(torch.ones(n_hidden))
        self.U = nn.Linear(n_hidden, n_class, bias=False)
        self.W = nn.Linear(n_step * m, n_class, bias=False)
        self.b = nn.Parameter(torch.ones(n_class))

    def forward(self, X):
        X = self.C(X)
        X = X.view(-1, n_step * m)
        tanh = torch.tanh(self.d + self.H(X))
        return self.b + self.W(X) + self.U(tanh)


model = NNLM()
criterion = nn.CrossEntropyLoss()
optimizer = optim.Adam(model.parameters(), lr=0.01)
input_batch, target_batch = make_batch()
input_batch = torch.LongTensor(input_batch)
target_batch = torch.LongTensor(target_batch)

for epoch in range(300):
    optimizer.zero_grad()
    output = model(input_batch)
    loss = criterion(output, target_batch)
    if (epoch + 1) % 50 == 0:
        print("Epoch:", "%04d" % (epoch + 1), "cost =", "{:.6f}".format(loss))
    loss.backward()
    optimizer.step()

predict = model(input_batch).data.max(1, keepdim=True)[1]
print([sen.split()[:2] for sen in sentences], "->", [number_dict[n.item()] for n in predict.squeeze()])
accuracy = (predict.squeeze() == target_batch).float().mean().item()
print(f"final accuracy {accuracy:.3f}")
