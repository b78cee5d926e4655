"""What the ONNX export tests share: the three models of the issue (an MLP, a conv net, a
Transformer encoder), and running an exported model with ONNX Runtime beside arraygrad.

Tests importing this skip without ``onnx``/``onnxruntime`` (``onnx.checker``: a folder named
``onnx`` on ``sys.path`` would make a bare ``import onnx`` succeed)."""

from __future__ import annotations

import numpy as np
import pytest

import arraygrad as ag
from arraygrad import nn

pytest.importorskip("onnx.checker")
ort = pytest.importorskip("onnxruntime")
import onnx  # noqa: E402  (after the skip)

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def mlp() -> nn.Module:
    """A two-layer perceptron, eval mode."""
    ag.manual_seed(0)
    return nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3)).eval()


def conv_net() -> nn.Module:
    """Conv2d, BatchNorm (eval, running stats moved off their defaults), ReLU, MaxPool,
    Flatten, Dropout (eval), Linear."""
    ag.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                          nn.MaxPool2d(2), nn.Flatten(), nn.Dropout(0.5), nn.Linear(64, 10))
    model.train()
    with ag.no_grad():
        for _ in range(3):  # training-mode forwards: running stats that are not 0 and 1
            model(ag.randn(8, 1, 8, 8) * 2 + 1)
    return model.eval()


def transformer(activation: str = "gelu", batch_first: bool = True) -> nn.Module:
    """An LSTM-free Transformer encoder: two layers of multi-head attention, LayerNorm and a
    GELU (or ReLU) feed-forward."""
    ag.manual_seed(0)
    layer = nn.TransformerEncoderLayer(d_model=16, nhead=4, dim_feedforward=32,
                                       activation=activation, batch_first=batch_first)
    return nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False).eval()


def run(path_or_proto, feed: dict) -> list[np.ndarray]:
    """The model's outputs from ONNX Runtime for ``feed`` (input name -> arraygrad tensor)."""
    source = path_or_proto if isinstance(path_or_proto, str) else \
        path_or_proto.SerializeToString()
    session = ort.InferenceSession(source, providers=["CPUExecutionProvider"])
    return session.run(None, {k: v.numpy() for k, v in feed.items()})


def eager(model, *args, **kwargs) -> list[np.ndarray]:
    """arraygrad's outputs (flattened), as NumPy arrays."""
    with ag.no_grad():
        out = model(*args, **kwargs)
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return [o.numpy() for o in outs]


def assert_close(got: list[np.ndarray], want: list[np.ndarray]) -> None:
    """Equal within float32 tolerance, shape and dtype too."""
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
