"""Ported PyTorch programs with compilation added the way PyTorch users add it print exactly
what the uncompiled programs print: ``model.compile()`` in the quickstart (training forwards
with the loss, backward and optimizer outside, and no_grad evaluation), and
``model = torch.compile(model)`` in the MNIST CNN (an ``OptimizedModule`` handed to the
optimizer, the StepLR scheduler and the train/test loops)."""

from __future__ import annotations


import pytest

from test_ported_programs import PORTED, _run  # (pytest puts this directory on sys.path)

EDITS = {
    "quickstart.py": ("model = NeuralNetwork().to(device)\nprint(model)\n",
                      "model = NeuralNetwork().to(device)\nmodel.compile()\nprint(model)\n"),
    "mnist_cnn.py": ("    model = Net().to(device)\n",
                     "    model = Net().to(device)\n    model = torch.compile(model)\n"),
}


@pytest.mark.parametrize("name", sorted(EDITS))
def test_a_compiled_ported_program_prints_what_the_eager_one_prints(name, tmp_path):
    source = (PORTED / name).read_text()
    before, after = EDITS[name]
    assert source.count(before) == 1, f"{name} changed: the edit no longer applies"
    compiled = source.replace(before, after)
    # a graph break or a recompile storm would warn: make it fail the program instead
    compiled = "import warnings\nwarnings.simplefilter('error', UserWarning)\n" + compiled
    eager_out = _run(source, tmp_path, name)
    compiled_dir = tmp_path / "compiled"
    compiled_dir.mkdir()
    assert _run(compiled, compiled_dir, name) == eager_out
