"""``use_deterministic_algorithms`` and its queries: the deterministic-algorithms switch,
stored and answered as PyTorch's.

arraygrad's ops are deterministic on the CPU whatever the switch says (NumPy's kernels
have no nondeterministic variants to avoid); PyTorch's switch also makes its few ops that
have no deterministic implementation raise (or warn, with ``warn_only``), and arraygrad
has none of those. What it does change, as in PyTorch: with ``fill_uninitialized_memory``
(``utils.deterministic``, on by default) ``empty`` and its kind fill their memory with NaN
(the largest value for integer dtypes), so a read of uninitialised memory is reproducible.
"""

from __future__ import annotations

__all__ = ["use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
           "is_deterministic_algorithms_warn_only_enabled", "set_deterministic_debug_mode",
           "get_deterministic_debug_mode"]

_state = {"enabled": False, "warn_only": False, "fill": True}


def fills_uninitialized_memory() -> bool:
    """Whether ``empty`` fills its memory now: the switch is on and so is
    ``utils.deterministic.fill_uninitialized_memory``."""
    return _state["enabled"] and _state["fill"]


def set_fill_uninitialized_memory(mode: bool) -> None:
    """``utils.deterministic.fill_uninitialized_memory = mode``."""
    if not isinstance(mode, bool):
        raise TypeError(f"expected a bool, but got {type(mode).__name__}")
    _state["fill"] = mode


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Turn the deterministic-algorithms switch on or off (``warn_only``: warn, not raise)."""
    if not isinstance(mode, bool):
        raise TypeError("_set_deterministic_algorithms(): argument 'mode' (position 1) must be "
                        f"bool, not {type(mode).__name__}")
    if not isinstance(warn_only, bool):
        raise TypeError("_set_deterministic_algorithms(): argument 'warn_only' must be bool, "
                        f"not {type(warn_only).__name__}")
    _state["enabled"], _state["warn_only"] = mode, warn_only


def are_deterministic_algorithms_enabled() -> bool:
    """Whether the switch is on."""
    return _state["enabled"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """Whether the switch only warns."""
    return _state["warn_only"]


_MODES = {"default": 0, "warn": 1, "error": 2}


def set_deterministic_debug_mode(debug_mode: int | str) -> None:
    """The switch as a mode: ``"default"``/0 off, ``"warn"``/1 warn only, ``"error"``/2 on."""
    if isinstance(debug_mode, str):
        if debug_mode not in _MODES:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, "
                               f"`error`, but got {debug_mode}")
        debug_mode = _MODES[debug_mode]
    elif not isinstance(debug_mode, int) or isinstance(debug_mode, bool):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> int:
    """The switch as a mode: 0 off, 1 warn only, 2 on."""
    if not _state["enabled"]:
        return 0
    return 1 if _state["warn_only"] else 2
