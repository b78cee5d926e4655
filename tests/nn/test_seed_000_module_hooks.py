"""Seed 000, module part: a backward hook on a whole net sees the gradients w.r.t. the net's
input and output (the correct meaning of register_backward_hook), and the seed's numbers."""

import pathlib
import subprocess
import sys

import pytest

import arraygrad as ag
from arraygrad import nn

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "seed_000_module_hooks.py"


class Quarter(nn.Module):
    def forward(self, input):
        return input / 4


class MyNet(nn.Module):
    def __init__(self, variant="f2(f1)"):
        super().__init__()
        self.f1 = nn.Linear(4, 1, bias=True)
        self.f2 = Quarter()
        self.f1.weight.data.fill_(8)
        self.f1.bias.data.fill_(2)
        self.variant = variant

    def forward(self, input):
        if self.variant == "f2(f1)":
            return self.f2(self.f1(input))
        if self.variant == "f1 then f2":
            output = self.f1(input)
            return self.f2(output)
        if self.variant == "f2 then f1":
            output = self.f2(input)
            output = self.f1(output)
            return output
        return self.f1(self.f2(input)) / 4


CASES = [
    ("f2(f1)", "tensor([20.5000], grad_fn=<BackwardHookFunctionBackward>)", [2.0] * 4,
     [[0.25, 0.5, 0.75, 1.0]], [0.25]),
    ("f1 then f2", "tensor([20.5000], grad_fn=<BackwardHookFunctionBackward>)", [2.0] * 4,
     [[0.25, 0.5, 0.75, 1.0]], [0.25]),
    ("f2 then f1", "tensor([22.], grad_fn=<BackwardHookFunctionBackward>)", [2.0] * 4,
     [[0.25, 0.5, 0.75, 1.0]], [1.0]),
    ("f1(f2)/4", "tensor([5.5000], grad_fn=<BackwardHookFunctionBackward>)", [0.5] * 4,
     [[0.0625, 0.125, 0.1875, 0.25]], [0.25]),
]


@pytest.mark.parametrize("variant, result_repr, input_grad, weight_grad, bias_grad", CASES)
def test_seed_numbers_and_correct_backward_hook(variant, result_repr, input_grad, weight_grad,
                                                bias_grad):
    net = MyNet(variant)
    seen = []
    net.register_backward_hook(lambda m, gi, go: seen.append((m, gi, go)))
    input = ag.tensor([1, 2, 3, 4], dtype=ag.float32, requires_grad=True)
    hooked = []
    input.register_hook(lambda g: hooked.append(g))
    result = net(input)
    assert repr(result) == result_repr
    result.backward()
    assert [g.tolist() for g in hooked] == [input_grad]
    assert input.grad.tolist() == input_grad
    assert net.f1.weight.grad.tolist() == weight_grad
    assert net.f1.bias.grad.tolist() == bias_grad
    # the module-level meaning: gradients w.r.t. the net's own input and output
    assert len(seen) == 1
    module, grad_input, grad_output = seen[0]
    assert module is net
    assert len(grad_input) == 1 and grad_input[0].tolist() == input_grad
    assert len(grad_output) == 1 and repr(grad_output[0]) == "tensor([1.])"


def test_first_variant_reprs():
    net = MyNet()
    seen = []
    net.register_backward_hook(lambda m, gi, go: seen.append((gi, go)))
    input = ag.tensor([1, 2, 3, 4], dtype=ag.float32, requires_grad=True)
    net(input).backward()
    assert repr(seen[0][0]) == "(tensor([2., 2., 2., 2.]),)"
    assert repr(seen[0][1]) == "(tensor([1.]),)"
    assert repr(net.f1.weight.grad) == "tensor([[0.2500, 0.5000, 0.7500, 1.0000]])"
    assert repr(net.f1.bias.grad) == "tensor([0.2500])"


def test_encoder_parameters_require_grad():
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
            self.head = nn.Linear(2, 1)

    model = Model()
    flags = [param.requires_grad for param in model.encoder.parameters()]
    assert flags == [True] * 4


EXPECTED = """\
-- MyNet
result: tensor([20.5000], grad_fn=<BackwardHookFunctionBackward>)
net hook grad_input: (tensor([2., 2., 2., 2.]),)
net hook grad_output: (tensor([1.]),)
input hook: tensor([2., 2., 2., 2.])
input grad: tensor([2., 2., 2., 2.])
weight grad: tensor([[0.2500, 0.5000, 0.7500, 1.0000]])
bias grad: tensor([0.2500])
-- TwoSteps
result: tensor([20.5000], grad_fn=<BackwardHookFunctionBackward>)
net hook grad_input: (tensor([2., 2., 2., 2.]),)
net hook grad_output: (tensor([1.]),)
input hook: tensor([2., 2., 2., 2.])
input grad: tensor([2., 2., 2., 2.])
weight grad: tensor([[0.2500, 0.5000, 0.7500, 1.0000]])
bias grad: tensor([0.2500])
-- Reordered
result: tensor([22.], grad_fn=<BackwardHookFunctionBackward>)
net hook grad_input: (tensor([2., 2., 2., 2.]),)
net hook grad_output: (tensor([1.]),)
input hook: tensor([2., 2., 2., 2.])
input grad: tensor([2., 2., 2., 2.])
weight grad: tensor([[0.2500, 0.5000, 0.7500, 1.0000]])
bias grad: tensor([1.])
-- QuarterAfter
result: tensor([5.5000], grad_fn=<BackwardHookFunctionBackward>)
net hook grad_input: (tensor([0.5000, 0.5000, 0.5000, 0.5000]),)
net hook grad_output: (tensor([1.]),)
input hook: tensor([0.5000, 0.5000, 0.5000, 0.5000])
input grad: tensor([0.5000, 0.5000, 0.5000, 0.5000])
weight grad: tensor([[0.0625, 0.1250, 0.1875, 0.2500]])
bias grad: tensor([0.2500])
-- frozen encoder
True
True
True
True
"""


def test_example_script_prints_seed_numbers():
    proc = subprocess.run([sys.executable, "-W", "ignore", str(EXAMPLE)], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == EXPECTED
