"""Every ``python`` code block of docs/attention.md runs (the blocks share a namespace)."""

import pathlib
import re
import warnings

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs"


def test_attention_guide_blocks_run():
    text = (DOCS / "attention.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 4
    namespace: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nn.Transformer's enable_nested_tensor notice
        for i, code in enumerate(blocks):
            exec(compile(code, f"attention.md[block {i}]", "exec"), namespace)  # noqa: S102
