"""Recording one forward of the model with the compile recorder: the program to export.

The inputs, parameters and buffers get traced arrays (``compiler.session.Session``), the
model runs once under ``no_grad`` with ``is_in_onnx_export()`` True and the calls of known
functions observed (``_regions``); then every tensor holds its real array again and the
state is put back as it was (``compiler.state.Snapshot``: parameters, buffers, training
flags, random generators), so an export changes nothing. The recorded instructions are run
again on the starting arrays (``_interpret``): that gives every slot's shape and dtype, and
proves the program is the whole forward (it must give the forward's outputs exactly).
"""

from __future__ import annotations

from typing import Any

from arraygrad.autograd.grad_mode import no_grad
from arraygrad.compiler.recording import Recording, Slot
from arraygrad.compiler.session import Session
from arraygrad.compiler.state import Snapshot, discover, layout_of, roots_of
from arraygrad.compiler.traced import TracedArray
from arraygrad.compiler import interpret as _interpret
from arraygrad.onnx._regions import CallObserver, Region, described
from arraygrad.onnx.errors import OnnxExporterError
from arraygrad.onnx.modes import exporting
from arraygrad.ops.rule import reference_mode
from arraygrad.tensor import Tensor

__all__ = ["Trace", "record", "tensor_leaves"]

_PACKAGES = ("arraygrad", "numpy", "array_api_compat", "cupy")


class Trace:
    """One recorded forward: ``instrs`` (replay units recorded op by op), ``regions`` (the
    outermost observed calls), ``inputs`` (the slot of each input tensor, in order),
    ``state`` (slot -> the parameter's or buffer's name), ``constants`` (the slots of the
    other tensors the forward may read: a tensor attribute, a global), ``outputs`` (each output tensor's
    ``Slot``, or its array when the recording did not make it), ``initial`` (the arrays the
    program starts from: the tensors' own), ``arrays`` (every slot's array after the
    program, run again), ``backend`` (the real one)."""

    def __init__(self, rec: Recording, regions: list[Region], inputs: list[int],
                 state: dict[int, str], outputs: list[Any], backend: Any) -> None:
        self.instrs = rec.instrs
        self.regions = regions
        self.inputs = inputs
        self.state = state
        self.outputs = outputs
        self.backend = backend
        self.base = rec.base
        self.sites: list[str] = getattr(rec.instrs, "sites", [])
        self.constants: list[int] = []  # slots of the other tensors found: constants
        self.initial: dict[int, Any] = {}  # the arrays of the slots read at the start
        self.arrays: dict[int, Any] = {}


def tensor_leaves(value: Any, out: list[Any], depth: int = 0, outputs: bool = False) -> list[Any]:
    """The tensors in ``value`` (nested tuples, lists and dicts), in order (``out``).
    ``outputs``: a model's result, where None is passed over and any other value raises."""
    if isinstance(value, Tensor):
        out.append(value)
    elif isinstance(value, (tuple, list)) and depth < 8:
        for v in value:
            tensor_leaves(v, out, depth + 1, outputs)
    elif isinstance(value, dict) and depth < 8:
        for v in value.values():
            tensor_leaves(v, out, depth + 1, outputs)
    elif outputs and value is not None:
        raise OnnxExporterError(f"the model returned a {type(value).__name__} ({value!r}); "
                                "an exported model's outputs are tensors (in tuples, lists "
                                "or dicts)")
    return out


class CallSites(list[Any]):
    """A recording's instruction list that also notes where each instruction was made
    (``sites``: the arraygrad function making the call, and the line of the model's code
    that called it), for the exporter's errors."""

    def __init__(self) -> None:
        super().__init__()
        self.sites: list[str] = []

    def append(self, ins: Any) -> None:
        import sys
        super().append(ins)
        self.sites.append(_site(sys._getframe(1)))


# arraygrad's machinery and generic wrappers (``out=``): never the operation a site names
_INTERNAL = ("arraygrad.compiler", "arraygrad.onnx", "arraygrad.tensor_methods",
             "arraygrad.ops.rule", "arraygrad.ops.out_arg")


def _site(frame: Any) -> str:
    """``in `op` (at file:line)``: the outermost arraygrad function below the model's own
    code (or a layer's ``forward``), and the line that called it."""
    op = ""
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        code = frame.f_code
        if not module.split(".")[0].startswith(_PACKAGES) or \
                module.startswith("arraygrad.nn.modules"):
            where = f"{code.co_filename}:{frame.f_lineno}"
            if module.startswith("arraygrad.nn.modules"):
                where = f"{code.co_qualname} ({where})"
            return f"in arraygrad's `{op}`, called at {where}" if op else f"at {where}"
        if module.startswith("arraygrad") and not module.startswith(_INTERNAL):
            op = f"{module.removeprefix('arraygrad.')}.{code.co_name}"
        frame = frame.f_back
    return f"in arraygrad's `{op}`" if op else ""


def _on_break(reason: str) -> None:
    import sys
    raise OnnxExporterError(
        f"the forward cannot be exported as a graph: {reason} ({_site(sys._getframe(1))}). "
        "An ONNX graph computes its outputs from its inputs alone: keep values as tensors in "
        "the forward (no `.item()`, `if tensor:`, `print(tensor)`, shapes that depend on "
        "values)")


def _no_draws(rec: Recording) -> None:
    """Random numbers cannot be exported: a graph would repeat the example's (dropout in
    training mode is the usual cause)."""
    for i, ins in enumerate(rec.instrs):
        name = getattr(ins.fn, "__name__", "")
        if name.startswith("draw_"):
            sites = getattr(rec.instrs, "sites", [])
            where = sites[i] if i < len(sites) else ""
            raise OnnxExporterError(
                f"the forward draws random numbers ({name[5:]}, {where}): a layer in training "
                "mode (Dropout)? Call model.eval() before exporting (an exported graph "
                "computes inference)")


def record(model: Any, args: tuple[Any, ...], kwargs: dict[str, Any],
           state: list[tuple[str, Tensor]], codes: dict[Any, list[Any]]) -> Trace:
    """Run ``model(*args, **kwargs)`` once, recorded, and put everything back."""
    inputs = tensor_leaves((args, kwargs), [])
    # every tensor the forward may touch, as compile finds them (the module's parameters,
    # buffers and tensor attributes; the tensors a function's closure and globals hold):
    # the recording follows each one, and those that are no input nor state are constants
    found = discover(layout_of(roots_of(getattr(model, "forward", model))), args, kwargs)
    seen = {id(t) for t in found.tensors}
    for _, t in state:
        if id(t) not in seen:
            seen.add(id(t))
            found.tensors.append(t)
    backends = {id(t._backend): t._backend for t in found.tensors}
    if len(backends) > 1:
        devices = sorted({str(b.device) for b in backends.values()})
        raise OnnxExporterError(f"the model's inputs, parameters and buffers are on several "
                                f"devices ({', '.join(devices)}): move them to one first")
    if not backends:
        from arraygrad.backends.registry import default_backend
        real = default_backend()
    else:
        real = next(iter(backends.values()))
    snapshot = Snapshot(found)
    rec = Recording(real, _on_break)
    rec.whole_units = False  # every array call of a unit's body is an instruction
    rec.instrs = CallSites()
    session = Session(rec, real, found, snapshot.tensors)
    observer = CallObserver(rec, codes)
    result: Any = None
    try:
        session.start()
        try:
            # (fast paths off: a shortcut chosen by reading values, as cross_entropy's for
            # targets that are all classes, would be the graph for every input)
            with no_grad(), reference_mode(), exporting(), observer:
                result = model(*args, **kwargs)
        finally:
            session.stop()
        outputs = [described(t, rec) for t in tensor_leaves(result, [], outputs=True)]
    finally:
        session.restore_all(None, result)
        snapshot.restore()
    # (``rec.guards``: arraygrad's own checks on values, an index in range, made on the
    # example inputs; as PyTorch's exported graphs, the graph does not repeat them. With the
    # fast paths off no guard chooses what to compute.)
    slots = {id(found.tensors[i]): k for i, k in session.inputs}
    input_slots = [slots[id(t)] for t in inputs]
    names: dict[int, str] = {}
    for name, t in state:
        names.setdefault(slots[id(t)], name)
    for k in input_slots:
        names.pop(k, None)  # a tensor passed as an input is that input
    _no_draws(rec)
    trace = Trace(rec, observer.roots, input_slots, names, outputs, real)
    trace.constants = [k for _, k in session.inputs if k not in names and k not in input_slots]
    trace.initial = {k: found.tensors[i]._data for i, k in session.inputs}
    written = {rec.base.get(k, k) for ins in trace.instrs if not ins.pure for k in ins.reads}
    start = {k: _copy(real, a) if k in written else a  # (the run writes these: copies)
             for k, a in trace.initial.items()}
    try:
        trace.arrays = _interpret.run(trace.instrs, start)
    except _interpret.NotRunnable as exc:
        raise OnnxExporterError(f"the exporter cannot run the recorded forward again: {exc}") \
            from None
    _check_outputs(trace, result)
    return trace


def _copy(backend: Any, array: Any) -> Any:
    return backend.xp.astype(array, array.dtype, copy=True)


def _check_outputs(trace: Trace, result: Any) -> None:
    """The program run again must give the forward's outputs (else it is not the whole
    forward: some work happened outside the recorder's sight)."""
    xp = trace.backend.xp
    for out, t in zip(trace.outputs, tensor_leaves(result, [], outputs=True)):
        if out.__class__ is not Slot:
            continue
        got, want = trace.arrays.get(out.k), t._data
        if want.__class__ is TracedArray:  # pragma: no cover - restored before this
            want = want._a
        same = (got is not None and got.shape == want.shape and got.dtype == want.dtype
                and bool(xp.all((got == want) | ((got != got) & (want != want)))))
        if not same:
            raise OnnxExporterError(
                "the recorded forward does not reproduce the model's output (some of its "
                "work was done outside the array namespace the recorder follows); it cannot "
                "be exported")
