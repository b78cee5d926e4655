"""The CuPy backend: the paths that need no GPU, and device tests.

Device tests run twice: against real CuPy (skipped with "no CUDA device" when
there is none) and against a *fake* ``cupy`` module made of NumPy, which runs
the backend's own code - device selection, generator, scatter_add, transfers -
on any machine. The fake records which device was current at every
allocation, so tests can check that ``cuda:1`` work really happens on device 1.
"""

from __future__ import annotations

import sys

import pytest

import arraygrad as ag
from arraygrad.backends import available, backend_for_device
from arraygrad_cupy import CupyBackend, CupyGenerator

pytestmark = pytest.mark.filterwarnings("ignore::arraygrad.plugins.PluginLoadWarning")

HAS_CUDA = bool(CupyBackend().is_available())
# `make test-gpu` selects these with -m cuda
needs_cuda = [pytest.mark.cuda, pytest.mark.skipif(not HAS_CUDA, reason="no CUDA device")]


# -- paths that need no GPU (run in this environment) --------------------------

_REGISTER_CHILD = r"""
import json, sys

class Watch:
    # Records any attempt to import cupy, even where cupy is not installed.
    attempts = []
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("cupy", "cupyx"):
            self.attempts.append(name)
        return None

watch = Watch()
sys.meta_path.insert(0, watch)
import warnings
warnings.simplefilter("ignore")
import arraygrad as ag
from arraygrad.backends import registry
from arraygrad.plugins import get_plugin_manager

backends = registry._registry()          # every plugin's registration hook has run
print(json.dumps({
    "registered": type(backends["cupy"]).__name__,
    "plugin": get_plugin_manager().get_plugin("cupy").__name__,
    "cupy_imports": watch.attempts,
    "in_modules": sorted(m for m in sys.modules if m.split(".")[0] in ("cupy", "cupyx")),
}))
"""


def test_plugin_registers_cupy_backend_without_importing_cupy(run_python):
    out = run_python(_REGISTER_CHILD)
    assert out["registered"] == "CupyBackend"
    assert out["plugin"] == "arraygrad_cupy.plugin"
    assert out["cupy_imports"] == []
    assert out["in_modules"] == []


def test_cupy_backend_attributes():
    b = CupyBackend()
    assert (b.name, b.device_type, b.priority, b.index) == ("cupy", "cuda", 100, 0)
    assert str(b.device) == "cuda:0"
    assert b.for_device(None) is b and b.for_device(0) is b


@pytest.mark.skipif(HAS_CUDA, reason="a CUDA device is present")
def test_unavailable_here_with_a_reason():
    status = CupyBackend().is_available()
    assert not status
    assert "not installed" in status.reason or "no CUDA device" in status.reason
    assert CupyBackend().device_count() == 0
    # Never raises, asked any number of times.
    assert not CupyBackend(3).is_available()


@pytest.mark.skipif(HAS_CUDA, reason="a CUDA device is present")
def test_core_reports_cuda_unavailable(fresh_plugins):
    assert ag.cuda.is_available() is False
    assert ag.cuda.device_count() == 0
    row = {r.name: r for r in available()}["cupy"]
    assert not row.available and row.reason
    for dev in ("cuda:0", "cuda"):
        with pytest.raises(RuntimeError) as info:
            backend_for_device(dev)
        message = str(info.value)
        assert "is not available" in message and "cupy" in message
        assert "not installed" in message or "no CUDA device" in message
    with pytest.raises(RuntimeError, match="not available"):
        ag.tensor([1.0]).to("cuda")


@pytest.mark.skipif(HAS_CUDA, reason="a CUDA device is present")
def test_array_type_is_none_without_cupy():
    assert CupyBackend().array_type is None


# -- the fake cupy (tests/plugins/fake_cupy.py, fixture ``fake_cuda``) ---------------

def test_fake_cupy_without_device_reports_no_cuda_device(fake_cuda):
    fake_cuda(0)
    status = CupyBackend().is_available()
    assert not status and status.reason.startswith("no CUDA device")
    assert "cudaErrorNoDevice" in status.reason
    assert ag.cuda.is_available() is False
    with pytest.raises(RuntimeError, match="no CUDA device"):
        backend_for_device("cuda:0")
    # cupy imports, so the array class is known even without a device.
    assert CupyBackend().array_type is sys.modules["cupy"].ndarray


def test_fake_cupy_per_device_instances(fake_cuda):
    fake = fake_cuda(2)
    assert ag.cuda.is_available() and ag.cuda.device_count() == 2
    b0 = backend_for_device("cuda")
    b1 = backend_for_device("cuda:1")
    assert b0.index == 0 and b1.index == 1
    assert backend_for_device("cuda:0") is b0
    assert b0.for_device(1) is b1 and b1.for_device(0) is b0 and b1.for_device(None) is b0
    assert str(b1.device) == "cuda:1"
    with pytest.raises(RuntimeError, match="out of range"):
        b0.for_device(2)
    assert not CupyBackend(2).is_available()

    b1.synchronize()
    assert fake.log[-1] == ("synchronize", 1)
    # With several devices, xp runs every function on the instance's device.
    fake.log.clear()
    b1.xp.zeros((2,), dtype=b1.xp.float32)
    assert fake.devices_for("xp.zeros") == {1}
    assert b1.xp.float32 is sys.modules["cupy"].float32  # dtypes are not wrapped


def test_fake_cupy_single_device_uses_namespace_directly(fake_cuda):
    fake_cuda(1)
    b = backend_for_device("cuda")
    assert b.xp is sys.modules["array_api_compat.cupy"]


def test_fake_cupy_allocations_happen_on_the_instance_device(fake_cuda):
    fake = fake_cuda(2)
    b1 = backend_for_device("cuda:1")
    fake.log.clear()
    b1.from_host([1.0, 2.0], dtype=b1.xp.float32)
    b1.coerce(3.0)
    b1.to_host(b1.from_host([1.0]))
    gen = b1.make_generator(0)
    assert isinstance(gen, CupyGenerator)
    gen.normal((2,), b1.xp.float32)
    gen.uniform((2,), b1.xp.float64)
    gen.integers(0, 5, (3,), b1.xp.int64)
    gen.permutation(4)
    target = b1.from_host([0.0, 0.0])
    b1.scatter_add(target, b1.from_host([0, 0]), b1.from_host([1.0, 2.0]))
    assert target.tolist() == [3.0, 0.0]
    assert {dev for _, dev in fake.log} == {1}, fake.log
    assert fake.current == 0  # every device switch was undone


# -- device tests: real GPU when present, and the fake everywhere ------------------

@pytest.fixture(params=[pytest.param("cuda", marks=needs_cuda), "fake"])
def cuda(request):
    """A usable "cuda" device type: real CuPy, or the NumPy-backed fake."""
    if request.param == "fake":
        request.getfixturevalue("fake_cuda")(2)
    else:
        request.getfixturevalue("fresh_plugins")
    assert ag.cuda.is_available()
    return request.param


def _host(t):
    return t.cpu().tolist()


def test_randn_is_reproducible(cuda):
    ag.manual_seed(1234)
    a = ag.randn(4, 3, device="cuda")
    ag.manual_seed(1234)
    b = ag.randn(4, 3, device="cuda")
    assert a.device.type == "cuda" and a.shape == (4, 3)
    assert _host(a) == _host(b)
    ag.manual_seed(1235)
    assert _host(ag.randn(4, 3, device="cuda")) != _host(a)

    g = ag.Generator(device="cuda").manual_seed(7)
    first = _host(ag.rand(5, generator=g, device="cuda"))
    g.manual_seed(7)
    assert _host(ag.rand(5, generator=g, device="cuda")) == first
    assert all(0.0 <= v < 1.0 for v in first)


def test_generator_dtypes_and_ranges(cuda):
    backend = backend_for_device("cuda")
    gen = backend.make_generator(0)
    xp = backend.xp
    for dtype in (xp.float32, xp.float64, xp.float16):
        assert gen.normal((3,), dtype).dtype == dtype
        assert gen.uniform((3,), dtype).dtype == dtype
    ints = backend.to_host(gen.integers(2, 5, (200,), xp.int64))
    assert ints.dtype == "int64" and ints.min() >= 2 and ints.max() <= 4
    perm = backend.to_host(gen.permutation(10))
    assert perm.dtype == "int64" and sorted(perm.tolist()) == list(range(10))


def test_scatter_add_accumulates_repeated_indices(cuda):
    backend = backend_for_device("cuda")
    xp = backend.xp
    target = backend.from_host([0.0, 0.0, 0.0, 0.0], dtype=xp.float32)
    index = backend.from_host([0, 2, 0, 0, 3], dtype=xp.int64)
    values = backend.from_host([1.0, 2.0, 3.0, 4.0, 5.0], dtype=xp.float32)
    out = backend.scatter_add(target, index, values)
    assert out is target
    assert backend.to_host(target).tolist() == [8.0, 0.0, 2.0, 5.0]

    # The same through autograd: indexing backward scatters the gradient.
    w = ag.zeros(4, device="cuda", requires_grad=True)
    w[ag.tensor([0, 2, 0, 0, 3], device="cuda")].sum().backward()
    assert _host(w.grad) == [3.0, 0.0, 1.0, 1.0]


def test_host_round_trip(cuda):
    import numpy as np

    backend = backend_for_device("cuda")
    for data in (np.arange(6, dtype=np.float32).reshape(2, 3),
                 np.array([1.5, -2.25], dtype=np.float64),
                 np.array([[1, 2], [3, 4]], dtype=np.int64),
                 np.array([True, False])):
        arr = backend.from_host(data, dtype=data.dtype)
        assert isinstance(arr, backend.array_type)
        back = backend.to_host(arr)
        assert isinstance(back, np.ndarray)
        assert back.dtype == data.dtype and back.shape == data.shape
        assert (back == data).all()
    assert backend.to_host(backend.from_host([[1.0, 2.0]])).tolist() == [[1.0, 2.0]]

    t = ag.tensor([[1.0, 2.0], [3.0, 4.0]], device="cuda")
    assert t.device.type == "cuda"
    assert t.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert t.cpu().device.type == "cpu"


def test_to_cuda_and_backward(cuda):
    x = ag.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = x.to("cuda")
    assert y.device.type == "cuda" and y.requires_grad
    z = (y * y * 2 + y).sum()
    assert z.device.type == "cuda"
    z.backward()
    assert x.grad.device.type == "cpu"
    assert x.grad.tolist() == [5.0, -7.0, 13.0]

    # And back: a cuda leaf receiving a gradient through a CPU computation.
    w = ag.ones(2, device="cuda", requires_grad=True)
    (w.cpu() * 3).sum().backward()
    assert w.grad.device == w.device
    assert _host(w.grad) == [3.0, 3.0]


def test_second_device(cuda):
    if ag.cuda.device_count() < 2:
        pytest.skip("needs two CUDA devices")
    a = ag.tensor([1.0, 2.0], device="cuda:1", requires_grad=True)
    assert str(a.device) == "cuda:1"
    (a * a).sum().backward()
    assert str(a.grad.device) == "cuda:1"
    assert _host(a.grad) == [2.0, 4.0]
    b = a.detach().to("cuda:0")
    assert str(b.device) == "cuda:0" and _host(b) == [1.0, 2.0]


# -- the profiler's CUDA columns: cupy.cuda.Event timing ------------------------------------

def test_profiler_times_device_work_with_cuda_events(cuda):
    from arraygrad.autograd import profiler

    x = ag.randn(32, 32, device="cuda", requires_grad=True)
    with profiler.profile(use_cuda=True) as prof:
        with profiler.record_function("step"):
            (x @ x).relu().sum().backward()
    averages = prof.key_averages()
    rows = {r.key: r for r in averages}
    assert averages.device_measured and averages.device_note == ""
    for row in rows.values():
        assert 0 <= row.self_device_time_total <= row.device_time_total + 1e-6
    step, mm = rows["step"], rows["matmul"]
    assert mm.device_time_total > 0 and mm.cuda_time_total == mm.device_time_total
    # everything ran inside "step": its device time covers every other top-level call's
    assert step.device_time_total >= mm.device_time_total
    assert sum(r.self_device_time_total for r in averages) == pytest.approx(
        step.device_time_total, rel=1e-6)

    table = averages.table(sort_by="self_cuda_time_total")
    header = table.splitlines()[1]
    columns = ["Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "Self CUDA",
               "Self CUDA %", "CUDA total", "CUDA time avg", "# of Calls"]
    positions = [header.index(c) for c in columns]
    assert positions == sorted(positions)
    lines = table.rstrip().splitlines()
    assert lines[-2].startswith("Self CPU time total:")
    assert lines[-1].startswith("Self CUDA time total:")


def test_profiler_events_are_on_the_profiled_device_and_read_after_sync(fake_cuda):
    """Each event is recorded on the profiled device (CUDA refuses another device's), and
    read only once that device is synchronized (before, CUDA says cudaErrorNotReady)."""
    from arraygrad.autograd import profiler

    fake = fake_cuda(2)
    x = ag.ones(4, device="cuda:1", requires_grad=True)
    fake.log.clear()
    with profiler.profile(use_device="cuda:1") as prof:
        (x * 2).sum().backward()
    assert fake.devices_for("event.record") == {1}
    assert ("synchronize", 1) in fake.log and not fake.pending
    assert {r.key: r for r in prof.key_averages()}["mul"].device_time_total > 0
    assert fake.current == 0

    start, end = (backend_for_device("cuda:1").device_event() for _ in range(2))
    start.record()
    end.record()
    with pytest.raises(RuntimeError, match="cudaErrorNotReady"):
        start.elapsed_ms(end)
    backend_for_device("cuda:1").synchronize()
    assert start.elapsed_ms(end) >= 0
