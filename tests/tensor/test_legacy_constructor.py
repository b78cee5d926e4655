"""The legacy ``Tensor(...)`` constructor (bound by ``tensor_methods``) works as PyTorch's."""

from __future__ import annotations

import pytest

import arraygrad as ag
from arraygrad.nn import Parameter


def test_data_gives_a_default_dtype_tensor():
    t = ag.Tensor([1, 2])
    assert t.dtype is ag.float32 and t.tolist() == [1.0, 2.0]
    assert t.is_leaf and not t.requires_grad
    assert ag.Tensor([1.5], dtype=ag.float64).dtype is ag.float64


def test_sizes_give_an_uninitialised_tensor():
    t = ag.Tensor(2, 3)
    assert tuple(t.shape) == (2, 3) and t.dtype is ag.float32
    assert tuple(ag.Tensor(4).shape) == (4,)


def test_requires_grad_and_isinstance():
    t = ag.Tensor([1.0, 2.0], requires_grad=True)
    assert t.requires_grad and isinstance(t, ag.Tensor)
    (t * t).sum().backward()
    assert t.grad.tolist() == [2.0, 4.0]


def test_the_constructor_is_documented_and_parameters_do_not_run_it():
    assert "Legacy constructor" in ag.Tensor.__init__.__doc__
    p = Parameter(ag.ones(2))
    assert p.requires_grad and p.tolist() == [1.0, 1.0]


def test_torch_agrees():
    torch = pytest.importorskip("torch")
    assert torch.Tensor([1, 2]).dtype == torch.float32
    assert tuple(torch.Tensor(2, 3).shape) == (2, 3)
