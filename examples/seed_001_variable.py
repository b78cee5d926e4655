"""Seed 001 walkthrough: the legacy Variable API, on today's semantics (see docs/differences.md)."""

import warnings

import arraygrad as t
from arraygrad.autograd import Variable as V

warnings.simplefilter("ignore", DeprecationWarning)

x = V(t.ones(1))
b = V(t.rand(1), requires_grad=True)
w = V(t.rand(1), requires_grad=True)
y = w * x
z = y + b
print(z.grad_fn.name())


def abs(x):  # noqa: A001 - the seed's name
    if x.data[0] > 0:
        return x
    return -x


x = V(t.ones(1), requires_grad=True)
abs(x).backward()
print(x.grad)
x = V(-1 * t.ones(1), requires_grad=True)
abs(x).backward()
print(x.grad)


def f(x):
    result = 1
    for ii in x:
        if ii.data > 0:  # iterating gives 0-dim tensors today (the seed wrote ii.data[0])
            result = ii * result
    return result


x = V(t.arange(-2., 4), requires_grad=True)  # float: integer tensors cannot require grad
y = f(x)  # y = x[3] * x[4] * x[5]
y.backward()
print(x.grad)

x = V(t.ones(1))
w = V(t.rand(1), requires_grad=True)
y = x * w
print((x.requires_grad, w.requires_grad, y.requires_grad))

x = V(t.ones(3), requires_grad=True)
w = V(t.ones(3), requires_grad=True)
y = x * w
z = y.sum()
z.backward()
print((x.grad, w.grad, y._grad))

x = V(t.ones(3), requires_grad=True)
w = V(t.rand(3), requires_grad=True)
y = x * w
z = y.sum()
print(t.autograd.grad(z, y))


def variable_hook(grad):
    print("y grad:", grad)


x = V(t.ones(3), requires_grad=True)
w = V(t.rand(3), requires_grad=True)
y = x * w
hook_handle = y.register_hook(variable_hook)
z = y.sum()
z.backward()
hook_handle.remove()

x = V(t.arange(0., 3), requires_grad=True)
y = x ** 2 + x * 2
z = y.sum()
z.backward()
print(x.grad)

x = V(t.arange(0., 3), requires_grad=True)
y = x ** 2 + x * 2
y.backward(V(t.Tensor([1, 1, 1])))
print(x.grad)
