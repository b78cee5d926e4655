"""``linear``, ``bilinear``, ``dropout``, ``embedding`` and ``one_hot``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arraygrad.amp import state as _amp
from arraygrad import dtypes as _dt
from arraygrad.autograd.grad_mode import no_grad
from arraygrad.transform_state import array_kernel
from arraygrad.ops import elementwise as ew, linalg
from arraygrad.ops.casting import opmath_apply
from arraygrad.nn._functional.linear_backward import linear_backward, linear_grad_data
from arraygrad.ops.promotion import same_backend
from arraygrad.ops.rule import VIA_VJP, defop
from arraygrad.ops.value_checks import index_range
from arraygrad.tensor import Tensor

if TYPE_CHECKING:
    from arraygrad.ops.rule import RuleNode
    from arraygrad.backends.contract import Backend

__all__ = ["linear", "bilinear", "dropout", "embedding", "one_hot"]


def _linear_vjp(g: Tensor, n: RuleNode) -> tuple[Any, ...]:
    """The gradients of ``(input, weight, bias)``: one ``LinearBackwardBackward0`` node."""
    need = n.needs_input_grad
    return linear_backward(g, n.input, n.weight, need[0], need[1], len(need) > 2 and need[2])


def _linear_grad_data(gd: Any, n: RuleNode, backend: Backend) -> tuple[Any, ...]:
    """``_linear_vjp`` on arrays (first order): three products, nothing recorded."""
    nxt = n._next  # which inputs need a gradient (``needs_input_grad``, without the tuple)
    need_w = nxt[1] is not None
    x = n.saved_data("input") if need_w else None
    return linear_grad_data(backend, gd, x, n.saved_data("weight"), nxt[0] is not None, need_w,
                            len(nxt) > 2 and nxt[2] is not None)


# every gradient reads the weight (its shape at least); the input only the weight's (as
# PyTorch's addmm, which saves mat1 only for mat2's gradient)
ADDMM = defop("AddmmBackward0", jvp=VIA_VJP, inputs=("input", "weight", "bias"), saves=("input", "weight"),
              uses=(("weight",), ("input", "weight"), ("weight",)),
              vjp=_linear_vjp, first_order=_linear_grad_data, exact=True)
# a 0-d bias is broadcast: its gradient is summed back by the recorder (so not ``exact``)
ADDMM_SCALAR_BIAS = defop("AddmmBackward0", jvp=VIA_VJP, key="AddmmScalarBiasBackward0",
                          inputs=("input", "weight", "bias"), saves=("input", "weight"),
                          uses=(("weight",), ("input", "weight"), ("weight",)),
                          vjp=_linear_vjp, first_order=_linear_grad_data)
# without a bias: the same products under PyTorch's name for them
MM = defop("MmBackward0", jvp=VIA_VJP, key="LinearMmBackward0", inputs=("input", "weight"),
           saves=("input", "weight"), uses=(("weight",), ("input", "weight")), vjp=_linear_vjp,
           first_order=_linear_grad_data, exact=True)


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Any:
    """``input @ weight.T + bias``, recorded as one node (PyTorch's ``AddmmBackward0``)."""
    if _amp.on:  # autocast (arraygrad.amp.state)
        input, weight, bias = _amp.cast("linear", input, weight, bias)
    if not isinstance(input, Tensor) or weight._data.ndim != 2 or input._data.ndim == 0:
        out = linalg.matmul(input, weight.t()) if weight.ndim == 2 else linalg.matmul(input, weight)
        return out if bias is None else out + bias
    backend = input._backend
    if weight._backend is not backend or (bias is not None and bias._backend is not backend):
        # raises for distinct devices; inside vmap, the batching backend of the batched operand
        backend = same_backend("linear", input, weight, *(() if bias is None else (bias,)))
    x, w = input._data, weight._data
    out_f, in_f = w.shape
    if x.shape[-1] != in_f:
        raise RuntimeError(
            f"linear: mat1 and mat2 shapes cannot be multiplied "
            f"({'x'.join(map(str, x.shape))} and {in_f}x{out_f})")
    if x.dtype != w.dtype or (bias is not None and bias._data.dtype != w.dtype):
        raise RuntimeError(
            f"linear: expected input, weight and bias to have the same dtype, but got "
            f"{input.dtype}, {weight.dtype}" + (f" and {bias.dtype}" if bias is not None else ""))
    if bias is not None and bias._data.shape not in ((out_f,), ()):
        raise RuntimeError(f"linear: bias of shape {list(bias.shape)} does not match "
                           f"{out_f} output features")
    if bias is not None:
        b = bias._data
        if x.dtype in backend.reduced_floating_natives:  # addmm: one rounding, as PyTorch
            f32 = backend.native_dtype(_dt.float32)
            xp = backend.xp
            data = opmath_apply(backend, lambda a: linear_data(
                backend, a, xp.astype(w, f32), xp.astype(b, f32)), x)
        else:
            data = linear_data(backend, x, w, b)
        rule = ADDMM if bias._data.ndim else ADDMM_SCALAR_BIAS
        return rule.record(data, backend, (input, weight, bias))
    return MM.record(linear_data(backend, x, w, None), backend, (input, weight))


@array_kernel
def linear_data(backend: Backend, x: Any, w: Any, b: Any) -> Any:
    """``x @ w.T + b`` on arrays (``b`` None: no bias), ``x`` of any rank >= 1."""
    xp = backend.xp
    out_f, in_f = w.shape
    if x.ndim > 2:  # one 2-D product: NumPy's stacked matmul with w.T skips BLAS (~10x slower)
        data = xp.reshape(xp.matmul(xp.reshape(x, (-1, in_f)), w.T), (*x.shape[:-1], out_f))
    else:
        data = xp.matmul(x, w.T)  # .T: the standard's attribute for 2-D arrays
    if b is not None:
        if backend.array_type is None or type(data) is backend.array_type:
            data += b  # the product is a fresh array: no second one for the sum
        else:  # inside vmap: a batched bias after an unbatched product makes the sum batched
            data = data + b
    return data


def bilinear(input1: Any, input2: Any, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``y[..., k] = x1 @ weight[k] @ x2 + bias[k]`` with ``weight`` of shape (out, in1, in2)."""
    out_f, in1, in2 = weight.shape
    if input1.shape[-1] != in1 or input2.shape[-1] != in2:
        raise RuntimeError(
            f"bilinear(): input sizes {list(input1.shape)} and {list(input2.shape)} do not match "
            f"weight of shape {list(weight.shape)}")
    # x1 @ W viewed as (in1, out*in2): one matmul, then a product with x2 summed over in2
    w = weight.permute(1, 0, 2).reshape(in1, out_f * in2)
    tmp = linalg.matmul(input1, w).reshape(*input1.shape[:-1], out_f, in2)
    out = (tmp * input2.unsqueeze(-2)).sum(-1)
    return out if bias is None else out + bias


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)`` (training only)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    from arraygrad.creation import rand

    backend = input._backend
    xp = backend.xp
    if p == 1.0:
        scale = xp.zeros(input._data.shape, dtype=input._data.dtype)
    else:
        u = rand(*input.shape, dtype=input.dtype, device=input.device)._data
        keep = xp.astype(u >= p, input._data.dtype)
        scale = keep * (1.0 / (1.0 - p))
    out = input * Tensor._wrap(scale, backend)
    return input.copy_(out) if inplace else out


def _renorm_rows(weight: Tensor, indices: Any, max_norm: float, norm_type: float) -> None:
    """Scale, in place, the rows ``indices`` of ``weight`` whose norm exceeds ``max_norm``."""
    with no_grad():
        idx = indices.reshape(-1).unique()  # each row once, as PyTorch's embedding_renorm_
        rows = weight[idx]
        norms = rows.norm(p=norm_type, dim=1, keepdim=True)
        scale = ew.where(norms > max_norm, max_norm / (norms + 1e-7), ew.full_like_scalar(norms, 1.0))
        weight[idx] = rows * scale


def normalize_padding_idx(padding_idx: Any, num_embeddings: int) -> Any:
    """``padding_idx`` as a row index in ``[0, num_embeddings)`` (negative counts from the
    end), or None; PyTorch's AssertionError when it is out of range."""
    if padding_idx is None:
        return None
    if padding_idx > 0:
        assert padding_idx < num_embeddings, "Padding_idx must be within num_embeddings"
    elif padding_idx < 0:
        assert padding_idx >= -num_embeddings, "Padding_idx must be within num_embeddings"
        padding_idx = num_embeddings + padding_idx
    return padding_idx


def embedding(input: Tensor, weight: Tensor, padding_idx: Any = None, max_norm: Any = None,
              norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Rows of ``weight`` picked by the integer tensor ``input``.

    The row ``padding_idx`` gets no gradient; with ``sparse=True`` the weight's gradient is a
    sparse COO tensor (one entry per looked-up index), as PyTorch's.
    """
    if input.dtype not in (_dt.int64, _dt.int32):
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar types: "
            f"Long, Int; but got {input.dtype} instead (while checking arguments for embedding)")
    if scale_grad_by_freq:
        if sparse:  # PyTorch raises this in backward; checked first here
            raise RuntimeError("embedding_backward: scale_grad_by_freq not supported with "
                               "sparse gradients")
        raise NotImplementedError("embedding: scale_grad_by_freq is not supported")
    num = weight.shape[0]
    padding_idx = normalize_padding_idx(padding_idx, num)
    found = index_range(input._backend, input._data)
    if found is not None:
        lo, hi = found
        if lo < 0 or hi >= num:
            raise IndexError("index out of range in self")
    if max_norm is not None:
        _renorm_rows(weight, input, max_norm, norm_type)
    if sparse:  # the weight's gradient a sparse COO tensor (arraygrad.sparse)
        from arraygrad.sparse._embedding import embedding as sparse_embedding

        return sparse_embedding(input, weight, padding_idx)
    out = weight[input]
    if padding_idx is not None:
        # same values, but the padding positions read a detached copy: no gradient reaches the row
        keep = (input != padding_idx).unsqueeze(-1)
        out = ew.where(keep, out, out.detach())
    return out


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """int64 one-hot encoding of an integer tensor along a new last dimension."""
    if tensor.dtype != _dt.int64:  # PyTorch takes int64 only (int32 too is refused)
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    backend = tensor._backend
    xp = backend.xp
    data = tensor._data
    if tensor.numel() == 0 and num_classes <= 0:
        raise RuntimeError("Can not infer total number of classes from empty tensor.")
    if num_classes == -1:
        num_classes = int(xp.max(data)) + 1
    found = index_range(backend, data)
    if found is not None and found[0] < 0:
        raise RuntimeError("Class values must be non-negative.")
    if found is not None and found[1] >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    classes = xp.arange(num_classes, dtype=data.dtype)
    hot = xp.astype(data[..., None] == classes, backend.native_dtype(_dt.int64))
    return Tensor._wrap(hot, backend)

