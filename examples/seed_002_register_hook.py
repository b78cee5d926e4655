"""Seed 002 walkthrough: Tensor.register_hook experiments."""

import arraygrad as torch

torch.manual_seed(seed=20200910)
v = torch.tensor([0., 0., 0.], requires_grad=True)
h = v.register_hook(lambda grad: grad * 2)  # double the gradient
print(v.grad)
v.backward(torch.tensor([1., 2., 3.]))
print(v.grad)
h.remove()
print(v.grad.zero_())
v.backward(torch.tensor([1., 2., 3.]))
print(v.grad)

v = torch.tensor([7., 8., 9.], requires_grad=True)
y = 2 * v ** 2
y.backward(torch.tensor([1., 2., 3.]))
print(v.grad)

y_grad = []


def grad_hook(grad):
    y_grad.append(grad)
    print("running the hook...")


x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
y = x ** 2 + 1
y.register_hook(grad_hook)
z = torch.mean(y * y)
z.backward()
print(y_grad)
print(x.grad)


def scale_hook(grad):
    return grad * 20200910.0


x = torch.tensor([2., 2., 2., 2.], requires_grad=True)
y = torch.pow(x, 2)
z = torch.mean(y)
h = x.register_hook(scale_hook)
z.backward(retain_graph=True)
print(x.grad)
h.remove()
print(x.grad.zero_())
z.backward()
print(x.grad)
