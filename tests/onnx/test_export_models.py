"""The issue's check: an MLP, a conv net and a Transformer encoder exported to ONNX pass
``onnx.checker`` (full check) and give arraygrad's outputs in ONNX Runtime (float32
tolerance), at another batch size (and sequence length) when ``dynamic_axes`` says so; the
layers are written as their ONNX operators; parameters are initializers named by their
state-dict keys; and the names agree with what ``torch.onnx.export`` writes."""

from __future__ import annotations

import io
import warnings

import numpy as np
import pytest

import arraygrad as ag
from onnx_models import (assert_close, conv_net, eager, mlp, needs_torch, onnx, run, torch,
                         transformer)

OPSETS = [13, 17, 20, 23]


def _ops(proto) -> set[str]:
    return {n.op_type for n in proto.graph.node}


def _dims(value_info) -> list:
    return [d.dim_param or d.dim_value for d in value_info.type.tensor_type.shape.dim]


@pytest.mark.parametrize("opset", OPSETS)
def test_mlp_exports_runs_and_takes_another_batch(tmp_path, opset):
    model = mlp()
    x = ag.randn(4, 6)
    path = str(tmp_path / "mlp.onnx")
    ag.onnx.export(model, (x,), path, input_names=["x"], output_names=["y"],
                   dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}}, opset_version=opset,
                   external_data=False)
    onnx.checker.check_model(path, full_check=True)
    proto = onnx.load(path)
    assert proto.opset_import[0].version == opset
    assert [n.op_type for n in proto.graph.node] == ["Gemm", "Relu", "Gemm"]
    assert [i.name for i in proto.graph.initializer] == list(model.state_dict())
    assert _dims(proto.graph.input[0]) == ["batch", 6]
    assert _dims(proto.graph.output[0]) == ["batch", 3]
    for batch in (4, 9, 1):
        x = ag.randn(batch, 6)
        assert_close(run(path, {"x": x}), eager(model, x))


@pytest.mark.parametrize("opset", OPSETS)
def test_conv_net_exports_its_layers_as_onnx_operators(tmp_path, opset):
    model = conv_net()
    path = str(tmp_path / "conv.onnx")
    ag.onnx.export(model, (ag.randn(2, 1, 8, 8),), path, input_names=["image"],
                   output_names=["logits"], opset_version=opset,
                   dynamic_axes={"image": {0: "batch"}, "logits": {0: "batch"}})
    onnx.checker.check_model(path, full_check=True)
    proto = onnx.load(path)
    ops = [n.op_type for n in proto.graph.node]
    for op in ("Conv", "BatchNormalization", "Relu", "MaxPool", "Reshape", "Gemm"):
        assert op in ops
    assert "Dropout" not in ops  # eval: nothing to compute
    names = {i.name for i in proto.graph.initializer}
    assert names == set(model.state_dict()) - {"1.num_batches_tracked"}
    for batch in (2, 5):
        x = ag.randn(batch, 1, 8, 8)
        assert_close(run(path, {"image": x}), eager(model, x))


@pytest.mark.parametrize("opset", OPSETS)
@pytest.mark.parametrize("activation", ["gelu", "relu"])
def test_transformer_encoder_with_dynamic_batch_and_sequence(opset, activation):
    model = transformer(activation)
    program = ag.onnx.export(model, (ag.randn(2, 5, 16),), input_names=["tokens"],
                             output_names=["encoded"], opset_version=opset,
                             dynamic_axes={"tokens": {0: "batch", 1: "seq"},
                                           "encoded": {0: "batch", 1: "seq"}})
    proto = program.model_proto
    onnx.checker.check_model(proto, full_check=True)
    ops = _ops(proto)
    assert "Softmax" in ops and "MatMul" in ops
    assert ("LayerNormalization" in ops) == (opset >= 17)
    assert ("Gelu" in ops) == (activation == "gelu" and opset >= 20)
    assert {i.name for i in proto.graph.initializer} == set(model.state_dict())
    assert _dims(proto.graph.output[0]) == ["batch", "seq", 16]
    for batch, seq in ((2, 5), (3, 11), (1, 1)):
        x = ag.randn(batch, seq, 16)
        assert_close(run(proto, {"tokens": x}), eager(model, x))


def test_transformer_encoder_with_masks_as_inputs():
    """A causal mask and a key padding mask as graph inputs, sized by the dynamic axes."""
    model = transformer("relu")

    def inputs(batch, seq):
        pad = ag.zeros(batch, seq, dtype=ag.bool)
        pad[0, seq - 1:] = True
        causal = ag.ones(seq, seq, dtype=ag.bool).triu(1)  # True: may not attend
        return ag.randn(batch, seq, 16), causal, pad

    x, mask, pad = inputs(2, 6)
    program = ag.onnx.export(
        model, (x,), kwargs={"mask": mask, "src_key_padding_mask": pad, "is_causal": False},
        dynamic_axes={"src": {0: "batch", 1: "seq"}, "mask": {0: "seq", 1: "seq"},
                      "src_key_padding_mask": {0: "batch", 1: "seq"}})
    proto = program.model_proto
    onnx.checker.check_model(proto, full_check=True)
    assert [i.name for i in proto.graph.input] == ["src", "mask", "src_key_padding_mask"]
    for batch, seq in ((2, 6), (4, 3)):
        x, mask, pad = inputs(batch, seq)
        got = run(proto, {"src": x, "mask": mask, "src_key_padding_mask": pad})
        assert_close(got, eager(model, x, mask=mask, src_key_padding_mask=pad, is_causal=False))


def test_sequence_first_transformer_and_causal_attention():
    model = transformer("relu", batch_first=False)
    x = ag.randn(7, 2, 16)
    mask = ag.nn.Transformer.generate_square_subsequent_mask(7)
    program = ag.onnx.export(model, (x,), kwargs={"mask": mask, "is_causal": True})
    onnx.checker.check_model(program.model_proto, full_check=True)
    assert_close(run(program.model_proto, {"src": x, "mask": mask}),
                 eager(model, x, mask=mask, is_causal=True))


@needs_torch
@pytest.mark.parametrize("make", [mlp, conv_net, transformer])
def test_names_agree_with_torch_onnx_export(make):
    """Input and output names as given, in the same order; the initializers are state-dict
    keys (PyTorch folds some into new constants: a batch norm into the convolution), and for
    the MLP exactly PyTorch's."""
    model = make()
    shape = {mlp: (3, 6), conv_net: (2, 1, 8, 8), transformer: (2, 5, 16)}[make]
    x = ag.randn(*shape)
    ours = ag.onnx.export(model, (x,), input_names=["input"], output_names=["output"]).model_proto
    tmodel = _torch_copy(make, model)
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(tmodel, (torch.tensor(x.numpy()),), buffer, dynamo=False,
                          input_names=["input"], output_names=["output"], opset_version=17)
    theirs = onnx.load_from_string(buffer.getvalue())
    assert [i.name for i in ours.graph.input] == [i.name for i in theirs.graph.input]
    assert [o.name for o in ours.graph.output] == [o.name for o in theirs.graph.output]
    state = set(model.state_dict())
    assert {i.name for i in ours.graph.initializer} <= state
    theirs_named = {i.name for i in theirs.graph.initializer} & state
    assert theirs_named <= {i.name for i in ours.graph.initializer}
    if make is mlp:
        assert {i.name for i in ours.graph.initializer} == {i.name for i in theirs.graph.initializer}
    # and both graphs compute the same thing
    assert_close(run(ours, {"input": x}), run(theirs, {"input": x}))


def _torch_copy(make, model):
    """The same model in PyTorch, with arraygrad's weights."""
    tnn = torch.nn
    if make is mlp:
        t = tnn.Sequential(tnn.Linear(6, 16), tnn.ReLU(), tnn.Linear(16, 3))
    elif make is conv_net:
        t = tnn.Sequential(tnn.Conv2d(1, 4, 3, padding=1), tnn.BatchNorm2d(4), tnn.ReLU(),
                           tnn.MaxPool2d(2), tnn.Flatten(), tnn.Dropout(0.5), tnn.Linear(64, 10))
    else:
        layer = tnn.TransformerEncoderLayer(16, 4, 32, activation="gelu", batch_first=True)
        t = tnn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
    t.load_state_dict({k: torch.tensor(v.numpy()) for k, v in model.state_dict().items()})
    return t.eval()


def test_float64_model_keeps_its_dtype():
    model = mlp().double()
    x = ag.randn(3, 6, dtype=ag.float64)
    proto = ag.onnx.export(model, (x,)).model_proto
    assert proto.graph.input[0].type.tensor_type.elem_type == onnx.TensorProto.DOUBLE
    got = run(proto, {"input": x})
    np.testing.assert_allclose(got[0], eager(model, x)[0], rtol=1e-12, atol=1e-12)


def test_exports_from_another_backend():
    """The exporter reads the Array API's calls, not NumPy's: a model on the strict
    backend (array-api-strict) exports the same graph and gives the same outputs."""
    pytest.importorskip("array_api_strict")
    model = conv_net().to("strict")
    x = ag.randn(2, 1, 8, 8, device="strict")
    proto = ag.onnx.export(model, (x,), dynamic_axes={"input": {0: "batch"}}).model_proto
    onnx.checker.check_model(proto, full_check=True)
    assert {"Conv", "BatchNormalization", "MaxPool", "Gemm"} <= _ops(proto)
    x = ag.randn(3, 1, 8, 8, device="strict")
    with ag.no_grad():
        want = model(x).cpu().numpy()
    got = run(proto, {"input": x.cpu()})[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
