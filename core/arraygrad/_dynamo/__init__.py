"""``arraygrad._dynamo``: the ``torch._dynamo`` switches programs set, for ``arraygrad.compile``.

arraygrad has no Dynamo: ``arraygrad.compile`` records a function's tensor operations as it
runs and replays them. What programs set here is kept and answered: ``config.cache_size_limit``
(or ``recompile_limit``) is ``arraygrad.compile``'s real limit of programs per function;
``reset()`` forgets every compiled program (``arraygrad.compiler.reset``). The other settings
(``suppress_errors``, ``capture_scalar_outputs``...) are stored and change nothing: arraygrad
always falls back to eager where it cannot record (as ``suppress_errors=True`` asks), and
always guards on shapes (docs/differences.md).
"""

from __future__ import annotations

from typing import Any

from arraygrad._dynamo.config_namespace import ConfigNamespace
from arraygrad.compiler import allow_in_graph, disable, is_compiling, list_backends, reset

__all__ = ["config", "reset", "disable", "allow_in_graph", "is_compiling", "list_backends",
           "mark_dynamic", "maybe_mark_dynamic", "mark_static"]


def _limit() -> Any:
    from arraygrad.compiler import compiled

    return compiled.cache_size_limit


def _set_limit(value: Any) -> None:
    from arraygrad.compiler import compiled

    compiled.cache_size_limit = int(value)


config = ConfigNamespace("arraygrad._dynamo.config", {
    "suppress_errors": False, "accumulated_cache_size_limit": 256,
    "accumulated_recompile_limit": 256, "verbose": False, "capture_scalar_outputs": False,
    "capture_dynamic_output_shape_ops": False, "optimize_ddp": True,
    "automatic_dynamic_shapes": True, "assume_static_by_default": True,
    "inline_inbuilt_nn_modules": True, "force_parameter_static_shapes": True,
    "specialize_int": False, "dynamic_shapes": True, "error_on_recompile": False,
    "guard_nn_modules": True, "allow_unspec_int_on_nn_module": False,
}, linked={"cache_size_limit": (_limit, _set_limit), "recompile_limit": (_limit, _set_limit)})
"""``torch._dynamo.config``'s settings (see the module docstring for which act)."""


def mark_dynamic(t: Any, index: Any, **kwargs: Any) -> None:
    """Mark dims of ``t`` as dynamic: accepted; arraygrad records each new shape on its own."""


def maybe_mark_dynamic(t: Any, index: Any) -> None:
    """As ``mark_dynamic``: accepted, no effect."""


def mark_static(t: Any, index: Any = None) -> None:
    """Mark dims of ``t`` as static: every shape is static to arraygrad already."""
