"""The compiler plugs in from above (issue 26): no module below it imports it, importing
arraygrad loads none of it, and the compile-aware code outside it does not grow
(``tools/compile_layers.py`` counts both)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import compile_layers  # noqa: E402


def test_no_module_below_the_compiler_imports_it():
    found = compile_layers.report()
    offenders = {name: c for name, c in found["files"].items() if c["upward_imports"]}
    assert offenders == {}
    assert found["upward_imports"] == 0


def test_compile_aware_lines_outside_the_compiler_are_at_most_15():
    # 134 on the base (94 in optim), 150 before the optimizers were written back as
    # PyTorch's; now Module.compile/its attribute epochs, _get_value/_dispatch_sqrt and the
    # promotion's live-operand test
    found = compile_layers.report()
    assert found["compile_aware_lines"] <= 15, found["compile_aware_lines_by_area"]
    assert not any(name.startswith("optim/") and name != "optim/optimizer.py"
                   for name in found["files"]), found["files"]


def test_the_counter_sees_each_import_form(tmp_path, monkeypatch):
    pkg = tmp_path / "arraygrad"
    (pkg / "compiler").mkdir(parents=True)
    (pkg / "ops.py").write_text(
        "import importlib\n"
        "from arraygrad.compiler.units import replay_unit\n"
        "def f():\n"
        "    import arraygrad.compiler.traced\n"
        "    importlib.import_module('arraygrad.compiler.state')\n"
        "    return replay_unit\n"
        "class O:\n"
        "    def _compile_key(self):\n"
        "        return ()\n")
    (pkg / "compiler" / "units.py").write_text("from arraygrad.compiler import scalars\n")
    monkeypatch.setattr(compile_layers, "ROOT", pkg)
    found = compile_layers.report()
    assert found["upward_imports"] == 3  # the compiler's own import is not counted
    assert found["compile_aware_lines"] == 5  # lines 2, 4, 5, 6 and 8
    assert found["files"] == {"ops.py": {"upward_imports": 3, "compile_aware_lines": 5}}


def test_importing_arraygrad_loads_no_compiler_module():
    code = ("import sys, arraygrad, arraygrad.nn, arraygrad.optim\n"
            "print(sorted(m for m in sys.modules if m.startswith('arraygrad.compiler')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True).stdout.strip()
    assert out == "[]"
