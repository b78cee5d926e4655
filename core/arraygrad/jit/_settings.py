"""The TorchScript executor's settings (fusers, optimized execution, fusion strategy, oneDNN
fusion): kept and validated as PyTorch does, and changing no computation, since arraygrad's
``script``/``trace`` run eagerly, where PyTorch's settings change nothing either."""

from __future__ import annotations

import contextlib
import warnings
from typing import Any, Iterator

_FUSERS = ("fuser0", "fuser1", "fuser2", "fuser3", "none")
_settings: dict[str, Any] = {"optimize": True, "fuser": None, "onednn": False,
                             "strategy": [("STATIC", 2), ("DYNAMIC", 10)]}


@contextlib.contextmanager
def optimized_execution(should_optimize: bool) -> Iterator[None]:
    """Context manager setting whether the TorchScript executor optimizes (no effect on eager
    code, which is all arraygrad runs)."""
    stored = _settings["optimize"]
    _settings["optimize"] = should_optimize
    try:
        yield
    finally:
        _settings["optimize"] = stored


@contextlib.contextmanager
def fuser(name: str) -> Iterator[None]:
    """Context manager choosing TorchScript's fuser: ``fuser0`` (legacy), ``fuser1`` (NNC),
    ``fuser2`` (nvFuser), ``fuser3`` (oneDNN Graph) or ``none``; another name raises."""
    if name not in _FUSERS:
        raise Exception(f"unrecognized fuser option (name: {name})")  # noqa: TRY002 - PyTorch's
    stored = _settings["fuser"]
    _settings["fuser"] = name
    try:
        yield
    finally:
        _settings["fuser"] = stored


def set_fusion_strategy(strategy: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Set the executor's fusion strategy (``[("STATIC", 2), ("DYNAMIC", 10)]``...); returns
    the previous one."""
    for kind, depth in strategy:
        if kind not in ("STATIC", "DYNAMIC"):
            raise RuntimeError(f"FusionBehavior must be either 'STATIC' or 'DYNAMIC', got {kind}")
        if not isinstance(depth, int):
            raise TypeError(f"fusion depth must be an int, got {type(depth).__name__}")
    old = _settings["strategy"]
    _settings["strategy"] = [tuple(s) for s in strategy]
    return old


def enable_onednn_fusion(enabled: bool) -> None:
    """Enable or disable TorchScript's oneDNN fusion."""
    _settings["onednn"] = bool(enabled)


def onednn_fusion_enabled() -> bool:
    """Whether TorchScript's oneDNN fusion is enabled (False by default)."""
    return bool(_settings["onednn"])


class strict_fusion:
    """Context manager asserting that its block fuses in TorchScript; outside TorchScript it
    warns "Only works in script mode", as PyTorch's does in eager code."""

    def __init__(self) -> None:
        warnings.warn("Only works in script mode", stacklevel=2)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        pass


def _check_module(mod: Any, who: str) -> None:
    from arraygrad.nn.modules.module import Module

    if not isinstance(mod, Module):
        raise RuntimeError(f"{who} expects a ScriptModule as input. Please use torch.jit.script "
                           "or torch.jit.trace to script your 'nn.Module'.")


def freeze(mod: Any, preserved_attrs: list[str] | None = None,
           optimize_numerics: bool = True) -> Any:
    """Freeze a module in eval mode: returns ``mod`` itself (TorchScript inlines its parameters
    as constants; eager modules run unchanged). As ``script`` returns the module itself, any
    ``nn.Module`` is accepted; one in training mode raises RuntimeError as in PyTorch."""
    warnings.warn("`torch.jit.freeze` is deprecated. Please use `torch.compile` instead.",
                  DeprecationWarning, stacklevel=2)
    _check_module(mod, "Freezing")
    if mod.training:
        raise RuntimeError("Freezing is currently only implemented for modules in eval mode. "
                           "Please call .eval() on your module before freezing.")
    return mod


def run_frozen_optimizations(mod: Any, optimize_numerics: bool = True,
                             preserved_methods: list[str] | None = None) -> None:
    """TorchScript's optimization passes over a frozen module's graph; an eager module has no
    graph, so nothing changes."""
    _check_module(mod, "run_frozen_optimizations")


def optimize_for_inference(mod: Any, other_methods: list[str] | None = None) -> Any:
    """Put ``mod`` in eval mode and freeze it; returns ``mod`` (no graph passes to run)."""
    warnings.warn("`torch.jit.optimize_for_inference` is deprecated. Please use `torch.compile` "
                  "instead.", DeprecationWarning, stacklevel=2)
    _check_module(mod, "optimize_for_inference")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return freeze(mod.eval(), preserved_attrs=other_methods)
