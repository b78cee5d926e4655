"""The package's type hints: mypy passes on core/arraygrad, and the wheel ships ``py.typed``.

mypy's settings live in pyproject.toml ([tool.mypy]); this runs it the way CI and the Makefile
should: ``python -m mypy core/arraygrad`` from the repository root.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tomllib
import types
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


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None,
                    reason="mypy is not installed (pip install -e '.[test]')")
def test_user_code_over_the_public_api_is_strict_clean():
    # tensors, creation, nn.Module, optim and autograd as typed user code writes them: a
    # program checked with ``mypy --strict`` sees the public names (``__all__``) and their types
    proc = subprocess.run([sys.executable, "-m", "mypy", "--strict",
                           "--follow-imports=silent", "tests/typing_usage/usage.py"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_typed_usage_runs():
    sys.path.insert(0, str(ROOT / "tests" / "typing_usage"))
    try:
        import usage
    finally:
        sys.path.pop(0)
    assert usage.gradients() == [3.0, 7.0, 11.0]  # 2 * (2 w) - 1
    assert usage.shapes() == (6, 2)
    assert usage.train(3) > 0.0


def test_the_namespace_lists_its_public_names():
    # ``__all__`` (what ``mypy --strict`` re-exports) holds every public name of the namespace
    # (submodules imported later, ``arraygrad.nn``, become attributes too: not names of it)
    public = {n for n, v in vars(arraygrad).items() if not n.startswith("_")
              and not isinstance(v, types.ModuleType)} - {"annotations", "Any"}
    assert public <= set(arraygrad.__all__)


def test_nn_lists_every_layer_of_its_families():
    # ``arraygrad.nn`` imports each family file itself (the form mypy follows): none missed
    import arraygrad.nn as nn
    import arraygrad.nn.modules as modules

    assert set(modules.__all__) <= set(nn.__all__)
    assert all(getattr(nn, name) is getattr(modules, name) for name in modules.__all__)
