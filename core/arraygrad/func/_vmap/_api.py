"""``vmap``: PyTorch's ``torch.vmap`` / ``torch.func.vmap`` over the batching backend.

``vmap(func, in_dims, out_dims)(*args)`` checks the arguments as PyTorch does (its error
classes and messages), opens a level (a ``BatchingBackend`` over the innermost backend in
use), moves each mapped input's ``in_dim`` to the front as that level's batch
(``_wrap.to_batched``), runs ``func`` once on the batched tensors, and moves each output's
batch dimension to its ``out_dim``. ``chunk_size`` runs the batch in pieces one after the
other, the outputs concatenated.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from arraygrad._pytree import TreeSpec, tree_flatten, tree_unflatten
from arraygrad import transform_state as _transforms
from arraygrad.func._vmap._namespace import BatchingBackend
from arraygrad.func._vmap._wrap import from_batched, is_batched_tensor, to_batched
from arraygrad.func._vmap.rules_indexing import lift_indexed
from arraygrad.tensor import Tensor

__all__ = ["vmap"]

_RANDOMNESS = ("error", "different", "same")
active = _transforms.vmap_levels  # the levels of the vmap calls running now, outermost first


def vmap(func: Callable[..., Any], in_dims: Any = 0, out_dims: Any = 0,
         randomness: str = "error", *, chunk_size: int | None = None) -> Callable[..., Any]:
    """``func`` mapped over a dimension of its inputs, computed as one batched call.

    ``in_dims``: the dimension of each positional argument to map over: an int for all of
    them, or a tuple with one entry per argument that is an int, None (not mapped) or a
    nested tuple/list/dict matching that argument's structure. ``out_dims``: where the mapped
    dimension goes in each output (int, None for an output that is not batched, or a pytree
    prefix of the outputs). Keyword arguments are passed through unmapped.
    ``randomness``: 'error' (random ops inside raise), 'different' (each sample draws its
    own), 'same' (one draw shared by all samples). ``chunk_size``: how many samples to
    compute at once (None: all).

    >>> x = arraygrad.randn(5, 3)
    >>> vmap(arraygrad.dot)(x, x).shape
    arraygrad.Size([5])
    """
    if randomness not in _RANDOMNESS:
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        return _vmap_call(func, in_dims, out_dims, randomness, chunk_size, args, kwargs)

    return wrapped


def _name(func: Callable[..., Any]) -> str:
    name = getattr(func, "__name__", None)
    return name if isinstance(name, str) else repr(func)


class _Lazy:
    """Text for an error message, made only when a message is (``repr`` of a module is slow
    and ``vmap(model)`` runs on every call)."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[], str]) -> None:
        self.make = make

    def __str__(self) -> str:
        return self.make()

    def __format__(self, spec: str) -> str:
        return format(self.make(), spec)


def _structure_error(what: str, head: Any, dims_spec: TreeSpec, spec: TreeSpec) -> ValueError:
    noun = "inputs" if what == "in_dims" else "outputs"
    return ValueError(f"{head}: {what} is not compatible with the structure of `{noun}`. {what} "
                      f"has structure {dims_spec} but {noun} has structure {spec}.")


def _broadcast_prefix(dims: Any, tree: Any, fail: Callable[[], Exception]) -> list[Any]:
    """One dim per leaf of ``tree``: ``dims`` is a pytree prefix of it (an int or None covers
    a whole subtree)."""
    if dims is None or isinstance(dims, int):
        return [dims] * len(tree_flatten(tree)[0])
    if isinstance(dims, dict):
        if not isinstance(tree, dict) or set(dims) != set(tree):
            raise fail()
        return [d for k in tree for d in _broadcast_prefix(dims[k], tree[k], fail)]
    if isinstance(dims, (tuple, list)):
        if not isinstance(tree, (tuple, list)) or len(dims) != len(tree) or (
                isinstance(dims, list) != isinstance(tree, list)):
            raise fail()
        return [d for sub, t in zip(dims, tree) for d in _broadcast_prefix(sub, t, fail)]
    return [dims] * len(tree_flatten(tree)[0])  # a bad entry: reported per leaf


def _in_dims(func: Callable[..., Any], in_dims: Any, args: tuple[Any, ...]) -> list[Any]:
    head = _Lazy(lambda: f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>)")
    if not (isinstance(in_dims, int) or isinstance(in_dims, tuple)) or isinstance(in_dims, bool):
        raise ValueError(f"{head}: expected `in_dims` to be int or a (potentially nested) tuple "
                         f"matching the structure of inputs, got: {type(in_dims)}.")
    if not args:
        raise ValueError(f"vmap({_name(func)})(<inputs>): got no inputs. Maybe you forgot to add "
                         "inputs, or you are trying to vmap over a function with no inputs. The "
                         "latter is unsupported.")

    def fail() -> Exception:
        return _structure_error("in_dims", head, tree_flatten(in_dims)[1], tree_flatten(args)[1])

    dims = _broadcast_prefix(in_dims, args, fail) if isinstance(in_dims, tuple) else \
        [in_dims] * len(tree_flatten(args)[0])
    if isinstance(in_dims, tuple) and len(in_dims) != len(args):
        raise fail()
    leaves = tree_flatten(args)[0]
    for d, leaf in zip(dims, leaves):
        if d is None:
            continue
        if not isinstance(d, int) or isinstance(d, bool):
            raise ValueError(f"{head}: Got in_dim={d} for an input but in_dim must be either an "
                             "integer dimension or None.")
        if not isinstance(leaf, Tensor):
            raise ValueError(f"{head}: Got in_dim={d} for an input but the input is of type "
                             f"{type(leaf)}. We cannot vmap over non-Tensor arguments, please use "
                             "None as the respective in_dim")
        nd = leaf.ndim
        if not -nd <= d < nd:
            raise ValueError(f"{head}: Got in_dim={d} for some input, but that input is a Tensor "
                             f"of dimensionality {nd} so expected in_dim to satisfy "
                             f"-{nd} <= in_dim < {nd}.")
    return dims


def _batch_size(leaves: list[Any], dims: list[Any]) -> int:
    sizes = [leaf.shape[d] for leaf, d in zip(leaves, dims) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    return sizes[0]


def _base_backend(leaves: list[Any], dims: list[Any]) -> Any:
    """The backend the new level wraps: the innermost of the running levels and the mapped
    inputs' backends over the same real backend (so tensors of every enclosing level mix
    with this one's as unbatched operands)."""
    first = next(leaf for leaf, d in zip(leaves, dims) if d is not None)._backend
    root = first.root if isinstance(first, BatchingBackend) else first
    best = first
    for b in list(active) + [leaf._backend for leaf, d in zip(leaves, dims) if d is not None]:
        if isinstance(b, BatchingBackend) and b.root is root and (
                not isinstance(best, BatchingBackend) or b.level.depth > best.level.depth):
            best = b
    return best


def _vmap_call(func: Callable[..., Any], in_dims: Any, out_dims: Any, randomness: str,
               chunk_size: int | None, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    dims = _in_dims(func, in_dims, args)
    leaves, spec = tree_flatten(args)
    size = _batch_size(leaves, dims)
    dims = [None if d is None else d % leaves[i].ndim for i, d in enumerate(dims)]
    if chunk_size is not None and chunk_size < size:
        return _chunked(func, out_dims, randomness, chunk_size, leaves, dims, spec, kwargs, size)
    return _run(func, out_dims, randomness, leaves, dims, spec, kwargs, size)


def _innermost_generator(generator: Any) -> Any:
    """The innermost running level's generator over ``generator`` (an ``arraygrad.Generator``)."""
    return active[-1].batching_generator(generator)


def _run(func: Callable[..., Any], out_dims: Any, randomness: str, leaves: list[Any],
         dims: list[Any], spec: TreeSpec, kwargs: dict[str, Any], size: int) -> Any:
    backend = BatchingBackend(_base_backend(leaves, dims), size, randomness)
    level = backend.level
    inner = [leaf if d is None else to_batched(leaf, level, d) for leaf, d in zip(leaves, dims)]
    active.append(backend)
    # while we run: the ops of the indexing family hand their operands to the batching
    # rules, and random ops draw from the innermost call's generator
    _transforms.indexed_input = lift_indexed
    _transforms.draws = _innermost_generator
    level.active = True
    try:
        outputs = func(*tree_unflatten(inner, spec), **kwargs)
    finally:
        level.active = False
        active.pop()
        if not active:
            _transforms.indexed_input = _transforms.draws = None
    return _unwrap_outputs(func, out_dims, outputs, level)


def _unwrap_outputs(func: Callable[..., Any], out_dims: Any, outputs: Any, level: Any) -> Any:
    name = _Lazy(lambda: _name(func))
    if not (out_dims is None or isinstance(out_dims, (int, tuple, list, dict))) or \
            isinstance(out_dims, bool):
        raise ValueError(f"vmap({name}, ..., out_dims={out_dims}): `out_dims` must be an int, "
                         "None or a python collection of ints representing where in the outputs "
                         "the vmapped dimension should appear.")
    if outputs is None or (isinstance(outputs, (tuple, list)) and any(o is None for o in outputs)):
        raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type "
                         f"{type(None)}. Did you mean to set out_dims= to None for output?")
    leaves, spec = tree_flatten(outputs)
    head = _Lazy(lambda: f"vmap({name}, ..., out_dims={out_dims})(<inputs>)")

    def fail() -> Exception:
        return _structure_error("out_dims", head, tree_flatten(out_dims)[1], spec)

    dims = _out_dims_per_leaf(out_dims, outputs, fail)
    result = []
    for leaf, d in zip(leaves, dims):
        if not isinstance(leaf, Tensor):
            if d is None:
                result.append(leaf)
                continue
            raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type "
                             f"{type(leaf)}. Did you mean to set out_dims= to None for output?")
        if d is None:
            if is_batched_tensor(leaf, level):
                raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor "
                                 "when out_dim is None")
            # unbatched: as it is, on the level below when it was computed on this level
            result.append(leaf if leaf._backend is not level.backend else
                          from_batched(leaf, level, 0)[0])
            continue
        nd = leaf.ndim + 1
        if not isinstance(d, int) or not -nd <= d < nd:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, "
                             f"{nd - 1}], but got {d})")
        result.append(from_batched(leaf, level, d % nd))
    return tree_unflatten(result, spec)


def _out_dims_per_leaf(out_dims: Any, outputs: Any, fail: Callable[[], Exception]) -> list[Any]:
    """One out_dim per output leaf (a one-entry tuple also stands for a single output)."""
    if isinstance(out_dims, (tuple, list)) and not isinstance(outputs, (tuple, list)):
        if len(out_dims) != 1:
            raise fail()
        out_dims = out_dims[0]
    return _broadcast_prefix(out_dims, outputs, fail)


def _chunked(func: Callable[..., Any], out_dims: Any, randomness: str, chunk_size: int,
             leaves: list[Any], dims: list[Any], spec: TreeSpec, kwargs: dict[str, Any],
             size: int) -> Any:
    """The batch in chunks of ``chunk_size``, one after the other, outputs concatenated."""
    from arraygrad.ops.shape import cat  # not ``import arraygrad``: no import cycle
    from arraygrad.random import get_rng_state, set_rng_state

    device = next(leaf for leaf, d in zip(leaves, dims) if d is not None).device
    # 'same': every chunk replays the first one's draws, as one call would share them
    state = get_rng_state(device) if randomness == "same" else None
    pieces = []
    for start in range(0, size, chunk_size):
        n = min(chunk_size, size - start)
        part = [leaf if d is None else leaf.narrow(d, start, n) for leaf, d in zip(leaves, dims)]
        if state is not None:
            set_rng_state(state, device)
        pieces.append(_run(func, out_dims, randomness, part, dims, spec, kwargs, n))
    flat = [tree_flatten(p)[0] for p in pieces]
    out_spec = tree_flatten(pieces[0])[1]

    def fail() -> Exception:  # never raised: the first chunk checked the structure already
        return ValueError("vmap: out_dims do not match the outputs")

    odims = _out_dims_per_leaf(out_dims, pieces[0], fail)
    joined = []
    for k, d in enumerate(odims):
        items = [f[k] for f in flat]
        if d is None or not isinstance(items[0], Tensor):
            joined.append(items[0])
        else:
            joined.append(cat(items, dim=d % items[0].ndim))
    return tree_unflatten(joined, out_spec)

