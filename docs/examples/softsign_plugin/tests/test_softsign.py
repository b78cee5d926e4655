"""Tests of the example plugin: values, gradients, double backward, registration."""

import arraygrad as ag
from arraygrad.autograd import gradcheck, gradgradcheck
from arraygrad.plugins import registry

from arraygrad_softsign import softsign


def test_values():
    x = ag.tensor([-3.0, 0.0, 1.0], dtype=ag.float64)
    assert softsign(x).tolist() == [-0.75, 0.0, 0.5]


def test_gradients():
    x = ag.randn(4, dtype=ag.float64, requires_grad=True)
    assert gradcheck(softsign, (x,))
    assert gradgradcheck(softsign, (x,))


def test_registered_as_op_and_method():
    assert registry.get_op("softsign").fn is softsign
    x = ag.tensor([1.0])
    assert x.softsign().tolist() == [0.5]
