"""``make test-gpu`` runs ``pytest -m cuda``: a test that only runs on a GPU (it skips, saying
it needs CUDA or GPUs, when there is none) must carry the ``cuda`` mark, or the GPU run never
runs it (issue 29 found two)."""

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]

# words of a skip that means "no GPU here"; the CPU-only tests skip with "is present" /
# "usable here" instead, and are not GPU tests
_GPU_WORDS = ("CUDA backend", "CUDA device", "GPU", "CuPy")
_CPU_ONLY_WORDS = ("present", "usable here", "allowed")


def _text(node: ast.AST) -> str:
    """The constant parts of a string or f-string argument."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(_text(v) for v in node.values)
    return ""


def _skips_without_gpu(fn: ast.FunctionDef) -> bool:
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("skip", "importorskip"):
            words = " ".join(_text(a) for a in [*node.args, *(k.value for k in node.keywords)])
            if any(w in words for w in _GPU_WORDS) and not any(w in words for w in _CPU_ONLY_WORDS):
                return True
    return False


def _marked_cuda(fn: ast.FunctionDef, module: ast.Module) -> bool:
    marks = [ast.unparse(d) for d in fn.decorator_list]
    module_marks = [ast.unparse(n.value) for n in module.body if isinstance(n, ast.Assign)
                    and any(getattr(t, "id", "") == "pytestmark" for t in n.targets)]
    # a test taking the ``cuda`` fixture runs on the fake device too; its real one is marked
    takes_fixture = any(a.arg == "cuda" for a in fn.args.args)
    return takes_fixture or any("cuda" in m for m in marks + module_marks)


def test_every_gpu_only_test_is_marked_cuda():
    unmarked = []
    for path in sorted(TESTS.rglob("test_*.py")):
        module = ast.parse(path.read_text())
        for fn in ast.walk(module):
            if isinstance(fn, ast.FunctionDef) and fn.name.startswith("test_") \
                    and _skips_without_gpu(fn) and not _marked_cuda(fn, module):
                unmarked.append(f"{path.relative_to(TESTS)}::{fn.name}")
    assert not unmarked, "GPU-only tests without @pytest.mark.cuda: " + ", ".join(unmarked)


def test_the_check_finds_an_unmarked_gpu_test():
    module = ast.parse("import pytest\n"
                       "def test_x():\n    pytest.skip('needs a CUDA backend')\n")
    fn = module.body[1]
    assert _skips_without_gpu(fn) and not _marked_cuda(fn, module)
