"""The "learning by examples" progression, ported by renaming the import: fit
y = sin(x) with a third-order polynomial five ways — tensors with hand-written gradients,
autograd, a custom autograd Function (Legendre P3), nn with a manual update, and an optimizer —
then a dynamic network reusing weights in Python control flow. Deterministic: no random draws."""
import math

import arraygrad as torch

dtype = torch.float64
x = torch.linspace(-math.pi, math.pi, 2000, dtype=dtype)
y = torch.sin(x)
start = (0.1, -0.2, 0.05, 0.01)

# 1. tensors, gradients by hand
a, b, c, d = (torch.tensor(v, dtype=dtype) for v in start)
learning_rate = 1e-6
for t in range(2000):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = (y_pred - y).pow(2).sum().item()
    grad_y_pred = 2.0 * (y_pred - y)
    a -= learning_rate * grad_y_pred.sum()
    b -= learning_rate * (grad_y_pred * x).sum()
    c -= learning_rate * (grad_y_pred * x ** 2).sum()
    d -= learning_rate * (grad_y_pred * x ** 3).sum()
print(f"manual: loss {loss:.6f} y = {a.item():.6f} + {b.item():.6f} x + {c.item():.6f} x^2 + {d.item():.6f} x^3")

# 2. autograd
a, b, c, d = (torch.tensor(v, dtype=dtype, requires_grad=True) for v in start)
for t in range(2000):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = (y_pred - y).pow(2).sum()
    loss.backward()
    with torch.no_grad():
        for p in (a, b, c, d):
            p -= learning_rate * p.grad
            p.grad = None
print(f"autograd: loss {loss.item():.6f} y = {a.item():.6f} + {b.item():.6f} x + {c.item():.6f} x^2 + {d.item():.6f} x^3")


# 3. a custom autograd Function
class LegendrePolynomial3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)


a = torch.full((), 0.0, dtype=dtype, requires_grad=True)
b = torch.full((), -1.0, dtype=dtype, requires_grad=True)
c = torch.full((), 0.0, dtype=dtype, requires_grad=True)
d = torch.full((), 0.3, dtype=dtype, requires_grad=True)
learning_rate = 5e-6
for t in range(2000):
    P3 = LegendrePolynomial3.apply
    y_pred = a + b * P3(c + d * x)
    loss = (y_pred - y).pow(2).sum()
    loss.backward()
    with torch.no_grad():
        for p in (a, b, c, d):
            p -= learning_rate * p.grad
            p.grad = None
print(f"function: loss {loss.item():.6f} y = {a.item():.6f} + {b.item():.6f} * P3({c.item():.6f} + {d.item():.6f} x)")

# 4. nn with a manual update
p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)
model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1)).to(dtype)
with torch.no_grad():
    model[0].weight.copy_(torch.tensor([start[1:]], dtype=dtype))
    model[0].bias.fill_(start[0])
loss_fn = torch.nn.MSELoss(reduction='sum')
learning_rate = 1e-6
for t in range(2000):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for param in model.parameters():
            param -= learning_rate * param.grad
linear_layer = model[0]
print(f"nn: loss {loss.item():.6f} y = {linear_layer.bias.item():.6f} + {linear_layer.weight[:, 0].item():.6f} x + "
      f"{linear_layer.weight[:, 1].item():.6f} x^2 + {linear_layer.weight[:, 2].item():.6f} x^3")

# 5. an optimizer
model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1)).double()
torch.nn.init.constant_(model[0].weight, 0.01)
torch.nn.init.zeros_(model[0].bias)
optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
# 100 steps: after that, the bias's gradient is ~0 (sin is odd) and RMSprop's sign-like
# steps on it amplify last-bit rounding differences between any two implementations.
for t in range(100):
    loss = loss_fn(model(xx), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f"optim: loss {loss.item():.6f} weight {[round(v, 6) for v in model[0].weight.flatten().tolist()]}")


# 6. a dynamic network: Python control flow, weights reused (a fixed schedule of depths)
class DynamicNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.tensor(0.0, dtype=dtype))
        self.b = torch.nn.Parameter(torch.tensor(0.5, dtype=dtype))
        self.c = torch.nn.Parameter(torch.tensor(0.0, dtype=dtype))
        self.d = torch.nn.Parameter(torch.tensor(-0.05, dtype=dtype))
        self.e = torch.nn.Parameter(torch.tensor(0.0, dtype=dtype))

    def forward(self, x, exp):
        y = self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3
        for e in range(4, exp + 1):
            y = y + self.e * x ** e
        return y

    def string(self):
        return f"y = {self.a.item():.6f} + {self.b.item():.6f} x + {self.c.item():.6f} x^2 + {self.d.item():.6f} x^3 + {self.e.item():.6f} x^4 ? + {self.e.item():.6f} x^5 ?"


model = DynamicNet()
criterion = torch.nn.MSELoss(reduction='sum')
optimizer = torch.optim.SGD(model.parameters(), lr=1e-8, momentum=0.9)
for t in range(2000):
    y_pred = model(x, 4 + t % 2)
    loss = criterion(y_pred, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f"dynamic: loss {loss.item():.6f} {model.string()}")
