"""``loop_vmap``: ``vmap``'s semantics by a Python loop (split, call per sample, stack).

The reference ``vmap`` batches at the array level (one backend call per op for the
whole batch); this one calls ``func`` once per sample and stacks the results, so it
is slow but obviously right. It is the oracle the batched ``vmap`` is tested
against and the "Python loop" column of ``benchmarks/per_sample_grads.py``.

Arguments and errors are ``torch.func.vmap``'s: ``in_dims`` is an int, None, or a
(nested) tuple that is a prefix of the arguments' structure (an int or None there
stands for every tensor below it); ``out_dims`` likewise for the outputs; keyword
arguments are passed to every call unbatched. ``randomness``: ``'error'`` raises
when a sample draws from the default generator, ``'same'`` replays the generator's
state for each sample (every sample sees the same draws), ``'different'`` lets
the draws go on. ``chunk_size`` is checked; the loop computes one sample at a time
whatever it is, so every value gives the same result.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from arraygrad._pytree import TreeSpec, tree_flatten, tree_unflatten
from arraygrad.tensor import Tensor

__all__ = ["loop_vmap", "check_vmap_args", "broadcast_prefix"]

_RANDOM_ERROR = ("vmap: called random operation while in randomness error mode. Please either use "
                 "the 'same' or 'different' randomness flags on vmap or perform the randomness "
                 "operation out of vmap")


def _name(func: Callable[..., Any]) -> str:
    return getattr(func, "__name__", repr(func))


def check_vmap_args(randomness: str, chunk_size: int | None) -> None:
    """PyTorch's errors for a bad ``randomness`` or ``chunk_size`` (raised by ``vmap`` itself,
    before the function is called)."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")


def broadcast_prefix(prefix: Any, spec: TreeSpec) -> list[Any] | None:
    """The flat list of ``prefix``'s leaves broadcast over ``spec``'s leaves: an int or None
    in ``prefix`` stands for every leaf of the subtree at its place. None when ``prefix`` is
    not a prefix of the structure."""
    if prefix is None or isinstance(prefix, int) or spec.kind == "leaf":
        if not (prefix is None or isinstance(prefix, int)):
            return None
        return [prefix] * spec.num_leaves
    if spec.kind in ("tuple", "namedtuple"):
        ok = isinstance(prefix, tuple)
    elif spec.kind == "list":
        ok = isinstance(prefix, list)
    elif spec.kind == "dict":
        ok = isinstance(prefix, dict) and set(prefix) == set(spec.context)
        if ok:
            prefix = [prefix[k] for k in spec.context]
    else:  # "none": a node without leaves takes any prefix
        return []
    if not ok or len(prefix) != len(spec.children):
        return None
    out: list[Any] = []
    for p, child in zip(prefix, spec.children):
        sub = broadcast_prefix(p, child)
        if sub is None:
            return None
        out.extend(sub)
    return out


def _flat_in_dims(func: Callable[..., Any], in_dims: Any,
                  args: tuple[Any, ...]) -> tuple[list[Any], list[int | None], TreeSpec, int]:
    """The flat arguments, their (non-negative) in_dims, the structure and the batch size,
    with PyTorch's ValueErrors."""
    head = f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): "
    if not isinstance(in_dims, (int, tuple)) and in_dims is not None:
        raise ValueError(head + "expected `in_dims` to be int or a (potentially nested) tuple "
                         f"matching the structure of inputs, got: {type(in_dims)}.")
    if not args:
        raise ValueError(f"vmap({_name(func)})(<inputs>): got no inputs. Maybe you forgot to add "
                         "inputs, or you are trying to vmap over a function with no inputs. "
                         "The latter is unsupported.")
    flat_args, spec = tree_flatten(args)
    flat_dims = broadcast_prefix(in_dims, spec)
    if flat_dims is None:
        raise ValueError(head + "in_dims is not compatible with the structure of `inputs`. "
                         f"in_dims has structure {tree_flatten(in_dims)[1]} but inputs has "
                         f"structure {spec}.")
    sizes = []
    for i, (arg, d) in enumerate(zip(flat_args, flat_dims)):
        if d is None:
            continue
        if not isinstance(arg, Tensor):
            raise ValueError(head + f"Got in_dim={d} for an input but the input is of type "
                             f"{type(arg)}. We cannot vmap over non-Tensor arguments, please "
                             "use None as the respective in_dim")
        n = arg.dim()
        if not -n <= d < n:
            raise ValueError(head + f"Got in_dim={d} for some input, but that input is a Tensor "
                             f"of dimensionality {n} so expected in_dim to satisfy "
                             f"-{n} <= in_dim < {n}.")
        flat_dims[i] = d % n
        sizes.append(arg.shape[d])
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    return flat_args, flat_dims, spec, sizes[0]


def _sample(arg: Any, dim: int | None, i: int) -> Any:
    if dim is None:
        return arg
    return arg[(slice(None),) * dim + (i,)]


def _stack_outputs(func: Callable[..., Any], out_dims: Any, results: list[Any]) -> Any:
    from arraygrad.ops.shape import stack

    flat_first, spec = tree_flatten(results[0])
    if isinstance(results[0], Tensor) and isinstance(out_dims, tuple) and len(out_dims) == 1:
        flat_dims: list[Any] | None = list(out_dims)  # PyTorch's edge case: (d,) for one tensor
    else:
        flat_dims = broadcast_prefix(out_dims, spec)
    if flat_dims is None:
        raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims})(<inputs>): out_dims is "
                         "not compatible with the structure of `outputs`. out_dims has structure "
                         f"{tree_flatten(out_dims)[1]} but outputs has structure {spec}.")
    per_sample = [tree_flatten(r)[0] for r in results]
    out = []
    for k, d in enumerate(flat_dims):
        if d is None:
            out.append(flat_first[k])  # not batched: every sample's is the same value
            continue
        column = [leaves[k] for leaves in per_sample]
        for value in column:
            if not isinstance(value, Tensor):
                raise ValueError(f"vmap({_name(func)}, ...): `{_name(func)}` must only return "
                                 f"Tensors, got type {type(value)}. Did you mean to set "
                                 "out_dims= to None for output?")
        out.append(stack(column, d))
    return tree_unflatten(out, spec)


def _same_state(a: Tensor, b: Any) -> bool:
    # the state's length varies with the generator's position, so compare shapes first
    return tuple(a.shape) == tuple(b.shape) and bool((a == b).all())


def loop_vmap(func: Callable[..., Any], in_dims: Any = 0, out_dims: Any = 0,
              randomness: str = "error", *, chunk_size: int | None = None) -> Callable[..., Any]:
    """``func`` mapped over the ``in_dims`` of its arguments by a Python loop, the results
    stacked along ``out_dims`` (``torch.func.vmap``'s arguments, defaults and errors).

    >>> loop_vmap(lambda x: x.sum())(arraygrad.ones(3, 2))
    tensor([2., 2., 2.])
    """
    check_vmap_args(randomness, chunk_size)

    @functools.wraps(func)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        from arraygrad.random import get_rng_state, set_rng_state

        flat_args, flat_dims, spec, size = _flat_in_dims(func, in_dims, args)
        state = get_rng_state() if randomness != "different" else None
        results = []
        for i in range(size):
            if randomness == "same":
                set_rng_state(state)  # every sample draws what the first drew
            sample = tree_unflatten([_sample(a, d, i) for a, d in zip(flat_args, flat_dims)],
                                    spec)
            results.append(func(*sample, **kwargs))
            if randomness == "error" and not _same_state(get_rng_state(), state):
                set_rng_state(state)  # nothing changes on error
                raise RuntimeError(_RANDOM_ERROR)
        return _stack_outputs(func, out_dims, results)

    return wrapped
