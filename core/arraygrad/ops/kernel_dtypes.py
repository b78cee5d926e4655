"""The input dtypes PyTorch's CPU kernels refuse, in one table: an op whose formula NumPy would
happily run on integers or bools (``gelu``, ``softmax``, pooling...) refuses them as PyTorch
does, with its class and words (``NotImplementedError: "gelu_cpu" not implemented for
'Long'``, or the op's own ``RuntimeError``), instead of returning a float result.

``check_kernel_dtype(op, input)`` at an op's start; floating and complex inputs pass at
once. Found by the differential tests (tests/differential, issue 29).
"""

from __future__ import annotations

from typing import Any

from arraygrad import dtypes as _dt

__all__ = ["check_kernel_dtype"]

_INTEGRAL = "integral"   # every integer dtype and bool
_BOOL = "bool"           # bool only
_NOT_INT64 = "not int64"  # every integer dtype but int64, and bool (avg_pool's kernels)

# op -> (kernel name or message, refused dtypes, error class; a message holds "{name}",
# the dtype's scalar-type name, or "{kernel}" for PyTorch's default wording)
_DEFAULT = "\"{kernel}\" not implemented for '{name}'"
_KERNELS: dict[str, tuple[str, str, type[Exception], str]] = {}


def _table(refused: str, error: type[Exception], message: str, **kernels: str) -> None:
    for op, kernel in kernels.items():
        _KERNELS[op] = (kernel, refused, error, message)


_table(_INTEGRAL, NotImplementedError, _DEFAULT,
       hardswish="hardswish_cpu", log_sigmoid="log_sigmoid_cpu", gelu="GeluKernelImpl",
       silu="silu_cpu", elu="elu_cpu", mish="mish_cpu", softplus="softplus_cpu",
       leaky_relu="leaky_relu_cpu", smooth_l1_loss="smooth_l1_cpu", huber_loss="huber_cpu",
       mse_loss="mse_cpu", binary_cross_entropy_with_logits="log_sigmoid_cpu",
       adaptive_avg_pool="adaptive_avg_pool2d", adaptive_max_pool="adaptive_max_pool2d",
       max_pool1d="max_pool1d_impl", bernoulli="bernoulli_tensor_cpu_p_",
       layer_norm="LayerNormKernelImpl", rand="check_uniform_bounds",
       randn="normal_kernel_cpu", lerp="lerp_kernel_scalar", softmax="softmax_kernel_impl",
       log_softmax="log_softmax_kernel_impl", nll_loss="nll_loss_out_frame")
_table(_NOT_INT64, NotImplementedError, _DEFAULT, avg_pool="avg_pool2d")
_table(_BOOL, NotImplementedError, _DEFAULT,
       max_pool="max_pool2d", ceil="ceil_vml_cpu", floor="floor_vml_cpu",
       round="round_vml_cpu", trunc="trunc_vml_cpu", median="median_cpu",
       kthvalue="kthvalue_cpu", trace="trace", abs="abs_cpu", softsign="abs_cpu",
       matmul="bmm", remainder="remainder_cpu",
       floor_divide="div_floor_cpu", div_trunc="div_trunc_cpu")
_table(_BOOL, RuntimeError, "Bool inputs not supported for hardtanh", hardtanh="", relu6="")
_table(_BOOL, RuntimeError, "Boolean inputs not supported for relu", relu="")
_table(_BOOL, RuntimeError, "topk does not support bool dtypes on CPU", topk="")
_table(_BOOL, RuntimeError, "argmax(): does not support bool input", argmax="")
_table(_BOOL, RuntimeError, "argmin(): does not support bool input", argmin="")
_table(_INTEGRAL, RuntimeError, "std and var only support floating point and complex dtypes",
       std="", var="")
_table(_INTEGRAL, RuntimeError,
       "linalg.vector_norm: Expected a floating point or complex tensor as input. Got {name}",
       norm="", normalize="")


def check_kernel_dtype(op: str, input: Any, kernel: str | None = None) -> None:
    """PyTorch's error when ``op``'s CPU kernel has no version for ``input``'s dtype (``input``:
    a tensor or a dtype; ``kernel``: the kernel's name where it depends on the call, as
    softmax's does)."""
    d = input if isinstance(input, _dt.dtype) else getattr(input, "dtype", None)
    if not isinstance(d, _dt.dtype) or d.is_floating_point or d.is_complex:
        return  # (not a tensor: the op's own argument check speaks)
    name, refused, error, message = _KERNELS[op]
    if refused == _BOOL and d is not _dt.bool:
        return
    if refused == _NOT_INT64 and d is _dt.int64:
        return
    raise error(message.format(kernel=kernel or name, name=_dt.scalar_type_name(d)))
