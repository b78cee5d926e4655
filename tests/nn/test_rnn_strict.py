"""The recurrent layers and sequence packing run on the strict Array API reference backend and
give the NumPy backend's numbers (outputs and gradients)."""

from __future__ import annotations

import numpy as np
import pytest

import arraygrad as ag
from arraygrad import nn
from arraygrad.nn.utils import rnn as R

pytestmark = pytest.mark.skipif(
    "strict" not in {b.name for b in ag.backends.available() if b.available},
    reason="array-api-strict backend not installed")


@pytest.mark.parametrize("cls,kwargs", [
    ("LSTM", dict(proj_size=2, bidirectional=True, num_layers=2)),
    ("GRU", dict(batch_first=True)),
    ("RNN", dict(nonlinearity="relu", bidirectional=True)),
])
def test_layers_on_strict_match_numpy(cls, kwargs):
    ag.manual_seed(0)
    cpu = getattr(nn, cls)(3, 4, **kwargs)
    strict = getattr(nn, cls)(3, 4, **kwargs).to("strict")
    strict.load_state_dict({k: v.to("strict") for k, v in cpu.state_dict().items()})
    bf = kwargs.get("batch_first", False)
    x = ag.randn(4, 5, 3) if bf else ag.randn(5, 4, 3)
    results = {}
    for device, module in (("cpu", cpu), ("strict", strict)):
        xi = x.detach().to(device).requires_grad_(True)
        packed = R.pack_padded_sequence(xi, [3, 5, 1, 4], batch_first=bf, enforce_sorted=False)
        out, final = module(packed)
        assert out.data.device.type == device and out.batch_sizes.device.type == "cpu"
        padded, lengths = R.pad_packed_sequence(out, batch_first=bf)
        assert lengths.tolist() == [3, 5, 1, 4]
        dense, _ = module(xi)
        h = final[0] if cls == "LSTM" else final
        (padded.sum() + dense.sum() + h.sum()).backward()
        results[device] = [np.array(t.tolist()) for t in (padded, dense, h, xi.grad)]
    for got, want in zip(results["strict"], results["cpu"]):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_cells_and_padding_on_strict():
    for cell in (nn.RNNCell(3, 4), nn.LSTMCell(3, 4), nn.GRUCell(3, 4)):
        ag.manual_seed(1)
        x = ag.randn(2, 3)
        want = cell(x)
        cell.to("strict")
        got = cell(x.to("strict"))
        for a, b in zip(got if isinstance(got, tuple) else (got,),
                        want if isinstance(want, tuple) else (want,)):
            np.testing.assert_allclose(a.tolist(), b.tolist(), rtol=1e-5, atol=1e-6)
    seqs = [ag.ones(2, 1, device="strict"), ag.ones(3, 1, device="strict")]
    assert R.pad_sequence(seqs).device.type == "strict"
    back = R.unpack_sequence(R.pack_sequence(seqs, enforce_sorted=False))
    assert [tuple(s.shape) for s in back] == [(2, 1), (3, 1)] and back[1].device.type == "strict"
