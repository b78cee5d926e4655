"""``arraygrad.cuda`` on the CuPy backend: memory figures from CuPy's pool (peaks through its
memory hook), device properties, current device, streams, events, NVTX and the generators,
on the fake cupy (``fake_cupy``/``fake_cuda_runtime``), which runs the backend's own code."""

from __future__ import annotations

import pytest

import arraygrad as ag
from arraygrad.backends.registry import backend_for_device


def test_memory_figures_are_the_pools(fake_cuda):
    fake = fake_cuda(2)
    assert ag.cuda.memory_allocated() == 0 and ag.cuda.max_memory_allocated() == 0
    fake.allocate(1000)
    assert ag.cuda.memory_allocated() == 1000 and ag.cuda.memory_reserved() == 1000
    fake.allocate(500)
    fake.release(1000)
    assert ag.cuda.memory_allocated() == 500
    assert ag.cuda.max_memory_allocated() == 1500  # the hook saw the peak between queries
    assert ag.cuda.max_memory_reserved() == 1500
    stats = ag.cuda.memory_stats()
    assert list(stats) == sorted(stats) and stats["allocated_bytes.all.current"] == 500
    nested = ag.cuda.memory_stats_as_nested_dict()
    assert nested["allocated_bytes"]["all"] == {"current": 500, "peak": 1500}
    ag.cuda.reset_peak_memory_stats()
    assert ag.cuda.max_memory_allocated() == 500
    ag.cuda.empty_cache()
    assert ag.cuda.memory_reserved() == 500 and ("pool.free_all_blocks", 0) in fake.log
    # device 1's pool is its own
    assert ag.cuda.memory_allocated(1) == 0 and ag.cuda.memory_allocated("cuda:0") == 500
    assert "Allocated memory" in ag.cuda.memory_summary()


def test_accelerator_memory_is_cudas(fake_cuda):
    fake = fake_cuda(1)
    fake.allocate(64)
    assert ag.accelerator.memory_allocated() == 64 == ag.accelerator.memory.memory_allocated()
    assert ag.accelerator.get_memory_info() == ag.cuda.mem_get_info()
    assert ag.accelerator.max_memory_allocated() >= 64
    assert ag.accelerator.get_device_capability()["supported_dtypes"] >= {ag.float32}
    ag.accelerator.empty_cache()
    ag.accelerator.synchronize()


def test_device_properties_and_runtime_queries(fake_cuda):
    fake_cuda(2)
    props = ag.cuda.get_device_properties(1)
    assert props.name == "Fake GPU 1" and (props.major, props.minor) == (9, 0)
    assert "total_memory=81920MB" in repr(props)
    assert ag.cuda.get_device_name() == "Fake GPU 0"
    assert ag.cuda.get_device_capability("cuda:1") == (9, 0)
    free, total = ag.cuda.mem_get_info()
    assert total == 80 * 1024 ** 3 and free <= total
    assert ag.cuda.can_device_access_peer(0, 1) is True
    assert ag.version.cuda == "12.4"
    ag.cuda.set_per_process_memory_fraction(0.5)
    assert ag.cuda.get_per_process_memory_fraction() == 0.5
    with pytest.raises(ValueError, match="Allowed range"):
        ag.cuda.set_per_process_memory_fraction(1.5)
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        ag.cuda.get_device_name(5)


def test_set_device_makes_cuda_mean_that_device(fake_cuda):
    fake_cuda(2)
    assert ag.cuda.current_device() == 0 and ag.cuda.is_initialized()
    try:
        ag.cuda.set_device(1)
        assert ag.cuda.current_device() == 1
        assert ag.zeros(2, device="cuda").device == ag.device("cuda:1")
        with ag.cuda.device(0):
            assert ag.cuda.current_device() == 0
            assert ag.ones(1, device="cuda").device == ag.device("cuda:0")
        assert ag.cuda.current_device() == 1
        with ag.accelerator.device_index(0):
            assert ag.accelerator.current_device_index() == 0
    finally:
        ag.cuda.set_device(0)
    assert backend_for_device("cuda").index == 0


def test_device_of_follows_the_tensor(fake_cuda):
    fake_cuda(2)
    t = ag.ones(1, device="cuda:1")
    with ag.cuda.device_of(t):
        assert ag.cuda.current_device() == 1
    assert ag.cuda.current_device() == 0


def test_streams_and_events(fake_cuda):
    fake = fake_cuda(1)
    s = ag.cuda.Stream()
    assert s.device == ag.device("cuda:0") and s.cuda_stream != 0 and s.query()
    assert ag.cuda.current_stream().cuda_stream == 0  # the default stream
    with ag.cuda.stream(s):
        assert ag.cuda.current_stream() == s
    assert ag.cuda.current_stream() == ag.cuda.default_stream()
    start, end = ag.cuda.Event(enable_timing=True), ag.cuda.Event(enable_timing=True)
    start.record()
    end.record(s)
    end.synchronize()
    start.synchronize()
    assert start.elapsed_time(end) >= 0.0 and end.query()
    s.wait_stream(ag.cuda.current_stream())
    s.synchronize()
    assert ("stream.synchronize", 0) in fake.log
    ext = ag.cuda.ExternalStream(1234)
    assert ext.cuda_stream == 1234
    generic = ag.Stream("cuda")
    assert generic.device == ag.device("cuda:0") and generic.query()
    ev = generic.record_event()
    ev.synchronize()
    ag.accelerator.set_stream(generic)


def test_events_must_be_recorded_before_timing(fake_cuda):
    fake_cuda(1)
    with pytest.raises(ValueError, match="recorded"):
        ag.cuda.Event(enable_timing=True).elapsed_time(ag.cuda.Event(enable_timing=True))


def test_nvtx_and_profiler_reach_cupy(fake_cuda):
    fake = fake_cuda(1)
    assert ag.cuda.nvtx.range_push("step") == 0
    ag.cuda.nvtx.mark("here")
    assert ag.cuda.nvtx.range_pop() == 0
    with ag.cuda.nvtx.range("epoch {}", 3):
        pass
    assert fake.nvtx == [("push", "step"), ("mark", "here"), ("pop", None), ("push", "epoch 3"),
                         ("pop", None)]
    with ag.cuda.profiler.profile():
        pass
    assert ("profiler.start", 0) in fake.log and ("profiler.stop", 0) in fake.log


def test_generators_per_device(fake_cuda):
    fake_cuda(2)
    ag.cuda.manual_seed_all(5)
    gens = ag.cuda.default_generators
    assert len(gens) == 2 and all(g.initial_seed() == 5 for g in gens)
    assert ag.cuda.initial_seed() == 5
    state = ag.cuda.get_rng_state()
    a = ag.rand(3, device="cuda")
    ag.cuda.set_rng_state(state)
    assert ag.rand(3, device="cuda").tolist() == a.tolist()
    states = ag.cuda.get_rng_state_all()
    assert len(states) == 2
    ag.cuda.set_rng_state_all(states)
    ag.cuda.seed()
    assert ag.cuda.initial_seed() != 5


def test_legacy_cuda_types_build_on_cuda(fake_cuda):
    fake_cuda(1)
    t = ag.cuda.FloatTensor([1.0, 2.0])
    assert t.device.type == "cuda" and t.dtype is ag.float32
    assert isinstance(t, ag.cuda.FloatTensor) and not isinstance(t, ag.FloatTensor)
    assert ag.typename(t) == "arraygrad.cuda.FloatTensor"


def test_cuda_autocast_casts_matmuls_to_float16(fake_cuda):
    fake_cuda(1)
    a = ag.randn(2, 3, device="cuda")
    w = ag.randn(4, 3, device="cuda", requires_grad=True)
    with ag.autocast("cuda"):
        y = ag.nn.functional.linear(a, w)
        assert y.dtype is ag.float16
        assert ag.nn.functional.softmax(y, dim=-1).dtype is ag.float32  # CUDA's fp32 list
        loss = y.float().sum()
    loss.backward()
    assert w.grad.dtype is ag.float32
    scaler = ag.amp.GradScaler("cuda")
    assert scaler.is_enabled() and scaler.get_scale() == 65536.0
