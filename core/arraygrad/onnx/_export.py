"""``arraygrad.onnx.export``: PyTorch's signature, checks and options, around the recording
(``_trace``), the sizes of dynamic axes (``_dims``), the translation (``_translate``) and
the writing (``_save``)."""

from __future__ import annotations

import inspect
import io
import os
import warnings
from typing import Any, Callable, Collection, Mapping, Sequence

from arraygrad.onnx import _dims, _trace
from arraygrad.onnx._dims import Axis, SymInt
from arraygrad.onnx._graph import Graph
from arraygrad.onnx._program import ONNXProgram
from arraygrad.onnx._translate import Translator
from arraygrad.onnx.errors import OnnxExporterError
from arraygrad.onnx.modes import OperatorExportTypes, TrainingMode, model_mode
from arraygrad.tensor import Tensor

__all__ = ["export", "DEFAULT_OPSET", "MIN_OPSET", "MAX_OPSET"]

DEFAULT_OPSET = 20  # PyTorch 2.13's default (torch.onnx._constants.ONNX_DEFAULT_OPSET)
MIN_OPSET = 13  # the reductions' and Squeeze's forms this exporter writes start here
MAX_OPSET = 23  # PyTorch's highest (ONNX_MAX_OPSET)


def _onnx() -> Any:
    try:
        import onnx
        import onnx.checker
        import onnx.helper
        import onnx.numpy_helper
        import onnx.printer
    except ImportError as exc:
        raise ImportError("arraygrad.onnx.export needs the onnx package: pip install "
                          "'arraygrad[onnx]' (onnx, and onnxruntime to run the model)") from exc
    return onnx


def export(model: Any, args: Any = (), f: str | os.PathLike[str] | Any = None, *,
           kwargs: dict[str, Any] | None = None, verbose: bool | None = None,
           input_names: Sequence[str] | None = None,
           output_names: Sequence[str] | None = None, opset_version: int | None = None,
           dynamo: bool = True, external_data: bool = True,
           dynamic_shapes: dict[str, Any] | tuple[Any, ...] | list[Any] | None = None,
           custom_translation_table: dict[Callable[..., Any], Callable[..., Any]] | None = None,
           report: bool = False, optimize: bool = True, verify: bool = False,
           profile: bool = False, dump_exported_program: bool = False,
           artifacts_dir: str | os.PathLike[str] = ".", export_params: bool = True,
           keep_initializers_as_inputs: bool = False,
           dynamic_axes: Mapping[str, Mapping[int, str]] | Mapping[str, Sequence[int]] | None = None,
           training: TrainingMode = TrainingMode.EVAL,
           operator_export_type: OperatorExportTypes = OperatorExportTypes.ONNX,
           do_constant_folding: bool = True, custom_opsets: Mapping[str, int] | None = None,
           export_modules_as_functions: bool | Collection[type] = False,
           autograd_inlining: bool = True) -> ONNXProgram | None:
    """Export ``model`` (an ``nn.Module`` or a function of tensors) to ONNX, as
    ``torch.onnx.export``: one forward on ``args`` (and ``kwargs``) is recorded and written
    as an ONNX graph; parameters and buffers become initializers named by their state-dict
    keys.

    Returns an ``ONNXProgram`` (``dynamo=True``, PyTorch's default) or None
    (``dynamo=False``); with ``f`` (a path or a binary file object) the model is also
    written there (with ``dynamo=True`` and a path, the weights go to ``<f>.data`` beside
    it unless ``external_data=False``). ``dynamic_axes`` (or ``dynamic_shapes``) names the
    axes whose size may change: the graph computes every size that follows them.

    >>> model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)).eval()
    >>> arraygrad.onnx.export(model, (arraygrad.randn(3, 4),), "mlp.onnx", input_names=["x"],
    ...                       dynamic_axes={"x": {0: "batch"}}, external_data=False)
    """
    onnx = _onnx()
    _check_options(dynamo, custom_translation_table, report, profile, dump_exported_program,
                   operator_export_type, custom_opsets, export_modules_as_functions,
                   dynamic_shapes, training)
    opset = DEFAULT_OPSET if opset_version is None else opset_version
    if not isinstance(opset, int) or not MIN_OPSET <= opset <= MAX_OPSET:
        raise ValueError(f"Unsupported ONNX opset version: {opset_version} (arraygrad exports "
                         f"opsets {MIN_OPSET} to {MAX_OPSET})")
    if isinstance(args, Tensor):
        args = (args,)
    elif not isinstance(args, (tuple, list)):
        args = (args,)
    args = tuple(args)
    if kwargs is None and args and isinstance(args[-1], dict):
        args, kwargs = args[:-1], args[-1]
    kwargs = dict(kwargs or {})
    if dynamo:
        if getattr(model, "training", False):
            warnings.warn("Exporting a model while it is in training mode. Please ensure that "
                          "this is intended, as it may lead to different behavior during "
                          "inference. Calling model.eval() before export is recommended.",
                          UserWarning, stacklevel=2)
        mode = TrainingMode.PRESERVE
    else:
        if not isinstance(training, TrainingMode):
            raise TypeError(f"'training' should be a torch.onnx.TrainingMode enum, but got "
                            f"'{type(training)}'.")
        mode = training
    with model_mode(model, mode):
        proto = _build(onnx, model, args, kwargs, input_names, output_names, opset,
                       dynamic_axes, dynamic_shapes, do_constant_folding,
                       params_as_inputs=not dynamo and not export_params)
        try:
            onnx.checker.check_model(_checkable(proto))
        except onnx.checker.ValidationError as exc:
            raise OnnxExporterError(f"the exported model is not valid ONNX ({exc}): a bug "
                                    "of arraygrad's exporter") from exc
        program = ONNXProgram(proto)
        if verify:
            _verify(program, model, args, kwargs)
    if verbose:
        print(onnx.printer.to_text(proto.graph))
    if f is not None:
        from arraygrad.onnx._save import save_model
        if dynamo and isinstance(f, io.BytesIO):
            warnings.warn("Saving ONNX model to a BytesIO object is deprecated. Please use a "
                          "file path instead.", DeprecationWarning, stacklevel=2)
        if dynamo:
            save_model(proto, f, include_initializers=export_params,
                       keep_initializers_as_inputs=keep_initializers_as_inputs,
                       external_data=external_data if isinstance(f, (str, os.PathLike))
                       else False)
        else:
            save_model(proto, f, keep_initializers_as_inputs=keep_initializers_as_inputs,
                       external_data=None)
    return program if dynamo else None


def _checkable(proto: Any) -> Any:
    """``proto``, or past protobuf's 2 GB the same graph with its initializers as inputs
    (the checker takes a model in memory only below it)."""
    from arraygrad.onnx._save import LARGE_MODEL_BYTES, with_initializers
    if sum(len(t.raw_data) for t in proto.graph.initializer) <= LARGE_MODEL_BYTES // 2:
        return proto
    return with_initializers(proto, include=False, as_inputs=True)


def _check_options(dynamo: bool, table: Any, report: bool, profile: bool, dump: bool,
                   operator_export_type: Any, custom_opsets: Any, as_functions: Any,
                   dynamic_shapes: Any, training: Any) -> None:
    """The options arraygrad cannot honour raise here, before anything is recorded."""
    if table:
        raise NotImplementedError("arraygrad.onnx.export: custom_translation_table is not "
                                  "supported (it holds ONNX Script functions for torch.export "
                                  "graphs, which arraygrad does not make)")
    for name, on in (("report", report), ("profile", profile),
                     ("dump_exported_program", dump)):
        if on:
            raise NotImplementedError(f"arraygrad.onnx.export: {name}=True is not supported "
                                      "(PyTorch writes it from its torch.export program)")
    if operator_export_type not in (OperatorExportTypes.ONNX, 0):
        raise ValueError(f"arraygrad.onnx.export writes standard ONNX operators only "
                         f"(operator_export_type=OperatorExportTypes.ONNX), got "
                         f"{operator_export_type}")
    if custom_opsets:
        raise ValueError("arraygrad.onnx.export writes the default ONNX domain only; "
                         f"custom_opsets={dict(custom_opsets)!r} has nothing to apply to")
    if as_functions:
        raise NotImplementedError("arraygrad.onnx.export: export_modules_as_functions is not "
                                  "supported (the graph is written flat)")
    if dynamic_shapes is not None and not dynamo:
        raise ValueError("The exporter only supports dynamic shapes through parameter "
                         "dynamic_axes when dynamo=False.")


# -- names --------------------------------------------------------------------------------------

def _parameter_names(model: Any, nargs: int) -> list[str]:
    """The names of the forward's first ``nargs`` positional parameters (``args_<i>`` past
    them or for ``*args``)."""
    fn = model.forward if hasattr(model, "forward") else model
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        params = []
    names = []
    for i in range(nargs):
        p = params[i] if i < len(params) else None
        if p is None or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            names.append(f"args_{i}")
        else:
            names.append(p.name)
    return names


def _default_input_names(model: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[str]:
    """A name for each input tensor: its forward parameter's, ``<name>_<i>`` inside a
    container."""
    names: list[str] = []
    for name, value in list(zip(_parameter_names(model, len(args)), args)) + list(kwargs.items()):
        leaves = _trace.tensor_leaves(value, [])
        if isinstance(value, Tensor):
            names.append(name)
        else:
            names.extend(f"{name}_{i}" for i in range(len(leaves)))
    return names


def _names(given: Sequence[str] | None, defaults: list[str], what: str) -> list[str]:
    if given is None:
        return defaults
    given = list(given)
    if len(given) > len(defaults):
        raise RuntimeError(f"number of {what} names provided ({len(given)}) exceeded number of "
                           f"{what}s ({len(defaults)})")
    names = given + defaults[len(given):]
    if len(set(names)) != len(names):
        raise ValueError(f"arraygrad.onnx.export: the {what} names {names} are not unique")
    return names


# -- dynamic axes -------------------------------------------------------------------------------

def _axes_of(dynamic_axes: Any, dynamic_shapes: Any, input_names: list[str],
             output_names: list[str], model: Any, args: tuple[Any, ...],
             kwargs: dict[str, Any]) -> tuple[dict[int, dict[int, str]], dict[int, dict[int, str]]]:
    """``(input index -> {axis: name}, output index -> {axis: name})``."""
    inputs: dict[int, dict[int, str]] = {}
    outputs: dict[int, dict[int, str]] = {}
    if dynamic_shapes is not None:
        _from_dynamic_shapes(dynamic_shapes, model, args, kwargs, inputs)
    for key, axes in (dynamic_axes or {}).items():
        if isinstance(axes, Mapping):
            named = {int(a): str(n) for a, n in axes.items()}
        elif isinstance(axes, (list, tuple)):
            named = {int(a): f"{key}_dynamic_axes_{i + 1}" for i, a in enumerate(axes)}
        else:
            raise ValueError("Unsupported dynamic_axes format. Please provide a dict or a list.")
        if key in input_names:
            inputs.setdefault(input_names.index(key), {}).update(named)
        elif key in output_names:
            outputs.setdefault(output_names.index(key), {}).update(named)
        else:
            warnings.warn(f"Provided key {key} for dynamic axes is not a valid input/output "
                          "name", UserWarning, stacklevel=4)
    return inputs, outputs


def _from_dynamic_shapes(shapes: Any, model: Any, args: tuple[Any, ...],
                         kwargs: dict[str, Any], inputs: dict[int, dict[int, str]]) -> None:
    """``dynamic_shapes`` (by parameter name, or in the order of the arguments; per tensor
    ``{axis: name}``, a ``Dim``-like object giving its ``__name__``) as axes per input."""
    params = _parameter_names(model, len(args))
    values = list(zip(params, args)) + list(kwargs.items())
    if isinstance(shapes, Mapping):
        per_value = [shapes.get(name) for name, _ in values]
    else:
        per_value = list(shapes) + [None] * (len(values) - len(shapes))
    index = 0
    for (name, value), spec in zip(values, per_value):
        leaves = _trace.tensor_leaves(value, [])
        specs = [spec] if isinstance(value, Tensor) else list(spec or [None] * len(leaves))
        for j, s in enumerate(specs[:len(leaves)]):
            if s:
                if not isinstance(s, Mapping):
                    s = dict(enumerate(s))
                inputs[index + j] = {int(a): _dim_name(d, f"{name}_dim_{a}")
                                     for a, d in s.items() if d is not None}
        index += len(leaves)


def _dim_name(d: Any, default: str) -> str:
    if isinstance(d, str):
        return d
    name = getattr(d, "__name__", None)
    return name if isinstance(name, str) and name != "DYNAMIC" else default


def _grown(value: Any, leaves: list[Tensor], axes: dict[int, dict[int, str]],
           factors: dict[str, int], memo: dict[int, Any]) -> Any:
    """``value`` with each input tensor repeated along its dynamic axes (``factors``: how
    many times, per axis name)."""
    if isinstance(value, Tensor):
        if id(value) in memo:
            return memo[id(value)]
        from arraygrad import cat
        i = next(j for j, t in enumerate(leaves) if t is value)
        grown = value
        for a, name in sorted(axes.get(i, {}).items()):
            n = factors.get(name, 1)
            if n > 1:
                grown = cat([grown] * n, dim=a)
        memo[id(value)] = grown
        return grown
    if isinstance(value, (tuple, list)):
        return type(value)(_grown(v, leaves, axes, factors, memo) for v in value)
    if isinstance(value, dict):
        return {k: _grown(v, leaves, axes, factors, memo) for k, v in value.items()}
    return value


# -- the graph ----------------------------------------------------------------------------------

def _build(onnx: Any, model: Any, args: tuple[Any, ...], kwargs: dict[str, Any],
           input_names: Sequence[str] | None, output_names: Sequence[str] | None, opset: int,
           dynamic_axes: Any, dynamic_shapes: Any, folding: bool,
           params_as_inputs: bool) -> Any:
    from arraygrad.onnx._nn_ops import codes

    leaves = _trace.tensor_leaves((args, kwargs), [])
    in_names = _names(input_names, _default_input_names(model, args, kwargs), "input")
    state: list[tuple[str, Tensor]] = []
    if hasattr(model, "named_parameters"):
        state = list(model.named_parameters()) + list(model.named_buffers())
    table = codes()
    base = _trace.record(model, args, kwargs, state, table)
    out_names = _names(output_names, [f"output_{i}" for i in range(len(base.outputs))],
                       "output")
    in_axes, out_axes = _axes_of(dynamic_axes, dynamic_shapes, in_names, out_names, model,
                                 args, kwargs)
    axes = _dynamic_axes(in_axes, leaves)
    if axes:
        sizes = [{n: a.size for n, a in axes.items()}]
        traces = [base]
        for name in list(axes) + [None]:
            factors = {n: (3 if name is None else 2 if n == name else 1) for n in axes}
            memo: dict[int, Any] = {}
            grown_args = _grown(args, leaves, in_axes, factors, memo)
            grown_kwargs = _grown(kwargs, leaves, in_axes, factors, memo)
            sizes.append({n: a.size * factors[n] for n, a in axes.items()})
            traces.append(_trace.record(model, grown_args, grown_kwargs, state, table))
        instrs = _dims.symbolic_program(traces, sizes)
        shapes = _dims.symbolic_shapes(traces, sizes)
        _dims.keep_matching_regions(traces)
    else:
        instrs = base.instrs
        shapes = {k: tuple(a.shape) for k, a in base.arrays.items()}
    return _model(onnx, base, instrs, shapes, axes, in_names, in_axes, out_names, out_axes,
                  opset, folding, params_as_inputs)


def _dynamic_axes(in_axes: dict[int, dict[int, str]], leaves: list[Tensor]) -> dict[str, Axis]:
    """The dynamic axes by name (``in_axes``' negative axes made positive, in place)."""
    axes: dict[str, Axis] = {}
    for i, named in sorted(in_axes.items()):
        ndim = leaves[i].ndim if i < len(leaves) else 0
        for a in list(named):
            if not -ndim <= a < ndim:
                raise ValueError(f"dynamic axis {a} ({named[a]!r}) of input {i}: the input "
                                 f"has {ndim} dimensions")
            named[a % ndim] = named.pop(a)
        for a, name in sorted(named.items()):
            size = int(leaves[i].shape[a])
            if name in axes and axes[name].size != size:
                raise ValueError(f"dynamic axis {name!r} has size {axes[name].size} in one "
                                 f"input and {size} in another")
            axes.setdefault(name, Axis(name, size, i, a))
    return axes


def _value_info(onnx: Any, g: Graph, name: str, elem: int, shape: tuple[Any, ...],
                names: dict[int, str]) -> Any:
    dims: list[Any] = []
    for i, d in enumerate(shape):
        if i in names:
            dims.append(names[i])
        elif d.__class__ is SymInt:
            dims.append(d.is_axis() or d.text())
        else:
            dims.append(int(d))
    return onnx.helper.make_tensor_value_info(name, elem, dims)


def _model(onnx: Any, base: Any, instrs: list[Any], shapes: dict[int, tuple[Any, ...]],
           axes: dict[str, Axis], in_names: list[str], in_axes: dict[int, dict[int, str]],
           out_names: list[str], out_axes: dict[int, dict[int, str]], opset: int,
           folding: bool, params_as_inputs: bool) -> Any:
    from arraygrad import __version__
    from arraygrad.compiler.recording import Slot

    g = Graph(onnx, opset, base.backend)
    taken = set(base.state.values())
    for name in in_names + out_names:
        if name in taken:
            raise ValueError(f"arraygrad.onnx.export: the name {name!r} is both an input's or "
                             "output's and a parameter's or buffer's: rename the input or output")
    for name in in_names + out_names + list(base.state.values()):
        g.reserve(name)  # (no value the translation makes takes one of these names)
    inputs = []
    for i, (k, name) in enumerate(zip(base.inputs, in_names)):
        elem = g.elem(base.arrays[k].dtype)
        g.types[name] = elem
        inputs.append(_value_info(onnx, g, name, elem, shapes[k], in_axes.get(i, {})))
    env: dict[int, str] = {}
    for k, name in zip(base.inputs, in_names):
        env.setdefault(k, name)
    state_values: dict[str, Any] = {}
    for k, name in base.state.items():
        env[k] = name
        g.types[name] = g.elem(base.arrays[k].dtype)
        state_values[name] = k
    for k in base.constants:  # (dropped with the unused nodes when nothing reads them)
        env.setdefault(k, g.array_const(base.initial[k]))
    sites = base.sites

    def calls(i: int) -> str:
        return sites[i] if i < len(sites) else ""

    translator = Translator(g, instrs, base.regions, shapes, base.arrays, axes,
                            list(in_names), base.outputs, calls, base.base, folding)
    translator.env = env
    translator.run()
    outputs = []
    renames: dict[str, str] = {}
    for i, (out, name) in enumerate(zip(base.outputs, out_names)):
        if out.__class__ is Slot:
            value = translator.env[out.k]
            shape = shapes[out.k]
            elem = g.elem(base.arrays[out.k].dtype)
        else:
            value = translator.value(out)
            shape = tuple(out.shape)
            elem = g.elem(out.dtype)
        value = renames.get(value, value)
        if _produced_by_node(g, value) and value not in renames.values():
            renames[value] = name
            _rename(g, value, name)
        else:
            g.nodes.append(onnx.helper.make_node("Identity", [value], [name],
                                                 name=g.fresh("node_Identity")))
        outputs.append(_value_info(onnx, g, name, elem, shape, out_axes.get(i, {})))
    used = _prune(g, [o.name for o in outputs])
    initializers = []
    param_inputs = []
    for name, k in state_values.items():
        if name not in used:
            continue
        if params_as_inputs:
            param_inputs.append(onnx.helper.make_tensor_value_info(
                name, g.types[name], list(base.arrays[k].shape)))
        else:
            initializers.append(_initializer(g, name, base.initial[k]))
    graph = onnx.helper.make_graph(g.nodes, "main_graph", inputs + param_inputs, outputs,
                                   initializer=initializers)
    opset_ids = [onnx.helper.make_opsetid("", opset)]
    model = onnx.helper.make_model(graph, opset_imports=opset_ids,
                                   producer_name="arraygrad", producer_version=__version__)
    model.ir_version = onnx.helper.find_min_ir_version_for(opset_ids)
    return model


def _initializer(g: Graph, name: str, array: Any) -> Any:
    from onnx import numpy_helper
    return numpy_helper.from_array(g.backend.to_host(array), name)


def _produced_by_node(g: Graph, value: str) -> bool:
    return any(value in n.output for n in g.nodes if n.op_type != "Constant")


def _rename(g: Graph, old: str, new: str) -> None:
    for n in g.nodes:
        for field in (n.input, n.output):
            for j, v in enumerate(field):
                if v == old:
                    field[j] = new
    g.types[new] = g.types.get(old, g.types.get(new, 0))


def _prune(g: Graph, outputs: list[str]) -> set[str]:
    """Drop the nodes no output depends on; return every value name still read."""
    needed = set(outputs)
    kept = []
    for n in reversed(g.nodes):
        if any(o in needed for o in n.output):
            kept.append(n)
            needed.update(i for i in n.input if i)
    kept.reverse()
    g.nodes[:] = kept
    return needed


def _verify(program: ONNXProgram, model: Any, args: tuple[Any, ...],
            kwargs: dict[str, Any]) -> None:
    """``verify=True``: ONNX Runtime must give the model's outputs (float32 tolerance)."""
    from arraygrad.autograd.grad_mode import no_grad
    with no_grad():
        want = _trace.tensor_leaves(model(*args, **kwargs), [])
    got = program(*args, **kwargs)
    for i, (w, o) in enumerate(zip(want, got)):
        wd, od = w.double(), o.double()
        if tuple(wd.shape) != tuple(od.shape) or not bool(
                ((wd - od).abs() <= 1e-4 + 1e-3 * wd.abs()).all()):
            raise OnnxExporterError(f"verify: ONNX Runtime's output {i} differs from the "
                                    "model's")
