"""Matrix products: ``matmul`` (batched, with NumPy's 1-D rules), ``mm``, ``bmm``, ``dot``, ``outer``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arraygrad.ops.arguments import tensor_arg
from arraygrad.ops.kernel_dtypes import check_kernel_dtype
from arraygrad.allocation_errors import out_of_memory
from arraygrad.amp import state as _amp
from arraygrad.ops.broadcast import broadcast_shapes
from arraygrad.ops.conjugate import conj_of
from arraygrad.ops.promotion import same_backend
from arraygrad.ops.rule import defop
from arraygrad.tensor import Tensor
from arraygrad.tensor_sparse import SparseTensor, sparse_ops

if TYPE_CHECKING:
    from arraygrad.ops.rule import RuleNode

__all__ = ["matmul", "mm", "bmm", "dot", "outer", "mv"]


def _matmul_vjp(g: Tensor, n: RuleNode) -> tuple[Any, ...]:
    """Both operands' gradients (joint: they share the copy of an expanded ``g``).

    Each is the product with the other operand's conjugate (a complex product's gradient:
    ``g @ b^H``, ``a^H @ g``) on NumPy's 1-D rules; the recorder sums broadcast batch
    dimensions back to the operand's shape.
    """
    want_a, want_b = n.needs_input_grad
    # ``a`` is read by b's gradient only, and the other way round: conjugate what is read
    a = conj_of(n.self) if want_b else n.self
    b = conj_of(n.other) if want_a else n.other
    if g._strides is not None and 0 in g._strides:
        # an expanded gradient (e.g. from sum()): BLAS cannot read stride-0 rows, so the
        # library would copy it for each product below (~10% of a 1024^2 matmul each time);
        # one row-major copy here serves both
        g = g.contiguous()
    if a.ndim == 1 and b.ndim == 1:
        return (g * b if want_a else None), (g * a if want_b else None)
    ga = gb = None
    if want_a:
        if b.ndim == 1:
            ga = g.unsqueeze(-1) * b
        elif a.ndim == 1:
            ga = matmul(b, g.unsqueeze(-1)).squeeze(-1)
        else:
            ga = matmul(g, b.transpose(-1, -2))
    if want_b:
        if b.ndim == 1:
            gb = matmul(a.transpose(-1, -2), g.unsqueeze(-1)).squeeze(-1)
        elif a.ndim == 1:
            gb = a.unsqueeze(-1) * g.unsqueeze(-2)
        else:
            gb = matmul(a.transpose(-1, -2), g)
    return ga, gb


def _matmul_jvp(ta: Tensor | None, tb: Tensor | None, n: RuleNode) -> Tensor | None:
    # bilinear: d(a @ b) = da @ b + a @ db
    out = None if ta is None else matmul(ta, n.other)
    if tb is not None:
        part = matmul(n.self, tb)
        out = part if out is None else out + part
    return out


def _matmul_grad_data(gd: Any, n: RuleNode, backend: Any) -> tuple[Any, Any] | None:
    """``_matmul_vjp`` on native arrays for real operands of at least 2 dimensions (the
    recorder sums broadcast batch dimensions back); None for the others (vectors' rules,
    complex conjugates), which take the vjp."""
    a = n.saved_data("self")
    b = n.saved_data("other")
    if a.ndim < 2 or b.ndim < 2 or a.dtype in backend.complex_natives:
        return None
    want_a, want_b = n._next
    if want_a is not None and want_b is not None and 0 in getattr(gd, "strides", ()):
        # a broadcast gradient (sum()'s first-order one): BLAS cannot read stride-0 rows, so
        # each product below would copy it; one copy serves both (the vjp's ``contiguous``)
        gd = backend.xp.asarray(gd, copy=True)
    matmul_ = backend.xp.matmul
    if hasattr(a, "mT"):  # the standard's attribute: a view made in C (the hot path's)
        return (None if want_a is None else matmul_(gd, b.mT),
                None if want_b is None else matmul_(a.mT, gd))
    mT = backend.xp.matrix_transpose  # a library whose arrays lack the attribute (Dask's)
    return (None if want_a is None else matmul_(gd, mT(b)),
            None if want_b is None else matmul_(mT(a), gd))


def _product_rule(name: str, exact: bool = False) -> Any:
    # one formula; PyTorch names the node after the operands' ranks. ``exact``: no batch
    # dimensions to broadcast (vectors and matrices), so each gradient has its operand's
    # shape and dtype (``_check`` wants one dtype) and the recorder keeps no metadata
    return defop(name, jvp=_matmul_jvp, inputs=("self", "other"), saves=("self", "other"),
                 vjp=_matmul_vjp, first_order=_matmul_grad_data, complex=True, exact=exact)


_RULE_BY_NDIM = {(1, 1): _product_rule("DotBackward0", True),
                 (2, 1): _product_rule("MvBackward0", True),
                 (2, 2): _product_rule("MmBackward0", True), (3, 3): _product_rule("BmmBackward0")}
_BATCHED = _product_rule("UnsafeViewBackward0")  # any other ranks: batched, broadcast


def _check(op: str, a: Tensor, b: Tensor) -> None:
    if not isinstance(a, Tensor) or not isinstance(b, Tensor):
        raise TypeError(f"{op}: expected Tensors, got {type(a).__name__} and {type(b).__name__}")
    if a._backend is not b._backend:  # (one backend, the common case, needs no call)
        same_backend(op, a, b)
    sa, sb = a._data.shape, b._data.shape
    if len(sa) == 0 or len(sb) == 0:
        raise RuntimeError(f"{op}: both arguments need at least 1 dimension, got {len(sa)}D and {len(sb)}D tensors")
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(
            f"{op}: expected both operands to have the same dtype, but got {a.dtype} and {b.dtype}")
    k_a = sa[-1]
    k_b = sb[0] if len(sb) == 1 else sb[-2]
    if k_a != k_b:
        raise RuntimeError(
            f"{op}: shapes cannot be multiplied ({'x'.join(map(str, sa))} and "
            f"{'x'.join(map(str, sb))}): inner dimensions {k_a} and {k_b} differ")
    if len(sa) > 2 or len(sb) > 2:
        broadcast_shapes(op + " (batch dimensions)", sa[:-2], sb[:-2])


def matmul(input: Tensor, other: Tensor) -> Tensor:
    """Matrix product with NumPy's rules: 1-D operands are vectors, leading dims broadcast."""
    if input.__class__ is SparseTensor or other.__class__ is SparseTensor:
        return sparse_ops.matmul(input, other)
    if _amp.on:  # autocast (arraygrad.amp.state)
        input, other = _amp.cast("matmul", input, other)
    return _matmul("matmul", input, other)


def _matmul(op: str, input: Tensor, other: Tensor) -> Tensor:
    _check(op, input, other)
    backend = input._backend
    if input._data.dtype not in backend.floating_natives:  # (the check: only where it speaks)
        check_kernel_dtype("matmul", input)
    if other._backend is not backend:  # distinct devices raise; inside vmap: the batched one's
        backend = same_backend(op, input, other)
    try:  # ``allocating``'s translation inline: a decorator's frame on every product
        data = backend.xp.matmul(input._data, other._data)
    except MemoryError as exc:
        raise out_of_memory(exc, "matmul") from exc
    rule = _RULE_BY_NDIM.get((input._data.ndim, other._data.ndim), _BATCHED)
    return rule.record(data, backend, (input, other))


def widened(op: str, input: Tensor, other: Tensor, out_dtype: Any) -> tuple[Tensor, Tensor]:
    """The operands of a product asked for in ``out_dtype`` (PyTorch's ``out_dtype=``): the
    inputs' own dtype, or float32 for float16 inputs, whose product then accumulates in
    float32."""
    if out_dtype is None or out_dtype == input.dtype:
        return input, other
    if input.dtype.name in ("float16", "bfloat16") and out_dtype.name == "float32":
        return input.to(out_dtype), other.to(out_dtype)
    raise RuntimeError(f"{op}: out_dtype must be the same as input dtype or fp32 for fp16/bf16 "
                       f"inputs, got input {input.dtype} and out_dtype {out_dtype}")


def mm(input: Tensor, mat2: Tensor, *, out_dtype: Any = None) -> Tensor:
    """Product of two matrices (both 2-D); ``out_dtype=float32`` accumulates float16 inputs in
    float32."""
    if input.__class__ is SparseTensor or mat2.__class__ is SparseTensor:
        return sparse_ops.mm(input, mat2, out_dtype=out_dtype)
    if _amp.on:  # autocast (arraygrad.amp.state)
        input, mat2 = _amp.cast("mm", input, mat2)
    if input.ndim != 2 or mat2.ndim != 2:
        raise RuntimeError(f"mm: expected 2-D tensors, got {input.ndim}-D and {mat2.ndim}-D")
    if out_dtype is not None:
        input, mat2 = widened("mm", input, mat2, out_dtype)
    return _matmul("mm", input, mat2)


def bmm(input: Tensor, mat2: Tensor, *, out_dtype: Any = None) -> Tensor:
    """Batched matrix product: ``(b, n, m) @ (b, m, p)`` (``out_dtype`` as ``mm``'s)."""
    if _amp.on:  # autocast (arraygrad.amp.state)
        input, mat2 = _amp.cast("bmm", input, mat2)
    if input.ndim != 3 or mat2.ndim != 3:
        raise RuntimeError(f"bmm: expected 3-D tensors, got {input.ndim}-D and {mat2.ndim}-D")
    if input.shape[0] != mat2.shape[0]:
        raise RuntimeError(
            f"bmm: batch sizes differ: {list(input.shape)} and {list(mat2.shape)}")
    if out_dtype is not None:
        input, mat2 = widened("bmm", input, mat2, out_dtype)
    return _matmul("bmm", input, mat2)


def mv(input: Tensor, vec: Tensor) -> Tensor:
    """Matrix-vector product."""
    if _amp.on:  # autocast (arraygrad.amp.state)
        input, vec = _amp.cast("mv", input, vec)
    if input.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"mv: expected a 2-D and a 1-D tensor, got {input.ndim}-D and {vec.ndim}-D")
    return _matmul("mv", input, vec)


def dot(input: Tensor, other: Tensor | None = None, *, tensor: Tensor | None = None) -> Tensor:
    """Inner product of two 1-D tensors of the same length (``tensor=`` is the name PyTorch's
    argument parser gives the second)."""
    if tensor is not None:
        if other is not None:
            raise TypeError("dot() got both 'other' and 'tensor'")
        other = tensor
    if other is None:
        raise TypeError("dot() missing 1 required positional argument: 'tensor'")
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(
            f"dot: 1D tensors expected, but got {input.ndim}D and {other.ndim}D tensors")
    if input.shape[0] != other.shape[0]:
        raise RuntimeError(
            f"dot: inconsistent tensor size, expected tensor [{input.shape[0]}] and src "
            f"[{other.shape[0]}] to have the same number of elements, but got "
            f"{input.shape[0]} and {other.shape[0]} elements respectively")
    return _matmul("dot", input, other)


def outer(input: Tensor, vec2: Tensor) -> Tensor:
    """Outer product of two 1-D tensors."""
    tensor_arg("outer", input)
    if input.ndim != 1 or vec2.ndim != 1:
        raise RuntimeError(f"outer: expected 1-D tensors, got {input.ndim}-D and {vec2.ndim}-D")
    return input.unsqueeze(1) * vec2.unsqueeze(0)
