"""A meta tensor costs no memory of its size: models far bigger than this machine's memory are
built, run forward and backward on the meta device while the host allocates almost nothing,
because every function the core calls has a shape rule (none takes the allocating fallback)."""

from __future__ import annotations

import tracemalloc

import arraygrad as ag
from arraygrad import nn
from arraygrad_meta.namespace import fallback_functions, get
from arraygrad_meta.array import MetaArray

MB = 1 << 20


def _peak(fn):
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_large_transformer_layer_runs_on_meta_in_little_memory():
    def run():
        # real float32 tensors would take ~1.3 GB of weights and gigabytes of activations
        with ag.device("meta"):
            layer = nn.TransformerEncoderLayer(d_model=4096, nhead=32, dim_feedforward=16384,
                                               batch_first=True)
            head = nn.Linear(4096, 50000)
        x = ag.randn(8, 2048, 4096, device="meta")
        loss = nn.functional.cross_entropy(head(layer(x)).flatten(0, 1),
                                           ag.zeros(8 * 2048, dtype=ag.int64, device="meta"))
        loss.backward()
        assert layer.linear1.weight.grad.shape == (16384, 4096)
    run()  # the first run imports modules (their code is allocated too)
    assert _peak(run) < 2 * MB  # about 0.1 MB here


def test_the_common_layers_take_no_fallback():
    before = fallback_functions()
    with ag.device("meta"):
        net = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                            nn.MaxPool2d(2), nn.Flatten(), nn.Linear(8 * 4 * 4, 10),
                            nn.Dropout(0.1), nn.LogSoftmax(1))
        rnn = nn.LSTM(10, 6, batch_first=True)
        emb = nn.Embedding(100, 10)
    out = net(ag.randn(2, 3, 8, 8, device="meta"))
    seq, _ = rnn(emb(ag.zeros(2, 5, dtype=ag.int64, device="meta")) + out[:, None])
    (out.sum() + seq.sum()).backward()
    assert fallback_functions() - before == set()


def test_a_function_without_a_rule_still_gives_its_shape():
    # ``cumsum`` (NumPy's, not the standard's ``cumulative_sum``) has no rule: it runs on a
    # zero-strided stand-in, and says so
    out = get().cumsum(MetaArray((3, 4), "int32"), axis=1)
    assert isinstance(out, MetaArray) and out.shape == (3, 4) and out.dtype.name == "int64"
    assert "cumsum" in fallback_functions()
