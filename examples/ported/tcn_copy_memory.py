"""A temporal convolutional network on the copy-memory task, ported by renaming the import,
in the form of locuslab/TCN (TCN/tcn.py, copy_memory/model.py, utils.py, copymem_test.py):
causal dilated Conv1d layers wrapped in weight_norm, Chomp1d trimming the padding, residual
TemporalBlocks with a 1x1 downsample, normal_(0, 0.01) initialisation, a Linear read-out per
step, RMSprop, CrossEntropyLoss; the data comes from np.random as the original's. PyTorch
prints these numbers on arraygrad's random stream (tools/programs/shared_stream.py)."""
import numpy as np

import arraygrad as torch
import arraygrad.nn as nn
import arraygrad.optim as optim
from arraygrad.nn.utils import weight_norm

torch.manual_seed(1111)
np.random.seed(1111)


def data_generator(T, mem_length, b_size):
    seq = torch.from_numpy(np.random.randint(1, 9, size=(b_size, mem_length))).float()
    zeros = torch.zeros((b_size, T))
    marker = 9 * torch.ones((b_size, mem_length + 1))
    placeholders = torch.zeros((b_size, mem_length))
    x = torch.cat((seq, zeros[:, :-1], marker), 1)
    y = torch.cat((placeholders, zeros, seq), 1).long()
    return x, y


class Chomp1d(nn.Module):
    def __init__(self, chomp_size):
        super(Chomp1d, self).__init__()
        self.chomp_size = chomp_size

    def forward(self, x):
        return x[:, :, :-self.chomp_size].contiguous()


class TemporalBlock(nn.Module):
    def __init__(self, n_inputs, n_outputs, kernel_size, stride, dilation, padding, dropout=0.0):
        super(TemporalBlock, self).__init__()
        self.conv1 = weight_norm(nn.Conv1d(n_inputs, n_outputs, kernel_size, stride=stride,
                                           padding=padding, dilation=dilation))
        self.chomp1 = Chomp1d(padding)
        self.relu1 = nn.ReLU()
        self.dropout1 = nn.Dropout(dropout)
        self.conv2 = weight_norm(nn.Conv1d(n_outputs, n_outputs, kernel_size, stride=stride,
                                           padding=padding, dilation=dilation))
        self.chomp2 = Chomp1d(padding)
        self.relu2 = nn.ReLU()
        self.dropout2 = nn.Dropout(dropout)
        self.net = nn.Sequential(self.conv1, self.chomp1, self.relu1, self.dropout1,
                                 self.conv2, self.chomp2, self.relu2, self.dropout2)
        self.downsample = nn.Conv1d(n_inputs, n_outputs, 1) if n_inputs != n_outputs else None
        self.relu = nn.ReLU()
        self.init_weights()

    def init_weights(self):
        self.conv1.weight.data.normal_(0, 0.01)
        self.conv2.weight.data.normal_(0, 0.01)
        if self.downsample is not None:
            self.downsample.weight.data.normal_(0, 0.01)

    def forward(self, x):
        out = self.net(x)
        res = x if self.downsample is None else self.downsample(x)
        return self.relu(out + res)


class TemporalConvNet(nn.Module):
    def __init__(self, num_inputs, num_channels, kernel_size=2, dropout=0.2):
        super(TemporalConvNet, self).__init__()
        layers = []
        for i in range(len(num_channels)):
            dilation_size = 2 ** i
            in_channels = num_inputs if i == 0 else num_channels[i - 1]
            layers += [TemporalBlock(in_channels, num_channels[i], kernel_size, stride=1,
                                     dilation=dilation_size,
                                     padding=(kernel_size - 1) * dilation_size, dropout=dropout)]
        self.network = nn.Sequential(*layers)

    def forward(self, x):
        return self.network(x)


class TCN(nn.Module):
    def __init__(self, input_size, output_size, num_channels, kernel_size, dropout):
        super(TCN, self).__init__()
        self.tcn = TemporalConvNet(input_size, num_channels, kernel_size=kernel_size, dropout=dropout)
        self.linear = nn.Linear(num_channels[-1], output_size)
        self.linear.weight.data.normal_(0, 0.01)

    def forward(self, x):
        y1 = self.tcn(x)
        return self.linear(y1.transpose(1, 2))


T, seq_len, n_classes, batch_size = 20, 5, 10, 32
train_x, train_y = data_generator(T, seq_len, 512)
test_x, test_y = data_generator(T, seq_len, 128)
model = TCN(1, n_classes, [10] * 4, kernel_size=4, dropout=0.0)
criterion = nn.CrossEntropyLoss()
optimizer = optim.RMSprop(model.parameters(), lr=2e-3)
for ep in range(1, 3):
    model.train()
    total_loss = 0
    for batch_idx, start in enumerate(range(0, 512, batch_size)):
        x, y = train_x[start:start + batch_size], train_y[start:start + batch_size]
        optimizer.zero_grad()
        out = model(x.unsqueeze(1).contiguous())
        loss = criterion(out.view(-1, n_classes), y.view(-1))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        total_loss += loss.item()
    print("| Epoch {:3d} | loss {:5.8f}".format(ep, total_loss / (batch_idx + 1)))
model.eval()
with torch.no_grad():
    out = model(test_x.unsqueeze(1).contiguous())
    loss = criterion(out.view(-1, n_classes), test_y.view(-1))
    pred = out.view(-1, n_classes).data.max(1, keepdim=True)[1]
    correct = pred.eq(test_y.data.view_as(pred)).cpu().sum()
print("Test set: Average loss: {:.8f}  |  Accuracy: {:.4f}".format(
    loss.item(), 100. * correct / out.view(-1, n_classes).size(0)))
print(f"final loss {loss.item():.6f}")
