"""The meta backend: tensors with a shape, a dtype and strides, and no storage.

PyTorch's ``meta`` device runs every op's shape and dtype logic without computing; models are
built on it to count parameters, check shapes, or stand in for modules whose tensors come
from elsewhere (``functional_call`` in model ensembling, ``to_empty`` then load).

The design, and why. arraygrad's ops compute through an Array API namespace and never look
at an array except through it, so a device without values is a namespace whose arrays are
shape+dtype records (``MetaArray``) and whose functions compute the result's shape and dtype:
every op, every layer, autograd and ``vmap`` then run unchanged, written once. The namespace
is the CPU backend's, wrapped (``namespace.MetaNamespace``), so that dtypes follow exactly the
CPU rules (promotion, float16/bfloat16, integer reductions) without a table of our own: each
function is called on *tiny* stand-ins (every dimension 1) for its dtype and its argument
checks, and a small rule per family gives the shape (broadcasting, reductions, matmul, joins,
advanced indexing, the linalg factorisations). View functions (``reshape``, ``permute_dims``,
basic indexing...) run on *full* zero-strided stand-ins, where NumPy computes the shape itself
and allocates nothing. A function without a rule still works, on full stand-ins, allocating
its result on the host (the fallback, rare, listed by ``namespace.fallback_functions()``).
What needs values raises PyTorch's meta errors: ``item()``, ``tolist()``, copies to another
device, ``nonzero``/boolean masks/``unique`` (whose result's shape is in the values).

Two alternatives were set aside: computing on the CPU over zero-strided stand-ins everywhere
(every result would be allocated: a 7B-parameter model's forward on ``meta`` must not use
gigabytes), and a hand-written shape function per op (each op's shape logic written twice).
"""

from __future__ import annotations

from typing import Any

from arraygrad.backends import Availability, Backend, Generator

__all__ = ["MetaBackend", "MetaGenerator"]


class MetaGenerator(Generator):
    """Draws nothing: each sample is a meta array of the requested shape and dtype."""

    def normal(self, shape: Any, dtype: Any) -> Any:
        from arraygrad_meta.array import MetaArray
        return MetaArray(shape, dtype)

    uniform = normal

    def integers(self, low: int, high: int, shape: Any, dtype: Any) -> Any:
        from arraygrad_meta.array import MetaArray
        return MetaArray(shape, dtype)

    def permutation(self, n: int) -> Any:
        from arraygrad_meta.array import MetaArray
        return MetaArray((n,), "int64")

    def copy(self) -> "MetaGenerator":
        """A generator as good as this one (it holds no state)."""
        return MetaGenerator()

    def state(self) -> Any:
        """An empty description: there is no stream to be at a point of."""
        return {}

    def set_state(self, state: Any) -> None:
        """Accept ``state()``'s empty description."""
        if state != {}:
            raise ValueError(f"not a meta generator state: {state!r:.80}")


class MetaBackend(Backend):
    """The ``meta`` device: arrays that are shapes and dtypes (see the module doc)."""

    name = "meta"
    device_type = "meta"
    priority = 100
    holds_data = False

    def __init__(self) -> None:
        self._status: Availability | None = None

    def is_available(self) -> Availability:
        if self._status is None:
            try:
                import arraygrad_numpy.backend  # noqa: F401  (its namespace gives the dtype rules)
            except Exception as exc:  # never raise from a probe
                self._status = Availability(False, f"the meta device computes its dtypes with "
                                            f"the numpy backend, which cannot be imported ({exc})")
            else:
                self._status = Availability(True)
        return self._status

    @property
    def xp(self) -> Any:
        from arraygrad_meta.namespace import get
        return get()

    @property
    def array_type(self) -> Any:  # type: ignore[override]
        from arraygrad_meta.array import MetaArray
        return MetaArray

    def coerce(self, value: Any) -> Any:
        from arraygrad_meta.array import MetaArray
        if type(value) is MetaArray:
            return value
        return self.from_host(value)

    def from_host(self, data: Any, dtype: Any = None) -> Any:
        """A meta array of the host data's shape and dtype (the values are not kept)."""
        from arraygrad_meta.array import MetaArray
        if hasattr(data, "shape") and hasattr(data, "dtype") and not isinstance(data, type):
            return MetaArray(data.shape, data.dtype if dtype is None else dtype)
        return self.xp.asarray(data, dtype=dtype)

    def from_bytes(self, data: bytes, native_dtype: Any, shape: tuple[int, ...]) -> Any:
        from arraygrad_meta.array import MetaArray
        return MetaArray(shape, native_dtype)

    def from_dlpack(self, obj: Any) -> Any:
        return self.xp.from_dlpack(obj)

    def to_host(self, array: Any) -> Any:
        from arraygrad_meta.errors import NO_DATA
        raise NotImplementedError(NO_DATA)

    def make_generator(self, seed: int) -> MetaGenerator:
        return MetaGenerator()

    def scatter_add(self, target: Any, key: Any, values: Any) -> Any:
        target[key] = values  # checks that ``values`` fits; nothing to add
        return target
