"""Hinton's Forward-Forward algorithm, ported by renaming the import, in the form of
pytorch/examples mnist_forward_forward/main.py: the label overlaid on the first pixels of the
input (positive data with the true label, negative data with a random wrong one drawn with
torch.randint), Layers that are nn.Linear subclasses each owning an Adam optimizer and
trained alone on the goodness (mean squared activation) of positive vs. negative data through
log1p(exp(...)), detached outputs feeding the next layer, prediction by the label with the
highest total goodness. Synthetic 8x8 "digits". PyTorch prints these numbers on arraygrad's
random stream (tools/programs/shared_stream.py)."""
import arraygrad as torch
import arraygrad.nn as nn
from arraygrad.optim import Adam

torch.manual_seed(1)
lr, threshold, epochs, log_interval = 0.03, 2.0, 120, 40
templates = torch.rand(10, 64)
y = torch.randint(0, 10, (400,))
x = (templates[y] + 0.3 * torch.randn(400, 64) - 0.5) / 0.3
x_te, y_te = x[300:], y[300:]
x, y = x[:300], y[:300]


def get_y_neg(y):
    y_neg = y.clone()
    for idx, y_samp in enumerate(y):
        allowed_indices = list(range(10))
        allowed_indices.remove(y_samp.item())
        y_neg[idx] = torch.tensor(allowed_indices)[torch.randint(len(allowed_indices), size=(1,))].item()
    return y_neg


def overlay_y_on_x(x, y, classes=10):
    x_ = x.clone()
    x_[:, :classes] *= 0.0
    x_[range(x.shape[0]), y] = x.max()
    return x_


class Net(torch.nn.Module):
    def __init__(self, dims):
        super().__init__()
        self.layers = []
        for d in range(len(dims) - 1):
            self.layers = self.layers + [Layer(dims[d], dims[d + 1])]

    def predict(self, x):
        goodness_per_label = []
        for label in range(10):
            h = overlay_y_on_x(x, label)
            goodness = []
            for layer in self.layers:
                h = layer(h)
                goodness = goodness + [h.pow(2).mean(1)]
            goodness_per_label += [sum(goodness).unsqueeze(1)]
        return torch.cat(goodness_per_label, 1).argmax(1)

    def train(self, x_pos, x_neg):
        h_pos, h_neg = x_pos, x_neg
        for i, layer in enumerate(self.layers):
            print("training layer: ", i)
            h_pos, h_neg = layer.train(h_pos, h_neg)


class Layer(nn.Linear):
    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__(in_features, out_features, bias, device, dtype)
        self.relu = torch.nn.ReLU()
        self.opt = Adam(self.parameters(), lr=lr)
        self.threshold = threshold
        self.num_epochs = epochs

    def forward(self, x):
        x_direction = x / (x.norm(2, 1, keepdim=True) + 1e-4)
        return self.relu(torch.mm(x_direction, self.weight.T) + self.bias.unsqueeze(0))

    def train(self, x_pos, x_neg):
        for i in range(self.num_epochs):
            g_pos = self.forward(x_pos).pow(2).mean(1)
            g_neg = self.forward(x_neg).pow(2).mean(1)
            loss = torch.log1p(torch.exp(torch.cat([-g_pos + self.threshold, g_neg - self.threshold]))).mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            if i % log_interval == 0:
                print("Loss: ", f"{loss.item():.6f}")
        return self.forward(x_pos).detach(), self.forward(x_neg).detach()


net = Net([64, 100, 100])
x_pos = overlay_y_on_x(x, y)
x_neg = overlay_y_on_x(x, get_y_neg(y))
net.train(x_pos, x_neg)
print("train error:", f"{1.0 - net.predict(x).eq(y).float().mean().item():.4f}")
test_error = 1.0 - net.predict(x_te).eq(y_te).float().mean().item()
print("test error:", f"{test_error:.4f}")
print(f"final accuracy {1 - test_error:.4f}")
