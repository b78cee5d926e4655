"""The "what is nn really" progression, ported by renaming the import: logistic regression
from raw tensors (manual log_softmax, weights updated under no_grad), then refactored step by
step onto F.cross_entropy, nn.Module, nn.Linear, optim, TensorDataset/DataLoader, a validation
loop, a CNN through a Lambda module and nn.Sequential with AdaptiveAvgPool2d."""
import math

import numpy as np

import arraygrad as torch
import arraygrad.nn.functional as F
from arraygrad import nn, optim
from arraygrad.utils.data import DataLoader, TensorDataset

rng = np.random.default_rng(0)
centres = rng.normal(size=(10, 784)).astype(np.float32)
y_np = rng.integers(0, 10, size=1200)
x_np = (centres[y_np] + 1.5 * rng.normal(size=(1200, 784))).astype(np.float32)
x_train, y_train, x_valid, y_valid = map(torch.tensor, (x_np[:1000], y_np[:1000], x_np[1000:], y_np[1000:]))
n, c = x_train.shape
print(x_train.shape, y_train.min(), y_train.max())

weights = torch.randn(784, 10) / math.sqrt(784)
weights.requires_grad_()
bias = torch.zeros(10, requires_grad=True)


def log_softmax(x):
    return x - x.exp().sum(-1).log().unsqueeze(-1)


def model(xb):
    return log_softmax(xb @ weights + bias)


def nll(input, target):
    return -input[range(target.shape[0]), target].mean()


loss_func = nll
bs = 64


def accuracy(out, yb):
    preds = torch.argmax(out, dim=1)
    return (preds == yb).float().mean()


xb, yb = x_train[0:bs], y_train[0:bs]
print("before:", loss_func(model(xb), yb) > 0, accuracy(model(xb), yb) <= 1)
lr, epochs = 0.1, 2
for epoch in range(epochs):
    for i in range((n - 1) // bs + 1):
        start_i = i * bs
        end_i = start_i + bs
        xb = x_train[start_i:end_i]
        yb = y_train[start_i:end_i]
        pred = model(xb)
        loss = loss_func(pred, yb)
        loss.backward()
        with torch.no_grad():
            weights -= weights.grad * lr
            bias -= bias.grad * lr
            weights.grad.zero_()
            bias.grad.zero_()
print("raw tensors:", f"{loss_func(model(x_valid), y_valid).item():.4f}", f"{accuracy(model(x_valid), y_valid).item():.4f}")

loss_func = F.cross_entropy


class Mnist_Logistic(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(784, 10)

    def forward(self, xb):
        return self.lin(xb)


def get_model():
    model = Mnist_Logistic()
    return model, optim.SGD(model.parameters(), lr=lr)


def loss_batch(model, loss_func, xb, yb, opt=None):
    loss = loss_func(model(xb), yb)
    if opt is not None:
        loss.backward()
        opt.step()
        opt.zero_grad()
    return loss.item(), len(xb)


def fit(epochs, model, loss_func, opt, train_dl, valid_dl):
    for epoch in range(epochs):
        model.train()
        for xb, yb in train_dl:
            loss_batch(model, loss_func, xb, yb, opt)
        model.eval()
        with torch.no_grad():
            losses, nums = zip(*[loss_batch(model, loss_func, xb, yb) for xb, yb in valid_dl])
        val_loss = np.sum(np.multiply(losses, nums)) / np.sum(nums)
        print(epoch, f"{val_loss:.4f}")
    return val_loss


def get_data(train_ds, valid_ds, bs):
    return (DataLoader(train_ds, batch_size=bs, shuffle=True),
            DataLoader(valid_ds, batch_size=bs * 2))


train_ds = TensorDataset(x_train, y_train)
valid_ds = TensorDataset(x_valid, y_valid)
train_dl, valid_dl = get_data(train_ds, valid_ds, bs)
model, opt = get_model()
fit(epochs, model, loss_func, opt, train_dl, valid_dl)


class Lambda(nn.Module):
    def __init__(self, func):
        super().__init__()
        self.func = func

    def forward(self, x):
        return self.func(x)


def preprocess(x):
    return x.view(-1, 1, 28, 28)


model = nn.Sequential(
    Lambda(preprocess),
    nn.Conv2d(1, 8, kernel_size=3, stride=2, padding=1), nn.ReLU(),
    nn.Conv2d(8, 8, kernel_size=3, stride=2, padding=1), nn.ReLU(),
    nn.Conv2d(8, 10, kernel_size=3, stride=2, padding=1), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1),
    Lambda(lambda x: x.view(x.size(0), -1)),
)
opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
fit(epochs, model, loss_func, opt, train_dl, valid_dl)
with torch.no_grad():
    final = accuracy(model(x_valid), y_valid).item()
print(f"final accuracy {final:.3f}")
