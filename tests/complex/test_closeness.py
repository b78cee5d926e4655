"""isclose/allclose of complex tensors compare the modulus of the difference (both parts), as
PyTorch's; before, the imaginary parts were cast away and ``allclose`` ignored them."""

import math

import pytest

import arraygrad as ag

NAN, INF = float("nan"), float("inf")
LEFT = [1 + 1j, 2 + 0j, complex(NAN, 1), complex(INF, 0), 3 - 4j, 0j]
RIGHT = [1 + 2j, 2 + 1e-9j, complex(NAN, 1), complex(INF, 0), 3 - 4.00001j, 1e-9j]


@pytest.mark.parametrize("dtype", [ag.complex64, ag.complex128])
@pytest.mark.parametrize("equal_nan", [False, True])
def test_isclose_of_complex_reads_both_parts(dtype, equal_nan):
    got = ag.isclose(ag.tensor(LEFT, dtype=dtype), ag.tensor(RIGHT, dtype=dtype),
                     equal_nan=equal_nan).tolist()
    # |a - b| <= atol + rtol * |b| by hand (the non-finite ones: equal, or both NaN)
    want = []
    for a, b in zip(LEFT, RIGHT):
        if a == b:
            want.append(True)
        elif math.isnan(abs(a)) or math.isnan(abs(b)):
            want.append(equal_nan and math.isnan(abs(a)) and math.isnan(abs(b)))
        else:
            want.append(abs(a - b) <= 1e-8 + 1e-5 * abs(b))
    assert got == want


def test_allclose_sees_an_imaginary_difference():
    assert not ag.allclose(ag.tensor([1 + 1j]), ag.tensor([1 + 2j]))
    assert ag.allclose(ag.tensor([1 + 1j]), ag.tensor([1 + 1j]))


def test_isclose_of_infinities_warns_nothing():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ag.isclose(ag.tensor([INF, 1.0]), ag.tensor([INF, 1.0])).all()
        assert ag.isclose(ag.tensor([complex(INF, 0)]), ag.tensor([complex(INF, 0)])).all()


@pytest.mark.parametrize("equal_nan", [False, True])
def test_isclose_of_complex_is_pytorchs(equal_nan):
    torch = pytest.importorskip("torch")
    ours = ag.isclose(ag.tensor(LEFT), ag.tensor(RIGHT), equal_nan=equal_nan).tolist()
    theirs = torch.isclose(torch.tensor(LEFT), torch.tensor(RIGHT), equal_nan=equal_nan).tolist()
    assert ours == theirs
