"""Time-sequence prediction, ported by renaming the import: two stacked LSTMCells in double
precision learn sine waves with LBFGS (closure), then predict the future. Deterministic data;
initial weights from the seeded generator."""
import numpy as np

import arraygrad as torch
import arraygrad.nn as nn
import arraygrad.optim as optim

np.random.seed(2)
T, L, N = 20, 200, 20
x = np.empty((N, L), 'int64')
x[:] = np.array(range(L)) + np.random.randint(-4 * T, 4 * T, N).reshape(N, 1)
data = np.sin(x / 1.0 / T).astype('float64')


class Sequence(nn.Module):
    def __init__(self):
        super(Sequence, self).__init__()
        self.lstm1 = nn.LSTMCell(1, 21)
        self.lstm2 = nn.LSTMCell(21, 21)
        self.linear = nn.Linear(21, 1)

    def forward(self, input, future=0):
        outputs = []
        h_t = torch.zeros(input.size(0), 21, dtype=torch.double)
        c_t = torch.zeros(input.size(0), 21, dtype=torch.double)
        h_t2 = torch.zeros(input.size(0), 21, dtype=torch.double)
        c_t2 = torch.zeros(input.size(0), 21, dtype=torch.double)
        for input_t in input.split(1, dim=1):
            h_t, c_t = self.lstm1(input_t, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        for i in range(future):
            h_t, c_t = self.lstm1(output, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        outputs = torch.cat(outputs, dim=1)
        return outputs


torch.manual_seed(0)
input = torch.from_numpy(data[3:, :-1][:, :60])
target = torch.from_numpy(data[3:, 1:][:, :60])
test_input = torch.from_numpy(data[:3, :-1][:, :60])
test_target = torch.from_numpy(data[:3, 1:][:, :60])
seq = Sequence()
seq.double()
criterion = nn.MSELoss()
optimizer = optim.LBFGS(seq.parameters(), lr=0.8)
for i in range(4):
    def closure():
        optimizer.zero_grad()
        out = seq(input)
        loss = criterion(out, target)
        loss.backward()
        return loss
    loss = optimizer.step(closure)
    print('STEP:', i, 'loss: %.6f' % loss.item())
with torch.no_grad():
    future = 20
    pred = seq(test_input, future=future)
    loss = criterion(pred[:, :-future], test_target)
    print('test loss: %.6f' % loss.item())
    y = pred.detach().numpy()
print("prediction shape", y.shape)
