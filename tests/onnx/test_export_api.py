"""``arraygrad.onnx.export``'s surface as PyTorch 2.13's: signature and defaults, return
value, ``f`` as a path or a file object, the options (names, dynamic axes, external data,
initializers as inputs, training modes), ``is_in_onnx_export``, the enums, and that an
export changes nothing: not the model, not an existing file when it fails."""

from __future__ import annotations

import inspect
import io
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import arraygrad as ag
from arraygrad import nn
from onnx_models import assert_close, conv_net, eager, mlp, needs_torch, onnx, run, torch


@needs_torch
def test_signature_is_torch_onnx_export():
    ours = inspect.signature(ag.onnx.export).parameters
    theirs = inspect.signature(torch.onnx.export).parameters
    assert list(ours) == list(theirs)
    for name, p in theirs.items():
        q = ours[name]
        assert q.kind == p.kind, name
        default = p.default
        if hasattr(default, "name") and hasattr(default, "value"):  # the pybind enums
            assert (q.default.name, int(q.default)) == (default.name, int(default.value)), name
        else:
            assert q.default == default, name


@needs_torch
def test_enums_and_names_as_torch():
    for ours, theirs in ((ag.onnx.TrainingMode, torch.onnx.TrainingMode),
                         (ag.onnx.OperatorExportTypes, torch.onnx.OperatorExportTypes),
                         (ag.onnx.TensorProtoDataType, torch.onnx.TensorProtoDataType)):
        assert [(m.name, int(m)) for m in ours] == \
            [(k, int(v.value)) for k, v in theirs.__members__.items()]
    assert str(ag.onnx.TrainingMode.EVAL) == str(torch.onnx.TrainingMode.EVAL)
    for name in ("export", "is_in_onnx_export", "OnnxExporterError", "ONNXProgram", "errors",
                 "TrainingMode", "OperatorExportTypes", "select_model_mode_for_export",
                 "producer_name", "producer_version", "TensorProtoDataType"):
        assert hasattr(torch.onnx, name) and hasattr(ag.onnx, name), name
    assert int(ag.onnx.TensorProtoDataType.FLOAT) == onnx.TensorProto.FLOAT
    for name in ("OnnxExporterWarning", "UnsupportedOperatorError", "SymbolicValueError"):
        assert issubclass(getattr(ag.onnx.errors, name), (ag.onnx.OnnxExporterError, UserWarning))
    assert ag.onnx.errors.OnnxExporterError is ag.onnx.OnnxExporterError
    assert issubclass(ag.onnx.OnnxExporterError, RuntimeError)


def test_import_arraygrad_onnx_does_not_import_onnx():
    code = ("import sys, arraygrad, arraygrad.onnx; "
            "print('onnx' in sys.modules, 'onnxruntime' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_returns_onnx_program_or_none(tmp_path):
    model, x = mlp(), ag.randn(2, 6)
    program = ag.onnx.export(model, (x,))
    assert isinstance(program, ag.onnx.ONNXProgram)
    assert program.exported_program is None
    assert program.model is program.model_proto
    assert program.model_proto.producer_name == "arraygrad" == ag.onnx.producer_name
    assert program.model_proto.producer_version == ag.onnx.producer_version
    assert ag.onnx.export(model, (x,), str(tmp_path / "m.onnx"), dynamo=False) is None
    assert ag.onnx.export(model, x, str(tmp_path / "n.onnx"), dynamo=False) is None  # a tensor


def test_onnx_program_runs_saves_and_takes_new_weights(tmp_path):
    model, x = mlp(), ag.randn(2, 6)
    program = ag.onnx.export(model, (x,))
    (y,) = program(x)
    assert isinstance(y, ag.Tensor)
    assert_close([y.numpy()], eager(model, x))
    program.save(str(tmp_path / "a.onnx"))
    assert not os.path.exists(tmp_path / "a.onnx.data")  # small: inline (external_data=None)
    program.save(str(tmp_path / "b.onnx"), external_data=True)
    assert os.path.exists(tmp_path / "b.onnx.data")
    assert_close(run(str(tmp_path / "b.onnx"), {"input": x}), eager(model, x))
    with ag.no_grad():
        for p in model.parameters():
            p.mul_(2)
    program.apply_weights(model.state_dict())
    assert_close([program(x)[0].numpy()], eager(model, x))


def test_f_as_path_writes_external_data_by_default_with_dynamo(tmp_path):
    model, x = conv_net(), ag.randn(2, 1, 8, 8)
    path = tmp_path / "conv.onnx"
    ag.onnx.export(model, (x,), str(path))
    assert (tmp_path / "conv.onnx.data").exists()  # PyTorch 2.13's default: external_data=True
    onnx.checker.check_model(str(path), full_check=True)
    assert_close(run(str(path), {"input": x}), eager(model, x))
    ag.onnx.export(model, (x,), path, external_data=False)  # an os.PathLike
    assert not any(p.name.endswith(".tmp") for p in tmp_path.iterdir())
    whole = onnx.load(str(path), load_external_data=False)
    assert all(t.data_location == onnx.TensorProto.DEFAULT for t in whole.graph.initializer)


@pytest.mark.parametrize("dynamo", [True, False])
def test_f_as_binary_file_object(tmp_path, dynamo):
    model, x = mlp(), ag.randn(2, 6)
    buffer = io.BytesIO()
    if dynamo:  # PyTorch 2.13's deprecation (a path is what it wants)
        with pytest.warns(DeprecationWarning, match="BytesIO object is deprecated"):
            ag.onnx.export(model, (x,), buffer, dynamo=dynamo)
    else:
        ag.onnx.export(model, (x,), buffer, dynamo=dynamo)
    proto = onnx.load_from_string(buffer.getvalue())
    assert_close(run(proto, {"input": x}), eager(model, x))
    with open(tmp_path / "m.onnx", "wb") as fh:
        ag.onnx.export(model, (x,), fh, dynamo=dynamo)
    assert_close(run(str(tmp_path / "m.onnx"), {"input": x}), eager(model, x))


def test_export_params_and_initializers_as_inputs(tmp_path):
    model, x = mlp(), ag.randn(2, 6)
    names = list(model.state_dict())
    path = str(tmp_path / "m.onnx")
    ag.onnx.export(model, (x,), path, keep_initializers_as_inputs=True, external_data=False)
    proto = onnx.load(path)
    assert [i.name for i in proto.graph.input] == ["input"] + names
    assert [i.name for i in proto.graph.initializer] == names
    ag.onnx.export(model, (x,), path, export_params=False)  # dynamo: no initializers at all
    proto = onnx.load(path)
    assert not proto.graph.initializer and [i.name for i in proto.graph.input] == ["input"]
    ag.onnx.export(model, (x,), path, export_params=False, dynamo=False)  # weights as inputs
    proto = onnx.load(path)
    assert not proto.graph.initializer
    assert [i.name for i in proto.graph.input] == ["input"] + names
    feed = {"input": x, **{k: v for k, v in model.state_dict().items()}}
    assert_close(run(path, feed), eager(model, x))


class TwoInTwoOut(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 3)
        self.b = nn.Linear(5, 3)

    def forward(self, left, right, *, scale=1.0, bias=None):
        y = self.a(left) + self.b(right) * scale
        if bias is not None:
            y = y + bias
        return y, {"sum": y.sum(-1)}


def test_two_inputs_two_outputs_and_keyword_arguments():
    model = TwoInTwoOut().eval()
    left, right, bias = ag.randn(2, 4), ag.randn(2, 5), ag.randn(3)
    program = ag.onnx.export(model, (left, right), kwargs={"scale": 2.0, "bias": bias},
                             output_names=["y"])
    proto = program.model_proto
    assert [i.name for i in proto.graph.input] == ["left", "right", "bias"]
    assert [o.name for o in proto.graph.output] == ["y", "output_1"]
    want = model(left, right, scale=2.0, bias=bias)
    got = run(proto, {"left": left, "right": right, "bias": bias})
    assert_close(got, [want[0].detach().numpy(), want[1]["sum"].detach().numpy()])
    # a dict as the last positional argument is the keyword arguments (PyTorch's rule)
    again = ag.onnx.export(model, (left, right, {"scale": 2.0, "bias": bias})).model_proto
    assert [i.name for i in again.graph.input] == ["left", "right", "bias"]


def test_names_checked_as_torch():
    model, x = mlp(), ag.randn(2, 6)
    with pytest.raises(RuntimeError, match=r"number of input names provided \(2\) exceeded "
                                           r"number of inputs \(1\)"):
        ag.onnx.export(model, (x,), input_names=["a", "b"])
    with pytest.raises(RuntimeError, match="number of output names provided"):
        ag.onnx.export(model, (x,), output_names=["a", "b"])
    with pytest.raises(ValueError, match="both an input's"):
        ag.onnx.export(model, (x,), input_names=["0.weight"])


def test_dynamic_axes_list_form_and_unknown_names():
    model, x = mlp(), ag.randn(2, 6)
    with pytest.warns(UserWarning, match="Provided key nope for dynamic axes is not a valid"):
        proto = ag.onnx.export(model, (x,), input_names=["x"], output_names=["y"],
                               dynamic_axes={"x": [0], "y": [0], "nope": [0]}).model_proto
    assert proto.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "x_dynamic_axes_1"
    assert proto.graph.output[0].type.tensor_type.shape.dim[0].dim_param == "y_dynamic_axes_1"
    assert run(proto, {"x": ag.randn(7, 6)})[0].shape == (7, 3)


def test_dynamic_shapes_by_parameter_name():
    model, x = mlp(), ag.randn(2, 6)
    proto = ag.onnx.export(model, (x,), dynamic_shapes={"input": {0: "n"}}).model_proto
    assert proto.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "n"
    assert run(proto, {"input": ag.randn(5, 6)})[0].shape == (5, 3)
    with pytest.raises(ValueError, match="dynamic_axes when dynamo=False"):
        ag.onnx.export(model, (x,), dynamo=False, dynamic_shapes={"input": {0: "n"}})


class Flagged(nn.Module):
    """Records what ``is_in_onnx_export`` and ``training`` said during its forward."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.seen = []

    def forward(self, x):
        self.seen.append((ag.onnx.is_in_onnx_export(), self.training))
        return self.lin(x) if not ag.onnx.is_in_onnx_export() else self.lin(x) * 2


def test_is_in_onnx_export_inside_the_forward_only():
    model = Flagged().eval()
    x = ag.randn(2, 3)
    assert ag.onnx.is_in_onnx_export() is False
    program = ag.onnx.export(model, (x,))
    assert ag.onnx.is_in_onnx_export() is False
    assert model.seen == [(True, False)]
    assert_close([program(x)[0].numpy()], [(model.lin(x) * 2).detach().numpy()])


def test_training_modes_of_the_torchscript_path_and_dynamo_warning():
    model = Flagged().train()
    x = ag.randn(2, 3)
    ag.onnx.export(model, (x,), dynamo=False)  # TrainingMode.EVAL: eval for the export
    assert model.seen[-1] == (True, False) and model.training and model.lin.training
    ag.onnx.export(model, (x,), dynamo=False, training=ag.onnx.TrainingMode.PRESERVE)
    assert model.seen[-1] == (True, True)
    model.eval()
    ag.onnx.export(model, (x,), dynamo=False, training=ag.onnx.TrainingMode.TRAINING)
    assert model.seen[-1] == (True, True) and not model.training
    with pytest.raises(TypeError, match="TrainingMode enum"):
        ag.onnx.export(model, (x,), dynamo=False, training=True)
    model.train()
    with pytest.warns(UserWarning, match="Exporting a model while it is in training mode"):
        ag.onnx.export(model, (x,))
    assert model.seen[-1] == (True, True)  # dynamo: the mode the model is in


def test_select_model_mode_for_export():
    model = nn.Sequential(nn.Linear(2, 2), nn.Dropout()).train()
    model[1].eval()  # a submodule in its own mode comes back as it was
    with pytest.warns(DeprecationWarning):
        with ag.onnx.select_model_mode_for_export(model, ag.onnx.TrainingMode.EVAL):
            assert not model.training and not model[0].training
    assert model.training and model[0].training and not model[1].training
    with pytest.raises(TypeError, match="TrainingMode enum"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with ag.onnx.select_model_mode_for_export(model, 0):
            pass


def test_export_changes_nothing_in_the_model():
    """Parameters, buffers (a training-mode batch norm's running stats too), gradients,
    version counters, training flags and the random generator are as before."""
    model = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4), nn.ReLU()).train()
    x = ag.randn(6, 4)
    model(x).sum().backward()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    grads = [p.grad.clone() for p in model.parameters()]
    versions = [p._version for p in model.parameters()]
    state = ag.get_rng_state()
    with pytest.warns(UserWarning, match="training mode"):
        program = ag.onnx.export(model, (x,))
    after = model.state_dict()
    for k, v in before.items():
        assert ag.equal(after[k], v), k
    assert all(ag.equal(p.grad, g) for p, g in zip(model.parameters(), grads))
    assert [p._version for p in model.parameters()] == versions
    assert model.training and all(m.training for m in model.modules())
    assert ag.equal(ag.get_rng_state(), state)
    assert x.grad is None and not x.requires_grad
    # the graph computes the training-mode forward (batch statistics)
    with ag.no_grad():
        want = model(x).numpy()
    for k, v in before.items():  # (that forward moved the running stats: put them back)
        model.state_dict()[k].copy_(v)
    np.testing.assert_allclose(program(x)[0].numpy(), want, rtol=1e-5, atol=1e-5)


def test_failed_export_leaves_no_file_and_an_existing_one_unchanged(tmp_path):
    path = tmp_path / "m.onnx"
    path.write_bytes(b"old model")

    class Reads(nn.Module):
        def forward(self, x):
            return x * float(x.sum())

    with pytest.raises(ag.onnx.OnnxExporterError, match=r"`float\(\)`|values are copied"):
        ag.onnx.export(Reads().eval(), (ag.randn(2),), str(path))
    assert path.read_bytes() == b"old model"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.onnx"]
    with pytest.raises(ag.onnx.errors.UnsupportedOperatorError):
        ag.onnx.export(_Unsupported().eval(), (ag.randn(3, 3),), str(tmp_path / "new.onnx"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.onnx"]


class _Unsupported(nn.Module):
    def forward(self, x):
        return ag.linalg.det(x)


def test_unsupported_operation_names_the_op_and_the_line():
    with pytest.raises(ag.onnx.errors.UnsupportedOperatorError) as info:
        ag.onnx.export(_Unsupported().eval(), (ag.randn(3, 3),), opset_version=17)
    message = str(info.value)
    assert "Exporting the operator 'det' to ONNX opset version 17 is not supported" in message
    assert ".det`" in message and "test_export_api.py" in message
    assert info.value.name == "det" and info.value.version == 17


def test_random_draws_and_value_reads_are_errors_that_say_why():
    with pytest.raises(ag.onnx.OnnxExporterError, match="model.eval()"):
        with pytest.warns(UserWarning, match="training mode"):
            ag.onnx.export(nn.Dropout(0.5).train(), (ag.randn(3, 3),))

    class Branches(nn.Module):
        def forward(self, x):
            return x if x.sum().item() > 0 else -x

    with pytest.raises(ag.onnx.OnnxExporterError, match=r"`tensor.item`.*test_export_api.py"):
        ag.onnx.export(Branches().eval(), (ag.randn(3),))


@pytest.mark.parametrize("option, value, error", [
    ("custom_translation_table", {len: len}, NotImplementedError),
    ("report", True, NotImplementedError),
    ("profile", True, NotImplementedError),
    ("dump_exported_program", True, NotImplementedError),
    ("operator_export_type", "ONNX_ATEN", ValueError),
    ("custom_opsets", {"my": 1}, ValueError),
    ("export_modules_as_functions", True, NotImplementedError),
    ("opset_version", 9, ValueError),
])
def test_options_arraygrad_cannot_honour_raise(option, value, error):
    if option == "operator_export_type":
        value = ag.onnx.OperatorExportTypes.ONNX_ATEN
    with pytest.raises(error):
        ag.onnx.export(mlp(), (ag.randn(2, 6),), **{option: value})


def test_verify_and_verbose(capsys):
    model, x = mlp(), ag.randn(2, 6)
    ag.onnx.export(model, (x,), verify=True, verbose=True)
    assert "Gemm" in capsys.readouterr().out


def test_a_function_exports_too():
    def f(x, y):
        return ag.tanh(x) @ y.T

    x, y = ag.randn(3, 4), ag.randn(2, 4)
    proto = ag.onnx.export(f, (x, y)).model_proto
    assert [i.name for i in proto.graph.input] == ["x", "y"]
    assert_close(run(proto, {"x": x, "y": y}), [f(x, y).numpy()])


class Counter(nn.Module):
    """Reads its buffer, then updates it in place (as a training-mode batch norm does)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("count", ag.tensor([1.0, 2.0]))

    def forward(self, x):
        y = x + self.count
        self.count += 1
        return y


def test_initializers_hold_the_values_before_the_forward():
    """The forward's in-place update of a buffer is no part of the initializer (it holds
    the value the model has: the recorded program's final arrays hold the updated one),
    and the model's buffer is as it was."""
    model = Counter().eval()
    x = ag.randn(3, 2)
    proto = ag.onnx.export(model, (x,)).model_proto
    init = {t.name: onnx.numpy_helper.to_array(t) for t in proto.graph.initializer}
    np.testing.assert_array_equal(init["count"], [1.0, 2.0])
    assert model.count.tolist() == [1.0, 2.0]
    np.testing.assert_allclose(run(proto, {"x": x})[0], (x + ag.tensor([1.0, 2.0])).numpy())


class WithTensorAttribute(nn.Module):
    """A plain tensor attribute (no parameter, no buffer): a constant of the graph."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.offset = ag.arange(3.0)

    def forward(self, x):
        return self.lin(x) + self.offset


def test_tensor_attributes_and_captured_tensors_are_constants():
    model = WithTensorAttribute().eval()
    x = ag.randn(2, 3)
    proto = ag.onnx.export(model, (x,)).model_proto
    assert {t.name for t in proto.graph.initializer} == {"lin.weight", "lin.bias"}
    assert_close(run(proto, {"x": x}), eager(model, x))
    scale = ag.randn(3)

    def f(t):
        out = t.clone()
        out[0] = scale  # a tensor the function captured, written into a traced one
        return out * scale

    proto = ag.onnx.export(f, (x,)).model_proto
    assert_close(run(proto, {"t": x}), [f(x).numpy()])


def test_a_running_cprofile_is_paused_not_broken():
    """cProfile is a C profiler Python cannot chain to: it is paused while the forward is
    recorded, and profiles again after (its stats keep the export's own calls)."""
    import cProfile
    import pstats

    model, x = conv_net(), ag.randn(2, 1, 8, 8)
    profiler = cProfile.Profile()
    profiler.enable()
    try:
        proto = ag.onnx.export(model, (x,)).model_proto
        after = ag.randn(3).sum()
    finally:
        profiler.disable()
    assert "Conv" in {n.op_type for n in proto.graph.node}  # the layers were still seen
    names = {f[2] for f in pstats.Stats(profiler).stats}
    assert "export" in names and "randn" in names
    assert float(after) == float(after)


def test_output_names_that_look_like_internal_names():
    """Names the graph's own values would take (``gemm``, ``relu``) given to the outputs
    make no duplicate."""
    model, x = mlp(), ag.randn(2, 6)
    proto = ag.onnx.export(model, (x,), input_names=["gemm"], output_names=["relu"]).model_proto
    onnx.checker.check_model(proto, full_check=True)
    assert_close(run(proto, {"gemm": x}), eager(model, x))
