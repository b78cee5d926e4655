"""On a lazy backend a boolean mask selects with ``where``, never through integer positions:
their count is unknown until computed, and every chunk after would be of unknown size."""

import math

import arraygrad as ag
from arraygrad import nn


def _known(t):
    return all(not math.isnan(c) for axis in t._data.chunks for c in axis)


def test_masked_fill_keeps_known_chunks(dask_device):
    x = ag.arange(6.0).reshape(2, 3).to(dask_device)
    out = x.masked_fill(x > 2.5, -1.0)
    assert _known(out)
    assert out.tolist() == [[0.0, 1.0, 2.0], [-1.0, -1.0, -1.0]]


def test_an_attention_mask_keeps_known_chunks(dask_device):
    ag.manual_seed(0)
    q, k, v = (ag.randn(1, 2, 4, 3) for _ in range(3))
    mask = ag.tensor([[True, False, True, True]] * 4)
    expected = nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    out = nn.functional.scaled_dot_product_attention(
        *(t.to(dask_device) for t in (q, k, v)), attn_mask=mask.to(dask_device))
    assert _known(out)
    assert ag.tensor(out.tolist()).allclose(expected, atol=1e-6)
