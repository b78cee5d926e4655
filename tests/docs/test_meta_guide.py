"""Every ``python`` code block of docs/meta.md runs (the blocks share a namespace), and
prints what the guide says."""

import pathlib
import re
import warnings

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs"


def test_meta_guide_blocks_run():
    text = (DOCS / "meta.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 2
    namespace: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nn.Transformer's enable_nested_tensor notice
        for i, code in enumerate(blocks):
            exec(compile(code, f"meta.md[block {i}]", "exec"), namespace)  # noqa: S102
    model, x = namespace["model"], namespace["x"]
    assert sum(p.numel() for p in model.parameters()) == 126005248
    assert repr(x) == "tensor(..., device='meta', size=(10, 32, 1024))"
    assert x.stride() == (32768, 1024, 1)
    predictions = namespace["predictions"]
    assert predictions.shape == (5, 16, 2) and not predictions.is_meta
    stacked = namespace["torch"].stack([m(b) for m, b in zip(namespace["models"],
                                                             namespace["minibatches"])])
    assert namespace["torch"].allclose(predictions, stacked, atol=1e-6)
