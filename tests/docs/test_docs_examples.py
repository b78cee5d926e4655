"""Every ``python`` code block of the guides in docs/ runs (blocks of one file share a namespace)."""

import pathlib
import re

import pytest

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs"
BLOCK = re.compile(r"```python\n(.*?)```", re.S)
RUNNABLE = ["autograd.md", "distributions.md", "interop.md", "sparse.md", "complex.md"]


@pytest.mark.parametrize("name", RUNNABLE)
def test_guide_code_blocks_run(name):
    text = (DOCS / name).read_text()
    blocks = BLOCK.findall(text)
    assert blocks, f"{name} has no python blocks"
    namespace: dict = {}
    for i, code in enumerate(blocks):
        exec(compile(code, f"{name}[block {i}]", "exec"), namespace)  # noqa: S102


def test_readme_examples_run(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # the training example saves a file
    text = (DOCS.parent / "README.md").read_text()
    blocks = BLOCK.findall(text)
    assert len(blocks) >= 2
    for i, code in enumerate(blocks):
        exec(compile(code, f"README.md[block {i}]", "exec"), {})  # noqa: S102
    out = capsys.readouterr().out
    assert "tensor([ 36., 288., 972.])" in out
    assert (tmp_path / "model.safetensors").exists()
