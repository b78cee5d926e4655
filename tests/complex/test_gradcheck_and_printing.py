"""``gradcheck`` on complex functions checks both parts and catches a missing conjugate; complex
tensors print as PyTorch prints them."""

from __future__ import annotations

import pytest

import arraygrad as ag
from arraygrad.autograd import Function, gradcheck, gradgradcheck
from arraygrad.autograd.gradcheck_batched import GradcheckError
from tests.complex.torch_pairs import needs_torch, torch


class _Square(Function):
    """``z * z`` with a chosen backward: PyTorch's ``g * conj(2z)`` or the wrong ``g * 2z``."""

    @staticmethod
    def forward(ctx, z, conjugate):
        ctx.save_for_backward(z)
        ctx.conjugate = conjugate
        return z * z

    @staticmethod
    def backward(ctx, g):
        (z,) = ctx.saved_tensors
        return g * (2 * z).conj() if ctx.conjugate else g * 2 * z, None


@pytest.mark.parametrize("fast_mode", [False, True])
def test_gradcheck_checks_the_convention_on_both_parts(fast_mode):
    z = ag.tensor([0.3 + 0.8j, -1.2 + 0.4j], dtype=ag.cdouble, requires_grad=True)
    assert gradcheck(lambda t: _Square.apply(t, True), (z,), fast_mode=fast_mode)
    with pytest.raises(GradcheckError, match="Jacobian"):
        gradcheck(lambda t: _Square.apply(t, False), (z,), fast_mode=fast_mode)
    assert not gradcheck(lambda t: _Square.apply(t, False), (z,), raise_exception=False,
                         fast_mode=fast_mode)


def test_gradcheck_of_mixed_real_and_complex_inputs_and_outputs():
    x = ag.tensor([0.5, -1.5], dtype=ag.float64, requires_grad=True)
    z = ag.tensor([1 + 1j, 2 - 1j], dtype=ag.cdouble, requires_grad=True)
    assert gradcheck(lambda a, b: (a * b, (a + b).abs()), (x, z))
    assert gradgradcheck(lambda a, b: a * b * b, (x, z))
    with pytest.warns(UserWarning, match="not a double precision floating point or complex"):
        gradcheck(lambda t: t * 2, (z.detach().to(ag.cfloat).requires_grad_(),), eps=1e-3,
                  atol=1e-2, rtol=1e-2)


@needs_torch
@pytest.mark.parametrize("values, dtype", [
    ([1 + 2j, -3.5 - 4j], "complex64"), ([[1e-5 + 2j, 3 + 0j]], "complex128"),
    (1 + 2j, "complex64"), ([[1 + 2j, 2 - 1j], [0j, -1j]], "complex64"),
    ([float("nan") + 1j, complex(float("inf"), -2)], "complex64"),
    ([0.123456 + 100j, 12345.5 - 0.001j], "complex128"),
])
def test_repr_equals_pytorchs(values, dtype):
    ours = repr(ag.tensor(values, dtype=getattr(ag, dtype)))
    theirs = repr(torch.tensor(values, dtype=getattr(torch, dtype)))
    assert ours == theirs.replace("torch.", "arraygrad.")


@needs_torch
def test_repr_of_large_and_grad_tensors_equals_pytorchs():
    t = torch.arange(2000.0).to(torch.cfloat) * (1 - 0.5j)
    ours = ag.arange(2000.0).to(ag.cfloat) * (1 - 0.5j)
    assert repr(ours) == repr(t)
    z = ag.tensor([1 + 2j], requires_grad=True)
    assert repr(z) == "tensor([1.+2.j], requires_grad=True)"
    assert repr(z * 2) == "tensor([2.+4.j], grad_fn=<MulBackward0>)"


@needs_torch
def test_suffixes_start_a_new_line_past_the_width_as_pytorchs():
    # (real tensors too: their dtype and grad_fn were always put on the values' last line)
    t = torch.arange(8.0, dtype=torch.float64).requires_grad_() * 1.5
    ours = ag.arange(8.0, dtype=ag.float64).requires_grad_() * 1.5
    assert repr(ours) == repr(t).replace("torch.", "arraygrad.")
    assert repr(ours).splitlines()[1] == "       dtype=arraygrad.float64, grad_fn=<MulBackward0>)"
