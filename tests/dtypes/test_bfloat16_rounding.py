"""``.to(bfloat16)`` bit for bit as PyTorch's: round to nearest even, subnormals, infinities,
NaN (PyTorch's vectorised conversion writes 0xFFFF), halfway cases; float64 through float32
as PyTorch converts; bfloat16 -> float32 exact."""

import numpy as np
import pytest

import arraygrad as ag

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
pytestmark = pytest.mark.skipif(ag.bfloat16 not in ag.backends.get_backend("numpy").supported_dtypes(),
                                reason="the numpy backend has no bfloat16 here (ml_dtypes missing)")


def _float32_cases(n=10 ** 6, seed=1):
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 2 ** 32, size=n, dtype=np.uint64).astype(np.uint32)
    bits[: n // 10] = (bits[: n // 10] & 0xFFFF0000) | 0x8000  # exactly halfway
    bits[n // 10: n // 10 + 2000] = (bits[n // 10: n // 10 + 2000] & 0xFFFF0000) | 0x7FFF
    bits[n // 5: n // 5 + 20000] &= 0x807FFFFF  # subnormals (and zeros)
    f = bits.view(np.float32)
    f[:8] = [np.inf, -np.inf, np.nan, -np.nan, 0.0, -0.0, 3.4028235e38, -3.4028235e38]
    return f


def _bits(t):
    return np.asarray(t.numpy()).view(np.uint16)


def test_round_to_nearest_even_by_hand():
    """Without PyTorch: the rounding rule on chosen float32 bit patterns."""
    cases = {0x3F808000: 0x3F80,  # halfway, even below: down
             0x3F818000: 0x3F82,  # halfway, odd below: up
             0x3F807FFF: 0x3F80, 0x3F808001: 0x3F81,
             0x7F7FFFFF: 0x7F80,  # the largest float32 rounds to inf
             0x00010000: 0x0001,  # a subnormal
             0x7FC00000: 0xFFFF}  # NaN, as PyTorch's vectorised conversion
    f = np.array(list(cases), dtype=np.uint32).view(np.float32)
    got = _bits(ag.tensor(f).to(ag.bfloat16))
    assert [hex(v) for v in got] == [hex(v) for v in cases.values()]


@needs_torch
def test_float32_to_bfloat16_equals_pytorch_on_a_million_values():
    f = _float32_cases()
    theirs = torch.from_numpy(f.copy()).to(torch.bfloat16).view(torch.int16).numpy()
    ours = _bits(ag.tensor(f).to(ag.bfloat16))
    bad = np.flatnonzero(ours != theirs.view(np.uint16))
    assert bad.size == 0, (f.view(np.uint32)[bad[:5]], theirs[bad[:5]], ours[bad[:5]])


@needs_torch
def test_float64_and_python_floats_round_as_pytorch():
    rng = np.random.default_rng(2)
    d = rng.normal(size=10 ** 5) * 10.0 ** rng.integers(-42, 39, size=10 ** 5)
    theirs = torch.from_numpy(d).to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)
    assert (_bits(ag.tensor(d, dtype=ag.float64).to(ag.bfloat16)) == theirs).all()
    values = d[:2000].tolist()
    theirs = torch.tensor(values, dtype=torch.bfloat16).view(torch.int16).numpy().view(np.uint16)
    assert (_bits(ag.tensor(values, dtype=ag.bfloat16)) == theirs).all()


def test_bfloat16_to_float32_is_exact_for_every_pattern():
    bits = np.arange(2 ** 16, dtype=np.uint32)
    f = (bits << 16).view(np.float32)
    back = ag.tensor(f).to(ag.bfloat16).float().numpy().view(np.uint32) >> 16
    finite = ~np.isnan(f)
    assert (back[finite] == bits[finite]).all()
