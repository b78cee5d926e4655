"""The NumPy backend: the Array API namespace from array-api-compat, plus NumPy extras."""

from __future__ import annotations

import functools
import math
import mmap
import sys
from typing import Any

import numpy as np

from arraygrad.backends import Availability, Backend, Generator, ScalarOperands
from arraygrad.backends.contract import Memory
from arraygrad.backends.strided import strided_kernels
from arraygrad_numpy import low_precision
from arraygrad_numpy.conv_kernels import conv_forward, conv_input_grad, conv_weight_grad
from arraygrad_numpy.loss_kernels import nll_class_rows
from arraygrad_numpy.norm_kernels import vector_norm
from arraygrad_numpy.pool_kernels import max_pool_forward, max_pool_grad
from arraygrad_numpy.rnn_kernels import lstm_sequence_backward, lstm_sequence_forward
from arraygrad_numpy.sparse_kernels import sparse_mm

__all__ = ["NumpyBackend", "NumpyGenerator", "host_memory"]


BOX_MULLER_MIN = 1 << 20
"""Float32 normal draws of at least this many values take ``_box_muller_float32``; smaller
ones NumPy's ziggurat (so every small draw, a weight initialisation or a test's input, is
the stream it always was)."""
_BOX_MULLER_BLOCK = 1 << 15  # pairs per block: 256 KiB of uniforms, in L2 between passes


def _box_muller_float32(rng, shape):
    """``shape`` standard normal float32 values by the Box-Muller transform of float32
    uniforms, as PyTorch's CPU ``normal_`` does for tensors of 16 values or more: each block
    of ``2m`` values is ``sqrt(-2 log(1 - u1))`` times ``cos(2 pi u2)`` (its first ``m``)
    and ``sin(2 pi u2)`` (the next ``m``) of ``2m`` fresh uniforms. The blocks' uniforms and
    arithmetic stay in one small buffer (a whole-draw array of uniforms would double the
    fresh memory a large draw faults in). NumPy's float32 ziggurat draws one value at a
    time: 49 ms for 5M values on one thread, this about 30 (PyTorch 20-31). The uniforms'
    24 bits bound the values by 5.77 in magnitude, as PyTorch's float32 transform."""
    n = math.prod(shape)
    out = np.empty(n, np.float32)
    pairs = min(_BOX_MULLER_BLOCK, (n + 1) // 2)
    u = np.empty(2 * pairs, np.float32)
    two_pi, minus_two, one = np.float32(2 * math.pi), np.float32(-2), np.float32(1)
    for start in range(0, n, 2 * pairs):
        block = out[start:start + 2 * pairs]
        m = (block.size + 1) // 2  # (a last odd block: one sine fewer)
        rng.random(2 * m, dtype=np.float32, out=u[:2 * m])
        radius, angle = u[:m], u[m:2 * m]
        np.subtract(one, radius, out=radius)  # (0, 1]: the log is finite
        np.log(radius, out=radius)
        radius *= minus_two
        np.sqrt(radius, out=radius)
        angle *= two_pi
        np.cos(angle, out=block[:m])
        block[:m] *= radius
        rest = block.size - m
        np.sin(angle[:rest], out=block[m:])
        block[m:] *= radius[:rest]
    return out.reshape(shape)



class NumpyGenerator(Generator):
    """Seeded ``numpy.random.Generator`` (PCG64) producing arrays of the requested dtype."""

    def __init__(self, seed: int):
        self._rng = np.random.default_rng(seed)

    def copy(self) -> "NumpyGenerator":
        """An independent generator at this point of the stream. It keeps only the bit
        generator's state until its first draw makes the NumPy generator: a snapshot that is
        never restored (a recording's, most of the time) costs one state read."""
        new = NumpyGenerator.__new__(NumpyGenerator)
        rng = self.__dict__.get("_rng")
        # the state dict is never written (a restore reads it), so copies may share it
        new._pending = self._pending if rng is None else (type(rng.bit_generator),
                                                           rng.bit_generator.state)
        return new

    def __getattr__(self, name):
        # ``_rng`` of a copy, made at its first use (see ``copy``)
        pending = self.__dict__.get("_pending") if name == "_rng" else None
        if pending is None:
            raise AttributeError(name)
        kind, state = pending
        bit_generator = kind(0)  # a seed: no entropy read (its state is replaced at once)
        bit_generator.state = state
        self._rng = np.random.Generator(bit_generator)
        del self._pending
        return self._rng

    _BIT_GENERATORS = ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")

    def state(self):
        """The bit generator's state (NumPy's dict of ints and strings: JSON-safe)."""
        pending = self.__dict__.get("_pending")
        return dict(pending[1]) if pending is not None else dict(self._rng.bit_generator.state)

    def set_state(self, state):
        """Restore ``state()``'s dict; only NumPy's own bit generators are accepted."""
        if not isinstance(state, dict) or state.get("bit_generator") not in self._BIT_GENERATORS:
            raise ValueError(f"not a NumPy bit generator state: {state!r:.80}")
        bit_generator = getattr(np.random, state["bit_generator"])(0)
        bit_generator.state = state  # NumPy checks the fields and their types
        self.__dict__.pop("_pending", None)
        self._rng = np.random.Generator(bit_generator)

    def normal(self, shape, dtype):
        if dtype == np.float32 and math.prod(shape) >= BOX_MULLER_MIN:
            return _box_muller_float32(self._rng, shape)
        if dtype in (np.float32, np.float64):
            return self._rng.standard_normal(shape, dtype=dtype)
        return self._rng.standard_normal(shape).astype(dtype)

    def uniform(self, shape, dtype):
        if dtype in (np.float32, np.float64):
            return self._rng.random(shape, dtype=dtype)
        return self._rng.random(shape).astype(dtype)

    def integers(self, low, high, shape, dtype):
        return self._rng.integers(low, high, size=shape, dtype=dtype)

    def permutation(self, n):
        return self._rng.permutation(n).astype(np.int64)


def host_memory(array):
    """``Backend.memory`` of a NumPy array: the allocation is the array at the end of its
    ``base`` chain (NumPy's views keep their owner there); shared when that owner is over a
    shared ``mmap``."""
    owner = array
    while isinstance(owner.base, np.ndarray):
        owner = owner.base
    outside = owner.base
    if isinstance(outside, memoryview):
        outside = outside.obj
    return Memory(array.__array_interface__["data"][0], owner.__array_interface__["data"][0],
                  owner.nbytes, isinstance(outside, mmap.mmap), owner)


def _astype(x, dtype, /, *, copy=True, device=None):
    if dtype is low_precision.BF16 and x.dtype is not dtype:  # PyTorch's rounding, bit for bit
        return low_precision.to_bfloat16(x)
    return x.astype(dtype, copy=copy)


def _stack(arrays, /, *, axis=0):
    """The standard's ``stack`` of arrays of one shape and dtype along an existing axis as
    one ``concatenate`` and a reshape (a view of the fresh result): NumPy's ``stack`` makes
    an expanded view of every array in Python first (16 rows of a batch: ~9 -> ~4 us).
    Anything else (a new last axis, 0-d arrays, mixed shapes) is NumPy's."""
    first = arrays[0] if arrays else None
    if type(first) is np.ndarray and 0 <= axis < first.ndim:
        shape = first.shape
        for a in arrays:  # (dtypes: ``stack`` itself promotes them by one ``concatenate``)
            if getattr(a, "shape", None) != shape:
                break
        else:
            joined = np.concatenate(arrays, axis=axis)
            return joined.reshape(shape[:axis] + (len(arrays),) + shape[axis:])
    return np.stack(arrays, axis=axis)


def _reduction(ufunc, low=frozenset(), rows=False):
    """``sum``/``max``/``min`` as the ufunc's own ``reduce``: NumPy's functions of those
    names reach it through two Python layers (~1 us per call on small arrays). The
    semantics are the same for the arguments of the standard (``axis``, ``keepdims``,
    ``dtype`` for sums; small integers still accumulate in the default integer). ``low``:
    the dtypes reduced in float32 and rounded once (``sum`` of float16/bfloat16, as
    PyTorch accumulates). ``rows``: arrays of ``_ROW_SUM_MIN_SIZE`` elements or more summed
    over trailing or leading axes by ``_row_sums`` (one BLAS product) where it applies."""
    reduce = ufunc.reduce
    ones_by_length: dict[tuple[int, Any], Any] = {}

    def fn(x, /, *, axis=None, dtype=None, keepdims=False):
        if x.dtype in low and (dtype is None or dtype == x.dtype):
            return low_precision.reduced_in_float32(reduce, x, axis, keepdims)
        if rows and axis is not None and x.size >= _ROW_SUM_MIN_SIZE:
            found = _row_sums(x, axis, dtype, keepdims, ones_by_length)
            if found is not None:
                return found
        return reduce(x, axis=axis, dtype=dtype, keepdims=keepdims)

    fn.__name__ = fn.__qualname__ = f"{ufunc.__name__}_reduce"
    return fn


# the longest rows summed by one BLAS product: its accumulation is sequential (with a few
# SIMD partial sums), NumPy's pairwise; up to here their errors are alike (measured on float32
# normals: 3.4e-6 both on rows of 128, 1.2e-5 against 8.1e-6 on 512), beyond it BLAS's grows
_ROW_SUM_MAX = 2048
_ONES_KEPT = 64  # ones vectors kept by length and dtype (cleared past this many)
# below this many elements the add reduction takes a few microseconds, about what telling the
# cases apart costs: small arrays keep it (a (32, 16) row sum 2.8 us either way)
_ROW_SUM_MIN_SIZE = 8192


def _row_sums(x: Any, axis: Any, dtype: Any, keepdims: bool,
              ones_by_length: dict[tuple[int, Any], Any]) -> Any:
    """``sum`` of a C-contiguous float32/float64 array (no other dtype asked for) over its
    trailing axes or its leading ones (at least one axis left) as ONE matrix-vector product
    with a ones vector (kept in ``ones_by_length``), or None where that does not apply.

    Over trailing axes (rows of 2 to ``_ROW_SUM_MAX`` elements: softmax's and layer norm's
    rows, attention scores) BLAS sums a row in registers where NumPy's add reduction walks
    each row with its pairwise loop, 3-10x slower (a (1024, 128) float32 array: ~52 -> ~16
    us). Over leading axes (a bias's gradient summed over the batch) ``ones @ x`` is 2-10x
    faster than the reduction's row-by-row adds, and its blocked accumulation is, if
    anything, closer to the exact sum ((1024, 128): 33 -> 10 us)."""
    if type(x) is not np.ndarray or x.dtype not in _WIDE_FLOATS or not x.flags.c_contiguous \
            or (dtype is not None and dtype != x.dtype):
        return None
    ndim = x.ndim
    axes = (axis,) if type(axis) is int else axis
    if type(axes) is not tuple or not 0 < len(axes) < ndim \
            or not all(type(a) is int and -ndim <= a < ndim for a in axes):
        return None
    summed = sorted(a % ndim for a in axes)
    k = len(summed)
    shape = x.shape
    if summed == list(range(ndim - k, ndim)):  # trailing: one sum per row
        kept = shape[:ndim - k]
        rows = math.prod(kept)
        length = x.size // rows  # (at least _ROW_SUM_MIN_SIZE elements: no empty axis)
        if not 2 <= length <= _ROW_SUM_MAX:
            return None
        sums = np.matmul(x.reshape(rows, length), _ones(length, x.dtype, ones_by_length))
        return sums.reshape(kept + (1,) * k if keepdims else kept)
    if summed == list(range(k)):  # leading: one sum per column
        kept = shape[k:]
        length = math.prod(shape[:k])
        if length < 2:
            return None
        sums = np.matmul(_ones(length, x.dtype, ones_by_length),
                         x.reshape(length, x.size // length))
        return sums.reshape((1,) * k + kept if keepdims else kept)
    return None


def _ones(length: int, dtype: Any, ones_by_length: dict[tuple[int, Any], Any]) -> Any:
    """A read-only ones vector of ``length`` and ``dtype``, made once (``_ONES_KEPT`` kept)."""
    key = (length, dtype)
    ones = ones_by_length.get(key)
    if ones is None:
        if len(ones_by_length) >= _ONES_KEPT:
            ones_by_length.clear()
        ones = ones_by_length[key] = np.ones(length, dtype)
        ones.flags.writeable = False
    return ones


def _logical_reduction(ufunc, name):
    """``any``/``all`` as ``logical_or``/``logical_and``'s own ``reduce`` over every axis by
    default: NumPy's functions reach it through a Python layer (~3 -> ~1 us per call; the
    core's checks ask one on every call). Same results, dtypes and shapes for the standard's
    arguments (``axis``: None, an int or a tuple; ``keepdims``), empty arrays included."""
    reduce = ufunc.reduce

    def fn(x, /, *, axis=None, keepdims=False):
        return reduce(x, axis=axis, keepdims=keepdims)

    # the standard's name: vmap's batching rule knows a whole-sample reduction by it
    fn.__name__ = fn.__qualname__ = name
    return fn


_WIDE_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _clip(general):
    """``clip`` of a float32/float64 array (not 0-d) between two 0-d bounds of its dtype (what
    clamp passes) as NumPy's ``clip`` ufunc itself: array-api-compat's wrapper and NumPy's
    ``clip`` end there through four Python layers that check the bounds (~10 -> ~1 us per
    call). Anything else goes to ``general``."""
    ufunc = np._core.umath.clip if hasattr(np, "_core") else np.core.umath.clip

    def clip(x, /, min=None, max=None, **kwargs):
        dtype = x.dtype
        if (not kwargs and x.ndim and dtype in _WIDE_FLOATS and type(min) is np.ndarray
                and type(max) is np.ndarray and min.dtype is dtype and max.dtype is dtype
                and not min.ndim and not max.ndim):
            return ufunc(x, min, max)
        return general(x, min, max, **kwargs)

    return clip


def _take_along_axis(general):
    """``take_along_axis`` as the one fancy index NumPy's own builds (an arange of ``x``'s
    extent on every other axis, broadcasting against ``indices``), without its Python
    checks: ~6 -> ~2.5 us on a gather of a few rows. Integer ``indices`` of ``x``'s rank
    only; anything else (and every error) goes to ``general``."""
    def take_along_axis(x, indices, /, *, axis=-1):
        ndim = x.ndim
        if (type(indices) is not np.ndarray or indices.ndim != ndim or not ndim
                or indices.dtype.kind not in "iu" or not -ndim <= axis < ndim):
            return general(x, indices, axis=axis)
        axis %= ndim
        key = []
        for i, n in enumerate(x.shape):
            if i == axis:
                key.append(indices)
            else:
                shape = [1] * ndim
                shape[i] = n
                key.append(np.arange(n).reshape(shape))
        return x[tuple(key)]

    return take_along_axis


def _reshape(x, /, shape, *, copy=None):
    """``reshape`` as the array's own method when no copy is asked for (NumPy's function
    reaches it through two Python layers: ~1 -> ~0.2 us; the core reshapes in every view and
    every gradient summed back to its input's shape; a NumPy scalar, a reduction's 0-d
    result, has the method too)."""
    if copy is None and (type(x) is np.ndarray or isinstance(x, np.generic)):
        return x.reshape(shape)
    return np.reshape(x, shape, copy=copy)


def _broadcast_to(x, /, shape):
    """``broadcast_to`` of a C-contiguous array (a reduction's gradient going back to its
    input's shape) as an array over its buffer with zero strides where it broadcasts,
    read-only as NumPy's: NumPy's function builds the same view with an ``nditer`` through
    four Python frames (~3.3 -> ~1.8 us). Anything else, a shape that does not broadcast
    included (its error), goes to NumPy's."""
    if type(x) is np.ndarray and type(shape) is tuple and x.flags.c_contiguous \
            and not x.dtype.hasobject:  # (object arrays: NumPy's, which owns references)
        lead = len(shape) - x.ndim
        if lead >= 0 and (not shape or min(shape) >= 0):
            strides = [0] * lead  # (a size-1 dim gets stride 0 too, as NumPy's view has)
            for n, m, step in zip(shape[lead:], x.shape, x.strides):
                if m != n and m != 1:
                    return np.broadcast_to(x, shape)
                strides.append(0 if m == 1 else step)
            view = np.ndarray(shape, x.dtype, x, 0, tuple(strides))
            view.flags.writeable = False
            return view
    return np.broadcast_to(x, shape)


def _permute_dims(x, /, axes):
    """``permute_dims`` as the array's own ``transpose`` (NumPy's function reaches it through
    a Python layer: ~0.55 -> ~0.15 us; every transpose, ``.T`` and matmul gradient calls it)."""
    if type(x) is np.ndarray:
        return x.transpose(axes)
    return np.transpose(x, axes)


def _expand_dims(x, /, axis=0):
    """``expand_dims`` at one int ``axis`` as an index with a new axis (always a view, as
    NumPy's): ~2.5 -> ~0.3 us. Anything else goes to NumPy's function (and its errors)."""
    if type(x) is np.ndarray and type(axis) is int and -x.ndim - 1 <= axis <= x.ndim:
        return x[(slice(None),) * (axis % (x.ndim + 1)) + (None,)]
    return np.expand_dims(x, axis)


def _asarray(general):
    """``asarray`` without a device or copy request as NumPy's own (array-api-compat's wrapper
    calls ``np.array`` with ``copy=IF_NEEDED``: the same array, ~1.3 -> ~0.3 us)."""
    def asarray(obj, /, *, dtype=None, device=None, copy=None, **kwargs):
        if device is None and copy is None and not kwargs:
            return np.asarray(obj, dtype=dtype)
        return general(obj, dtype=dtype, device=device, copy=copy, **kwargs)

    return asarray


def _empty_like(general):
    """``empty_like`` as NumPy's own when no device is named (the wrapper only checks it)."""
    def empty_like(x, /, *, dtype=None, device=None, **kwargs):
        if device is None and not kwargs:
            return np.empty_like(x, dtype=dtype)
        return general(x, dtype=dtype, device=device, **kwargs)

    return empty_like


def _mean(general, total):
    """``mean`` of a float32/float64 array as the namespace's sum (``total``) over the count:
    NumPy's ``mean`` computes the sum's add reduction over the count (its division in
    float64, rounded to float32, which gives the float32 quotient: a double rounding
    innocuous for division) through three Python layers (~3 us per call on small arrays);
    other dtypes go to ``general``."""
    def mean(x, /, *, axis=None, keepdims=False):
        if x.dtype not in _WIDE_FLOATS:
            return general(x, axis=axis, keepdims=keepdims)
        shape = x.shape
        count = x.size if axis is None else math.prod(
            [shape[a] for a in ((axis,) if type(axis) is int else axis)])
        return total(x, axis=axis, keepdims=keepdims) / count if count else \
            general(x, axis=axis, keepdims=keepdims)  # (an empty mean: NumPy's NaN, warning)

    mean.__name__ = mean.__qualname__ = "mean"
    return mean


def _fast_namespace():
    """array-api-compat's NumPy namespace, with its Python wrappers replaced by the NumPy
    functions themselves where their semantics already match the standard for the
    arguments the core passes (no ``device=``): one C call instead of two Python frames
    on the hottest paths (matmul, transposes, allocation, casts)."""
    import types

    import array_api_compat.numpy as compat

    ns = types.ModuleType("arraygrad_numpy.xp", compat.__doc__)
    ns.__dict__.update({k: v for k, v in vars(compat).items() if not k.startswith("__")})
    ns.__array_api_version__ = compat.__array_api_version__
    ns.matmul = np.matmul
    ns.permute_dims = _permute_dims
    ns.zeros, ns.ones, ns.empty, ns.full = np.zeros, np.ones, np.empty, np.full
    ns.zeros_like, ns.ones_like = np.zeros_like, np.ones_like
    ns.empty_like = _empty_like(compat.empty_like)
    ns.asarray = _asarray(compat.asarray)
    if np.lib.NumpyVersion(np.__version__) >= "2.1.0":  # its reshape takes ``copy=``
        ns.reshape = _reshape
    ns.expand_dims = _expand_dims
    ns.broadcast_to = _broadcast_to
    ns.stack = _stack
    ns.any = _logical_reduction(np.logical_or, "any")
    ns.all = _logical_reduction(np.logical_and, "all")
    if hasattr(np, "cumulative_sum"):  # NumPy 2.1: the standard's, with no wrapper around it
        ns.cumulative_sum = np.cumulative_sum
    if np.lib.NumpyVersion(np.__version__) >= "2.0.0":  # its arange takes device="cpu" too
        ns.arange = np.arange
    ns.astype = _astype
    ns.sum = _reduction(np.add, low_precision.LOW, rows=True)
    ns.max = _reduction(np.maximum)
    ns.min = _reduction(np.minimum)
    low_precision.install(ns)  # float16 and ml_dtypes' bfloat16, as PyTorch's CPU computes
    ns.mean = _mean(ns.mean, ns.sum)  # (after: the others' mean accumulates float16 in float32)
    ns.take_along_axis = _take_along_axis(ns.take_along_axis)
    ns.clip = _clip(ns.clip)  # (after: the general one keeps bfloat16 next to numbers)
    return ns


class NumpyBackend(Backend):
    """CPU arrays with NumPy."""

    name = "numpy"
    device_type = "cpu"
    priority = 100
    array_type = np.ndarray

    def __init__(self):
        self._xp = _fast_namespace()
        # the kernels reading the namespace's own functions, bound to it once
        self._namespace_kernels = {name: functools.partial(kernel, self._xp)
                                   for name, kernel in _NAMESPACE_KERNELS.items()}
        # NumPy converts a Python float operand on every call: a cached 0-d array is ~2x faster
        self.scalar_operands = ScalarOperands(
            self._xp, widening=() if low_precision.BF16 is None else (low_precision.BF16,))

    def is_available(self) -> Availability:
        return Availability(True)

    @functools.cached_property
    def xp(self):
        # cached: after the first read ``backend.xp`` is an instance attribute, not a
        # property call (the core reads it in nearly every op and backward formula)
        return self._xp

    def coerce(self, value):
        # NumPy returns scalars (np.float32) from 0-d reductions; tensors hold arrays.
        return np.asarray(value)

    def make_generator(self, seed: int) -> NumpyGenerator:
        return NumpyGenerator(seed)

    def scatter_add(self, target, key, values):
        np.add.at(target, key, values)
        return target

    def to_host(self, array):
        return np.asarray(array)

    def from_host(self, data, dtype=None):
        if dtype is low_precision.BF16:  # through float32, as PyTorch rounds a Python float
            return low_precision.to_bfloat16(np.array(data, dtype=np.float64))
        return np.array(data, dtype=dtype)

    def is_exclusive(self, array):
        # own memory (not a view), and referenced only by its tensor: the tensor's
        # slot, this call's argument and getrefcount's argument
        return (type(array) is np.ndarray and array.base is None and array.flags.writeable
                and sys.getrefcount(array) <= 3)

    def from_bytes(self, data, native_dtype, shape):
        dt = np.dtype(native_dtype)
        # frombuffer gives a read-only view of the bytes; tensors must be writable
        return np.frombuffer(data, dtype=dt.newbyteorder("<")).astype(dt, copy=True).reshape(shape)

    def from_dlpack(self, obj):
        return np.from_dlpack(obj)

    def memory(self, array):
        return host_memory(array)

    def from_buffer(self, buffer, native_dtype, count, offset):
        return np.frombuffer(buffer, dtype=native_dtype, count=count, offset=offset)

    def kernel(self, op_name):
        # strided views (as_strided, Tensor.unfold) share memory, as PyTorch's do; sparse
        # products run through SciPy when it is installed; convolutions as strided windows
        # and one BLAS product per direction; max pooling over strided slices; a whole
        # array's 2-norm as one dot product; an LSTM's whole sequence in few calls per step
        found = _KERNELS.get(op_name)
        return self._namespace_kernels.get(op_name) if found is None else found


def _eig(a):
    """``linalg.eig``'s kernel (the Array API has no general eigendecomposition): LAPACK's geev,
    eigenvectors of unit norm as PyTorch's."""
    if type(a) is not np.ndarray:
        return NotImplemented
    found = np.linalg.eig(a)
    return found.eigenvalues, found.eigenvectors


_KERNELS = {**strided_kernels(
    np.ndarray, lambda a, shape, strides: np.lib.stride_tricks.as_strided(a, shape, strides)),
    "linalg_eig": _eig, "sparse_mm": sparse_mm, "conv_forward": conv_forward,
    "conv_input_grad": conv_input_grad, "conv_weight_grad": conv_weight_grad,
    "max_pool_forward": max_pool_forward, "max_pool_grad": max_pool_grad,
    "vector_norm": vector_norm, "lstm_sequence_forward": lstm_sequence_forward,
    "nll_class_rows": nll_class_rows}
# kernels whose results hold values of the namespace's own functions (its ``sum``), given it
# as their first argument
_NAMESPACE_KERNELS = {"lstm_sequence_backward": lstm_sequence_backward}
