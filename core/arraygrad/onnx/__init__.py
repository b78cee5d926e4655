"""``arraygrad.onnx``: exporting a model to ONNX, as ``torch.onnx``.

``export(model, args, f, input_names=, output_names=, dynamic_axes=, opset_version=)`` runs
one forward of the model, recorded, and writes the recording as an ONNX graph; the
parameters and buffers become initializers named by their state-dict keys. The ``onnx``
package (``pip install 'arraygrad[onnx]'``) is imported by ``export`` only.

Where the graph comes from: the recorder of ``arraygrad.compile``, not the autograd graph.
The recorder sees every array call a forward makes (the compile docs: "every operator,
method and namespace function on a traced array"), with grad mode off, in eval mode, on
values that need no gradient (masks, indices, comparisons, constants made in the forward,
in-place updates), and its calls are the Array API's small closed set of functions, which
map to ONNX operators one by one: any op arraygrad or a plugin has exports without a table
of its own. The autograd graph records only differentiable ops on tensors that require
grad (nothing under ``no_grad``, no masks or indices), one node per rule, and a
convolution there is its unfold and product. The recording is also exact by construction:
it is run again before translation and must give the forward's outputs.

Array calls alone would write a convolution as its unfolding: calls of the layers'
functions (``conv2d``, ``linear``, ``batch_norm``, ``layer_norm``, ``max_pool2d``,
``softmax``...) are observed while the forward runs and written as the ONNX operator
(``Conv``, ``Gemm``, ``BatchNormalization``...) when nothing else depends on their
insides (``_regions``, ``_nn_ops``). Dynamic axes are found by recording again with those
axes longer (``_dims``). See docs/onnx.md.
"""

from __future__ import annotations

from typing import Any

from arraygrad import __version__ as producer_version
from arraygrad.onnx import errors
from arraygrad.onnx._export import export
from arraygrad.onnx._program import ONNXProgram
from arraygrad.onnx.errors import OnnxExporterError
from arraygrad.onnx.modes import (OperatorExportTypes, TensorProtoDataType, TrainingMode,
                                  is_in_onnx_export, select_model_mode_for_export)

__all__ = ["OnnxExporterError", "ONNXProgram", "OperatorExportTypes", "TensorProtoDataType",
           "TrainingMode", "errors", "export", "is_in_onnx_export",
           "select_model_mode_for_export", "producer_name", "producer_version"]

producer_name = "arraygrad"
"""The ``producer_name`` of the models ``export`` writes."""


def __getattr__(name: str) -> Any:
    """The census's reason for a ``torch.onnx`` name arraygrad lacks."""
    from arraygrad.absences import missing_attribute

    raise missing_attribute("torch.onnx", name, "arraygrad.onnx")
