"""``ONNXProgram``: what ``export(..., dynamo=True)`` returns, as PyTorch's does.

It holds the ONNX model (``model_proto``), saves it (``save``), and runs it with ONNX
Runtime on arraygrad tensors (``__call__``, an inference session made at the first call).
"""

from __future__ import annotations

import os
from typing import Any, Sequence

__all__ = ["ONNXProgram"]


class ONNXProgram:
    """An exported ONNX model: ``model_proto`` (an ``onnx.ModelProto``), ``save``, and a call
    running it with ONNX Runtime.

    ``exported_program`` is None (arraygrad makes no ``torch.export`` program); ``model``
    is the same ``ModelProto`` (PyTorch's is an ``onnx_ir.Model``).
    """

    def __init__(self, model: Any, exported_program: Any = None) -> None:
        self._proto = model
        self.exported_program = exported_program
        self._session: Any = None
        self._backend: Any = None

    def __repr__(self) -> str:
        import onnx.printer
        return f"ONNXProgram(\n    model=\n{onnx.printer.to_text(self._proto.graph)}\n)"

    @property
    def model_proto(self) -> Any:
        """The ONNX model as an ``onnx.ModelProto``."""
        return self._proto

    @property
    def model(self) -> Any:
        """The ONNX model (the ``ModelProto``: arraygrad has no ``onnx_ir``)."""
        return self._proto

    def save(self, destination: str | os.PathLike[str], *, include_initializers: bool = True,
             keep_initializers_as_inputs: bool = False, external_data: bool | None = None) -> None:
        """Write the model to ``destination``; ``external_data``: the weights in
        ``<name>.data`` beside it (None: only when they pass 2 GB)."""
        from arraygrad.onnx._save import save_model
        save_model(self._proto, destination, include_initializers=include_initializers,
                   keep_initializers_as_inputs=keep_initializers_as_inputs,
                   external_data=external_data)

    def optimize(self) -> None:
        """Nothing to do: the exporter already folded constants and dropped dead nodes."""

    def apply_weights(self, state_dict: dict[str, Any]) -> None:
        """Replace the initializers named by ``state_dict``'s keys with its tensors' values."""
        from onnx import numpy_helper
        by_name = {t.name: t for t in self._proto.graph.initializer}
        for name, tensor in state_dict.items():
            old = by_name.get(name)
            if old is None:
                continue
            host = tensor._backend.to_host(tensor._data)
            if list(host.shape) != list(old.dims):
                raise ValueError(f"apply_weights: {name} has shape {list(host.shape)}, the "
                                 f"model's initializer {list(old.dims)}")
            old.CopyFrom(numpy_helper.from_array(host, name))
        self.release()

    def initialize_inference_session(self, initializer: Any = None) -> None:
        """Make the ONNX Runtime session the call runs (``initializer(model_bytes)``, else a
        CPU session)."""
        data = self._proto.SerializeToString()
        if initializer is not None:
            self._session = initializer(data)
            return
        try:
            import onnxruntime
        except ImportError as exc:
            raise ImportError("running an ONNXProgram needs onnxruntime: pip install "
                              "'arraygrad[onnx]'") from exc
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3
        self._session = onnxruntime.InferenceSession(data, options,
                                                     providers=["CPUExecutionProvider"])

    def release(self) -> None:
        """Drop the inference session (made again at the next call)."""
        self._session = None

    def __call__(self, *args: Any, **kwargs: Any) -> Sequence[Any]:
        """Run the model with ONNX Runtime on ``args``/``kwargs`` (arraygrad tensors, in the
        order of the exported inputs); returns arraygrad tensors."""
        from arraygrad.onnx._trace import tensor_leaves
        from arraygrad.tensor import wrap

        if self._session is None:
            self.initialize_inference_session()
        leaves = tensor_leaves((args, kwargs), [])
        names = [i.name for i in self._session.get_inputs()]
        if len(leaves) > len(names):
            raise ValueError(f"the model takes {len(names)} inputs, got {len(leaves)} tensors")
        backend = leaves[0]._backend if leaves else _default_backend()
        feed = {n: t._backend.to_host(t._data) for n, t in zip(names, leaves)}
        outputs = self._session.run(None, feed)
        return [wrap(backend.from_host(o), backend) for o in outputs]


def _default_backend() -> Any:
    from arraygrad.backends.registry import default_backend
    return default_backend()
