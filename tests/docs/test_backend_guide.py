"""The minimal backend of docs/writing-a-backend.md, exactly as printed, passes the
conformance suite (run in a fresh interpreter with plugin autoload off)."""

import json
import os
import pathlib
import re
import subprocess
import sys
import textwrap

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs"


def test_guide_backend_runs_the_suite(tmp_path):
    text = (DOCS / "writing-a-backend.md").read_text()
    block = next(b for b in re.findall(r"```python\n(.*?)```", text, re.S)
                 if "class DummyBackend(Backend)" in b)
    pkg = tmp_path / "guide_backend"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "backend.py").write_text(block.replace('name = "dummy"', 'name = "guide"')
                                    .replace('device_type = "dummy"', 'device_type = "guide"'))
    entry = next(b for b in re.findall(r"```python\n(.*?)```", text, re.S)
                 if "# arraygrad_dummy/good.py" in b)
    (pkg / "plugin.py").write_text(entry.replace("arraygrad_dummy.backend", "guide_backend.backend")
                                   .replace('register.backend("dummy"', 'register.backend("guide"'))
    report = tmp_path / "report.json"
    code = textwrap.dedent(f"""
        import importlib, sys
        from arraygrad.plugins import register_plugin
        for i, name in enumerate(["arraygrad_numpy.plugin", "guide_backend.plugin"]):
            register_plugin(importlib.import_module(name), name=f"plugin{{i}}")
        import pytest
        sys.exit(pytest.main(["--pyargs", "arraygrad.conformance", "--arraygrad-backend=guide",
                              "-q", "-p", "no:cacheprovider", "-p", "no:warnings",
                              "--arraygrad-report-json={report}"]))
        """)
    env = {**os.environ, "ARRAYGRAD_DISABLE_PLUGIN_AUTOLOAD": "1",
           "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    counts = json.loads(report.read_text())["counts"]
    assert counts.get("FAIL", counts.get("fail", 0)) == 0 and counts["pass"] > 500, counts
