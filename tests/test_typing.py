"""The package's type hints: mypy passes on core/arraygrad, and the wheel ships ``py.typed``.

mypy's settings live in pyproject.toml ([tool.mypy]); this runs it the way CI and the Makefile
should: ``python -m mypy core/arraygrad`` from the repository root.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import arraygrad

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None,
                    reason="mypy is not installed (pip install -e '.[test]')")
def test_mypy_passes_on_core():
    proc = subprocess.run([sys.executable, "-m", "mypy", "core/arraygrad"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Success: no issues found" in proc.stdout


def test_package_ships_py_typed():
    # the marker next to the imported package, and declared as package data for the wheel
    assert (Path(arraygrad.__file__).parent / "py.typed").is_file()
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "py.typed" in config["tool"]["setuptools"]["package-data"]["arraygrad"]


def test_mypy_is_a_test_dependency():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert any(dep.split(">")[0].split("=")[0].strip() == "mypy"
               for dep in config["project"]["optional-dependencies"]["test"])
