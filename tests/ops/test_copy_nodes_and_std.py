"""Node names of copies match PyTorch's (``copy_`` -> CopyBackwards, a device move ->
ToCopyBackward0), and ``std``'s legacy positional ``unbiased`` works as PyTorch's."""

from __future__ import annotations

import pytest

import arraygrad as ag

try:  # the comparisons with PyTorch skip without it; the other checks here always run
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")



@needs_torch
def test_in_place_copy_records_copybackwards_as_pytorch():
    x = torch.ones(3, requires_grad=True)
    expected = type(torch.zeros(3).copy_(x).grad_fn).__name__
    assert expected == "CopyBackwards"
    y = ag.zeros(3)
    y.copy_(ag.ones(3, requires_grad=True))
    assert y.grad_fn.name() == expected


@needs_torch
def test_a_device_move_records_tocopybackward0_as_pytorch():
    # PyTorch records .to(device) as _to_copy (checked on the meta device: no data needed)
    expected = type(torch.ones(3, requires_grad=True).to("meta").grad_fn).__name__
    assert expected == "ToCopyBackward0"
    if "strict" not in {b.name for b in ag.backends.available() if b.available}:
        pytest.skip("needs a second backend (arraygrad-strict)")
    x = ag.ones(3, requires_grad=True)
    moved = x.to("strict")
    assert moved.grad_fn.name() == expected
    moved.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0]


@needs_torch
@pytest.mark.parametrize("unbiased", [True, False])
@pytest.mark.parametrize("fn", ["std", "var"])
def test_std_and_var_take_unbiased_positionally_as_pytorch(fn, unbiased):
    data = [[1.0, 2.0, 4.0], [3.0, 5.0, 9.0]]
    expected = getattr(torch.tensor(data, dtype=torch.float64), fn)(unbiased).item()
    got = getattr(ag.tensor(data, dtype=ag.float64), fn)(unbiased).item()
    assert got == pytest.approx(expected, rel=1e-12)
    assert getattr(ag, fn)(ag.tensor(data, dtype=ag.float64), unbiased).item() == pytest.approx(
        expected, rel=1e-12)
