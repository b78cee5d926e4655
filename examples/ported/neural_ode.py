"""A neural ODE fitting a spiral, ported by renaming the import, in the form of torchdiffeq's
examples/ode_demo.py: the true dynamics dy/dt = y^3 A integrated to make the data, an ODEFunc
(Linear-Tanh-Linear, normal_(0, 0.1) weights, constant_ zero biases) as the learned vector
field, random batches of short trajectories drawn with np.random.choice, RMSprop, and a
RunningAverageMeter; odeint is written out here as torchdiffeq's fixed-grid 'rk4' method
(3/8-rule Runge-Kutta over the time points), so gradients flow through the solver's steps.
PyTorch prints these numbers on arraygrad's random stream (tools/programs/shared_stream.py)."""
import numpy as np

import arraygrad as torch
import arraygrad.nn as nn
import arraygrad.optim as optim

np.random.seed(0)
torch.manual_seed(0)
# 40 iterations: RMSprop's sign-like steps amplify last-bit rounding differences between any
# two implementations (BLAS sums, tanh), and by iteration 60 the whole trajectory's loss differs
# from PyTorch's in the fifth digit, where its running batch loss still agrees to six
data_size, batch_time, batch_size, niters, test_freq = 200, 10, 16, 40, 20
true_y0 = torch.tensor([[2., 0.]])
t = torch.linspace(0., 10., data_size)
true_A = torch.tensor([[-0.1, 2.0], [-2.0, -0.1]])


def rk4_step(func, t0, dt, y):
    k1 = func(t0, y)
    k2 = func(t0 + dt / 3, y + dt * k1 / 3)
    k3 = func(t0 + dt * 2 / 3, y + dt * (k2 - k1 / 3))
    k4 = func(t0 + dt, y + dt * (k1 - k2 + k3))
    return y + dt * (k1 + 3 * (k2 + k3) + k4) / 8


def odeint(func, y0, t):
    ys = [y0]
    for i in range(len(t) - 1):
        ys.append(rk4_step(func, t[i], t[i + 1] - t[i], ys[-1]))
    return torch.stack(ys)


class Lambda(nn.Module):
    def forward(self, t, y):
        return torch.mm(y ** 3, true_A)


with torch.no_grad():
    true_y = odeint(Lambda(), true_y0, t)


def get_batch():
    s = torch.from_numpy(np.random.choice(np.arange(data_size - batch_time, dtype=np.int64),
                                          batch_size, replace=False))
    batch_y0 = true_y[s]
    batch_t = t[:batch_time]
    batch_y = torch.stack([true_y[s + i] for i in range(batch_time)], dim=0)
    return batch_y0, batch_t, batch_y


class ODEFunc(nn.Module):
    def __init__(self):
        super(ODEFunc, self).__init__()
        self.net = nn.Sequential(nn.Linear(2, 50), nn.Tanh(), nn.Linear(50, 2))
        for m in self.net.modules():
            if isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, mean=0, std=0.1)
                nn.init.constant_(m.bias, val=0)

    def forward(self, t, y):
        return self.net(y ** 3)


class RunningAverageMeter(object):
    def __init__(self, momentum=0.99):
        self.momentum = momentum
        self.val, self.avg = None, 0

    def update(self, val):
        self.avg = val if self.val is None else self.avg * self.momentum + val * (1 - self.momentum)
        self.val = val


func = ODEFunc()
optimizer = optim.RMSprop(func.parameters(), lr=1e-3)
loss_meter = RunningAverageMeter(0.97)
for itr in range(1, niters + 1):
    optimizer.zero_grad()
    batch_y0, batch_t, batch_y = get_batch()
    pred_y = odeint(func, batch_y0, batch_t)
    loss = torch.mean(torch.abs(pred_y - batch_y))
    loss.backward()
    optimizer.step()
    loss_meter.update(loss.item())
    if itr % test_freq == 0:
        with torch.no_grad():
            pred_y = odeint(func, true_y0, t)
            loss = torch.mean(torch.abs(pred_y - true_y))
            print("Iter {:04d} | Total Loss {:.6f} | running {:.6f}".format(itr, loss.item(), loss_meter.avg))
print(f"final loss {loss_meter.avg:.6f}")  # the running batch loss (0.30 after 20 steps)
