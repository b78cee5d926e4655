"""The export modes and enums PyTorch's ``torch.onnx`` names: ``TrainingMode``,
``OperatorExportTypes``, ``TensorProtoDataType``, ``select_model_mode_for_export`` and the
flag ``is_in_onnx_export`` reads."""

from __future__ import annotations

import contextlib
import enum
import threading
import warnings
from typing import Any, Iterator

__all__ = ["TrainingMode", "OperatorExportTypes", "TensorProtoDataType",
           "select_model_mode_for_export",
           "is_in_onnx_export", "exporting"]


class _NamedEnum(enum.Enum):
    """An enum printed as PyTorch's (``TrainingMode.EVAL``), whose ``int()`` is its number."""

    def __int__(self) -> int:
        return int(self.value)

    def __index__(self) -> int:
        return int(self.value)


class TrainingMode(_NamedEnum):
    """The mode a model is exported in (``export(training=...)``, TorchScript path)."""

    EVAL = 0
    PRESERVE = 1
    TRAINING = 2


class OperatorExportTypes(_NamedEnum):
    """How operators are exported; arraygrad writes plain ONNX only (``ONNX``)."""

    ONNX = 0
    ONNX_ATEN = 1
    ONNX_ATEN_FALLBACK = 2
    ONNX_FALLTHROUGH = 3


class TensorProtoDataType(_NamedEnum):
    """ONNX's element types (``onnx.TensorProto``'s numbers), as ``torch.onnx`` names them."""

    UNDEFINED = 0
    FLOAT = 1
    UINT8 = 2
    INT8 = 3
    UINT16 = 4
    INT16 = 5
    INT32 = 6
    INT64 = 7
    STRING = 8
    BOOL = 9
    FLOAT16 = 10
    DOUBLE = 11
    UINT32 = 12
    UINT64 = 13
    COMPLEX64 = 14
    COMPLEX128 = 15
    BFLOAT16 = 16
    FLOAT8E4M3FN = 17
    FLOAT8E4M3FNUZ = 18
    FLOAT8E5M2 = 19
    FLOAT8E5M2FNUZ = 20


class _State(threading.local):
    depth = 0


_state = _State()


def is_in_onnx_export() -> bool:
    """Whether an ONNX export is running (its recorded forward calls the model)."""
    return _state.depth > 0


@contextlib.contextmanager
def exporting() -> Iterator[None]:
    """Within the block, ``is_in_onnx_export()`` is True (in this thread)."""
    _state.depth += 1
    try:
        yield
    finally:
        _state.depth -= 1


@contextlib.contextmanager
def select_model_mode_for_export(model: Any, mode: TrainingMode) -> Iterator[None]:
    """Set ``model``'s training mode to ``mode`` for the block, and back after it
    (``PRESERVE`` changes nothing). Deprecated in PyTorch: set the mode before exporting."""
    warnings.warn("Please set training mode before exporting the model", DeprecationWarning,
                  stacklevel=3)
    if not isinstance(mode, TrainingMode):
        raise TypeError(f"'mode' should be a torch.onnx.TrainingMode enum, but got "
                        f"'{type(mode)}'.")
    with model_mode(model, mode):
        yield


@contextlib.contextmanager
def model_mode(model: Any, mode: TrainingMode) -> Iterator[None]:
    """``select_model_mode_for_export`` without its deprecation warning (what ``export``
    uses). Every submodule's own flag is put back after the block (PyTorch sets them all
    to the model's)."""
    if getattr(model, "training", None) is None or mode is TrainingMode.PRESERVE:
        yield
        return
    modules = list(model.modules()) if hasattr(model, "modules") else [model]
    flags = [(m, m.training) for m in modules]
    model.train(mode is TrainingMode.TRAINING)
    try:
        yield
    finally:
        for m, training in flags:
            m.training = training
