"""No test asserts on elapsed wall-clock time: a loaded CI machine must not fail a test for
being slow (time budgets are benchmarks). Hang guards are timeouts (``pytest.mark.timeout``,
a subprocess's ``timeout=``), which end a test that would never finish."""

import ast
import pathlib

TESTS = pathlib.Path(__file__).resolve().parents[1]
CLOCKS = {"monotonic", "perf_counter", "time", "monotonic_ns", "perf_counter_ns", "time_ns"}


def _reads_clock(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
               and n.func.attr in CLOCKS and isinstance(n.func.value, ast.Name)
               and n.func.value.id == "time" for n in ast.walk(node))


def _clock_names(tree: ast.AST) -> set[str]:
    """Names bound to a clock reading or to arithmetic on one (``elapsed = time.monotonic() -
    start``)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and _reads_clock(node.value) \
                and isinstance(node.value, ast.BinOp):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def test_no_test_asserts_on_elapsed_time():
    found = []
    for path in sorted(TESTS.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        elapsed = _clock_names(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Assert):
                continue
            uses = {n.id for n in ast.walk(node.test) if isinstance(n, ast.Name)}
            if _reads_clock(node.test) or uses & elapsed:
                found.append(f"{path.relative_to(TESTS)}:{node.lineno}")
    assert not found, f"wall-clock assertions: {found}"
