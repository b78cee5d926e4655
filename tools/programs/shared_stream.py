"""Run a PyTorch program on PyTorch with its random numbers drawn by arraygrad.

    python tools/programs/shared_stream.py [--seed N] program.py [args...]

The two frameworks' generators differ (PyTorch's Mersenne Twister and its own transforms,
arraygrad's backend generator), so a program that initialises weights at random, shuffles, or
drops out prints other numbers on each, even with the same seed. This shim makes PyTorch draw
what arraygrad would: before the program starts it replaces PyTorch's Python-visible random
entry points with ones that make the same call on arraygrad (same shape, dtype, arguments,
generator) and copy arraygrad's numbers into PyTorch's tensor. ``torch.manual_seed`` seeds
arraygrad too. Run the same program under ``as_torch.py`` and both consume one stream, so a
program whose only differences were its random draws prints the same numbers on both.

Patched: ``torch.manual_seed`` (and ``torch.random.manual_seed``), ``torch.Generator`` (a
subclass whose ``manual_seed`` seeds an arraygrad generator paired with it), the tensor fillers
``uniform_ normal_ bernoulli_ random_ exponential_ geometric_ cauchy_ log_normal_``, the
functions ``rand randn randint randperm rand_like randn_like randint_like multinomial bernoulli
normal poisson`` (and the ``bernoulli``/``multinomial`` methods), every random ``nn.init``
function, and the element and channel dropouts of ``torch.nn.functional`` (``dropout``,
``dropout1d/2d/3d``; ``torch.dropout`` too). What draws inside PyTorch's C++ kernels stays
PyTorch's: dropout inside ``nn.LSTM``/``GRU``/``RNN`` (``dropout=`` between layers), the dropout
of ``scaled_dot_product_attention`` (``dropout_p``), ``rrelu``, ``alpha_dropout``,
``fractional_max_pool``, ``torch._standard_gamma`` (Gamma, Beta, Dirichlet samples); a program
that uses them agrees only in distribution.
"""

from __future__ import annotations

import functools
import os
import sys
from typing import Any, Callable

import arraygrad as ag
import numpy as np
import torch

_TORCH_TENSOR = torch.Tensor
_ORIGINAL: dict[str, Any] = {}


# -- conversions ---------------------------------------------------------------------------

def _ag_dtype(d: Any) -> Any:
    """arraygrad's dtype of the same name as PyTorch's ``d`` (None stays None)."""
    return None if d is None else getattr(ag, str(d).rsplit(".", 1)[-1])


def _to_ag(value: Any) -> Any:
    """arraygrad's copy of a PyTorch tensor, dtype or generator; other values as they are."""
    if isinstance(value, _TORCH_TENSOR):
        return ag.from_numpy(np.array(value.detach().cpu().numpy()))
    if isinstance(value, torch.dtype):
        return _ag_dtype(value)
    if isinstance(value, torch.Generator):
        return _paired(value)
    if isinstance(value, (list, tuple)) and value and isinstance(value[0], _TORCH_TENSOR):
        return type(value)(_to_ag(v) for v in value)
    return value


def _to_torch(value: Any, like: Any = None) -> Any:
    """PyTorch's copy of an arraygrad tensor."""
    out = torch.from_numpy(np.array(value.numpy()))
    return out if like is None else out.to(like.device)


def _ag_kwargs(kwargs: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments for arraygrad: tensors, dtypes, generators converted; devices,
    layouts, pinning and memory formats dropped (every draw is on the CPU)."""
    dropped = ("device", "layout", "pin_memory", "memory_format", "out", "requires_grad")
    return {k: _to_ag(v) for k, v in kwargs.items() if k not in dropped}


# -- generators ----------------------------------------------------------------------------

_pairs: dict[int, tuple[Any, Any]] = {}  # id(torch generator) -> (weakref, arraygrad generator)


def _paired(gen: torch.Generator) -> Any:
    """The arraygrad generator drawing for the PyTorch generator ``gen`` (the default
    generator's is arraygrad's default one)."""
    import weakref

    if gen is torch.default_generator:
        return None
    entry = _pairs.get(id(gen))
    if entry is None or entry[0]() is not gen:
        entry = (weakref.ref(gen), ag.Generator().manual_seed(gen.initial_seed()))
        _pairs[id(gen)] = entry
    return entry[1]


class Generator(torch.Generator):
    """``torch.Generator`` whose ``manual_seed`` also reseeds its arraygrad pair."""

    def manual_seed(self, seed: int) -> "Generator":
        super().manual_seed(seed)
        _paired(self).manual_seed(seed)
        return self


def manual_seed(seed: int) -> Any:
    """Seed PyTorch and arraygrad alike."""
    ag.manual_seed(seed)
    return _ORIGINAL["manual_seed"](seed)


# -- draws -----------------------------------------------------------------------------------

def _fresh(name: str) -> Callable[..., Any]:
    """``torch.<name>(...)`` drawn by ``arraygrad.<name>`` with the same arguments."""
    def draw(*args: Any, **kwargs: Any) -> Any:
        requires_grad = kwargs.get("requires_grad", False)
        out_tensor = kwargs.get("out")
        dtype = kwargs.get("dtype")
        default = _ag_dtype(torch.get_default_dtype())
        if ag.get_default_dtype() != default:  # a program's set_default_dtype
            ag.set_default_dtype(default)
        result = getattr(ag, name)(*[_to_ag(a) for a in args], **_ag_kwargs(kwargs))
        out = _to_torch(result)
        if dtype is not None and out.dtype != dtype:
            out = out.to(dtype)
        if out_tensor is not None:
            with torch.no_grad():
                out_tensor.resize_(out.shape).copy_(out)
            return out_tensor
        return out.requires_grad_(requires_grad) if requires_grad else out
    draw.__name__ = name
    return draw


def _filler(name: str) -> Callable[..., Any]:
    """``tensor.<name>(...)`` (in place) filled by arraygrad's filler of the same name run on
    a tensor of the same shape and dtype."""
    def fill(self: Any, *args: Any, **kwargs: Any) -> Any:
        target = ag.empty(tuple(self.shape), dtype=_ag_dtype(self.dtype))
        getattr(target, name)(*[_to_ag(a) for a in args], **_ag_kwargs(kwargs))
        # copy_ refuses a leaf that requires grad outside no_grad, as the filler itself does
        return self.copy_(_to_torch(target, self))
    fill.__name__ = name
    return fill


def _method(name: str) -> Callable[..., Any]:
    """``tensor.<name>(...)`` (out of place: ``bernoulli``, ``multinomial``) by arraygrad."""
    def draw(self: Any, *args: Any, **kwargs: Any) -> Any:
        result = getattr(_to_ag(self), name)(*[_to_ag(a) for a in args], **_ag_kwargs(kwargs))
        return _to_torch(result, self)
    draw.__name__ = name
    return draw


def _init(name: str) -> Callable[..., Any]:
    """``torch.nn.init.<name>(tensor, ...)`` filled by ``arraygrad.nn.init.<name>``."""
    def init(tensor: Any, *args: Any, **kwargs: Any) -> Any:
        target = _to_ag(tensor)
        getattr(ag.nn.init, name)(target, *[_to_ag(a) for a in args], **_ag_kwargs(kwargs))
        with torch.no_grad():
            tensor.copy_(_to_torch(target, tensor))
        return tensor
    init.__name__ = name
    return init


def _dropout(name: str) -> Callable[..., Any]:
    """``F.<name>(input, p, training, inplace)``: arraygrad's mask (the function applied to
    ones: 0 or ``1 / (1 - p)``), multiplied in with PyTorch's ops (so gradients flow)."""
    original = getattr(torch.nn.functional, name)

    @functools.wraps(original)
    def dropout(input: Any, p: float = 0.5, training: bool = True,
                inplace: bool = False) -> Any:
        if not training or p == 0.0 or p < 0.0 or p > 1.0:
            return original(input, p, training, inplace)
        ones = ag.ones(tuple(input.shape), dtype=_ag_dtype(input.dtype))
        mask = _to_torch(getattr(ag.nn.functional, name)(ones, p, True), input)
        return input.mul_(mask) if inplace else input * mask
    return dropout


def _torch_dropout(input: Any, p: float, train: bool) -> Any:
    return torch.nn.functional.dropout(input, p, train)


FRESH = ["rand", "randn", "randint", "randperm", "rand_like", "randn_like", "randint_like",
         "multinomial", "bernoulli", "normal", "poisson"]
FILLERS = ["uniform_", "normal_", "bernoulli_", "random_", "exponential_", "geometric_",
           "cauchy_", "log_normal_"]
METHODS = ["bernoulli", "multinomial"]
INITS = ["uniform_", "normal_", "trunc_normal_", "xavier_uniform_", "xavier_normal_",
         "kaiming_uniform_", "kaiming_normal_", "orthogonal_", "sparse_"]
DROPOUTS = ["dropout", "dropout1d", "dropout2d", "dropout3d"]


def install() -> list[str]:
    """Patch PyTorch (once); returns the names patched (those arraygrad has)."""
    if _ORIGINAL:
        return sorted(_ORIGINAL)
    patched = []
    _ORIGINAL["manual_seed"] = torch.manual_seed
    torch.manual_seed = manual_seed
    torch.random.manual_seed = manual_seed
    _ORIGINAL["Generator"] = torch.Generator
    torch.Generator = Generator
    patched += ["manual_seed", "Generator"]
    for name in FRESH:
        if hasattr(ag, name):
            _ORIGINAL[name] = getattr(torch, name)
            setattr(torch, name, _fresh(name))
            patched.append(name)
    for name in FILLERS:
        if hasattr(ag.Tensor, name):
            _ORIGINAL["Tensor." + name] = getattr(_TORCH_TENSOR, name)
            setattr(_TORCH_TENSOR, name, _filler(name))
            patched.append("Tensor." + name)
    for name in METHODS:
        if hasattr(ag.Tensor, name):
            _ORIGINAL["Tensor." + name] = getattr(_TORCH_TENSOR, name)
            setattr(_TORCH_TENSOR, name, _method(name))
            patched.append("Tensor." + name)
    for name in INITS:
        if hasattr(ag.nn.init, name):
            _ORIGINAL["init." + name] = getattr(torch.nn.init, name)
            setattr(torch.nn.init, name, _init(name))
            patched.append("nn.init." + name)
    for name in DROPOUTS:
        if hasattr(ag.nn.functional, name):
            replacement = _dropout(name)
            _ORIGINAL["F." + name] = getattr(torch.nn.functional, name)
            setattr(torch.nn.functional, name, replacement)
            patched.append("nn.functional." + name)
    _ORIGINAL["dropout"] = torch.dropout
    torch.dropout = _torch_dropout
    return patched


def main(argv: list[str] | None = None) -> None:
    """``shared_stream.py [--seed N] (program.py | -m module) [args...]``."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from runner import run_program, split_command

    install()
    seed, target, module, args = split_command(sys.argv[1:] if argv is None else argv,
                                               "shared_stream.py")
    run_program(target, args, seed=seed, as_module=module)


if __name__ == "__main__":
    main()
