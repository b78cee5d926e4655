"""The last names the census found missing: ``torch.binomial``, ``Tensor.fill_diagonal_``, the
``torch.types`` aliases; values against PyTorch where installed, and their definitions."""

from __future__ import annotations

import pytest

import arraygrad as ag

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def test_binomial_moments_and_dtype() -> None:
    ag.manual_seed(0)
    n, p = ag.full((40000,), 10.0), ag.full((40000,), 0.3)
    draws = ag.binomial(n, p)
    assert draws.dtype == ag.float32 and not draws.requires_grad
    assert abs(draws.mean().item() - 3.0) < 0.05 and abs(draws.var().item() - 2.1) < 0.1
    assert bool(((draws >= 0) & (draws <= 10) & (draws == draws.round())).all())
    edge = ag.binomial(ag.tensor([0.0, 7.0, 7.0]), ag.tensor([0.5, 0.0, 1.0]))
    assert edge.tolist() == [0.0, 0.0, 7.0]


def test_binomial_refuses_integer_counts_as_pytorch() -> None:
    with pytest.raises(ValueError, match="floating-point dtypes for count"):
        ag.binomial(ag.tensor([10, 5]), ag.tensor([0.5, 0.2]))


@needs_torch
@pytest.mark.parametrize("shape, wrap", [((3, 3), False), ((7, 3), False), ((7, 3), True),
                                         ((3, 5), False), ((3, 5), True), ((3, 3, 3), False),
                                         ((2, 2, 2, 2), True)])
def test_fill_diagonal_matches_pytorch(shape, wrap) -> None:
    ours, theirs = ag.zeros(*shape), torch.zeros(*shape)
    assert ours.fill_diagonal_(5.0, wrap=wrap) is ours
    theirs.fill_diagonal_(5.0, wrap=wrap)
    assert ours.tolist() == theirs.tolist()


def test_fill_diagonal_gradient_and_errors() -> None:
    x = ag.ones(3, 3, requires_grad=True)
    y = x * 2
    y.fill_diagonal_(0.0)
    y.sum().backward()
    assert x.grad.tolist() == [[0.0, 2.0, 2.0], [2.0, 0.0, 2.0], [2.0, 2.0, 0.0]]
    with pytest.raises(RuntimeError, match="dimensions must larger than 1"):
        ag.zeros(3).fill_diagonal_(1.0)
    before = ag.zeros(2, 3, 3)
    with pytest.raises(RuntimeError, match="equal length"):
        before.fill_diagonal_(1.0)
    assert float(before.abs().sum()) == 0.0  # nothing changed on error


def test_types_aliases() -> None:
    from arraygrad import types

    assert isinstance(3, types.py_sym_types) is False
    assert types.Size is ag.Size and types.Tensor is ag.Tensor
    assert int in types.Number.__args__ and str in types.Device.__args__


@needs_torch
@pytest.mark.parametrize("make, kwargs", [
    (lambda lib: lib.tensor([[1.5, 2.0, -3.0], [0.0, 1.0, 2.0]]), {}),
    (lambda lib: lib.tensor([[1.5, 2.0, -3.0], [0.0, 1.0, 2.0]]), {"dim": 1}),
    (lambda lib: lib.tensor([[1.5, 2.0, -3.0], [0.0, 1.0, 2.0]]), {"dim": (0, 1), "keepdim": True}),
    (lambda lib: lib.arange(12).reshape(3, 4), {"dim": 0}),
    (lambda lib: lib.tensor([True, False, True]), {}),
    (lambda lib: lib.tensor([1.0, -2.5], dtype=lib.float16), {}),
])
def test_hash_tensor_matches_pytorch(make, kwargs) -> None:
    ours, theirs = ag.hash_tensor(make(ag), **kwargs), torch.hash_tensor(make(torch), **kwargs)
    assert ours.dtype == ag.uint64 and ours.tolist() == theirs.tolist()


def test_hash_tensor_modes() -> None:
    with pytest.raises(RuntimeError, match="Unknown hash_tensor mode"):
        ag.hash_tensor(ag.ones(2), mode=1)
