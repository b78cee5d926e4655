"""Layers and tensor operations one by one: each exported model passes ``onnx.checker``
(full check) and ONNX Runtime gives arraygrad's outputs; the layers with an ONNX operator
are written as it; options the operator lacks fall back to the layer's array calls; and
indexing (reads and writes, any key) agrees with arraygrad for random shapes and keys."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag
import arraygrad.nn.functional as F
from arraygrad import nn
from onnx_models import onnx, run


class Fn(nn.Module):
    """A module whose forward is ``fn(*inputs)`` (for operations that are no layer)."""

    def __init__(self, fn, *modules):
        super().__init__()
        self.fn = fn
        self.mods = nn.ModuleList(modules)

    def forward(self, *args):
        return self.fn(*args)


def r(*shape):
    return ag.randn(*shape)


# name -> (model, inputs, ONNX operators the graph must hold)
CASES = {
    "conv1d_stride": (nn.Conv1d(3, 4, 3, stride=2, padding=1), (r(2, 3, 10),), {"Conv"}),
    "conv2d_unbatched": (nn.Conv2d(2, 3, 3), (r(2, 6, 6),), {"Conv"}),
    "conv3d_same": (nn.Conv3d(2, 3, 3, padding="same"), (r(1, 2, 5, 5, 5),), {"Conv"}),
    "conv_groups_dilation": (nn.Conv2d(4, 4, 3, groups=2, dilation=2, bias=False),
                             (r(2, 4, 9, 9),), {"Conv"}),
    "conv_reflect": (nn.Conv2d(2, 2, 3, padding=1, padding_mode="reflect"), (r(1, 2, 6, 6),),
                     {"Pad", "Conv"}),
    "conv_transpose": (nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1, output_padding=1),
                       (r(2, 3, 5, 5),), {"ConvTranspose"}),
    # an output padding past the stride (PyTorch allows it below the dilation; ONNX Runtime
    # does not): the layer's array calls, which write through views of their buffer
    "conv_transpose_dilated": (nn.ConvTranspose2d(4, 4, 2, output_padding=1, dilation=2),
                               (r(2, 4, 5, 6),), set()),
    "avg_pool": (nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False), (r(2, 3, 8, 8),),
                 {"AveragePool"}),
    "global_avg_pool": (nn.AdaptiveAvgPool2d((1, 1)), (r(2, 3, 7, 7),), {"GlobalAveragePool"}),
    "adaptive_avg_pool": (nn.AdaptiveAvgPool2d(2), (r(2, 3, 8, 8),), {"AveragePool"}),
    "adaptive_avg_pool_uneven": (nn.AdaptiveAvgPool2d(3), (r(2, 3, 7, 7),), set()),
    "max_pool_ceil": (nn.MaxPool2d(3, stride=2, ceil_mode=True), (r(1, 2, 8, 8),), {"MaxPool"}),
    "max_pool1d": (nn.MaxPool1d(2), (r(2, 3, 8),), {"MaxPool"}),
    "max_pool_indices": (nn.MaxPool2d(2, return_indices=True), (r(1, 2, 4, 4),), set()),
    "batch_norm1d": (nn.BatchNorm1d(5), (r(4, 5),), {"BatchNormalization"}),
    "group_norm": (nn.GroupNorm(2, 4), (r(2, 4, 3, 3),), set()),
    "instance_norm": (nn.InstanceNorm2d(3), (r(2, 3, 4, 4),), set()),
    "embedding": (nn.Embedding(10, 4), (ag.tensor([[1, 2, 3], [4, 5, 9]]),), {"Gather"}),
    "gelu_tanh": (nn.GELU("tanh"), (r(3, 4),), set()),
    "silu": (nn.SiLU(), (r(3, 4),), {"Sigmoid"}),
    "sigmoid": (nn.Sigmoid(), (r(3, 4),), {"Sigmoid"}),
    "tanh": (nn.Tanh(), (r(3, 4),), {"Tanh"}),
    "leaky_relu": (nn.LeakyReLU(0.2), (r(3, 4),), {"LeakyRelu"}),
    "elu": (nn.ELU(), (r(3, 4),), {"Elu"}),
    "softplus": (nn.Softplus(), (r(3, 4),), set()),
    "hardtanh": (nn.Hardtanh(), (r(3, 4),), {"Clip"}),
    "prelu": (nn.PReLU(), (r(3, 4),), set()),
    "log_softmax": (nn.LogSoftmax(dim=1), (r(3, 4),), {"LogSoftmax"}),
    "softmax_dim0": (nn.Softmax(dim=0), (r(3, 4),), {"Softmax"}),
    "upsample_nearest": (nn.Upsample(scale_factor=2), (r(1, 2, 3, 3),), set()),
    "upsample_bilinear": (nn.Upsample(scale_factor=2, mode="bilinear"), (r(1, 2, 3, 3),), set()),
    "pad_constant": (Fn(lambda x: F.pad(x, (1, 2, 0, 1), value=0.5)), (r(1, 2, 3, 3),), {"Pad"}),
    "pad_replicate": (Fn(lambda x: F.pad(x, (1, 1, 2, 0), mode="replicate")), (r(1, 2, 3, 3),),
                      {"Pad"}),
    "lstm": (nn.LSTM(4, 5, batch_first=True), (r(2, 3, 4),), set()),
    "gru": (nn.GRU(4, 5), (r(3, 2, 4),), set()),
    "multihead_attention": (nn.MultiheadAttention(8, 2), (r(5, 2, 8), r(6, 2, 8), r(6, 2, 8)),
                            {"Softmax"}),
    "sdpa_causal": (Fn(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True)),
                    (r(2, 2, 5, 4), r(2, 2, 5, 4), r(2, 2, 5, 4)), {"Softmax"}),
    "cat_chunk": (Fn(lambda x: ag.cat(x.chunk(2, dim=1)[::-1], dim=1) * 2), (r(2, 4),), set()),
    "split_unbind": (Fn(lambda x: sum(x.split([1, 3], dim=1)[1].unbind(1))), (r(2, 4),), set()),
    "masked_fill": (Fn(lambda x: x.masked_fill(x > 0, -1.0)), (r(3, 4),), {"Where"}),
    "cumsum_argmax": (Fn(lambda x: (x.cumsum(1), x.argmax(1))), (r(3, 4),), {"CumSum", "ArgMax"}),
    "index_basic": (Fn(lambda x: x[:, 1:3, None] + x[0, -1] - x[..., ::2].sum()), (r(3, 4),),
                    set()),
    "index_arrays": (Fn(lambda x: x[ag.tensor([0, 2])] + x[:, ag.tensor([1, 1, 3, 0])].sum()),
                     (r(3, 4),), set()),
    "norms_std": (Fn(lambda x: F.normalize(x, dim=1) + x.norm(dim=1, keepdim=True)
                     + x.std(1, keepdim=True)), (r(3, 4),), set()),
    "clamp_where_pow": (Fn(lambda x: ag.where(x > 0, x.clamp(max=0.5), x.clamp(-0.2, 0.1)) ** 2),
                        (r(3, 4),), set()),
    "integer_math": (Fn(lambda x: ((x * 10).long() // 3 % 4).float() + (x.long() > 0).float()),
                     (r(3, 4),), set()),
    "shape_ops": (Fn(lambda x: x.permute(0, 2, 1).flatten(1).unsqueeze(0).squeeze(0)),
                  (r(2, 3, 4),), set()),
    "expand_repeat": (Fn(lambda x: x.unsqueeze(1).expand(3, 2, 4)
                         + x.repeat(1, 2)[:, :4].unsqueeze(1)), (r(3, 4),), {"Tile"}),
    "reductions": (Fn(lambda x: x.amax(1) + x.mean() + x.max(dim=1).values + x.min()
                      + x.prod(1) + x.any(1).float() + x.all(1).float()), (r(3, 4),), set()),
    "einsum_bmm": (Fn(lambda x, y: ag.einsum("bij,bjk->bik", x, y) + ag.bmm(x, y)),
                   (r(2, 3, 4), r(2, 4, 2)), set()),
    "topk_sort": (Fn(lambda x: x.topk(2, dim=1).values + x.sort(dim=1).values[:, :2]), (r(3, 4),),
                  {"TopK"}),
    "triangles": (Fn(lambda x: x.tril() + x.triu(1)), (r(4, 4),), set()),
    "created_in_forward": (Fn(lambda x: x + ag.arange(x.shape[1]) + ag.zeros_like(x)
                              + ag.ones(x.shape) + ag.full((4,), 2.0)), (r(3, 4),), set()),
    "unary_math": (Fn(lambda x: x.abs().log1p() + x.exp().log() + x.abs().sqrt().rsqrt()
                      + x.sin().cos() + x.sign() + x.floor() + x.ceil() + x.round()
                      + x.trunc() + x.expm1() + x.abs().log2() + x.reciprocal()), (r(3, 4),),
                   set()),
    "logsumexp_erf": (Fn(lambda x: x.logsumexp(1) + ag.special.erf(x).sum(1)), (r(3, 4),), set()),
    "cross_entropy": (Fn(lambda x, y: F.cross_entropy(x, y)), (r(3, 4), ag.tensor([0, 2, 1])),
                      set()),
    "two_outputs": (Fn(lambda x, y: (x @ y, (x - 1).exp())), (r(3, 4), r(4, 2)), set()),
    "bool_logic": (Fn(lambda x: ((x > 0) & (x < 1) | ~(x > -1)) ^ (x == 0)), (r(3, 4),), set()),
    "half_precision": (Fn(lambda x: (x.half() * 2).float()), (r(3, 4),), set()),
}


@pytest.mark.parametrize("opset", [17, 20])
@pytest.mark.parametrize("name", sorted(CASES))
def test_operation_exports_and_runs(name, opset):
    model, inputs, ops = CASES[name]
    model.eval()
    program = ag.onnx.export(model, inputs, opset_version=opset)
    proto = program.model_proto
    onnx.checker.check_model(proto, full_check=True)
    assert ops <= {n.op_type for n in proto.graph.node}
    with ag.no_grad():
        want = model(*inputs)
    want = list(want) if isinstance(want, (tuple, list)) else [want]
    flat = []
    for w in want:
        flat.extend(list(w) if isinstance(w, tuple) else [w])
    got = run(proto, {i.name: x for i, x in zip(proto.graph.input, inputs)})
    assert len(got) == len(flat)
    for g, w in zip(got, flat):
        w = w.numpy()
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=1e-5,
                                   atol=1e-5)


def test_fallbacks_write_the_layers_array_calls():
    """An option the ONNX operator lacks: the layer's own array calls, exactly its values."""
    bn = nn.BatchNorm1d(3).train()
    x = r(5, 3)
    with pytest.warns(UserWarning, match="training mode"):
        proto = ag.onnx.export(bn, (x,)).model_proto
    assert "BatchNormalization" not in {n.op_type for n in proto.graph.node}
    want = F.batch_norm(x, None, None, bn.weight, bn.bias, training=True).detach().numpy()
    np.testing.assert_allclose(run(proto, {"input": x})[0], want, rtol=1e-5, atol=1e-6)
    ln = nn.LayerNorm(4).eval()
    proto = ag.onnx.export(ln, (r(2, 4),), opset_version=13).model_proto  # no LayerNormalization
    assert "LayerNormalization" not in {n.op_type for n in proto.graph.node}


# -- indexing -------------------------------------------------------------------------------

def _item(draw, size):
    if draw(st.booleans()):
        return draw(st.integers(-size, size - 1))
    start = draw(st.one_of(st.none(), st.integers(-size - 1, size + 1)))
    stop = draw(st.one_of(st.none(), st.integers(-size - 1, size + 1)))
    step = draw(st.one_of(st.none(), st.sampled_from([1, 2, 3])))  # (PyTorch's: positive)
    return slice(start, stop, step)


@st.composite
def basic_keys(draw, nones=True):
    """A shape and a key of ints, slices, an Ellipsis and Nones that indexes it."""
    shape = draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
    used = draw(st.integers(1, len(shape)))  # the axes the key names
    if draw(st.booleans()):  # an Ellipsis: the first ``front`` axes, then the last ones
        front = draw(st.integers(0, used))
        axes = list(range(front)) + list(range(len(shape) - (used - front), len(shape)))
        items = [_item(draw, shape[a]) for a in axes]
        items.insert(front, Ellipsis)
    else:
        items = [_item(draw, shape[a]) for a in range(used)]
    if nones and draw(st.booleans()):
        items.insert(draw(st.integers(0, len(items))), None)
    return tuple(shape), tuple(items)


@settings(max_examples=40, deadline=None)
@given(basic_keys())
def test_basic_indexing_reads_as_arraygrad(case):
    shape, key = case
    x = ag.randn(*shape)
    want = x[key]
    if want.numel() == 0:
        return  # (an empty result: nothing to compare)
    proto = ag.onnx.export(lambda t: t[key] * 1.0, (x,)).model_proto
    np.testing.assert_array_equal(run(proto, {"t": x})[0], want.numpy())


@settings(max_examples=30, deadline=None)
@given(basic_keys(nones=False), st.booleans())
def test_writes_through_an_index_as_arraygrad(case, scalar):
    shape, key = case
    x = ag.randn(*shape)
    if x[key].numel() == 0:
        return
    value = 7.0 if scalar else ag.randn(*x[key].shape)

    def write(t):
        out = t.clone()
        out[key] = value
        return out

    proto = ag.onnx.export(write, (x,)).model_proto
    np.testing.assert_array_equal(run(proto, {"t": x})[0], write(x).numpy())


_I = ag.tensor([2, 0, -1])
_J = ag.tensor([1, 1, 0])
_M = ag.tensor([[0, 1], [3, -2]])


@pytest.mark.parametrize("key", [
    (_I,), (slice(None), _I), (_I, 0), (0, _I), (slice(None), _I, 0), (_I, slice(None), _J),
    (_I, _J), (slice(None), _I, _J), (_M,), (slice(1, None), _M), (Ellipsis, _J),
    (_I, _J, slice(None, 2)),
], ids=lambda k: repr(k).replace("tensor", "t"))
def test_advanced_indexing_as_arraygrad(key):
    """Index arrays with integers and slices: where NumPy (and PyTorch) put the indexed
    axes (in place when next to each other, in front otherwise)."""
    x = ag.randn(4, 5, 3, 2)
    want = x[key]
    proto = ag.onnx.export(lambda t: t[key], (x,)).model_proto
    onnx.checker.check_model(proto, full_check=True)
    np.testing.assert_array_equal(run(proto, {"t": x})[0], want.numpy())


def _writes_through_views(x):
    y = x.clone()
    y[:, 0] += 1  # an in-place op on an indexed tensor
    y[1] *= 2
    z = y.T
    z[0] -= 5  # through a transpose
    w = y.reshape(-1)
    w[3:5] = 0  # through a reshape
    v = y[:2]  # a view made before a write and read after it
    y[0, 1] = 7
    return y, v * 1


def test_in_place_writes_through_views_reach_their_base():
    """A write into a view changes the array it views (and that array's other views): each
    is written back into its base (``ScatterND``, an inverse reshape or transpose)."""
    x = r(3, 4)
    proto = ag.onnx.export(_writes_through_views, (x,)).model_proto
    onnx.checker.check_model(proto, full_check=True)
    for got, want in zip(run(proto, {"x": x}), _writes_through_views(x)):
        np.testing.assert_array_equal(got, want.numpy())
