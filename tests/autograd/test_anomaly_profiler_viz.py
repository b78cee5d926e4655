"""Anomaly detection, the profiler and the graph picture."""

import json

import pytest

import arraygrad as ag
from arraygrad.autograd import profiler


def test_nan_in_backward_raises_with_forward_traceback():
    x = ag.tensor([0., 1.], requires_grad=True)
    with pytest.warns(UserWarning, match="Anomaly Detection"):
        ctx = ag.autograd.detect_anomaly()
    with ctx:
        y = x.sqrt()  # d sqrt(x)/dx at 0 is inf; times 0 gives nan
        z = (y * 0).sum()
        with pytest.raises(RuntimeError, match="SqrtBackward0' returned nan") as info:
            with pytest.warns(UserWarning, match="Traceback of forward call"):
                z.backward()
    assert "test_anomaly_profiler_viz.py" in str(info.value)
    assert not ag.autograd.is_anomaly_enabled()


def test_without_anomaly_mode_nan_passes_silently():
    x = ag.tensor([0., 1.], requires_grad=True)
    (x.sqrt() * 0).sum().backward()
    assert x.grad.isnan().any().item()


def test_set_detect_anomaly_plain_call_and_context():
    ag.autograd.set_detect_anomaly(True)
    try:
        assert ag.autograd.is_anomaly_enabled()
    finally:
        ag.autograd.set_detect_anomaly(False)
    with ag.autograd.set_detect_anomaly(True, check_nan=False):
        assert not ag.autograd.is_anomaly_check_nan_enabled()
    assert not ag.autograd.is_anomaly_enabled()


def test_error_in_backward_carries_forward_trace_note():
    class Boom(ag.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            raise ValueError("boom")

    x = ag.tensor([1.], requires_grad=True)
    with ag.autograd.set_detect_anomaly(True):
        y = Boom.apply(x)
        with pytest.raises(ValueError) as info:
            y.backward()
    assert any("BoomBackward" in n for n in getattr(info.value, "__notes__", []))


class Func(ag.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        expx, expy = ag.exp(x), ag.exp(y)
        ctx.save_for_backward(expx, expy)
        return 3 * x + 2 * y + expx + expy

    @staticmethod
    def backward(ctx, g):
        expx, expy = ctx.saved_tensors
        return g * (3 + expx), g * (2 + expy)


def test_seed_003_profiler_section(tmp_path):
    x = ag.tensor([1., 2.], requires_grad=True)
    y = ag.tensor([3., 4.], requires_grad=True)
    grad = ag.tensor([1., 1.])
    with profiler.profile(use_cuda=False) as prof:
        z = Func.apply(x, y)
        z.backward(grad)
    text = str(prof)
    assert "Self CPU %" in text and "# of Calls" in text
    assert "exp" in text and "autograd::engine::evaluate_function: FuncBackward" in text
    assert text.rstrip().splitlines()[-1].startswith("Self CPU time total:")
    assert x.grad.tolist() == pytest.approx([5.7183, 10.3891], abs=1e-4)
    # nothing stays instrumented afterwards
    assert ag.Tensor.__mul__.__name__ == "mul" and not hasattr(ag.Tensor.__mul__, "__wrapped__")


def test_profiler_table_sorting_counts_and_chrome_trace(tmp_path):
    a = ag.randn(8, 8, requires_grad=True)
    with profiler.profile(record_shapes=True) as prof:
        with profiler.record_function("block"):
            for _ in range(3):
                (a @ a).sum().backward()
    rows = {r.key: r for r in prof.key_averages()}
    assert rows["matmul"].count == 3 and rows["block"].count == 1
    assert rows["block"].cpu_time_total >= rows["matmul"].cpu_time_total
    assert rows["autograd::engine::evaluate_function: MmBackward0"].count == 3
    table = prof.key_averages().table(sort_by="cpu_time_total", row_limit=3)
    body = [line for line in table.splitlines()[3:] if line and not line.startswith("-")]
    assert body[0].strip().startswith("block") and len(body) == 4  # 3 rows + the total line
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(path)
    events = json.loads(path.read_text())["traceEvents"]
    assert {e["ph"] for e in events} == {"X"} and any(e["name"] == "block" for e in events)
    assert any(e["args"].get("Input Dims") == [[8, 8], [8, 8]] for e in events)
    with pytest.raises(AttributeError, match="sort_by"):  # PyTorch's getattr of the name
        prof.key_averages().table(sort_by="nonsense")


def test_profiler_device_without_timing_events_says_so():
    """A device backend with no ``device_event`` (the dummy test backend) gets a note line,
    not silently CPU columns only; without use_cuda/use_device there is neither."""
    x = ag.ones(3, device="dummy", requires_grad=True)
    with profiler.profile(use_device="dummy") as prof:
        (x * 2).sum().backward()
    averages = prof.key_averages()
    assert averages.use_device == "dummy" and not averages.device_measured
    lines = averages.table().rstrip().splitlines()
    assert "Self DUMMY" not in lines[1] and "# of Calls" in lines[1]
    assert lines[-2].startswith("Self CPU time total:")
    assert lines[-1] == ("DUMMY time not measured: backend 'dummy' on dummy has no device timing "
                         "events (Backend.device_event)")
    assert all(r.device_time_total == 0 == r.cuda_time_total for r in averages)

    with profiler.profile() as prof:
        (x * 2).sum()
    assert prof.key_averages().table().rstrip().splitlines()[-1].startswith("Self CPU time total:")


@pytest.mark.skipif(ag.cuda.is_available(), reason="a CUDA device is present")
def test_profiler_use_cuda_without_a_device_says_so():
    with profiler.profile(use_cuda=True) as prof:
        (ag.ones(2) * 2).sum()
    note = prof.key_averages().table().rstrip().splitlines()[-1]
    assert note.startswith("CUDA time not measured: ") and "not available" in note


def test_make_dot_names_ops_saved_shapes_and_leaves(tmp_path):
    w = ag.tensor([1., 2.], requires_grad=True)
    b = ag.tensor(1., requires_grad=True)
    y = (w.exp() * 2 + b).sum()
    dot = ag.viz.make_dot(y, params={"w": w, "b": b})
    src = dot.source
    assert src.startswith('digraph "autograd" {')
    for label in ("SumBackward0", "AddBackward0", "MulBackward0", "ExpBackward0",
                  "saved[0]: result (2,)", "w\\n(2,)", "b\\n()", "output\\n()"):
        assert label in src, label
    assert src.count("->") == 6
    assert dot.save(tmp_path / "g.dot").read_text() == src


def test_make_dot_on_seed_graph():
    a = ag.tensor([1., 2.], requires_grad=True)
    b = ag.tensor([1., 2.], requires_grad=True)
    c = 2 * a + 3 * b + 1
    d = 2 * c + 1
    src = ag.viz.make_dot(d, params={"a": a, "b": b}).source
    assert src.count("MulBackward0") == 3 and src.count("AddBackward0") == 3
    assert "a\\n(2,)" in src and "b\\n(2,)" in src


@pytest.mark.skipif(__import__("shutil").which("dot") is None,
                    reason="Graphviz 'dot' program not installed")
def test_make_dot_renders_svg(tmp_path):
    w = ag.tensor([1., 2.], requires_grad=True)
    dot = ag.viz.make_dot((w * w).sum(), params={"w": w})
    out = dot.render(tmp_path / "graph", format="svg")
    text = out.read_text()
    assert text.lstrip().startswith("<?xml") and "MulBackward0" in text
