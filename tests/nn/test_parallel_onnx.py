"""nn.parallel (DataParallel as the identity on one device, DistributedDataParallel before init_process_group)
and arraygrad.onnx (its presence; the exporter is tested in tests/onnx)."""

import pytest

import arraygrad as ag
from arraygrad import nn

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def test_data_parallel_is_the_identity_wrapper():
    inner = nn.Linear(3, 2)
    dp = nn.DataParallel(inner, device_ids=[0], dim=0)
    assert nn.parallel.DataParallel is nn.DataParallel
    assert dp.module is inner and dp.device_ids == [0] and dp.output_device == 0 and dp.dim == 0
    x = ag.randn(4, 3)
    assert dp(x).tolist() == inner(x).tolist()
    assert list(dp.state_dict()) == ["module.weight", "module.bias"]
    assert list(dp.parameters()) == list(inner.parameters())
    # a state_dict saved from the wrapper loads back into it, and the inner one into the inner
    sd = {k: v.clone() * 0 for k, v in dp.state_dict().items()}
    dp.load_state_dict(sd)
    assert inner.weight.abs().sum().item() == 0.0
    out = dp(x)
    out.sum().backward()
    assert inner.bias.grad.tolist() == [4.0, 4.0]
    assert repr(dp).startswith("DataParallel(\n  (module): Linear(")
    default = nn.DataParallel(inner)
    assert default.device_ids == [] and default.output_device is None
    assert nn.DataParallel(inner, device_ids=["cpu", "cuda:1"]).device_ids == [0, 1]
    with pytest.raises(TypeError, match="module must be an nn.Module"):
        nn.DataParallel(lambda x: x)


def test_data_parallel_function_and_kwargs():
    class Scale(nn.Module):
        def forward(self, x, k=1.0):
            return x * k

    x = ag.ones(2)
    assert nn.parallel.data_parallel(Scale(), x, module_kwargs={"k": 3.0}).tolist() == [3.0, 3.0]
    assert nn.parallel.data_parallel(Scale(), (x,)).tolist() == [1.0, 1.0]
    assert nn.DataParallel(Scale())(x, k=2.0).tolist() == [2.0, 2.0]


def test_distributed_data_parallel_needs_init_process_group():
    from arraygrad.nn.parallel import DistributedDataParallel

    lin = nn.Linear(2, 2)
    assert not isinstance(lin, DistributedDataParallel)
    # the placeholder became the real wrapper (tests/distributed): before
    # init_process_group it is PyTorch's error, naming the call
    with pytest.raises(RuntimeError, match="DistributedDataParallel: Default process group"):
        DistributedDataParallel(lin)
    with pytest.raises(RuntimeError, match="init_process_group"):
        nn.parallel.DistributedDataParallel(lin, device_ids=[0])


def test_onnx_module_and_is_in_onnx_export_false():
    """``arraygrad.onnx`` is the ONNX exporter (tests/onnx); outside an export
    ``is_in_onnx_export()`` is False."""
    import arraygrad.onnx

    assert ag.onnx is arraygrad.onnx
    assert ag.onnx.is_in_onnx_export() is False
    assert callable(ag.onnx.export)
    assert issubclass(ag.onnx.OnnxExporterError, RuntimeError)


@needs_torch
def test_data_parallel_state_dict_keys_match_pytorch():
    tm = torch.nn.DataParallel(torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU()))
    am = nn.DataParallel(nn.Sequential(nn.Linear(3, 2), nn.ReLU()))
    assert list(am.state_dict()) == list(tm.state_dict())
    am.load_state_dict({k: ag.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    x = torch.randn(5, 3)
    got = am(ag.tensor(x.numpy())).tolist()
    want = tm(x).tolist()
    assert [v for row in got for v in row] == pytest.approx([v for row in want for v in row],
                                                            abs=1e-6)
    assert torch.onnx.is_in_onnx_export() is ag.onnx.is_in_onnx_export()
