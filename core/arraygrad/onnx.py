"""``arraygrad.onnx``: PyTorch's ONNX-export entry points, present so programs import.

arraygrad has no ONNX exporter: PyTorch's exporter traces the program into a TorchScript
or ``torch.export`` graph, which arraygrad (an eager autograd library) does not build.
``export`` therefore raises NotImplementedError saying so; ``is_in_onnx_export()`` is
always False, so code that branches on it takes its normal path.
"""

from __future__ import annotations

from typing import Any

__all__ = ["OnnxExporterError", "export", "is_in_onnx_export"]


class OnnxExporterError(RuntimeError):
    """The error class of PyTorch's ONNX exporter (never raised by arraygrad)."""


def export(model: Any, args: tuple[Any, ...] = (), f: Any = None, *,
           kwargs: dict[str, Any] | None = None, **options: Any) -> Any:
    """Not available: raises NotImplementedError (arraygrad builds no exportable graph).

    To get an ONNX file, save the weights (``arraygrad.save(model.state_dict(), path)``),
    load them into the same model written in PyTorch and export from there.
    """
    raise NotImplementedError(
        "arraygrad.onnx.export is not available: exporting to ONNX needs a traced graph of the "
        "program (TorchScript or torch.export in PyTorch), which arraygrad does not build. "
        "Save the weights with arraygrad.save(model.state_dict(), path), load them into the "
        "PyTorch model and export from PyTorch.")


def is_in_onnx_export() -> bool:
    """Whether an ONNX export is running: always False in arraygrad."""
    return False
