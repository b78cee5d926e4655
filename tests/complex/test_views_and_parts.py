"""``view_as_real``/``view_as_complex``, ``.real``/``.imag`` as views that write through both
ways (on NumPy, whose arrays can be viewed as another dtype), ``complex``/``polar``, the conj
decision (no lazy bit: docs/complex.md) and PyTorch's errors."""

from __future__ import annotations

import pytest

import arraygrad as ag
from tests.complex.torch_pairs import assert_same, complex_pair, needs_torch, torch


def test_view_as_real_and_back_share_memory_both_ways():
    z = ag.tensor([1 + 2j, 3 - 4j])
    r = ag.view_as_real(z)
    assert r.dtype is ag.float32 and tuple(r.shape) == (2, 2) and r._base is z
    r[0, 1] = 7.0  # written through the real view
    assert z.tolist() == [1 + 7j, 3 - 4j]
    z.mul_(2)  # and the real view sees the complex tensor's change
    assert r.tolist() == [[2.0, 14.0], [6.0, -8.0]]
    back = ag.view_as_complex(r)
    back.add_(1j)
    assert z.tolist() == [2 + 15j, 6 - 7j]
    assert ag.view_as_real(ag.tensor(1 + 2j)).tolist() == [1.0, 2.0]


def test_real_and_imag_are_views_and_settable():
    z = ag.zeros(3, dtype=ag.cfloat)
    z.real = ag.tensor([1.0, 2.0, 3.0])
    z.imag.add_(1)
    assert z.tolist() == [1 + 1j, 2 + 1j, 3 + 1j]
    z.imag[1] = -5.0
    assert z.tolist()[1] == 2 - 5j
    x = ag.ones(2)
    assert x.real is x  # a real tensor's real part is itself, as in PyTorch
    x.real = ag.tensor([3.0, 4.0])
    assert x.tolist() == [3.0, 4.0]
    with pytest.raises(RuntimeError, match="imag is not implemented for tensors with "
                                           "non-complex dtypes"):
        x.imag


def test_views_of_transposed_and_sliced_tensors():
    z = ag.tensor([[1 + 1j, 2 + 2j, 3 + 3j], [4 + 4j, 5 + 5j, 6 + 6j]]).t()
    r = ag.view_as_real(z)
    assert r.stride() == (2, 6, 1) and r[2, 1].tolist() == [6.0, 6.0]
    r[0, 0, 0] = 0.0
    assert z[0, 0].item() == 1j
    base = ag.arange(12.0).reshape(3, 4)
    c = ag.view_as_complex(base.reshape(3, 2, 2))
    c.mul_(1j)
    assert base[0].tolist() == [-1.0, 0.0, -3.0, 2.0]


def test_in_place_through_a_part_of_a_tensor_in_the_graph_keeps_gradients():
    leaf = ag.tensor([1 + 2j, -0.5 + 0.25j], dtype=ag.cdouble, requires_grad=True)
    z = leaf * 1
    z.imag.mul_(3)  # z = x + 3iy
    (z.abs() ** 2).sum().backward()  # |x + 3iy|^2: gradient 2x + i 18y
    assert ag.allclose(leaf.grad, ag.tensor([2 + 36j, -1 + 4.5j], dtype=ag.cdouble))
    r0 = ag.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    r = r0 * 1
    ag.view_as_complex(r).mul_(1j)  # (a, b) -> (-b, a)
    assert r.tolist() == [[-2.0, 1.0], [-4.0, 3.0]]
    r.sum().backward()
    assert r0.grad.tolist() == [[1.0, -1.0], [1.0, -1.0]]


@needs_torch
@pytest.mark.parametrize("call", [
    lambda m: m.view_as_real(m.ones(2)),
    lambda m: m.view_as_complex(m.ones(2, 3)),
    lambda m: m.view_as_complex(m.ones(3, 2).t()),
    lambda m: m.view_as_complex(m.ones(2, 2, dtype=m.int32)),
    lambda m: m.view_as_complex(m.ones(3, 3)[:, 1:]),
    lambda m: m.view_as_complex(m.ones(5)[1:3]),
    lambda m: m.view_as_complex(m.ones(())),
    lambda m: m.complex(m.ones(2), m.ones(2, dtype=m.float64)),
    lambda m: m.complex(m.ones(2, dtype=m.int32), m.ones(2, dtype=m.int32)),
    lambda m: m.polar(m.ones(2), m.ones(2, dtype=m.float64)),
    lambda m: m.ones(2).imag,
], ids=["real-of-real", "last-dim-3", "last-stride", "int", "odd-stride", "odd-offset", "0-d",
        "mixed-parts", "int-parts", "polar-mixed", "imag-of-real"])
def test_errors_equal_pytorchs(call):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value), match="^" + str(theirs.value).replace("(", r"\(")
                       .replace(")", r"\)") + "$"):
        call(ag)


@needs_torch
def test_complex_and_polar_equal_pytorchs():
    re, im = [ag.tensor(v, dtype=ag.float64) for v in ([1.0, -2.0, 0.5], [[0.25], [3.0]])]
    tre, tim = [torch.tensor(v, dtype=torch.float64) for v in ([1.0, -2.0, 0.5], [[0.25], [3.0]])]
    assert_same(ag.complex(re, im), torch.complex(tre, tim))
    assert_same(ag.polar(re.abs(), im), torch.polar(tre.abs(), tim))
    out = ag.empty(2, 3, dtype=ag.cdouble)
    assert ag.complex(re, im, out=out) is out and out.tolist() == ag.complex(re, im).tolist()


def test_conj_has_no_lazy_bit():
    z = ag.tensor([1 + 2j])
    c = z.conj()
    assert c.tolist() == [1 - 2j] and not c.is_conj() and c.resolve_conj() is c
    z.add_(1)  # the conjugate holds its own values (PyTorch's lazy view would follow)
    assert c.tolist() == [1 - 2j]
    assert ag.conj_physical(z).tolist() == [2 - 2j]
    z.conj_physical_()
    assert z.tolist() == [2 - 2j]
    x = ag.ones(2)
    assert x.conj() is x and x.resolve_conj() is x and not x.is_neg()
    assert ag.view_as_real(z.conj()).tolist() == [[2.0, 2.0]]  # PyTorch refuses: bit set
