"""Every nn layer built on the meta device (``with device("meta")``) and run on meta inputs
gives the output shapes, dtypes and state-dict shapes PyTorch 2.13's meta device gives, and
backpropagates (meta gradients). GaussianNLLLoss is left out: PyTorch's checks its variances'
values (``Tensor.item()`` on meta raises), arraygrad skips that check without values."""

from __future__ import annotations

import warnings

import pytest

import arraygrad as ag

torch = pytest.importorskip("torch")

LAYERS = [
 ("Linear(4, 3)", (2, 4)), ("Bilinear(4, 5, 3)", [(2, 4), (2, 5)]), ("Identity()", (2, 4)),
 ("Conv1d(2, 3, 3, padding=1)", (1, 2, 7)), ("Conv2d(2, 3, 3, stride=2)", (1, 2, 7, 7)),
 ("Conv3d(2, 3, 3)", (1, 2, 5, 5, 5)), ("ConvTranspose1d(2, 3, 3)", (1, 2, 7)),
 ("ConvTranspose2d(2, 3, 3, stride=2, output_padding=1)", (1, 2, 5, 5)), ("ConvTranspose3d(2, 3, 2)", (1, 2, 3, 3, 3)),
 ("LazyLinear(3)", (2, 4)), ("LazyConv2d(3, 3)", (1, 2, 5, 5)),
 ("BatchNorm1d(4)", (3, 4)), ("BatchNorm2d(2)", (3, 2, 4, 4)), ("BatchNorm3d(2)", (3, 2, 2, 2, 2)),
 ("LayerNorm(4)", (3, 4)), ("GroupNorm(2, 4)", (3, 4, 5)), ("InstanceNorm1d(4, affine=True)", (3, 4, 5)),
 ("InstanceNorm2d(4)", (3, 4, 5, 5)), ("LocalResponseNorm(2)", (3, 4, 5)), ("RMSNorm(4)", (3, 4)),
 ("Dropout(0.5)", (3, 4)), ("Dropout2d(0.5)", (3, 4, 2, 2)), ("AlphaDropout(0.5)", (3, 4)),
 ("Embedding(10, 4)", "L(2, 3)"), ("EmbeddingBag(10, 4)", "L(2, 3)"),
 ("RNN(4, 5)", (3, 2, 4)), ("LSTM(4, 5, num_layers=2, bidirectional=True)", (3, 2, 4)), ("GRU(4, 5, batch_first=True)", (2, 3, 4)),
 ("RNNCell(4, 5)", (2, 4)), ("LSTMCell(4, 5)", (2, 4)), ("GRUCell(4, 5)", (2, 4)),
 ("MultiheadAttention(4, 2)", [(3, 2, 4), (3, 2, 4), (3, 2, 4)]),
 ("TransformerEncoderLayer(8, 2, dim_feedforward=16)", (3, 2, 8)),
 ("TransformerDecoderLayer(8, 2, dim_feedforward=16)", [(3, 2, 8), (4, 2, 8)]),
 ("Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=16)", [(3, 2, 8), (4, 2, 8)]),
 ("MaxPool1d(2)", (1, 2, 7)), ("MaxPool2d(2, return_indices=True)", (1, 2, 7, 7)), ("MaxPool3d(2)", (1, 2, 4, 4, 4)),
 ("AvgPool1d(2)", (1, 2, 7)), ("AvgPool2d(3, stride=2, padding=1)", (1, 2, 7, 7)), ("AvgPool3d(2)", (1, 2, 4, 4, 4)),
 ("AdaptiveAvgPool2d((2, 3))", (1, 2, 7, 7)), ("AdaptiveMaxPool2d(3)", (1, 2, 7, 7)), ("AdaptiveAvgPool1d(3)", (1, 2, 7)),
 ("LPPool2d(2, 2)", (1, 2, 6, 6)), ("FractionalMaxPool2d(2, output_size=3)", (1, 2, 7, 7)),
 ("Upsample(scale_factor=2, mode='nearest')", (1, 2, 3, 3)), ("Upsample(scale_factor=2, mode='bilinear')", (1, 2, 3, 3)),
 ("PixelShuffle(2)", (1, 8, 3, 3)), ("PixelUnshuffle(2)", (1, 2, 4, 4)), ("Flatten()", (2, 3, 4)), ("Unflatten(1, (2, 2))", (3, 4)),
 ("Unfold(2)", (1, 2, 4, 4)), ("Fold((4, 4), 2)", (1, 8, 9)), ("ZeroPad2d(1)", (1, 2, 3, 3)), ("ReflectionPad1d(1)", (1, 2, 3)),
 ("ReplicationPad2d(1)", (1, 2, 3, 3)), ("CircularPad1d(1)", (1, 2, 3)), ("ConstantPad3d(1, 0.5)", (1, 2, 2, 2, 2)),
 ("ReLU()", (3,)), ("GELU()", (3,)), ("SiLU()", (3,)), ("Mish()", (3,)), ("Tanh()", (3,)), ("Sigmoid()", (3,)), ("Softmax(1)", (2, 3)),
 ("LogSoftmax(1)", (2, 3)), ("Softmin(1)", (2, 3)), ("Softmax2d()", (1, 2, 3, 3)), ("PReLU()", (2, 3)), ("RReLU()", (2, 3)),
 ("ELU()", (3,)), ("SELU()", (3,)), ("CELU()", (3,)), ("LeakyReLU()", (3,)), ("Hardswish()", (3,)), ("Hardtanh()", (3,)),
 ("Softplus()", (3,)), ("Softsign()", (3,)), ("Softshrink()", (3,)), ("Threshold(0.1, 0.0)", (3,)), ("GLU()", (2, 4)),
 ("CosineSimilarity()", [(2, 3), (2, 3)]), ("PairwiseDistance()", [(2, 3), (2, 3)]), ("ChannelShuffle(2)", (1, 4, 2, 2)),
 ("MSELoss()", [(3,), (3,)]), ("L1Loss()", [(3,), (3,)]), ("SmoothL1Loss()", [(3,), (3,)]), ("HuberLoss()", [(3,), (3,)]),
 ("CrossEntropyLoss()", [(3, 4), "L(3)"]), ("CrossEntropyLoss(label_smoothing=0.1)", [(3, 4), "L(3)"]), ("NLLLoss()", [(3, 4), "L(3)"]),
 ("BCELoss()", ["M(3).sigmoid()", "M(3).sigmoid()"]), ("BCEWithLogitsLoss()", [(3,), (3,)]), ("KLDivLoss(reduction='batchmean')", [(2, 3), (2, 3)]),
 ("MarginRankingLoss()", [(3,), (3,), (3,)]), ("HingeEmbeddingLoss()", [(3,), (3,)]), ("CosineEmbeddingLoss()", [(2, 3), (2, 3), (2,)]),
 ("MultiLabelMarginLoss()", [(2, 3), "L(2, 3)"]), ("MultiMarginLoss()", [(2, 3), "L(2)"]), ("SoftMarginLoss()", [(3,), (3,)]),
 ("TripletMarginLoss()", [(2, 3), (2, 3), (2, 3)]), ("PoissonNLLLoss()", [(3,), (3,)]),
 ("MultiLabelSoftMarginLoss()", [(2, 3), (2, 3)]),
 ("Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))", (3, 4)),
]


def _run(lib, ctor, inp):
    M = lambda *s: lib.randn(*s, device="meta")  # noqa: E731
    L = lambda *s: lib.zeros(*s, dtype=lib.int64, device="meta")  # noqa: E731
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with lib.device("meta"):
            module = eval("nn." + ctor, {"nn": lib.nn})
        given = inp if isinstance(inp, list) else [inp]
        args = [eval(a, {"M": M, "L": L}) if isinstance(a, str) else M(*a) for a in given]
        out = module(*args)
    first = out[0] if isinstance(out, tuple) else out
    if first.requires_grad:
        first.sum().backward()
        grads = [(tuple(p.grad.shape), p.grad.is_meta) for p in module.parameters()
                 if p.grad is not None]
    else:
        grads = []
    state = sorted((k, tuple(v.shape), str(v.dtype).split(".")[-1], v.device.type)
                   for k, v in module.state_dict().items())
    return _described(out), state, grads


def _described(x):
    if hasattr(x, "shape"):
        return tuple(x.shape), str(x.dtype).split(".")[-1], x.device.type
    return tuple(_described(y) for y in x)


@pytest.mark.parametrize("ctor, inp", LAYERS, ids=[c for c, _ in LAYERS])
def test_layer_on_meta_matches_pytorchs(ctor, inp):
    assert _run(ag, ctor, inp) == _run(torch, ctor, inp)
