"""``assert_close``: PyTorch's comparison of (nested) tensors, numbers, booleans and None, with
its default tolerances per dtype and its error messages ("Tensor-likes are not close!", the
mismatched-element count, the greatest absolute and relative differences and their indices).

Inputs are paired by recursing through sequences and mappings; each pair is checked and the
first failure raised, its message naming the item (``The failure occurred for item [0]``).
"""

from __future__ import annotations

import cmath
import collections.abc
import contextlib
import warnings
from typing import Any, Callable, NoReturn

from arraygrad import dtypes as _dt
from arraygrad.tensor import Tensor

# {dtype: (rtol, atol)}, PyTorch's; dtypes not listed compare exactly
_DTYPE_PRECISIONS: dict[_dt.dtype, tuple[float, float]] = {
    _dt.float16: (0.001, 1e-5),
    _dt.float32: (1.3e-6, 1e-5),
    _dt.float64: (1e-7, 1e-7),
}
_PYTHON_DTYPES = {int: _dt.int64, float: _dt.float64}
_PYTHON_PRECISIONS = {complex: (1e-7, 1e-7)}  # complex128's, for Python complex numbers


class ErrorMeta(Exception):
    """A failed comparison: the error class and message to raise, and the item it occurred for."""

    def __init__(self, type: type[Exception], msg: str, *, id: tuple[Any, ...] = ()) -> None:
        super().__init__(msg)
        self.type = type
        self.msg = msg
        self.id = id

    def to_error(self, msg: str | Callable[[str], str] | None = None) -> Exception:
        """The exception to raise; a string ``msg`` replaces the message, a callable edits it."""
        if not isinstance(msg, str):
            generated = self.msg
            if self.id:
                generated += ("\n\nThe failure occurred for item "
                              f"{''.join(str([item]) for item in self.id)}")
            msg = msg(generated) if callable(msg) else generated
        return self.type(msg)


def default_tolerances(*inputs: Any) -> tuple[float, float]:
    """The loosest ``(rtol, atol)`` of the inputs' dtypes (tensors or dtypes)."""
    rtols, atols = [], []
    for item in inputs:
        dtype = item.dtype if isinstance(item, Tensor) else item
        if not isinstance(dtype, _dt.dtype):
            raise TypeError(f"Expected a torch.Tensor or a torch.dtype, but got {type(item)} "
                            "instead.")
        rtol, atol = _DTYPE_PRECISIONS.get(dtype, (0.0, 0.0))
        rtols.append(rtol)
        atols.append(atol)
    return max(rtols), max(atols)


def _tolerances(defaults: tuple[float, float], rtol: float | None, atol: float | None,
                id: tuple[Any, ...]) -> tuple[float, float]:
    if (rtol is None) ^ (atol is None):
        raise ErrorMeta(ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, "
                        f"but got no {'rtol' if rtol is None else 'atol'}.", id=id)
    if rtol is not None and atol is not None:
        return rtol, atol
    return defaults


def _mismatch_msg(*, identifier: str | Callable[[str], str] | None, default: str,
                  extra: str | None, abs_diff: float, abs_idx: tuple[int, ...] | None,
                  atol: float, rel_diff: float, rel_idx: tuple[int, ...] | None,
                  rtol: float) -> str:
    equality = rtol == 0 and atol == 0

    def diff_msg(kind: str, diff: float, idx: tuple[int, ...] | None, tol: float) -> str:
        text = (f"{kind.title()} difference: {diff}" if idx is None
                else f"Greatest {kind} difference: {diff} at index {idx}")
        if not equality:
            text += f" (up to {tol} allowed)"
        return text + "\n"

    name = default if identifier is None else (
        identifier(default) if callable(identifier) else identifier)
    msg = f"{name} are not {'equal' if equality else 'close'}!\n\n"
    if extra:
        msg += f"{extra.strip()}\n"
    msg += diff_msg("absolute", abs_diff, abs_idx, atol)
    msg += diff_msg("relative", rel_diff, rel_idx, rtol)
    return msg.strip()


def make_scalar_mismatch_msg(actual: Any, expected: Any, *, rtol: float, atol: float,
                             identifier: str | Callable[[str], str] | None = None) -> str:
    """PyTorch's message for two numbers that are not close."""
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_msg(identifier=identifier, default="Scalars",
                         extra=f"Expected {expected} but got {actual}.", abs_diff=abs_diff,
                         abs_idx=None, atol=atol, rel_diff=rel_diff, rel_idx=None, rtol=rtol)


def make_tensor_mismatch_msg(actual: Tensor, expected: Tensor, matches: Tensor, *, rtol: float,
                             atol: float,
                             identifier: str | Callable[[str], str] | None = None) -> str:
    """PyTorch's message for two tensors that are not close: how many elements mismatch, and
    the greatest absolute and relative differences among them with their indices."""
    import arraygrad

    def unravel(flat: int) -> tuple[int, ...]:
        index = []
        for size in tuple(matches.shape)[::-1]:
            flat, mod = divmod(flat, size)
            index.append(mod)
        return tuple(index[::-1])

    total = matches.numel()
    mismatches = total - int(arraygrad.sum(matches.to(_dt.int64)).item())
    extra = f"Mismatched elements: {mismatches} / {total} ({mismatches / total:.1%})"
    a, e, m = actual.flatten(), expected.flatten(), matches.flatten()
    if not a.dtype.is_floating_point:  # integers (and bools) subtract without overflow in int64
        a, e = a.to(_dt.int64), e.to(_dt.int64)
    abs_diff = arraygrad.where(m, arraygrad.zeros_like(a), arraygrad.abs(a - e))
    max_abs, abs_at = arraygrad.max(abs_diff, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a zero expected gives inf/nan, as in PyTorch
        rel = abs_diff / arraygrad.abs(e)
    rel = arraygrad.where(m, arraygrad.zeros_like(rel), rel)
    max_rel, rel_at = arraygrad.max(rel, 0)
    return _mismatch_msg(identifier=identifier, default="Tensor-likes", extra=extra,
                         abs_diff=max_abs.item(), abs_idx=unravel(int(abs_at)), atol=atol,
                         rel_diff=max_rel.item(), rel_idx=unravel(int(rel_at)), rtol=rtol)


def _fail(type: type[Exception], msg: str, id: tuple[Any, ...]) -> NoReturn:
    raise ErrorMeta(type, msg, id=id)


def _compare_none(actual: Any, expected: Any, id: tuple[Any, ...], **_: Any) -> None:
    if not (actual is None and expected is None):
        _fail(AssertionError, f"None mismatch: {actual} is not {expected}", id)


def _compare_bool(actual: Any, expected: Any, id: tuple[Any, ...], **_: Any) -> None:
    if actual is not expected:
        _fail(AssertionError, f"Booleans mismatch: {actual} is not {expected}", id)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, complex)) and not isinstance(value, bool)


def _compare_number(actual: Any, expected: Any, id: tuple[Any, ...], *, rtol: float | None,
                    atol: float | None, equal_nan: bool, check_dtype: bool, **_: Any) -> None:
    precisions = [_PYTHON_PRECISIONS.get(type(v)) or _DTYPE_PRECISIONS.get(
        _PYTHON_DTYPES.get(type(v), _dt.int64), (0.0, 0.0)) for v in (actual, expected)]
    defaults = (max(p[0] for p in precisions), max(p[1] for p in precisions))
    rtol, atol = _tolerances(defaults, rtol, atol, id)
    if check_dtype and type(actual) is not type(expected):
        _fail(AssertionError, f"The (d)types do not match: {type(actual)} != {type(expected)}.",
              id)
    if actual == expected:
        return
    if equal_nan and cmath.isnan(actual) and cmath.isnan(expected):
        return
    abs_diff = abs(actual - expected)
    if cmath.isfinite(abs_diff) and abs_diff <= atol + rtol * abs(expected):
        return
    _fail(AssertionError, make_scalar_mismatch_msg(actual, expected, rtol=rtol, atol=atol), id)


def _tensor_like(actual: Any, expected: Any, allow_subclasses: bool) -> bool:
    """Whether the pair is one of tensors (or of one tensor-like type ``as_tensor`` takes)."""
    import arraygrad

    if not (isinstance(actual, type(expected)) or isinstance(expected, type(actual))):
        return False
    if not allow_subclasses and type(actual) is not type(expected):
        return False
    if isinstance(actual, Tensor) and isinstance(expected, Tensor):
        return True
    try:
        arraygrad.as_tensor(actual), arraygrad.as_tensor(expected)
    except Exception:
        return False
    return True


def _compare_tensor(actual: Any, expected: Any, id: tuple[Any, ...], *, allow_subclasses: bool,
                    rtol: float | None, atol: float | None, equal_nan: bool, check_device: bool,
                    check_dtype: bool, check_layout: bool, check_stride: bool,
                    **_: Any) -> None:
    import arraygrad

    if not isinstance(actual, Tensor) or not isinstance(expected, Tensor):
        actual, expected = arraygrad.as_tensor(actual), arraygrad.as_tensor(expected)
    rtol, atol = _tolerances(default_tolerances(actual, expected), rtol, atol, id)

    def mismatch(attribute: str, a: Any, e: Any) -> NoReturn:
        _fail(AssertionError,
              f"The values for attribute '{attribute}' do not match: {a} != {e}.", id)

    if actual.shape != expected.shape:
        mismatch("shape", actual.shape, expected.shape)
    if check_stride and actual.stride() != expected.stride():  # arraygrad is strided only
        mismatch("stride()", actual.stride(), expected.stride())
    if check_device and actual.device != expected.device:
        mismatch("device", actual.device, expected.device)
    if check_dtype and actual.dtype != expected.dtype:
        mismatch("dtype", actual.dtype, expected.dtype)
    actual, expected = actual.detach(), expected.detach()
    if actual.device != expected.device:
        actual, expected = actual.cpu(), expected.cpu()
    if actual.dtype != expected.dtype:
        common = arraygrad.promote_types(actual.dtype, expected.dtype)
        actual, expected = actual.to(common), expected.to(common)
    matches = arraygrad.isclose(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan)
    if bool(arraygrad.all(matches)):
        return
    if actual.dim() == 0:
        msg = make_scalar_mismatch_msg(actual.item(), expected.item(), rtol=rtol, atol=atol)
    else:
        msg = make_tensor_mismatch_msg(actual, expected, matches, rtol=rtol, atol=atol)
    _fail(AssertionError, msg, id)


def _comparisons(actual: Any, expected: Any, id: tuple[Any, ...], allow_subclasses: bool,
                 ) -> list[tuple[Callable[..., None], Any, Any, tuple[Any, ...]]]:
    """The leaves to compare, recursing through sequences and mappings as PyTorch does."""
    Seq, Map = collections.abc.Sequence, collections.abc.Mapping
    if isinstance(actual, Seq) and not isinstance(actual, str) and \
            isinstance(expected, Seq) and not isinstance(expected, str):
        if len(actual) != len(expected):
            raise ErrorMeta(AssertionError, "The length of the sequences mismatch: "
                            f"{len(actual)} != {len(expected)}", id=id)
        return [c for i in range(len(actual))
                for c in _comparisons(actual[i], expected[i], (*id, i), allow_subclasses)]
    if isinstance(actual, Map) and isinstance(expected, Map):
        actual_keys, expected_keys = set(actual.keys()), set(expected.keys())
        if actual_keys != expected_keys:
            raise ErrorMeta(AssertionError, (
                "The keys of the mappings do not match:\n"
                f"Missing keys in the actual mapping: {sorted(expected_keys - actual_keys)}\n"
                f"Additional keys in the actual mapping: {sorted(actual_keys - expected_keys)}"),
                id=id)
        keys: Any = actual_keys
        with contextlib.suppress(Exception):
            keys = sorted(keys)
        return [c for k in keys for c in _comparisons(actual[k], expected[k], (*id, k),
                                                      allow_subclasses)]
    return [(_pick(actual, expected, id, allow_subclasses), actual, expected, id)]


def _pick(actual: Any, expected: Any, id: tuple[Any, ...], allow_subclasses: bool,
          ) -> Callable[..., None]:
    """The comparison for this pair: the first of None, bool, number, tensor that takes it."""
    if actual is None or expected is None:
        return _compare_none
    if isinstance(actual, bool) and isinstance(expected, bool):
        return _compare_bool
    if _is_number(actual) and _is_number(expected):
        return _compare_number
    if _tensor_like(actual, expected, allow_subclasses):
        return _compare_tensor
    raise ErrorMeta(TypeError, "No comparison pair was able to handle inputs of type "
                    f"{type(actual)} and {type(expected)}.", id=id)


def assert_close(actual: Any, expected: Any, *, allow_subclasses: bool = True,
                 rtol: float | None = None, atol: float | None = None, equal_nan: bool = False,
                 check_device: bool = True, check_dtype: bool = True, check_layout: bool = True,
                 check_stride: bool = False,
                 msg: str | Callable[[str], str] | None = None) -> None:
    """Assert that ``actual`` and ``expected`` are close, as ``torch.testing.assert_close``.

    Tensors (and tensor-likes), Python numbers, booleans and None are compared, recursing
    through sequences and mappings. Values are close when ``|actual - expected| <= atol + rtol *
    |expected|``; without ``rtol``/``atol`` (give both or neither) the defaults of the dtype
    are used: float16 ``(1e-3, 1e-5)``, float32 ``(1.3e-6, 1e-5)``, float64 ``(1e-7, 1e-7)``,
    exact otherwise. ``check_dtype``/``check_device``/``check_stride`` check those attributes
    first (the shape always); ``check_layout`` has nothing to check (every arraygrad tensor is
    strided). ``msg`` replaces the message (a callable edits the generated one). Failures raise
    AssertionError with PyTorch's message.
    """
    __tracebackhide__ = True
    options = dict(allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
                   check_device=check_device, check_dtype=check_dtype, check_layout=check_layout,
                   check_stride=check_stride)
    try:
        comparisons = _comparisons(actual, expected, (), allow_subclasses)
    except ErrorMeta as meta:
        raise meta.to_error() from None
    for compare, a, e, id in comparisons:
        try:
            compare(a, e, id, **options)
        except ErrorMeta as meta:  # a bad argument (ValueError) keeps its own message
            raise meta.to_error(msg if meta.type is AssertionError else None) from None


def assert_allclose(actual: Any, expected: Any, rtol: float | None = None,
                    atol: float | None = None, equal_nan: bool = True, msg: str = "") -> None:
    """Deprecated (as in PyTorch): ``assert_close`` with the old defaults (float32 ``(1e-4,
    1e-5)``, ``equal_nan=True``, dtypes not checked)."""
    import arraygrad

    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed "
                  "in a future release. Please use `torch.testing.assert_close()` instead. You "
                  "can find detailed upgrade instructions in "
                  "https://github.com/pytorch/pytorch/issues/61844.", FutureWarning, stacklevel=2)
    if not isinstance(actual, Tensor):
        actual = arraygrad.tensor(actual)
    if not isinstance(expected, Tensor):
        expected = arraygrad.tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        old = {_dt.float16: (1e-3, 1e-3), _dt.float32: (1e-4, 1e-5), _dt.float64: (1e-5, 1e-8)}
        pairs = [old.get(t.dtype, (0.0, 0.0)) for t in (actual, expected)]
        rtol, atol = max(p[0] for p in pairs), max(p[1] for p in pairs)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True,
                 check_dtype=False, check_stride=False, msg=msg or None)
