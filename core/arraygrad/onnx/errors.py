"""``arraygrad.onnx.errors``: the ONNX exporter's exceptions, with PyTorch's names and bases."""

from __future__ import annotations

__all__ = ["OnnxExporterError", "OnnxExporterWarning", "UnsupportedOperatorError",
           "SymbolicValueError"]


class OnnxExporterWarning(UserWarning):
    """Warnings in the ONNX exporter."""


class OnnxExporterError(RuntimeError):
    """Errors raised by the ONNX exporter: the base class of every exporter error."""


class UnsupportedOperatorError(OnnxExporterError):
    """An operation of the exported program has no ONNX translation.

    ``UnsupportedOperatorError(name, version, supported_version)`` as PyTorch's;
    ``detail`` (arraygrad's) adds where the operation was called and what to do.
    """

    def __init__(self, name: str, version: int, supported_version: int | None,
                 detail: str = "") -> None:
        self.name = name
        self.version = version
        self.supported_version = supported_version
        msg = f"Exporting the operator '{name}' to ONNX opset version {version} is not supported"
        if supported_version is not None:
            msg += (f". Support for this operator was added in version {supported_version}, "
                    "try exporting with this version")
        super().__init__(msg + (f": {detail}" if detail else ""))


class SymbolicValueError(OnnxExporterError):
    """A value of the exported program cannot be expressed in the ONNX graph (a size that
    depends on a dynamic axis in a way the exporter cannot write, a value read into
    Python)."""
