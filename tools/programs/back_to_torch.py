"""The PyTorch program an ``examples/ported`` program was ported from: the ports only rename
the imports (``import arraygrad as torch``), so renaming them back gives the original."""

from __future__ import annotations

__all__ = ["back_to_torch"]


def back_to_torch(source: str) -> str:
    """The original PyTorch program: every ``arraygrad`` in an import line becomes ``torch``."""
    out = []
    for line in source.splitlines():
        stripped = line.lstrip()
        if stripped.startswith(("import arraygrad", "from arraygrad")):
            line = line.replace("import arraygrad as torch", "import torch").replace("arraygrad", "torch")
        out.append(line)
    return "\n".join(out) + "\n"
