"""When a lazy backend's arrays are computed (``Backend.lazy``, ``Backend.materialize``).

A lazy library (Dask) adds every op to a task graph. A training loop never looks at its
parameters, so without a computation point each step's graph would hold every step before
it (one parameter over 50 SGD steps: tens of thousands of tasks). The core materialises:

- after ``optimizer.step``, every ``materialize_every()`` steps (default 1): the optimizer's
  parameters, their gradients and its state tensors, in one call, so shared work runs once;
- at ``Tensor.item()``: the tensor itself, so the value read is not computed again later;
- in iterative array formulas that test convergence (the special functions' continued
  fractions, ``materialize_arrays``): the iterates, so each test computes the last few steps,
  not every step since the start (quadratic on Dask: 40 s for one ``igammac``).

Eager backends never get here (``lazy`` is False): the checks cost one attribute read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Sequence

if TYPE_CHECKING:
    from arraygrad.tensor import Tensor

__all__ = ["materialize", "materialize_arrays", "materialize_every", "set_materialize_every",
           "after_step"]

_every = [1]


def set_materialize_every(steps: int) -> None:
    """Materialise a lazy backend's optimizer state every ``steps`` optimizer steps (0: never;
    ``.item()`` and explicit ``materialize`` calls still do)."""
    if not isinstance(steps, int) or isinstance(steps, bool) or steps < 0:
        raise ValueError(f"set_materialize_every: expected a non-negative int, got {steps!r}")
    _every[0] = steps


def materialize_every() -> int:
    """The cadence ``set_materialize_every`` set (default 1: after every step)."""
    return _every[0]


def materialize(tensors: Iterable[Tensor]) -> None:
    """Compute the arrays of ``tensors`` that live on lazy backends, now, and keep the computed
    arrays in the tensors (same values: versions and autograd history are unchanged)."""
    by_backend: dict[int, tuple[Any, list[Tensor]]] = {}
    for t in tensors:
        if t._backend.lazy:
            by_backend.setdefault(id(t._backend), (t._backend, []))[1].append(t)
    for backend, group in by_backend.values():
        done = backend.materialize([t._data for t in group])
        for t, data in zip(group, done):
            t._data = data


_LAZY_BY_NAMESPACE: dict[int, Any] = {}  # id(xp) -> its lazy backend, or None


def materialize_arrays(xp: Any, arrays: Sequence[Any]) -> list[Any]:
    """``arrays`` of namespace ``xp`` computed where ``xp`` is a lazy backend's (for code that
    holds arrays and a namespace, not tensors); as they are otherwise (one dict lookup)."""
    key = id(xp)
    if key not in _LAZY_BY_NAMESPACE:
        from arraygrad.backends.registry import _registry

        # only lazy backends are asked for their namespace (asking may import a library)
        _LAZY_BY_NAMESPACE[key] = next(
            (b for b in _registry().values() if b.lazy and b.xp is xp), None)
    backend = _LAZY_BY_NAMESPACE[key]
    return list(arrays) if backend is None else backend.materialize(list(arrays))


def after_step(optimizer: Any) -> None:
    """``optimizer.step``'s computation point (see the module's doc); a no-op unless one of its
    parameters is on a lazy backend."""
    groups = optimizer.param_groups
    if not _every[0] or not any(g["params"] and g["params"][0]._backend.lazy for g in groups):
        return
    count = optimizer.__dict__.get("_lazy_steps", 0) + 1
    optimizer._lazy_steps = count
    if count % _every[0]:
        return
    tensors: list[Tensor] = []
    for group in groups:
        for p in group["params"]:
            tensors.append(p)
            if p._grad is not None:
                tensors.append(p._grad)
            state = optimizer.state.get(p)
            if state:
                tensors.extend(v for v in state.values() if hasattr(v, "_backend"))
    materialize(tensors)
