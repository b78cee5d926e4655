"""Every ``python`` code block of docs/onnx.md runs (the blocks share a namespace), in a
scratch folder (they write model files)."""

import pathlib
import re

import pytest

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs"


def test_onnx_guide_blocks_run(tmp_path, monkeypatch):
    pytest.importorskip("onnx.checker")
    pytest.importorskip("onnxruntime")
    monkeypatch.chdir(tmp_path)
    text = (DOCS / "onnx.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 3
    namespace: dict = {}
    for i, code in enumerate(blocks):
        exec(compile(code, f"onnx.md[block {i}]", "exec"), namespace)  # noqa: S102
    assert (tmp_path / "mlp.onnx").exists() and (tmp_path / "mlp-single.onnx").exists()
