"""``functional_call``: run a module with some parameters and buffers swapped for given tensors.

As ``torch.nn.utils.stateless`` (and ``torch.func.functional_call``, which accepts a
tuple of dicts too): the module's own tensors are put back after the call, also when it
raises; tensors tied in the module (one object under several names) stay tied unless
``tie_weights=False``.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any, Iterator, Mapping, Sequence

from arraygrad.nn.utils._named_member_accessor import MISSING, NamedMemberAccessor
from arraygrad.tensor import Tensor

if TYPE_CHECKING:
    from arraygrad.nn.modules.module import Module

__all__ = ["functional_call", "NamedMemberAccessor"]



def _untie(module: Module, given: dict[str, Any]) -> dict[str, Any]:
    """``given`` plus every name tied (same tensor object) to a given name, with its value."""
    named: dict[str, Tensor] = dict(module.named_parameters(remove_duplicate=False))
    named.update(module.named_buffers(remove_duplicate=False))
    names_of: dict[int, set[str]] = {}
    for name, t in named.items():
        names_of.setdefault(id(t), set()).add(name)
    tied = {n: names for names in names_of.values() if len(names) > 1 for n in names}
    given_tied = [n for n in given if n in tied]
    for name in given_tied:
        names = tied[name]
        if (len(names.intersection(given_tied)) > 1
                and len({id(given[n]) for n in names if n in given}) != 1):
            raise ValueError(f"functional_call got multiple values for keys {sorted(names)}, "
                             "which are tied. Consider using tie_weights=False")
    out = dict(given)
    for name in given_tied:
        for other in tied[name]:
            out[other] = given[name]
    return out


@contextlib.contextmanager
def _reparametrize_module(module: Module, parameters_and_buffers: dict[str, Any],
                          tie_weights: bool = False, strict: bool = False) -> Iterator[None]:
    """Swap the given tensors in for the duration of the ``with`` block, then swap back."""
    values = _untie(module, parameters_and_buffers) if tie_weights else parameters_and_buffers
    if strict:
        valid = {n for n, _ in module.named_parameters(remove_duplicate=False)}
        valid |= {n for n, _ in module.named_buffers(remove_duplicate=False)}
        unexpected = sorted(set(values) - valid)
        missing = sorted(valid - set(values))
        msgs = []
        if unexpected:
            msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if msgs:
            raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(
                module._get_name(), "\n\t".join(msgs)))
    accessor = NamedMemberAccessor(module)
    originals: dict[str, Any] = {}
    try:
        for name, value in values.items():
            originals[name] = accessor.swap_tensor(name, value, allow_missing=True)
        yield
    finally:
        # undo in reverse order, so a name swapped twice (tied) ends with its first original
        current = {name: accessor.swap_tensor(name, orig, allow_missing=True)
                   for name, orig in reversed(list(originals.items()))}
        # what the call assigned (e.g. ``self.buf = self.buf + 1``) shows in the caller's dict
        parameters_and_buffers.update({k: current[k] for k in parameters_and_buffers
                                       if k in current and current[k] is not MISSING})


def _merge_dicts(dicts: Mapping[str, Any] | Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """One dict from a dict or a sequence of dicts (torch.func's ``parameter_and_buffer_dicts``)."""
    if isinstance(dicts, Mapping):
        return dicts if isinstance(dicts, dict) else dict(dicts)
    if isinstance(dicts, (list, tuple)):
        if not all(isinstance(d, Mapping) for d in dicts):
            raise ValueError(
                "Expected all elements of parameter_and_buffer_dicts to be dictionaries")
        counts: dict[str, int] = {}
        for d in dicts:
            for k in d:
                counts[k] = counts.get(k, 0) + 1
        repeated = [k for k, n in counts.items() if n > 1]
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of "
                             "functional call is ambiguous")
        return {k: v for d in dicts for k, v in d.items()}
    raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of "
                     f"dicts, but got {type(dicts)}")


def functional_call(module: Module,
                    parameters_and_buffers: Mapping[str, Any] | Sequence[Mapping[str, Any]],
                    args: Any = None, kwargs: dict[str, Any] | None = None, *,
                    tie_weights: bool = True, strict: bool = False) -> Any:
    """Call ``module(*args, **kwargs)`` with the tensors named in ``parameters_and_buffers``
    (dotted names, as ``named_parameters``) in place of the module's own.

    ``args`` that is not a tuple is the single positional argument. ``strict``: the
    names must be exactly the module's parameters and buffers. Gradients flow to the
    given tensors; the module is unchanged afterwards.

    >>> params = {k: v.detach() * 2 for k, v in model.named_parameters()}
    >>> out = functional_call(model, params, (x,))
    """
    from arraygrad.nn.parallel import DataParallel

    if isinstance(module, DataParallel):
        raise RuntimeError("The stateless API can't be used with nn.DataParallel module")
    given = _merge_dicts(parameters_and_buffers)
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, given, tie_weights=tie_weights, strict=strict):
        return module(*args, **kwargs)
