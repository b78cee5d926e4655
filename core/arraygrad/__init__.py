"""arraygrad: PyTorch-style autograd on the Python Array API standard, with pluggable backends.

>>> import arraygrad as ag
>>> x = ag.tensor([1., 2.], requires_grad=True)
>>> y = (x * x).sum()
>>> y.backward()
>>> x.grad
tensor([2., 4.])

Importing arraygrad loads no array library: backends are found through the
``arraygrad`` entry points on first use.
"""

from __future__ import annotations

import builtins as _builtins
from typing import Any

from arraygrad import dtypes as _dtypes
from arraygrad.dtypes import (
    bfloat16, bool, cdouble, cfloat, complex64, complex128, double, dtype, float, float16,
    float32, float64, get_default_dtype, half, int, int8, int16, int32, int64, long,
    promote_types, set_default_dtype, short, uint8, uint16, uint32, uint64,
)
from arraygrad.device import device, get_default_device, set_default_device
from arraygrad.tensor import Size, Tensor
from arraygrad import tensor_methods as _tensor_methods


_tensor_methods.bind()

from arraygrad import autograd, backends, plugins  # noqa: E402
from arraygrad.legacy_types import (  # noqa: E402
    BFloat16Tensor, BoolTensor, ByteTensor, CharTensor, DoubleTensor, FloatTensor, HalfTensor,
    IntTensor, LongTensor, ShortTensor,
)
from arraygrad.autograd import (  # noqa: E402
    enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad,
    set_grad_enabled,
)
from arraygrad.autograd.inference_tensor import is_inference  # noqa: E402
from arraygrad.creation import (  # noqa: E402
    arange, as_tensor, empty, empty_like, eye, from_dlpack, from_numpy, full, full_like,
    linspace, ones, ones_like, rand, rand_like, randint, randint_like, randn, randn_like,
    randperm, scalar_tensor, tensor, zeros, zeros_like,
)
from arraygrad.ops.activation import log_softmax as _log_softmax, softmax as _softmax  # noqa: E402
from arraygrad.ops.elementwise import (  # noqa: E402
    abs, absolute, add, bitwise_and, bitwise_not, bitwise_or, bitwise_xor, ceil, clamp, clip,
    cos, div, eq, exp, expm1, floor, floor_divide, ge, greater, greater_equal, gt, isfinite,
    isinf, isnan, le, less, less_equal, log, log1p, logical_and, logical_not, logical_or,
    logical_xor, lt, maximum, minimum, mul, ne, neg, negative, not_equal, pow, reciprocal,
    relu, remainder, round, rsqrt, sigmoid, sign, sin, sqrt, sub, tan, tanh, trunc, where,
)
from arraygrad.ops.indexing import gather as _gather, index_select as _index_select  # noqa: E402
from arraygrad.ops.indexing import take_along_dim  # noqa: E402
from arraygrad.ops.linalg import bmm, dot, matmul, mm, mv, outer  # noqa: E402
from arraygrad.ops.reduction import return_types  # noqa: E402
from arraygrad.ops import reduction as _reduction, shape as _shape  # noqa: E402
from arraygrad.ops.shape import (  # noqa: E402
    broadcast_to, expand_as, flatten, flip, movedim, narrow, permute, repeat, reshape, swapaxes,
    t, transpose, view,
)
from arraygrad.ops.transfer import clone  # noqa: E402
from arraygrad.random import (  # noqa: E402
    Generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state,
)
from arraygrad.tensor_methods import with_axis_alias as _axis  # noqa: E402
# torch's runtime names: autocast, devices, determinism, threads, print options (issue 23)
from arraygrad import runtime_exports as _runtime_exports  # noqa: E402
from arraygrad.runtime_exports import *  # noqa: E402,F401,F403

# dim-taking functions also accept NumPy's axis= spelling
max = _axis(_reduction.max)  # noqa: A001
min = _axis(_reduction.min)  # noqa: A001
amax, amin = _axis(_reduction.amax), _axis(_reduction.amin)
argmax, argmin = _axis(_reduction.argmax), _axis(_reduction.argmin)
logsumexp, norm = _axis(_reduction.logsumexp), _axis(_reduction.norm)
cumsum = _axis(_reduction.cumsum)
sum, mean, prod = _axis(_reduction.sum), _axis(_reduction.mean), _axis(_reduction.prod)  # noqa: A001
std, var = _axis(_reduction.std), _axis(_reduction.var)
all, any = _axis(_reduction.all), _axis(_reduction.any)  # noqa: A001
cat = concat = concatenate = _axis(_shape.cat)
stack = _axis(_shape.stack)
split, chunk, unbind = _axis(_shape.split), _axis(_shape.chunk), _axis(_shape.unbind)
squeeze, unsqueeze = _axis(_shape.squeeze), _axis(_shape.unsqueeze)
gather, index_select = _axis(_gather), _axis(_index_select)
softmax, log_softmax = _axis(_softmax), _axis(_log_softmax)
true_divide = divide = div
multiply, subtract = mul, sub


def _export_families() -> None:
    """``arraygrad.<name>`` for the functions of the op families (``arraygrad.ops.families``)."""
    from arraygrad.ops.families import surface

    space = globals()
    for name, fn in surface()["FUNCTIONS"].items():
        if name in space:
            raise RuntimeError(f"op families: arraygrad.{name} is defined by the core already")
        space[name] = fn


_export_families()

# PyTorch's factories that take ``out=`` (the op functions all do)
_FACTORIES_WITH_OUT = ("zeros", "ones", "empty", "full", "arange", "linspace", "eye", "rand",
                       "randn", "randint", "randperm")


def _accept_out() -> None:
    """Every op function of the namespace takes PyTorch's ``out=`` (``ops.out_arg``)."""
    from arraygrad.ops.out_arg import accepts_out

    space = globals()
    wrapped: dict[_builtins.int, Any] = {}  # one wrapper per function: aliases stay identical
    for name, value in list(space.items()):
        if name.startswith("_") or isinstance(value, type) or not callable(value):
            continue
        module = getattr(value, "__module__", None) or ""
        if module.startswith("arraygrad.ops") or name in _FACTORIES_WITH_OUT:
            if id(value) not in wrapped:
                wrapped[id(value)] = accepts_out(value)
            space[name] = wrapped[id(value)]


_accept_out()


# the tensor as an object: layouts, memory formats, storages, factories over memory
from arraygrad import transform_state as _transform_state  # noqa: E402
from arraygrad import layouts as _layouts, storage, tensor_protocol as _protocol  # noqa: E402
from arraygrad.layouts import (  # noqa: E402
    channels_last, channels_last_3d, contiguous_format, jagged, layout, legacy_contiguous_format,
    memory_format, preserve_format, sparse_bsc, sparse_bsr, sparse_coo, sparse_csc, sparse_csr,
    strided,
)
from arraygrad.storage import (  # noqa: E402
    BFloat16Storage, BoolStorage, ByteStorage, CharStorage, ComplexDoubleStorage,
    ComplexFloatStorage, DoubleStorage, FloatStorage, HalfStorage, IntStorage, LongStorage,
    ShortStorage, TypedStorage, UntypedStorage, is_storage,
)
from arraygrad.creation_memory import asarray, from_file, frombuffer  # noqa: E402
from arraygrad.creation_strided import empty_permuted, empty_strided  # noqa: E402

Storage = FloatStorage  # PyTorch's legacy default storage class
StorageBase = UntypedStorage  # the base class of PyTorch's untyped storages
globals().update(_protocol.FUNCTIONS)

# PyTorch's constants (``torch.pi``, ``x[:, torch.newaxis]``)
from math import e, inf, nan, pi  # noqa: E402
newaxis = None


def is_tensor(obj: Any) -> _builtins.bool:
    """Whether ``obj`` is an arraygrad Tensor."""
    return isinstance(obj, Tensor)


def numel(input: Tensor) -> _builtins.int:
    """The number of elements of ``input``."""
    return input.numel()


__version__ = "0.1.0"

# einops knows arraygrad's tensors once einops is imported (nothing is imported now)
from arraygrad.interop import einops_hook as _einops_hook  # noqa: E402

_einops_hook.install()

# the Array API standard's members of the tensor; its namespace is a lazy submodule
from arraygrad import tensor_array_api as _tensor_array_api  # noqa: E402

_tensor_array_api.bind(Tensor, lambda: __getattr__("array_api"))


_LAZY_SUBMODULES = (  # one per line: several areas add theirs
    "_dynamo",
    "_inductor",
    "_utils",
    "accelerator",
    "array_api",
    "amp",
    "conformance",
    "cpu",
    "cuda",
    "distributed",
    "distributions",
    "fft",
    "func",
    "functional",
    "futures",
    "hub",
    "jit",
    "linalg",
    "mps",
    "mtia",
    "multiprocessing",
    "nn",
    "onnx",
    "optim",
    "profiler",
    "serialization",
    "signal",
    "sparse",
    "special",
    "testing",
    "torch_version",
    "types",
    "utils",
    "version",
    "viz",
    "xpu",
)
_LAZY_FUNCTIONS = {"compile": "arraygrad.compiler", "save": "arraygrad.serialization", "load": "arraygrad.serialization",
                   "save_safetensors": "arraygrad.serialization",
                   "load_safetensors": "arraygrad.serialization",
                   "vmap": "arraygrad.func",
                   # PyTorch's ecosystem names (issue 23): jit futures, control flow, segments,
                   # symbolic-size utilities, install paths
                   "fork": "arraygrad.jit", "wait": "arraygrad.jit", "Future": "arraygrad.futures",
                   "to_dlpack": "arraygrad.utils.dlpack", "cond": "arraygrad.control_flow",
                   "while_loop": "arraygrad.control_flow", "segment_reduce": "arraygrad.segment",
                   "classproperty": "arraygrad._classproperty",
                   **{name: "arraygrad._install"
                      for name in ("get_file_path", "prepare_multiprocessing_environment")},
                   **{name: "arraygrad.symbolic"
                      for name in ("SymBool", "SymFloat", "SymInt", "sym_constrain_range",
                                   "sym_constrain_range_for_size", "sym_float", "sym_fresh_size",
                                   "sym_int", "sym_ite", "sym_max", "sym_min", "sym_not",
                                   "sym_sqrt", "sym_sum")},
                   "GradScaler": "arraygrad.amp.grad_scaler",
                   **{name: "arraygrad.nn._functional.distance"
                      for name in ("cdist", "cosine_similarity", "pairwise_distance")}}


def _compile_entry(*args: Any, **kwargs: Any) -> Any:
    """``arraygrad.compile``, loading the compiler at the first call: ``nn.Module.compile``
    reaches it through ``transform_state.compile_hooks`` (nn sits below the compiler)."""
    from arraygrad.compiler import compile as compile_fn

    return compile_fn(*args, **kwargs)


_transform_state.compile_hooks.compile = _compile_entry


def __getattr__(name: str) -> Any:
    """Import the larger subpackages (``nn``, ``optim``, ...) on first use, keeping import fast."""
    import importlib

    if name in _LAZY_SUBMODULES:
        return importlib.import_module(f"arraygrad.{name}")
    if name in _LAZY_FUNCTIONS:
        return getattr(importlib.import_module(_LAZY_FUNCTIONS[name]), name)
    if name in _dtypes.MISSING:  # arraygrad.complex32: say why there is none
        raise _dtypes.missing_dtype_error(name)
    from arraygrad._nn_toplevel_names import MODULE as _nn_home, NAMES as _nn_toplevel
    if name in _nn_toplevel:  # torch.conv2d & co.: nn's ops at top level, loaded as the
        return getattr(importlib.import_module(_nn_home), name)  # submodules are (lazily)
    from arraygrad.absences import missing_attribute
    raise missing_attribute("torch", name, "arraygrad")  # with the census's reason when listed


def _find_transform(name: str) -> Any:
    """``arraygrad.func``'s transform ``name`` for the layers below it that map with one
    (``autograd.grad(is_grads_batched=True)``, ``jacobian(vectorize=True)``, ``gradcheck``):
    the lazy attribute ``func``, imported on first use. Handed to them through
    ``transform_state`` so that they import neither ``func`` nor this package."""
    return getattr(__getattr__("func"), name)


from arraygrad import transform_state as _transform_state  # noqa: E402

_transform_state.find_transform = _find_transform


# The names above, for ``from arraygrad import *`` and for type checkers (``mypy --strict``
# re-exports only what ``__all__`` lists); the names bound at run time (the op families,
# the tensor protocol's functions, ``runtime_exports``) are added below.
__all__ = [
    "bfloat16", "bool", "cdouble", "cfloat", "complex64", "complex128", "double", "dtype",
    "float", "float16", "float32", "float64", "get_default_dtype", "half", "int", "int8", "int16",
    "int32", "int64", "long", "promote_types", "set_default_dtype", "short", "uint8", "uint16",
    "uint32", "uint64", "device", "get_default_device", "set_default_device", "Size", "Tensor",
    "autograd", "backends", "plugins", "BFloat16Tensor", "BoolTensor", "ByteTensor", "CharTensor",
    "DoubleTensor", "FloatTensor", "HalfTensor", "IntTensor", "LongTensor", "ShortTensor",
    "enable_grad", "inference_mode", "is_grad_enabled", "is_inference_mode_enabled", "no_grad",
    "set_grad_enabled", "is_inference", "arange", "as_tensor", "empty", "empty_like", "eye",
    "from_dlpack", "from_numpy", "full", "full_like", "linspace", "ones", "ones_like", "rand",
    "rand_like", "randint", "randint_like", "randn", "randn_like", "randperm", "scalar_tensor",
    "tensor", "zeros", "zeros_like", "abs", "absolute", "add", "bitwise_and", "bitwise_not",
    "bitwise_or", "bitwise_xor", "ceil", "clamp", "clip", "cos", "div", "eq", "exp", "expm1",
    "floor", "floor_divide", "ge", "greater", "greater_equal", "gt", "isfinite", "isinf", "isnan",
    "le", "less", "less_equal", "log", "log1p", "logical_and", "logical_not", "logical_or",
    "logical_xor", "lt", "maximum", "minimum", "mul", "ne", "neg", "negative", "not_equal", "pow",
    "reciprocal", "relu", "remainder", "round", "rsqrt", "sigmoid", "sign", "sin", "sqrt", "sub",
    "tan", "tanh", "trunc", "where", "take_along_dim", "bmm", "dot", "matmul", "mm", "mv",
    "outer", "return_types", "broadcast_to", "expand_as", "flatten", "flip", "movedim", "narrow",
    "permute", "repeat", "reshape", "swapaxes", "t", "transpose", "view", "clone", "Generator",
    "get_rng_state", "initial_seed", "manual_seed", "seed", "set_rng_state", "max", "min", "amax",
    "amin", "argmax", "argmin", "logsumexp", "norm", "cumsum", "sum", "mean", "prod", "std",
    "var", "all", "any", "cat", "concat", "concatenate", "stack", "split", "chunk", "unbind",
    "squeeze", "unsqueeze", "gather", "index_select", "softmax", "log_softmax", "true_divide",
    "divide", "multiply", "subtract", "storage", "channels_last", "channels_last_3d",
    "contiguous_format", "jagged", "layout", "legacy_contiguous_format", "memory_format",
    "preserve_format", "sparse_bsc", "sparse_bsr", "sparse_coo", "sparse_csc", "sparse_csr",
    "strided", "BFloat16Storage", "BoolStorage", "ByteStorage", "CharStorage",
    "ComplexDoubleStorage", "ComplexFloatStorage", "DoubleStorage", "FloatStorage", "HalfStorage",
    "IntStorage", "LongStorage", "ShortStorage", "TypedStorage", "UntypedStorage", "is_storage",
    "asarray", "from_file", "frombuffer", "empty_permuted", "empty_strided", "Storage",
    "StorageBase", "e", "inf", "nan", "pi", "newaxis", "is_tensor", "numel",
]
__all__ += _runtime_exports.__all__


def _runtime_names() -> list[str]:
    """The public names bound without a static import (op families, protocol functions)."""
    listed = set(__all__)
    return [n for n in globals() if not n.startswith("_") and n not in listed
            and n not in ("annotations", "Any")]


__all__ += _runtime_names()
