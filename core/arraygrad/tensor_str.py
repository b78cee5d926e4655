"""``repr`` of tensors in PyTorch's format (``tensor([1., 2.], requires_grad=True)``)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arraygrad.tensor import Tensor

__all__ = ["tensor_repr", "format_values", "format_body", "tensor_format", "set_printoptions",
           "get_printoptions", "printoptions"]

# The print options (``set_printoptions``), read at each repr
PRECISION = 4
THRESHOLD: float = 1000
EDGEITEMS = 3
LINEWIDTH = 80
SCI_MODE: bool | None = None  # None: chosen from the values, as PyTorch

_PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80), "full": (4, math.inf, 3, 80)}


def set_printoptions(precision: int | None = None, threshold: float | None = None,
                     edgeitems: int | None = None, linewidth: int | None = None,
                     profile: str | None = None, sci_mode: bool | None = None) -> None:
    """Set how tensors print, as ``torch.set_printoptions``: ``precision`` digits after the
    point, summarise past ``threshold`` elements keeping ``edgeitems`` per end, wrap at
    ``linewidth``; ``profile`` ``"default"``, ``"short"`` or ``"full"`` sets all four first;
    ``sci_mode`` True/False forces scientific notation on or off (None: chosen from the
    values; it is reset by every call, as in PyTorch)."""
    global PRECISION, THRESHOLD, EDGEITEMS, LINEWIDTH, SCI_MODE
    if profile is not None and profile in _PROFILES:
        PRECISION, THRESHOLD, EDGEITEMS, LINEWIDTH = _PROFILES[profile]
    if precision is not None:
        PRECISION = precision
    if threshold is not None:
        THRESHOLD = threshold
    if edgeitems is not None:
        EDGEITEMS = edgeitems
    if linewidth is not None:
        LINEWIDTH = linewidth
    SCI_MODE = sci_mode


def get_printoptions() -> dict[str, Any]:
    """The print options, as keywords ``set_printoptions`` takes."""
    return {"precision": PRECISION, "threshold": THRESHOLD, "edgeitems": EDGEITEMS,
            "linewidth": LINEWIDTH, "sci_mode": SCI_MODE}


class printoptions:
    """``with printoptions(precision=2):``: the options inside the block only."""

    def __init__(self, **kwargs: Any) -> None:
        self.kwargs = kwargs
        self.saved: list[dict[str, Any]] = []

    def __enter__(self) -> None:
        self.saved.append(get_printoptions())
        set_printoptions(**self.kwargs)

    def __exit__(self, *exc: Any) -> None:
        set_printoptions(**self.saved.pop())


class _Formatter:
    """Chooses one format for all elements (fixed, integer-valued, or scientific) and a width."""

    def __init__(self, values: list[Any], floating: bool) -> None:
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        if not floating:
            self.width = max((len(str(v)) for v in values), default=1)
            return
        # as PyTorch: the mode and the width come from the nonzero finite values only
        # (zeros, nan and inf are padded to that width, or overflow it)
        nonzero = [v for v in values if math.isfinite(v) and v != 0]
        if not nonzero:
            return
        finite = [abs(v) for v in nonzero]
        self.int_mode = all(v == math.ceil(v) for v in finite)
        vmax, vmin = max(finite), min(finite)
        if SCI_MODE is not None:
            self.sci_mode = SCI_MODE
        elif self.int_mode:
            self.sci_mode = vmax / vmin > 1000.0 or vmax > 1.0e8
        else:
            self.sci_mode = vmax / vmin > 1000.0 or vmax > 1.0e8 or vmin < 1.0e-4
        self.width = max(len(self.format_plain(v)) for v in nonzero)


    def format_plain(self, v: Any) -> str:
        if not self.floating:
            return str(v)
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        if self.sci_mode:
            return f"{v:.{PRECISION}e}"
        if self.int_mode:
            return f"{v:.0f}."
        return f"{v:.{PRECISION}f}"

    def format(self, v: Any) -> str:
        return self.format_plain(v).rjust(self.width)


class _ComplexFormatter:
    """PyTorch's complex elements: the real parts formatted as one real tensor, the imaginary
    parts as another, joined as ``a+bj`` (the sign of the imaginary part written once)."""

    def __init__(self, values: list[Any]) -> None:
        self.real = _Formatter([v.real for v in values], True)
        self.imag = _Formatter([v.imag for v in values], True)
        self.width = self.real.width + self.imag.width + 1  # the ``j``

    def format(self, v: Any) -> str:
        real = self.real.format(v.real)
        imag = (self.imag.format(v.imag) + "j").lstrip()
        return real + imag if imag[0] in "+-" else real + "+" + imag


def _flatten(values: Any, ndim: int) -> list[Any]:
    if ndim == 0:
        return [values]
    out = []
    stack = [values]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(reversed(item))
        else:
            out.append(item)
    return out


def _format_nested(values: Any, ndim: int, fmt: Any, indent: int, summarize: bool) -> str:
    if ndim == 0:
        return fmt.format(values)
    if ndim == 1:
        items = [" ..." if v is Ellipsis else fmt.format(v) for v in values]  # PyTorch's " ..."
        per_line = max(1, int(math.floor((LINEWIDTH - indent) / (fmt.width + 2))))
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"
    rows = []
    for v in values:
        if v is Ellipsis:
            rows.append("...")
        else:
            rows.append(_format_nested(v, ndim - 1, fmt, indent + 1, summarize))
    sep = "," + "\n" * (ndim - 1) + " " * (indent + 1)
    return "[" + sep.join(rows) + "]"


def format_values(values: Any, shape: tuple[int, ...], floating: bool, indent: int) -> str:
    """The bracketed element text of a tensor whose host values are ``values``."""
    ndim = len(shape)
    summarize = math.prod(shape) > THRESHOLD
    flat = [v for v in _flatten(values, ndim) if v is not Ellipsis]
    fmt: Any
    if flat and isinstance(flat[0], complex):
        fmt = _ComplexFormatter(flat)
    elif any(isinstance(v, bool) for v in flat):
        fmt = _Formatter([str(v) for v in flat], False)
    else:
        fmt = _Formatter(flat, floating)
    return _format_nested(values, ndim, fmt, indent, summarize)


_ALWAYS_IMPLIED = {"int64", "bool"}  # with the default float dtype, not printed


def format_body(t: Tensor, indent: int) -> str:
    """The bracketed elements of dense ``t`` (summarised past the threshold), continuation
    lines indented by ``indent``; ``[]`` when it has none."""
    if t.numel() == 0:
        return "[]"
    shape = tuple(t.shape)
    host = t._backend.to_host(t._data)
    if math.prod(shape) > THRESHOLD:
        values = _summarized_list(host, len(shape))
    else:
        values = host.tolist()
    return format_values(values, shape, t.dtype.is_floating_point and not t.dtype.is_complex,
                         indent)


def tensor_repr(t: Tensor, prefix: str = "tensor(") -> str:
    """PyTorch-shaped repr: values, then dtype/device/requires_grad/grad_fn suffixes."""
    indent = len(prefix)
    shape = tuple(t.shape)
    suffixes = []
    if not t._backend.holds_data:  # the meta device: no values, the size instead
        return _suffixed(prefix + "...", _shape_suffixes(t, shape), t, indent)
    body = format_body(t, indent)
    if t.numel() == 0 and shape != (0,):
        suffixes.append(f"size={shape}")
    dev = t.device
    if dev.type != "cpu":
        suffixes.append(f"device='{dev}'")
    from arraygrad.dtypes import complex64, complex128, float64, get_default_dtype

    default = get_default_dtype()
    # PyTorch's default complex type here: complex128 beside a float64 default, else complex64
    implied = (t.dtype is default or t.dtype.name in _ALWAYS_IMPLIED
               or t.dtype is (complex128 if default is float64 else complex64))
    if not implied or (t.numel() == 0 and t.dtype is not default):
        suffixes.append(f"dtype=arraygrad.{t.dtype.name}")
    return _suffixed(prefix + body, suffixes, t, indent)


def _shape_suffixes(t: Tensor, shape: tuple[int, ...]) -> list[str]:
    """A tensor without values (meta): its device, size and dtype (any but the default), as
    PyTorch prints ``tensor(..., device='meta', size=(2, 3), dtype=torch.int64)``."""
    from arraygrad.dtypes import get_default_dtype

    suffixes = [f"device='{t.device}'", f"size={shape}"]
    if t.dtype is not get_default_dtype():
        suffixes.append(f"dtype=arraygrad.{t.dtype.name}")
    return suffixes


def _suffixed(head: str, suffixes: list[str], t: Tensor, indent: int) -> str:
    """``head``, the suffixes and the autograd one (``grad_fn=`` or ``requires_grad=True``),
    wrapped as PyTorch wraps them (continuation lines indented by ``indent``)."""
    if t._grad_fn is not None:
        suffixes.append(f"grad_fn=<{t._grad_fn.name()}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    return _with_suffixes(head, suffixes, indent) + ")"


def _with_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    """``text`` then ``, suffix`` for each, as PyTorch adds them: a suffix that would pass the
    line width starts a new line, indented under the first element."""
    out = [text]
    last = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last + len(suffix) + 2 > LINEWIDTH:
            out.append(",\n" + " " * indent + suffix)
            last = indent + len(suffix)
        else:
            out.append(", " + suffix)
            last += len(suffix) + 2
    return "".join(out)


def _summarized_list(host: Any, ndim: int) -> Any:
    """Nested lists of a big host array keeping EDGEITEMS per end; ``...`` marks gaps."""
    n = host.shape[0]
    if ndim == 1:
        if n <= 2 * EDGEITEMS:
            return host.tolist()
        return host[:EDGEITEMS].tolist() + [Ellipsis] + host[n - EDGEITEMS:].tolist()
    rows = range(n) if n <= 2 * EDGEITEMS else [
        *range(EDGEITEMS), None, *range(n - EDGEITEMS, n)]
    return [Ellipsis if i is None else _summarized_list(host[i], ndim - 1) for i in rows]


def tensor_format(t: Tensor, format_spec: str) -> str:
    """``format(t, spec)`` as PyTorch: a 0-dim tensor formats its Python value
    (``'{:+.2f}'.format(loss)``); any other tensor takes only the empty spec (its ``str``),
    and a non-empty one is a TypeError."""
    if t.ndim == 0 and t._backend.holds_data:  # (meta: no value, only the empty spec)
        return format(t.item(), format_spec)
    if format_spec:
        raise TypeError("unsupported format string passed to Tensor.__format__")
    return str(t)
