"""Complex tensors from and to real ones: ``view_as_real``, ``view_as_complex``, ``real``,
``imag``, ``complex``, ``polar``.

``view_as_real(z)`` reads a complex tensor's memory as its parts (a last dimension of 2) and
``view_as_complex`` the other way round. They are views where the backend can read an
array's bytes as another dtype (the ``view_dtype`` kernel: NumPy, CuPy), so an in-place change
through one is seen by the other, as in PyTorch; elsewhere (``array_api_strict``) they are
copies. ``real(z)``/``imag(z)`` are PyTorch's: ``view_as_real(z)[..., 0]`` and ``[..., 1]``
(their nodes are ``SelectBackward0``), so ``z.imag.add_(1)`` and ``z.real = x`` write into
``z``.

Gradients follow PyTorch's convention (docs/complex.md): ``view_as_real``'s is the complex
tensor whose parts are the gradient's, ``complex(re, im)``'s are the gradient's parts.
"""

from __future__ import annotations

from typing import Any, Callable

from arraygrad import dtypes as _dt
from arraygrad.ops.arguments import tensor_arg as _tensor
from arraygrad.ops.broadcast import broadcast_shapes
from arraygrad.ops.complex_data import join
from arraygrad.ops.promotion import same_backend
from arraygrad.ops.rule import defop
from arraygrad.ops.views import is_contiguous, make_view, strides_of
from arraygrad.plugins.registry import dispatch_kernel
from arraygrad.tensor import Tensor

__all__ = ["view_as_real", "view_as_complex", "real", "imag", "complex", "polar",
           "view_as_real_copy", "view_as_complex_copy", "set_part"]


_NO_COMPLEX32 = ("{op}: float16 parts make complex32 (ComplexHalf), which arraygrad does not "
                 "have (NumPy and the Array API standard have no 32-bit complex dtype)")


def _no_kernel(*args: object) -> None:
    return None


def _parts(g: Tensor) -> Tensor:
    """The complex tensor whose parts are the last dimension (of 2) of a real ``g``."""
    return complex(g[..., 0], g[..., 1])


VIEW_AS_REAL = defop("ViewAsRealBackward0", vjp=(lambda g, n: _parts(g),), complex=True)
VIEW_AS_COMPLEX = defop("ViewAsComplexBackward0", vjp=(lambda g, n: view_as_real(g),),
                        complex=True)


def _strides(shape: tuple[int, ...], strides: tuple[int, ...]) -> tuple[int, ...] | None:
    return None if is_contiguous(shape, strides) else tuple(strides)


def _positions_as_real(p: Tensor) -> Tensor:
    """The replay of ``view_as_real`` on integer storage positions (``storage_offset``, the
    in-place write of a view): element ``p`` holds the real positions ``2p`` and ``2p + 1``."""
    return (p.unsqueeze(-1) * 2) + Tensor._wrap(p._backend.xp.asarray([0, 1], dtype=p._data.dtype),
                                                p._backend)


def _replay_as_real(base: Tensor) -> Tensor:
    return view_as_real(base) if base.dtype.is_complex else _positions_as_real(base)


def _replay_as_complex(base: Tensor) -> Tensor:
    if base.dtype.is_floating_point:
        return view_as_complex(base)
    return base[..., 0] // 2  # integer positions: the complex element's


def view_as_real(input: Tensor) -> Tensor:
    """A complex tensor as a real one with a last dimension of 2 (its real and imaginary
    parts): a view of the same memory where the backend allows (see the module docstring)."""
    x = _tensor("view_as_real", input)
    if not x.dtype.is_complex:
        raise RuntimeError("view_as_real is only supported for complex tensors")
    backend = x._backend
    xp = backend.xp
    data = x._data
    real_native = backend.native_dtype(x.dtype.to_real())
    shape = tuple(data.shape)
    viewed = dispatch_kernel("view_dtype", backend, _no_kernel,
                             xp.reshape(data, shape + (1,)), real_native)
    shared = viewed is not None
    if not shared:  # no byte views here: the parts, copied
        viewed = xp.stack([xp.real(data), xp.imag(data)], axis=-1)
    out = VIEW_AS_REAL.record(viewed, backend, (x,))
    if shared:
        strides = tuple(2 * s for s in strides_of(x)) + (1,)
        make_view(out, x, _replay_as_real, _strides(shape + (2,), strides))
    return out


def view_as_complex(input: Tensor) -> Tensor:
    """A float32/float64 tensor whose last dimension (of 2, stride 1) holds real and
    imaginary parts, as a complex tensor: a view of the same memory where the backend
    allows (see the module docstring). PyTorch's errors for any other layout."""
    x = _tensor("view_as_complex", input)
    d = x.dtype
    if d is _dt.float16:
        raise RuntimeError(_NO_COMPLEX32.format(op="view_as_complex"))
    if d not in (_dt.float32, _dt.float64):
        raise RuntimeError("view_as_complex is only supported for half, float and double "
                           f"tensors, but got a tensor of scalar type: {_dt.scalar_type_name(d)}")
    shape = tuple(x._data.shape)
    if not shape:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    strides = strides_of(x)
    if strides[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % 2 for s in strides[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if x._base is not None and _storage_offset(x) % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    backend = x._backend
    xp = backend.xp
    complex_native = backend.native_dtype(d.to_complex())
    viewed = dispatch_kernel("view_dtype", backend, _no_kernel, x._data, complex_native)
    shared = viewed is not None
    if shared:
        viewed = xp.reshape(viewed, shape[:-1])
    else:
        viewed = join(backend, x._data[..., 0], x._data[..., 1])
    out = VIEW_AS_COMPLEX.record(viewed, backend, (x,))
    if shared:
        new_shape = shape[:-1]
        make_view(out, x, _replay_as_complex,
                  _strides(new_shape, tuple(s // 2 for s in strides[:-1])))
    return out


def _storage_offset(x: Tensor) -> int:
    """Where ``x``'s first element sits in its allocation, in elements (0 where the backend
    gives no addresses: its arrays are no views, and ``view_as_complex`` copies there)."""
    found = x._backend.memory(x._data)
    return 0 if found is None else (found.data_ptr - found.base_ptr) // x.dtype.itemsize


def view_as_real_copy(input: Tensor) -> Tensor:
    """``view_as_real`` as a new tensor (``torch.view_as_real_copy``)."""
    return view_as_real(input).clone()


def view_as_complex_copy(input: Tensor) -> Tensor:
    """``view_as_complex`` as a new tensor (``torch.view_as_complex_copy``)."""
    return view_as_complex(input).clone()


def real(input: Tensor) -> Tensor:
    """The real part: ``view_as_real(input)[..., 0]`` for a complex tensor (a view: writes
    through), the tensor itself for a real one."""
    x = _tensor("real", input)
    if not x.dtype.is_complex:
        return x
    return view_as_real(x)[..., 0]  # PyTorch's: a SelectBackward0 node


def imag(input: Tensor) -> Tensor:
    """The imaginary part: ``view_as_real(input)[..., 1]`` (a view: writes through); real
    tensors have none (PyTorch's RuntimeError)."""
    x = _tensor("imag", input)
    if not x.dtype.is_complex:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return view_as_real(x)[..., 1]


def set_part(part: Callable[[Tensor], Tensor]) -> Callable[[Tensor, Any], None]:
    """The setter of ``Tensor.real``/``imag``: ``t.real = x`` writes ``x`` into the part."""
    def setter(self: Tensor, value: Any) -> None:
        part(self).copy_(value)

    return setter


def _check_parts(op: str, a: Tensor, b: Tensor, names: tuple[str, str]) -> None:
    for t, name in zip((a, b), names):
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}(): argument '{name}' must be Tensor, not {type(t).__name__}")
    if a.dtype not in (_dt.float16, _dt.float32, _dt.float64) or a.dtype is not b.dtype:
        if a.dtype.is_floating_point and b.dtype.is_floating_point:
            raise RuntimeError(f"Expected object of scalar type {_dt.scalar_type_name(a.dtype)} "
                               f"but got scalar type {_dt.scalar_type_name(b.dtype)} for second "
                               "argument")
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got "
                           f"{_dt.scalar_type_name(a.dtype)} and {_dt.scalar_type_name(b.dtype)}")
    if a.dtype is _dt.float16:
        raise RuntimeError(_NO_COMPLEX32.format(op=op))
    broadcast_shapes(op, tuple(a._data.shape), tuple(b._data.shape))


COMPLEX = defop("ComplexBackward0", inputs=("real", "imag"), complex=True,
                vjp=(lambda g, n: real(g), lambda g, n: imag(g)))


def complex(real: Tensor, imag: Tensor) -> Tensor:  # noqa: A001
    """The complex tensor ``real + i * imag`` (float32 parts give complex64, float64
    complex128; broadcast), as ``torch.complex`` (``out=``: the namespace's)."""
    _check_parts("complex", real, imag, ("real", "imag"))
    backend = same_backend("complex", real, imag)
    return COMPLEX.record(join(backend, real._data, imag._data), backend, (real, imag))


def _polar_grads(g: Tensor, n: Any) -> tuple[Tensor | None, Tensor | None]:
    """``out = abs * e^{i angle}``: the gradient in ``abs`` is ``Re(g * conj(e^{i angle}))``,
    in ``angle`` ``Re(g * conj(i * out))`` (PyTorch's convention for real inputs)."""
    from arraygrad.ops.conjugate import conj

    want_abs, want_angle = n.needs_input_grad
    ga = gt = None
    if want_abs:
        angle = n.angle
        unit = complex(angle.cos(), angle.sin())
        ga = real(g * conj(unit))
    if want_angle:
        gt = real(g * conj(n.result * 1j))
    return ga, gt


POLAR = defop("PolarBackward0", inputs=("abs", "angle"), saves=("angle", "result"),
              complex=True, vjp=_polar_grads)


def polar(abs: Tensor, angle: Tensor) -> Tensor:  # noqa: A002
    """The complex tensor ``abs * (cos(angle) + i sin(angle))``, as ``torch.polar``
    (``out=``: the namespace's)."""
    _check_parts("polar", abs, angle, ("abs", "angle"))
    backend = same_backend("polar", abs, angle)
    xp = backend.xp
    a, t = abs._data, angle._data
    return POLAR.record(join(backend, a * xp.cos(t), a * xp.sin(t)), backend, (abs, angle))

