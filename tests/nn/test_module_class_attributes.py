"""``nn.Module``'s class-level switches PyTorch programs touch: ``call_super_init`` (cooperative
multiple inheritance), ``dump_patches``, ``T_destination``, and the device moves no backend
serves (``xpu``/``ipu``/``mtia``)."""

from __future__ import annotations

from typing import TypeVar

import pytest

import arraygrad as ag


class _Mixin:
    def __init__(self, *, scale: float = 1.0, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.scale = scale


def test_call_super_init_passes_arguments_down_the_mro() -> None:
    class Scaled(ag.nn.Module, _Mixin):
        call_super_init = True

    m = Scaled(scale=3.0)
    assert m.scale == 3.0 and m.training


def test_arguments_without_call_super_init_are_refused() -> None:
    with pytest.raises(TypeError, match="unexpected arguments"):
        ag.nn.Module(1)


def test_legacy_class_attributes() -> None:
    assert ag.nn.Module.call_super_init is False
    assert ag.nn.Module.dump_patches is False
    assert isinstance(ag.nn.Module.T_destination, TypeVar)


def test_device_moves_no_backend_serves_raise_and_leave_the_module() -> None:
    lin = ag.nn.Linear(2, 2)
    before = lin.weight.detach().clone()
    # PyTorch's CPU build: AssertionError for xpu/mtia, RuntimeError for ipu
    for move, error in (("xpu", AssertionError), ("ipu", RuntimeError), ("mtia", AssertionError)):
        with pytest.raises(error, match="not (compiled|linked)"):
            getattr(lin, move)()
    assert bool((lin.weight == before).all())
