"""``torch.profiler`` (profile with a schedule, tensorboard_trace_handler, ProfilerAction,
supported_activities...) and ``torch.autograd.profiler``'s keywords and names, on arraygrad's
profiler; tables as nanoGPT-style benchmarks print them."""

import gzip
import json
import os
import warnings

import pytest

import arraygrad as ag
from arraygrad import profiler as P
from arraygrad.autograd import profiler as AP


def _model():
    ag.manual_seed(0)
    return ag.nn.Sequential(ag.nn.Linear(32, 64), ag.nn.GELU(), ag.nn.Linear(64, 8))


def _train(lib, model, prof, steps):
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    x, y = lib.randn(16, 32), lib.randint(0, 8, (16,))
    for _ in range(steps):
        with lib.profiler.record_function("train_step"):
            loss = lib.nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        prof.step()


@pytest.mark.parametrize("args", [dict(wait=1, warmup=1, active=2),
                                  dict(wait=0, warmup=2, active=1, repeat=2),
                                  dict(wait=2, warmup=1, active=3, repeat=1, skip_first=3),
                                  dict(wait=5, warmup=1, active=1, skip_first=2,
                                       skip_first_wait=1)])
def test_schedule_matches_pytorch(args):
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    ours, theirs = P.schedule(**args), torch.profiler.schedule(**args)
    assert [ours(s).name for s in range(30)] == [theirs(s).name for s in range(30)]


def test_schedule_arguments_are_checked():
    with pytest.raises(AssertionError, match="Invalid profiler schedule arguments"):
        P.schedule(wait=0, warmup=0, active=0)
    with pytest.warns(UserWarning, match="won't be using warmup"):
        P.schedule(wait=1, warmup=0, active=1)


def test_on_trace_ready_runs_when_pytorch_runs_it():
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    found = []
    for lib in (ag, torch):
        ready = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with lib.profiler.profile(
                    activities=[lib.profiler.ProfilerActivity.CPU],
                    schedule=lib.profiler.schedule(wait=1, warmup=1, active=2, repeat=2),
                    on_trace_ready=lambda p: ready.append(p.step_num)) as prof:
                for _ in range(11):
                    (lib.ones(2) * 2).sum()
                    prof.step()
        found.append(ready)
    assert found[0] == found[1] == [4, 8]


def test_scheduled_trace_holds_only_the_active_steps_and_step_markers():
    model = _model()
    traces = []

    def ready(prof):
        traces.append([e.name for e in prof.events()])

    with P.profile(activities=[P.ProfilerActivity.CPU], on_trace_ready=ready,
                   schedule=P.schedule(wait=1, warmup=1, active=2, repeat=1)) as prof:
        _train(ag, model, prof, 6)
    (names,) = traces
    assert names.count("ProfilerStep*") == 2 and names.count("train_step") == 2
    assert "linear" in names and "gelu" in names and "cross_entropy" in names  # nn.functional
    assert any(n.startswith("autograd::engine::evaluate_function: AddmmBackward0")
               for n in names)


def test_tensorboard_trace_handler_writes_chrome_traces(tmp_path):
    for gz in (False, True):
        out = tmp_path / f"gz{gz}"
        with P.profile(schedule=P.schedule(wait=0, warmup=1, active=1, repeat=1),
                       on_trace_ready=P.tensorboard_trace_handler(str(out), "worker0",
                                                                  use_gzip=gz)) as prof:
            for _ in range(3):
                with P.record_function("block"):
                    ag.ones(3).exp()
                prof.step()
        (name,) = os.listdir(out)
        assert name.startswith("worker0.") and name.endswith(".pt.trace.json" + (".gz" if gz else ""))
        opener = gzip.open if gz else open
        with opener(out / name, "rt") as fh:
            trace = json.load(fh)
        names = {e["name"] for e in trace["traceEvents"]}
        assert {"block", "exp", "ProfilerStep#1"} <= names
        assert "trace_id" in trace


def test_table_columns_match_pytorchs():
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    headers = []
    for lib in (ag, torch):
        model = lib.nn.Linear(8, 4)
        with lib.profiler.profile(activities=[lib.profiler.ProfilerActivity.CPU],
                                  record_shapes=True, profile_memory=True,
                                  with_flops=True) as prof:
            model(lib.randn(3, 8)).sum().backward()
        for kw in ({}, {"group_by_input_shape": True}):
            line = prof.key_averages(**kw).table(sort_by="self_cpu_time_total",
                                                 row_limit=5).splitlines()[1]
            headers.append([h.strip() for h in line.split("  ") if h.strip()])
    assert headers[:2] == headers[2:]
    assert headers[1][-2:] == ["Input Shapes", "Total FLOPs"]


def test_flops_of_a_linear_layer_match_pytorchs_addmm():
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    totals = {}
    for lib, key in ((ag, "linear"), (torch, "aten::addmm")):
        with lib.profiler.profile(with_flops=True) as prof:
            lib.nn.Linear(32, 64)(lib.randn(16, 32))
        totals[lib.__name__] = {r.key: r.flops for r in prof.key_averages()}[key]
    assert totals["arraygrad"] == totals["torch"] == 2 * 16 * 32 * 64


def test_profile_memory_counts_the_bytes_each_op_makes():
    x = ag.randn(4, 8)
    with AP.profile(profile_memory=True) as prof:
        y = x.exp()          # 4*8 floats made
        y.add_(1)            # in place: nothing made
        y.view(32)           # a view: nothing made
    rows = {r.key: r for r in prof.key_averages()}
    assert rows["exp"].cpu_memory_usage == 4 * 8 * 4
    assert rows["add_"].cpu_memory_usage == 0 and rows["view"].cpu_memory_usage == 0
    assert "CPU Mem" in prof.key_averages().table()


def test_with_stack_and_export_stacks(tmp_path):
    with AP.profile(with_stack=True) as prof:
        ag.ones(3).exp()
    (event,) = [e for e in prof.events() if e.name == "exp"]
    assert event.stack and "test_profiler_api.py" in event.stack[0]
    path = tmp_path / "stacks.txt"
    prof.export_stacks(str(path), "self_cpu_time_total")
    assert "test_profiler_api.py" in path.read_text()
    table = prof.key_averages(group_by_stack_n=2).table()
    assert "Source Location" in table.splitlines()[1]
    with pytest.raises(ValueError, match="metric should be one of"):
        prof.export_stacks(str(path), "cpu_time")


def test_acc_events_and_activity_filters():
    prof = AP.profile(acc_events=True)
    for _ in range(2):
        with prof:
            ag.ones(2).exp()
    assert [e.name for e in prof.events()].count("exp") == 2
    prof = AP.profile()
    for _ in range(2):
        with prof:
            ag.ones(2).exp()
    assert [e.name for e in prof.events()].count("exp") == 1
    with AP.profile(activity_filters={P.ProfilerActivity.CPU: {"user_annotation"}}) as prof:
        with AP.record_function("only"):
            ag.ones(2).exp()
    assert [e.name for e in prof.events()] == ["only"]


def test_custom_trace_id(tmp_path):
    with P.profile(custom_trace_id_callback=lambda: "run-7") as prof:
        ag.ones(1).exp()
    assert prof.get_trace_id() == "run-7"
    prof.export_chrome_trace(str(tmp_path / "t.json"))
    assert json.loads((tmp_path / "t.json").read_text())["trace_id"] == "run-7"


def test_autograd_profile_takes_pytorchs_keywords():
    with AP.profile(use_kineto=True, experimental_config=None, post_processing_timeout_s=1.0,
                    use_cpu=True, with_modules=True) as prof:
        ag.ones(1).exp()
    assert [e.name for e in prof.events()] == ["exp"]


def test_function_event_takes_pytorchs_constructor():
    e = AP.FunctionEvent(id=3, name="op", thread=1, start_us=10.0, end_us=25.0,
                         input_shapes=[[2]], sequence_nr=4, flops=8, cpu_memory_usage=16,
                         device_type=AP.DeviceType.CPU, is_user_annotation=False,
                         metadata_json='{"a": 1}', extra_meta={"k": 1}, python_id=5)
    child = AP.FunctionEvent(4, "inner", 1, 12.0, 20.0, cpu_memory_usage=4)
    e.append_cpu_child(child)
    child.set_cpu_parent(e)
    assert (e.cpu_time_total, e.self_cpu_time_total, e.self_cpu_memory_usage) == (15.0, 7.0, 12)
    assert e.key == "op" and e.metadata_json == '{"a": 1}' and e.sequence_nr == 4
    assert e.cpu_time_total_str == "15.000us"
    avg = AP.EventList([e, child]).total_average()
    assert avg.key == "Total" and avg.count == 2 and avg.cpu_time_total == 23.0


def test_function_event_fields_match_pytorchs():
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    kw = dict(id=1, name="op", thread=0, start_us=1.0, end_us=4.0, cpu_memory_usage=8)
    ours, theirs = AP.FunctionEvent(**kw), torch.autograd.profiler.FunctionEvent(**kw)
    for attr in ("cpu_time_total", "self_cpu_time_total", "self_cpu_memory_usage", "key",
                 "count", "cpu_time", "cpu_time_str", "device_time_total"):
        assert getattr(ours, attr) == getattr(theirs, attr), attr


def test_kineto_step_tracker_matches_pytorchs():
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    runs = []
    for tracker in (AP.KinetoStepTracker, torch.autograd.profiler.KinetoStepTracker):
        start = tracker.current_step()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            tracker.init_step_count("A")
            seen = [tracker.increment_step(r) - start for r in "ABBAAAB"]
            tracker.erase_step_count("B")
            tracker.init_step_count("C")
            seen += [tracker.increment_step(r) - start for r in "CC"]
        erased = [tracker.erase_step_count(r) for r in "ABC"]
        runs.append((seen, erased, len(caught)))
    assert runs[0] == runs[1]


def test_small_names():
    unique = AP.EnforceUnique()
    unique.see(1, "a")
    with pytest.raises(RuntimeError, match="duplicate key"):
        unique.see(1, "a")
    assert not AP.kineto_available() and not P.kineto_available() and not P.is_fbcode()
    assert P.ProfilerActivity.CPU in P.supported_activities()
    assert AP.MEMORY_EVENT_NAME == "[memory]" and AP.OUT_OF_MEMORY_EVENT_NAME == "[OutOfMemory]"
    assert P.Optimizer is ag.optim.Optimizer and ag.autograd.profiler_legacy.profile is AP.profile


def test_enums_match_pytorchs():
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    for ours, theirs in ((ag.autograd.DeviceType, torch.autograd.DeviceType),
                         (ag.autograd.ProfilerActivity, torch.autograd.ProfilerActivity),
                         (P.ProfilerAction, torch.profiler.ProfilerAction)):
        assert {n: int(m.value) for n, m in ours.__members__.items()} == \
            {n: int(m.value) for n, m in theirs.__members__.items()}


def test_schedule_must_not_return_device_stopped():
    with pytest.raises(ValueError, match="DEVICE_STOPPED"):
        P.profile(schedule=lambda step: P.ProfilerAction.DEVICE_STOPPED)


def test_execution_trace_observer_is_refused():
    with pytest.raises(NotImplementedError, match="execution trace"):
        P.profile(execution_trace_observer=object())


def test_use_cuda_is_deprecated():
    with pytest.warns(FutureWarning, match="use_cuda"):
        prof = P.profile(use_cuda=False)
    assert P.ProfilerActivity.CUDA not in prof.activities
