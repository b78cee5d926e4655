"""Whole-op translations of the layers' functions: ``Conv``, ``Gemm``, ``MaxPool``...

Each entry gets the translator and the call's arguments by parameter name (tensors as
slots, ``_regions``) and returns the ONNX value(s) of its result, or None to let the call's
array operations be written one by one instead (an option the ONNX operator lacks, such
as ``return_indices``, a training-mode batch norm, a half-precision input arraygrad
computes in float32, an opset without the operator). Entries are keyed by the function's
module and name, so each one is found however the model reached it.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable

from arraygrad.name_tables import registrar

if TYPE_CHECKING:
    from arraygrad.onnx._translate import Translator

__all__ = ["REGIONS", "codes"]

Entry = Callable[["Translator", dict[str, Any]], Any]
REGIONS: dict[str, Entry] = {}


region = registrar(REGIONS, "Register an entry for the functions ``module:name`` given.")


def codes() -> dict[Any, list[tuple[tuple[str, ...], tuple[Any, ...], str]]]:
    """What the call observer looks for: the code object of every function with an entry
    -> ``(free variable names, their values, key)`` for each function running that code
    (functions a factory makes share one code object: their closures tell them apart)."""
    import importlib
    import inspect

    found: dict[Any, list[tuple[tuple[str, ...], tuple[Any, ...], str]]] = {}
    for key in REGIONS:
        module, name = key.split(":")
        fn = getattr(importlib.import_module(module), name, None)
        if fn is None:
            continue
        fn = inspect.unwrap(fn)
        cells = tuple(c.cell_contents for c in fn.__closure__ or ())
        found.setdefault(fn.__code__, []).append((fn.__code__.co_freevars, cells, key))
    return found


def _float(t: "Translator", *values: Any) -> bool:
    """Whether every tensor among ``values`` is float32 or float64 (what the ONNX operators
    compute as arraygrad does; half precision arraygrad computes in float32)."""
    g = t.g
    return all(v is None or t.elem(v) in (g.T.FLOAT, g.T.DOUBLE) for v in values)


def _tuple(value: Any, n: int) -> list[int]:
    if isinstance(value, (tuple, list)):
        return [int(v) for v in value] if len(value) == n else [int(value[0])] * n
    return [int(value)] * n


def _batched(t: "Translator", x: Any, spatial: int) -> tuple[str, bool]:
    """The input with a batch axis (PyTorch's layers take an unbatched input too)."""
    value = t.value(x)
    if t.rank(x) == spatial + 1:
        return t.g.unsqueeze(value, [0]), True
    return value, False


def _unbatched(t: "Translator", value: str, added: bool) -> str:
    return t.g.squeeze(value, [0]) if added else value


# -- convolution and linear -------------------------------------------------------------------

def _convolution(t: "Translator", a: dict[str, Any], onnx_op: str, pads: list[int],
                 **attrs: Any) -> str:
    """``Conv``/``ConvTranspose`` of the call's input, weight and bias (a batch axis added
    around an unbatched input)."""
    x, w, b = a["input"], a["weight"], a["bias"]
    n = t.rank(w) - 2
    value, added = _batched(t, x, n)
    inputs = [value, t.value(w)] + ([] if b is None else [t.value(b)])
    out = t.g.node(onnx_op, inputs, kernel_shape=[int(k) for k in t.shape(w)[2:]],
                   strides=_tuple(a["stride"], n), pads=pads,
                   dilations=_tuple(a["dilation"], n), group=int(a["groups"]), **attrs)
    return _unbatched(t, out, added)


@region("arraygrad.nn._functional.conv:conv1d", "arraygrad.nn._functional.conv:conv2d",
        "arraygrad.nn._functional.conv:conv3d")
def _conv(t: "Translator", a: dict[str, Any]) -> Any:
    if not _float(t, a["input"], a["weight"], a["bias"]):
        return None
    n = t.rank(a["weight"]) - 2
    padding = a["padding"]
    if padding == "valid":
        pads = [0] * (2 * n)
    elif padding == "same":  # (PyTorch's split: the odd one on the end side)
        kernel = t.shape(a["weight"])[2:]
        total = [d * (int(k) - 1) for d, k in zip(_tuple(a["dilation"], n), kernel)]
        pads = [p // 2 for p in total] + [p - p // 2 for p in total]
    else:
        pads = _tuple(padding, n) * 2
    return _convolution(t, a, "Conv", pads)


@region("arraygrad.nn._functional.conv:conv_transpose1d",
        "arraygrad.nn._functional.conv:conv_transpose2d",
        "arraygrad.nn._functional.conv:conv_transpose3d")
def _conv_transpose(t: "Translator", a: dict[str, Any]) -> Any:
    if not _float(t, a["input"], a["weight"], a["bias"]):
        return None
    n = t.rank(a["weight"]) - 2
    extra = _tuple(a["output_padding"], n)
    if any(o >= s for o, s in zip(extra, _tuple(a["stride"], n))):
        return None  # (PyTorch allows it below the dilation too; ONNX Runtime refuses it)
    return _convolution(t, a, "ConvTranspose", _tuple(a["padding"], n) * 2,
                        output_padding=extra)


@region("arraygrad.nn._functional.linear:linear")
def _linear(t: "Translator", a: dict[str, Any]) -> Any:
    x, w, b = a["input"], a["weight"], a["bias"]
    if not _float(t, x, w, b) or t.rank(w) != 2 or (b is not None and t.rank(b) > 1):
        return None
    g = t.g
    if t.rank(x) == 2:
        inputs = [t.value(x), t.value(w)] + ([] if b is None else [t.value(b)])
        return g.node("Gemm", inputs, transB=1)
    out = g.node("MatMul", [t.value(x), g.node("Transpose", [t.value(w)], perm=[1, 0])])
    return out if b is None else g.node("Add", [out, t.value(b)])


# -- normalization ----------------------------------------------------------------------------

@region("arraygrad.nn._functional.normalization:batch_norm")
def _batch_norm(t: "Translator", a: dict[str, Any]) -> Any:
    x, mean, var = a["input"], a["running_mean"], a["running_var"]
    w, b = a["weight"], a["bias"]
    if a["training"] or mean is None or var is None or not _float(t, x, mean, var, w, b):
        return None
    g = t.g
    channels = t.shape(x)[1]
    elem = t.array_elem(x)
    if (w is None or b is None) and channels.__class__ is not int:
        return None
    scale = t.value(w) if w is not None else g.const([1.0] * channels, elem, [channels])
    shift = t.value(b) if b is not None else g.const([0.0] * channels, elem, [channels])
    return g.node("BatchNormalization", [t.value(x), scale, shift, t.value(mean), t.value(var)],
                  epsilon=float(a["eps"]))


@region("arraygrad.nn._functional.normalization:layer_norm")
def _layer_norm(t: "Translator", a: dict[str, Any]) -> Any:
    x, w, b = a["input"], a["weight"], a["bias"]
    if t.g.opset < 17 or not _float(t, x, w, b):
        return None
    g = t.g
    shape = a["normalized_shape"]
    shape = [int(shape)] if isinstance(shape, int) else [int(s) for s in shape]
    elem = t.array_elem(x)
    size = math.prod(shape)
    scale = t.value(w) if w is not None else g.const([1.0] * size, elem, shape)
    inputs = [t.value(x), scale] + ([] if b is None else [t.value(b)])
    return g.node("LayerNormalization", inputs, axis=-len(shape), epsilon=float(a["eps"]))


# -- pooling ----------------------------------------------------------------------------------

def _pool_dims(a: dict[str, Any], n: int) -> tuple[list[int], list[int], list[int]]:
    kernel = _tuple(a["kernel_size"], n)
    stride = kernel if a["stride"] is None or a["stride"] == [] or a["stride"] == () else \
        _tuple(a["stride"], n)
    p = _tuple(a["padding"], n)
    return kernel, stride, p + p


def _max_pool(n: int) -> Entry:
    def entry(t: "Translator", a: dict[str, Any]) -> Any:
        x = a["input"]
        if a["return_indices"] or not _float(t, x):
            return None
        kernel, stride, pads = _pool_dims(a, n)
        value, added = _batched(t, x, n)
        out = t.g.node("MaxPool", [value], kernel_shape=kernel, strides=stride, pads=pads,
                       dilations=_tuple(a["dilation"], n), ceil_mode=int(bool(a["ceil_mode"])))
        return _unbatched(t, out, added)
    return entry


def _avg_pool(n: int) -> Entry:
    def entry(t: "Translator", a: dict[str, Any]) -> Any:
        x = a["input"]
        if a.get("divisor_override") is not None or not _float(t, x):
            return None
        kernel, stride, pads = _pool_dims(a, n)
        value, added = _batched(t, x, n)
        out = t.g.node("AveragePool", [value], kernel_shape=kernel, strides=stride, pads=pads,
                       ceil_mode=int(bool(a["ceil_mode"])),
                       count_include_pad=int(bool(a["count_include_pad"])))
        return _unbatched(t, out, added)
    return entry


def _adaptive_avg_pool(n: int) -> Entry:
    def entry(t: "Translator", a: dict[str, Any]) -> Any:
        x = a["input"]
        if not _float(t, x):
            return None
        sizes = t.shape(x)[-n:]
        out = a["output_size"]
        out = list(out) if isinstance(out, (tuple, list)) else [out] * n
        out = [s if o is None else o for o, s in zip(out, sizes)]
        value, added = _batched(t, x, n)
        if all(o == 1 for o in out):
            result = t.g.node("GlobalAveragePool", [value])
        elif all(s.__class__ is int and o.__class__ is int and s % o == 0
                 for s, o in zip(sizes, out)):
            kernel = [s // o for s, o in zip(sizes, out)]
            result = t.g.node("AveragePool", [value], kernel_shape=kernel, strides=kernel)
        else:
            return None
        return _unbatched(t, result, added)
    return entry


for _n in (1, 2, 3):
    REGIONS[f"arraygrad.nn._functional.pooling:max_pool{_n}d"] = _max_pool(_n)
    REGIONS[f"arraygrad.nn._functional.pooling:avg_pool{_n}d"] = _avg_pool(_n)
    REGIONS[f"arraygrad.nn._functional.pooling:adaptive_avg_pool{_n}d"] = _adaptive_avg_pool(_n)


# -- activations ------------------------------------------------------------------------------

def _on_input(build: Callable[["Translator", dict[str, Any], str], str]) -> Entry:
    """An activation written by ``build(t, args, input's value)``; an in-place call, or a
    half-precision one, is left to its array calls."""
    def entry(t: "Translator", a: dict[str, Any]) -> Any:
        x = a["input"]
        if not _float(t, x) or a.get("inplace"):
            return None
        return build(t, a, t.value(x))
    return entry


def _activation(onnx_op: str, **attrs: str) -> Entry:
    """``onnx_op``, each attribute from the argument ``attrs`` names (``alpha="alpha"``)."""
    def build(t: "Translator", a: dict[str, Any], x: str) -> str:
        values: dict[str, Any] = {k: float(a[v]) for k, v in attrs.items()}
        return t.g.node(onnx_op, [x], **values)
    return _on_input(build)


def _silu(t: "Translator", a: dict[str, Any], x: str) -> str:
    return t.g.node("Mul", [x, t.g.node("Sigmoid", [x])])


def _clip(t: "Translator", a: dict[str, Any], x: str) -> str:
    elem = t.array_elem(a["input"])
    return t.g.node("Clip", [x, t.g.const(a["min_val"], elem), t.g.const(a["max_val"], elem)])


_ACT = "arraygrad.nn._functional.activation:"
REGIONS["arraygrad.ops.elementwise:relu"] = _activation("Relu")
REGIONS[_ACT + "relu"] = _activation("Relu")
REGIONS["arraygrad.ops.elementwise:sigmoid"] = _activation("Sigmoid")
REGIONS[_ACT + "leaky_relu"] = _activation("LeakyRelu", alpha="negative_slope")
REGIONS[_ACT + "elu"] = _activation("Elu", alpha="alpha")
REGIONS[_ACT + "silu"] = _on_input(_silu)
REGIONS[_ACT + "hardtanh"] = _on_input(_clip)


@region(_ACT + "gelu")
def _gelu(t: "Translator", a: dict[str, Any]) -> Any:
    x = a["input"]
    if t.g.opset < 20 or not _float(t, x):
        return None  # (before opset 20: the call's erf/tanh formula, written op by op)
    return t.g.node("Gelu", [t.value(x)], approximate=a["approximate"])


def _softmax(onnx_op: str) -> Entry:
    def entry(t: "Translator", a: dict[str, Any]) -> Any:
        x, dim = a["input"], a["dim"]
        if dim is None or t.rank(x) == 0 or (a["dtype"] is None and not _float(t, x)):
            return None
        value = t.value(x)
        if a["dtype"] is not None:
            from arraygrad.onnx._graph import elem_type
            backend = t.g.backend
            native = backend.native_dtype(a["dtype"])
            if elem_type(t.g.onnx, backend, native) not in (t.g.T.FLOAT, t.g.T.DOUBLE):
                return None
            value = t.g.cast(value, elem_type(t.g.onnx, backend, native))
        return t.g.node(onnx_op, [value], axis=int(dim) % t.rank(x))
    return entry


REGIONS["arraygrad.ops.activation:softmax"] = _softmax("Softmax")
REGIONS["arraygrad.ops.activation:log_softmax"] = _softmax("LogSoftmax")


_PAD_MODES = {"constant": "constant", "reflect": "reflect", "replicate": "edge",
              "circular": "wrap"}


@region("arraygrad.nn._functional.padding:pad")
def _pad(t: "Translator", a: dict[str, Any]) -> Any:
    x, mode = a["input"], a["mode"]
    amounts = a["pad"]
    if not isinstance(amounts, (tuple, list)) or not all(isinstance(p, int) for p in amounts):
        return None
    onnx_mode = _PAD_MODES.get(mode)
    if onnx_mode is None or (mode == "circular" and t.g.opset < 19) or len(amounts) % 2:
        return None
    g = t.g
    rank = t.rank(x)
    begins, ends = [0] * rank, [0] * rank
    for i in range(len(amounts) // 2):  # (PyTorch's order: the last axis first)
        begins[rank - 1 - i], ends[rank - 1 - i] = int(amounts[2 * i]), int(amounts[2 * i + 1])
    inputs = [t.value(x), g.ints(begins + ends)]
    if mode == "constant":
        fill = a["value"]
        inputs.append(g.const(0 if fill is None else fill, t.array_elem(x)))
    return g.node("Pad", inputs, mode=onnx_mode)


@region("arraygrad.nn._functional.linear:dropout")
def _dropout(t: "Translator", a: dict[str, Any]) -> Any:
    if a["training"] and a["p"] > 0:
        return None  # (random draws: the array calls raise the exporter's error)
    return t.value(a["input"])


@region("arraygrad.nn._functional.linear:embedding")
def _embedding(t: "Translator", a: dict[str, Any]) -> Any:
    if a["max_norm"] is not None:
        return None  # (it renormalises the weight in place)
    g = t.g
    return g.node("Gather", [t.value(a["weight"]), t.value(a["input"], g.T.INT64)], axis=0)
