"""The ONNX graph being built: nodes, constants, value names and element types.

A thin layer over the ``onnx`` package's ``helper`` (imported by ``export``, never at
``import arraygrad``): each value has a unique name and a known element type (what the
translators read to insert ``Cast``s where NumPy would promote), small constants are made
once and shared, and the few operators whose inputs changed across opsets (the reductions'
``axes``, ``Squeeze``/``Unsqueeze``) are written for the opset being exported.
"""

from __future__ import annotations

from typing import Any, Sequence

__all__ = ["Graph", "ONNX_TYPES", "elem_type"]

# arraygrad dtype name -> TensorProto member name
ONNX_TYPES = {"float32": "FLOAT", "float64": "DOUBLE", "float16": "FLOAT16",
              "bfloat16": "BFLOAT16", "int64": "INT64", "int32": "INT32", "int16": "INT16",
              "int8": "INT8", "uint8": "UINT8", "bool": "BOOL", "complex64": "COMPLEX64",
              "complex128": "COMPLEX128", "uint16": "UINT16", "uint32": "UINT32",
              "uint64": "UINT64"}

INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)


def elem_type(onnx: Any, backend: Any, native: Any) -> int:
    """The ONNX element type of a backend's native dtype."""
    name = str(backend.arraygrad_dtype(native)).rsplit(".", 1)[-1]
    member = ONNX_TYPES.get(name)
    if member is None:
        from arraygrad.onnx.errors import OnnxExporterError
        raise OnnxExporterError(f"dtype {name} has no ONNX element type")
    return int(getattr(onnx.TensorProto, member))


class Graph:
    """The nodes and values of the graph being built for ``opset``."""

    def __init__(self, onnx: Any, opset: int, backend: Any) -> None:
        self.onnx = onnx
        self.helper = onnx.helper
        self.opset = opset
        self.backend = backend
        self.nodes: list[Any] = []
        self.initializers: list[Any] = []
        self.types: dict[str, int] = {}
        self._used: set[str] = set()
        self._count = 0
        self._consts: dict[Any, str] = {}
        self.T = onnx.TensorProto

    # -- names and types -------------------------------------------------------------
    def fresh(self, hint: str = "v") -> str:
        """A value name not used yet, from ``hint``."""
        name = hint
        while name in self._used:
            self._count += 1
            name = f"{hint}_{self._count}"
        self._used.add(name)
        return name

    def reserve(self, name: str) -> str:
        """Claim ``name`` itself (an input's, an initializer's or an output's)."""
        self._used.add(name)
        return name

    def elem(self, native: Any) -> int:
        """The ONNX element type of native dtype ``native``."""
        return elem_type(self.onnx, self.backend, native)

    # -- nodes --------------------------------------------------------------------------
    def node(self, op: str, inputs: Sequence[str], elem: int | None = None, *,
             outputs: int = 1, domain: str = "", **attrs: Any) -> Any:
        """Add node ``op`` and return its output's name (a list for ``outputs`` > 1).
        ``elem``: the outputs' element type (default: the first input's)."""
        names = [self.fresh(f"{op.lower()}") for _ in range(outputs)]
        attrs = {k: v for k, v in attrs.items() if v is not None}
        self.nodes.append(self.helper.make_node(op, list(inputs), names,
                                                name=self.fresh(f"node_{op}"), domain=domain,
                                                **attrs))
        kind = elem if elem is not None else (self.types.get(inputs[0]) if inputs else None)
        for n in names:
            if kind is not None:
                self.types[n] = kind
        return names[0] if outputs == 1 else names

    def cast(self, name: str, elem: int) -> str:
        """``name`` as element type ``elem`` (itself when it is already)."""
        if self.types.get(name) == elem:
            return name
        return self.node("Cast", [name], elem, to=elem)

    # -- constants ----------------------------------------------------------------------
    def const(self, values: Any, elem: int, dims: Sequence[int] | None = None) -> str:
        """A constant tensor of Python numbers (``dims`` None: a scalar when ``values`` is a
        number, a 1-D tensor when it is a sequence); small ones are shared."""
        flat = list(values) if isinstance(values, (list, tuple)) else [values]
        if dims is None:
            dims = [] if not isinstance(values, (list, tuple)) else [len(flat)]
        key = (elem, tuple(dims), tuple((type(v), v) for v in flat)) if len(flat) <= 64 else None
        if key is not None and key in self._consts:
            return self._consts[key]
        name = self.fresh("const")
        if elem == self.T.BOOL:
            flat = [bool(v) for v in flat]
        elif elem in (self.T.FLOAT, self.T.DOUBLE, self.T.FLOAT16, self.T.BFLOAT16):
            flat = [float(v) for v in flat]
        else:
            flat = [int(v) for v in flat]
        tensor = self.helper.make_tensor(name, elem, list(dims), flat)
        self.nodes.append(self.helper.make_node("Constant", [], [name], name=self.fresh(
            "node_Constant"), value=tensor))
        self.types[name] = elem
        if key is not None:
            self._consts[key] = name
        return name

    def ints(self, values: Sequence[int]) -> str:
        """A 1-D int64 constant."""
        return self.const(list(values), self.T.INT64, [len(values)])

    def array_const(self, array: Any, hint: str = "const") -> str:
        """A constant holding a backend array's values."""
        from onnx import numpy_helper
        host = self.backend.to_host(array)
        name = self.fresh(hint)
        tensor = numpy_helper.from_array(host, name)
        self.nodes.append(self.helper.make_node("Constant", [], [name], name=self.fresh(
            "node_Constant"), value=tensor))
        self.types[name] = tensor.data_type
        return name

    # -- operators whose form depends on the opset --------------------------------------
    def reduce(self, op: str, x: str, axes: Sequence[int] | None, keepdims: bool,
               elem: int | None = None) -> str:
        """``op`` (``ReduceSum``, ``ReduceMax``...) over ``axes`` (None: all)."""
        keep = int(bool(keepdims))
        if axes is not None and len(axes) == 0:
            return self.node("Identity", [x], elem)
        axes_as_input = op == "ReduceSum" or self.opset >= 18
        if axes is None:
            return self.node(op, [x], elem, keepdims=keep)
        if axes_as_input:
            return self.node(op, [x, self.ints(list(axes))], elem, keepdims=keep)
        return self.node(op, [x], elem, keepdims=keep, axes=list(axes))

    def unsqueeze(self, x: str, axes: Sequence[int]) -> str:
        """``x`` with new axes of size 1 at ``axes`` (positions in the result)."""
        if not axes:
            return x
        return self.node("Unsqueeze", [x, self.ints(list(axes))])

    def squeeze(self, x: str, axes: Sequence[int]) -> str:
        """``x`` without the axes ``axes`` (each of size 1)."""
        if not axes:
            return x
        return self.node("Squeeze", [x, self.ints(list(axes))])
