"""The top-level runtime switches against PyTorch: determinism, threads, float32 matmul
precision, denormals, warn-always, anomaly, print options, type names, device modules,
versions and the devices arraygrad has no backend for."""

from __future__ import annotations

import math

import pytest

import arraygrad as ag

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


@needs_torch
def test_deterministic_switch_as_pytorch():
    for m in (torch, ag):
        try:
            assert (m.are_deterministic_algorithms_enabled(),
                    m.is_deterministic_algorithms_warn_only_enabled(),
                    m.get_deterministic_debug_mode()) == (False, False, 0)
            m.use_deterministic_algorithms(True)
            assert m.get_deterministic_debug_mode() == 2
            m.use_deterministic_algorithms(True, warn_only=True)
            assert m.get_deterministic_debug_mode() == 1
            m.set_deterministic_debug_mode("error")
            assert m.are_deterministic_algorithms_enabled()
            assert not m.is_deterministic_algorithms_warn_only_enabled()
            m.set_deterministic_debug_mode(0)
            assert not m.are_deterministic_algorithms_enabled()
            with pytest.raises(TypeError):
                m.use_deterministic_algorithms(1)
            with pytest.raises(RuntimeError, match="expected 0, 1, or 2"):
                m.set_deterministic_debug_mode(3)
            with pytest.raises(RuntimeError, match="expected one of `default`"):
                m.set_deterministic_debug_mode("bad")
            with pytest.raises(TypeError, match="debug_mode must be str or int"):
                m.set_deterministic_debug_mode(1.5)
        finally:
            m.use_deterministic_algorithms(False)


@needs_torch
def test_thread_counts_and_errors_as_pytorch():
    n = ag.get_num_threads()
    assert isinstance(n, int) and n >= 1 and ag.get_num_interop_threads() >= 1
    for m in (torch, ag):
        for bad, match in ((0, "positive integer"), (1.5, "expects an int"), (True, "expects an int")):
            with pytest.raises(RuntimeError, match=match):
                m.set_num_threads(bad)
        assert m.init_num_threads() is None
    try:
        ag.set_num_threads(1)
        assert ag.get_num_threads() == 1
        x = ag.randn(8, 8)
        assert ag.allclose(x @ ag.eye(8), x)  # the kernels still run
    finally:
        ag.set_num_threads(n)


def test_interop_threads_set_once():
    from arraygrad import threads

    saved = threads._set["interop"]
    try:
        threads._set["interop"] = None
        ag.set_num_interop_threads(3)
        assert ag.get_num_interop_threads() == 3
        with pytest.raises(RuntimeError, match="cannot set number of interop threads"):
            ag.set_num_interop_threads(4)
    finally:
        threads._set["interop"] = saved


@needs_torch
def test_matmul_precision_denormal_warn_always_as_pytorch():
    for m in (torch, ag):
        assert m.get_float32_matmul_precision() == "highest"
        m.set_float32_matmul_precision("high")
        assert m.get_float32_matmul_precision() == "high"
        with pytest.warns(UserWarning, match="is not one of 'highest', 'high', or 'medium'"):
            m.set_float32_matmul_precision("fast")
        assert m.get_float32_matmul_precision() == "high"
        m.set_float32_matmul_precision("highest")
        with pytest.raises(RuntimeError, match="expects a str"):
            m.set_float32_matmul_precision(3)
        assert m.is_warn_always_enabled() is False
        m.set_warn_always(True)
        assert m.is_warn_always_enabled() is True
        m.set_warn_always(False)
        with pytest.raises(RuntimeError, match="expects a bool"):
            m.set_warn_always("x")
    assert ag.set_flush_denormal(True) is False  # no control of the CPU's mode: unsupported


@needs_torch
def test_anomaly_switch_as_pytorch():
    for m in (torch, ag):
        try:
            m.set_anomaly_enabled(True)
            assert m.is_anomaly_enabled() and m.is_anomaly_check_nan_enabled()
            m.set_anomaly_enabled(True, False)
            assert not m.is_anomaly_check_nan_enabled()
        finally:
            m.set_anomaly_enabled(False)
            m.set_anomaly_enabled(False, True)
        assert not m.is_anomaly_enabled() and m.is_anomaly_check_nan_enabled()


@needs_torch
@pytest.mark.parametrize("options", [
    {"precision": 2}, {"threshold": 5}, {"threshold": 5, "edgeitems": 1}, {"profile": "short"},
    {"profile": "full"}, {"sci_mode": True}, {"sci_mode": False}, {"linewidth": 30},
    {"precision": 6, "sci_mode": True}])
def test_print_options_change_repr_as_pytorch(options):
    data = ([[1.123456, 2.5, 3e-5, 100.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0]],
            [1.0, 2.0, 3.0], list(range(12)), [[1.5, 2.25], [3.0, 4.0]])
    try:
        torch.set_printoptions(**options)
        ag.set_printoptions(**options)
        for d in data:
            assert repr(ag.tensor(d)).replace("arraygrad", "torch") == repr(torch.tensor(d))
    finally:
        torch.set_printoptions(profile="default")
        ag.set_printoptions(profile="default")
    assert ag.tensor_str.get_printoptions()["threshold"] == 1000


def test_print_options_context():
    from arraygrad.tensor_str import printoptions

    with printoptions(precision=1):
        assert repr(ag.tensor([1.25])) == "tensor([1.2])"
    assert repr(ag.tensor([1.25])) == "tensor([1.2500])"
    ag.set_printoptions(profile="full")
    try:
        assert "..." not in repr(ag.arange(2000))
    finally:
        ag.set_printoptions(profile="default")
    assert math.isinf(float("inf"))


@needs_torch
@pytest.mark.parametrize("make", [
    lambda m: m.ones(1), lambda m: m.ones(1, dtype=m.int64), lambda m: m.ones(1).double(),
    lambda m: 3, lambda m: len, lambda m: object(), lambda m: m.nn.Linear,
    lambda m: m.nn.Parameter(m.ones(1))])
def test_typename_as_pytorch(make):
    assert ag.typename(make(ag)).replace("arraygrad", "torch") == torch.typename(make(torch))


@needs_torch
def test_get_device_module_as_pytorch():
    assert ag.get_device_module() is ag.cpu and ag.get_device_module("cuda:1") is ag.cuda
    assert ag.get_device_module(ag.device("cpu")) is ag.cpu
    assert ag.get_device_module("mps") is ag.mps and ag.get_device_module("xpu") is ag.xpu
    for m in (torch, ag):
        with pytest.raises(RuntimeError, match="Expected one of cpu, cuda"):
            m.get_device_module("foo")


@needs_torch
def test_device_modules_without_a_backend_as_pytorch():
    for name in ("mps", "xpu", "mtia"):
        theirs, ours = getattr(torch, name), getattr(ag, name)
        assert ours.is_available() is theirs.is_available() is False
        assert ours.device_count() == theirs.device_count() == 0
        assert ours.manual_seed(1) is theirs.manual_seed(1) is None
        for call in ("synchronize", "empty_cache", "current_device"):
            if hasattr(theirs, call) and hasattr(ours, call):
                outcomes = []
                for mod in (theirs, ours):
                    try:
                        outcomes.append(("value", getattr(mod, call)()))
                    except Exception as exc:  # noqa: BLE001 - the class is compared
                        outcomes.append(("raises", type(exc)))
                assert outcomes[0] == outcomes[1], (name, call)


@needs_torch
def test_cpu_device_module_as_pytorch():
    for m in (torch.cpu, ag.cpu):
        assert m.is_available() and m.device_count() == 1 and m.current_device() == "cpu"
        assert m.synchronize() is None and m.is_initialized()
        with m.stream(m.Stream()):
            pass
        assert m.Event().query() is True


@needs_torch
def test_generic_streams_on_the_cpu_as_pytorch():
    for m in (torch, ag):
        s, e = m.Stream(), m.Event(enable_timing=True)
        assert s.query() and s.synchronize() is None and s.device == m.device("cpu")
        assert s.device_index == -1 and s.stream_id == 0 and s == m.Stream()
        with pytest.raises(RuntimeError, match="cpu backend doesn't support events"):
            s.record_event()
        with pytest.raises(RuntimeError, match="cpu backend doesn't support events"):
            e.record()
        assert e.query() and e.synchronize() is None and e.wait() is None
        with pytest.raises(ValueError, match="must be recorded"):
            e.elapsed_time(m.Event(enable_timing=True))


@needs_torch
def test_versions():
    v = ag.version.__version__
    assert v == ag.torch_version.__version__ and v >= "0.1" and v > (0, 0, 9)
    assert ag.version.cuda is None or isinstance(ag.version.cuda, str)
    assert (ag.version.hip, ag.version.debug) == (None, False)
    from arraygrad.torch_version import TorchVersion
    from torch.torch_version import TorchVersion as Theirs

    cases = ["2.13.0+cpu", "2.13.0", "2.13", "2.13.0rc1", "2.13.0.dev1", "2.13.0.post1", "1.10.0a",
             "parrot"]
    for a in cases:
        for b in cases + [(2, 13), (2, 13, 0, 1)]:
            for op in ("__lt__", "__le__", "__eq__", "__ge__", "__gt__"):
                assert getattr(TorchVersion(a), op)(b) == getattr(Theirs(a), op)(b), (a, b, op)


def test_build_flags_and_generator():
    assert ag.has_lapack is True and ag.has_mkl is False and ag.has_openmp is False
    assert ag.is_vulkan_available() is False and ag.thread_safe_generator() is None
    assert isinstance(ag.default_generator, ag.Generator)
    ag.manual_seed(7)
    assert ag.default_generator.initial_seed() == 7
    with pytest.raises(AttributeError, match="no C\\+\\+ library"):
        ag.compiled_with_cxx11_abi  # noqa: B018
    with pytest.raises(AttributeError, match="quantized"):
        ag.quantize_per_tensor  # noqa: B018
    with pytest.raises(AttributeError, match="sparse"):
        ag.ones(2).to_sparse_csr  # noqa: B018
