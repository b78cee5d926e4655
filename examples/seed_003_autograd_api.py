"""Seed 003 walkthrough: backward, grad, no_grad, detach, hooks, retain_grad, Function, gradcheck."""

import arraygrad as torch

a = torch.tensor([1., 2.], requires_grad=True)
b = torch.tensor([1., 2.], requires_grad=True)
c = 2 * a + 3 * b + 1
grad = torch.tensor([1., 1.])
torch.autograd.backward(c, grad_tensors=grad)
print(a.grad, b.grad)
try:
    torch.autograd.backward(c, grad_tensors=grad)
except RuntimeError as e:
    print("RuntimeError:", str(e).split(" (")[0])

a = torch.tensor([1., 2.], requires_grad=True)
b = torch.tensor([1., 2.], requires_grad=True)
c = 2 * a + 3 * b + 1
d = 2 * c + 1
print(torch.autograd.grad(d, (a, b, c), grad))
print((a.grad, b.grad))

x = torch.tensor([1.], requires_grad=True)
with torch.no_grad():
    y = x * 2
print(y.requires_grad)

cc = c.detach()
print(cc.requires_grad, cc)

a = torch.tensor([1., 2.], requires_grad=True)
b = torch.tensor([1., 2.], requires_grad=True)
c = 2 * a + 3 * b + 1
d = 2 * c + 1
c.retain_grad()
c.register_hook(print)
d.backward(torch.tensor([1., 1.]))
print(c.grad)


class Func(torch.autograd.Function):
    """3x + 2y + exp(x) + exp(y)."""

    @staticmethod
    def forward(ctx, x, y):
        expx = torch.exp(x)
        expy = torch.exp(y)
        result = 3 * x + 2 * y + expx + expy
        ctx.save_for_backward(expx, expy)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        expx, expy, = ctx.saved_tensors
        return grad_output * (3 + expx), grad_output * (2 + expy)


myfunc = Func.apply
x = torch.tensor([1., 2.], requires_grad=True)
y = torch.tensor([3., 4.], requires_grad=True)
z = myfunc(x, y)
z.backward(torch.tensor([1., 1.]))
print((x.grad, y.grad))

torch.manual_seed(0)
iptx = torch.randn(20, requires_grad=True).double()
ipty = torch.randn(20, requires_grad=True).double()
print(torch.autograd.gradcheck(myfunc, (iptx, ipty), atol=1e-4))
print(torch.autograd.gradgradcheck(myfunc, (iptx, ipty), raise_exception=False))
