"""Seed 000 walkthrough, module part: backward hooks on an nn.Module, and a frozen encoder.

``register_backward_hook`` here has the correct module-level meaning (the same
as ``register_full_backward_hook``): ``grad_input`` is the gradient w.r.t. the
module's input, ``grad_output`` the gradient w.r.t. its output.
"""

import arraygrad as torch
import arraygrad.nn as nn


class Quarter(nn.Module):
    """A parameter-free module computing ``input / 4``."""

    def forward(self, input):
        return input / 4


class MyNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.f1 = nn.Linear(4, 1, bias=True)
        self.f2 = Quarter()
        self.f1.weight.data.fill_(8.0)
        self.f1.bias.data.fill_(2.0)

    def forward(self, input):
        return self.f2(self.f1(input))


def hook(module, grad_input, grad_output):
    print("net hook grad_input:", grad_input)
    print("net hook grad_output:", grad_output)


def tensor_hook(grad):
    print("input hook:", grad)


class TwoSteps(MyNet):
    def forward(self, input):
        output = self.f1(input)
        output = self.f2(output)
        return output


class Reordered(MyNet):
    def forward(self, input):
        output = self.f2(input)
        output = self.f1(output)
        return output


class QuarterAfter(MyNet):
    def forward(self, input):
        return self.f1(self.f2(input)) / 4


def run(net_class):
    print(f"-- {net_class.__name__}")
    net = net_class()
    net.register_backward_hook(hook)
    input = torch.tensor([1, 2, 3, 4], dtype=torch.float32, requires_grad=True)
    input.register_hook(tensor_hook)
    result = net(input)
    print("result:", result)
    result.backward()
    print("input grad:", input.grad)
    print("weight grad:", net.f1.weight.grad)
    print("bias grad:", net.f1.bias.grad)


for net_class in (MyNet, TwoSteps, Reordered, QuarterAfter):
    run(net_class)

print("-- frozen encoder")


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
        self.head = nn.Linear(2, 1)

    def forward(self, x):
        return self.head(self.encoder(x))


model = Model()
for param in model.encoder.parameters():
    print(param.requires_grad)
