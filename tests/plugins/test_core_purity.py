"""The core knows no array library: it imports neither NumPy nor CuPy, statically or at import."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest


REPO_ROOT = Path(__file__).resolve().parents[2]

FORBIDDEN = {"numpy", "cupy", "cupyx"}
CORE = REPO_ROOT / "core"


def _forbidden_imports(path):
    """(line, module) for every import of a forbidden library in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names
                      if a.name.split(".")[0] in FORBIDDEN]
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module and node.module.split(".")[0] in FORBIDDEN:
                found.append((node.lineno, node.module))
        elif isinstance(node, ast.Call):
            # importlib.import_module("numpy") / __import__("cupy") count too.
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name in ("import_module", "__import__") and node.args:
                arg = node.args[0]
                if (isinstance(arg, ast.Constant) and isinstance(arg.value, str)
                        and arg.value.split(".")[0] in FORBIDDEN):
                    found.append((node.lineno, arg.value))
    return found


def _core_files():
    return sorted(CORE.rglob("*.py"))


def test_core_has_python_files():
    files = _core_files()
    assert len(files) > 10, files
    assert any(f.name == "tensor.py" for f in files)


def test_no_core_module_imports_numpy_or_cupy():
    offenders = {str(f.relative_to(REPO_ROOT)): hits
                 for f in _core_files() if (hits := _forbidden_imports(f))}
    assert offenders == {}


def test_the_scanner_catches_each_import_form(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import os\nimport numpy as np\nfrom cupy import ndarray\nimport cupyx.scipy\n"
        "from . import numpy\nimport importlib\nimportlib.import_module('numpy.linalg')\n"
        "def f():\n    import cupy\n")
    assert [m for _, m in _forbidden_imports(sample)] == [
        "numpy", "cupy", "cupyx.scipy", "numpy.linalg", "cupy"]


_IMPORT_CHILD = r"""
import sys, time
t0 = time.perf_counter()
import arraygrad
elapsed = time.perf_counter() - t0
import json
libs = sorted(m for m in sys.modules if m.split(".")[0] in ("numpy", "cupy", "cupyx"))
plugins = sorted(m for m in sys.modules if m.split(".")[0].startswith("arraygrad_"))
print(json.dumps({"elapsed": elapsed, "libs": libs, "plugins": plugins}))
"""


def test_import_arraygrad_loads_no_array_library(run_python):
    # how long the import takes is a benchmark (``make bench``: import_time), not a test
    out = run_python(_IMPORT_CHILD)
    assert out["libs"] == [], "import arraygrad imported an array library"
    assert out["plugins"] == [], "import arraygrad loaded plugins eagerly"


@pytest.mark.parametrize("module", ["arraygrad_cupy", "arraygrad_cupy.plugin",
                                    "arraygrad_cupy.backend"])
def test_importing_the_cupy_plugin_does_not_import_cupy(run_python, module):
    code = (f"import sys, json, {module}\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('cupy', 'cupyx', 'numpy'))))")
    assert run_python(code) == []
