"""Issue 29: a tensor too large to allocate, sizes and fill values past 64 bits, and the
numeric edge cases (atan2 at the origin, randperm/randint bounds) raise PyTorch's classes
and messages. The impossible sizes fail at once: NumPy refuses 2**40 float32 elements
without allocating, and the storage-size check runs before any allocation."""

import pytest

import arraygrad as ag

HUGE = 2 ** 40


@pytest.mark.parametrize("make", [
    lambda: ag.zeros(1).expand(HUGE).contiguous(),
    lambda: ag.zeros(1).expand(HUGE).clone(),
    lambda: ag.zeros(2 ** 20, 1) @ ag.zeros(1, 2 ** 20),
    lambda: ag.mm(ag.zeros(2 ** 20, 1), ag.zeros(1, 2 ** 20)),
    lambda: ag.zeros(2 ** 20).repeat(2 ** 20),
    lambda: ag.zeros(2 ** 20).tile(2 ** 20),
    lambda: ag.zeros(HUGE),
], ids=["contiguous", "clone", "matmul", "mm", "repeat", "tile", "zeros"])
def test_out_of_memory_is_pytorchs_runtime_error(make):
    with pytest.raises(RuntimeError, match="DefaultCPUAllocator: can't allocate memory: "
                                           "you tried to allocate 4398046511104 bytes"):
        make()


class _Hungry(ag.autograd.Function):
    """A backward whose allocation the array library refuses."""

    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        raise MemoryError("Unable to allocate 4.00 TiB")


def test_out_of_memory_in_backward_is_a_runtime_error():
    x = ag.ones(3, requires_grad=True)
    y = _Hungry.apply(x).sum()
    with pytest.raises(RuntimeError, match="backward: DefaultCPUAllocator: can't allocate memory"):
        y.backward()
    assert x.grad is None


@pytest.mark.parametrize("make, cls, text", [
    (lambda: ag.zeros(HUGE, HUGE), RuntimeError,
     r"Storage size calculation overflowed with sizes=\[1099511627776, 1099511627776\]"),
    (lambda: ag.rand(2 ** 62, 4), RuntimeError, "Storage size calculation overflowed"),
    (lambda: ag.zeros(2 ** 63), TypeError,
     "zeros\\(\\): argument 'size' failed to unpack the object at pos 1 with error "
     '"Overflow when unpacking long long"'),
    (lambda: ag.full((2,), 2 ** 70, dtype=ag.int64), OverflowError, "int too big to convert"),
    (lambda: ag.full((2,), 2 ** 70), OverflowError, "int too big to convert"),
    (lambda: ag.full((2,), -2 ** 70, dtype=ag.int32), OverflowError,
     "can't convert negative int to unsigned"),
    (lambda: ag.zeros(2, dtype=ag.int64).fill_(2 ** 70), OverflowError, "int too big to convert"),
    (lambda: ag.zeros(2).fill_(-2 ** 70), OverflowError, "can't convert negative int to unsigned"),
    (lambda: ag.randperm(-1), RuntimeError, r"negative dimension -1: \[-1\]"),
    (lambda: ag.randperm(2 ** 63), ValueError, "Overflow when unpacking long long"),
    (lambda: ag.randint(0, 2 ** 63, (2,)), ValueError, "Overflow when unpacking long long"),
    (lambda: ag.randint(-2 ** 63 - 1, 0, (2,)), ValueError, "Overflow when unpacking long long"),
])
def test_sizes_and_values_past_64_bits(make, cls, text):
    with pytest.raises(cls, match=text):
        make()


def test_the_int64_extremes_still_work():
    assert ag.randint(-2 ** 63, 2 ** 63 - 1, (3,)).dtype == ag.int64
    assert ag.full((1,), 2 ** 63 - 1).item() == 2 ** 63 - 1  # an int fill: int64
    assert ag.randperm(0).shape == (0,)


def test_atan2_gradient_at_the_origin_is_zero():
    y = ag.tensor([0.0, 1.0], dtype=ag.float64, requires_grad=True)
    x = ag.tensor([0.0, 2.0], dtype=ag.float64, requires_grad=True)
    ag.atan2(y, x).sum().backward()
    # d/dy = x / (x^2 + y^2), d/dx = -y / (x^2 + y^2); 0 at the origin, as PyTorch
    assert y.grad.tolist() == [0.0, 2.0 / 5.0]
    assert x.grad.tolist() == [0.0, -1.0 / 5.0]


def test_integer_division_by_zero_raises():
    for f in (lambda a, b: a // b, lambda a, b: a % b, ag.floor_divide, ag.remainder,
              lambda a, b: ag.div(a, b, rounding_mode="trunc")):
        with pytest.raises(RuntimeError, match="^ZeroDivisionError$"):
            f(ag.tensor([1, 2]), ag.tensor([1, 0]))
        with pytest.raises(RuntimeError, match="^ZeroDivisionError$"):
            f(ag.tensor([1, 2]), 0)
