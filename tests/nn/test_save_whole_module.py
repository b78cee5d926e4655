"""A whole module saved with ``arraygrad.save(model)`` loads under ``weights_only`` once the
user allow-lists the model's classes, as PyTorch's does: arraygrad's own internals the pickle
names (a module's hook dicts, ``HookDict``) are allowed by default, as PyTorch's are."""

from __future__ import annotations

import io
import pickle

import pytest

import arraygrad as ag
from arraygrad import nn
from arraygrad.autograd.hooks import HookDict


def _saved(obj) -> io.BytesIO:
    buffer = io.BytesIO()
    ag.save(obj, buffer)
    buffer.seek(0)
    return buffer


def _model():
    return nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.BatchNorm1d(3)).eval()


def test_whole_module_loads_with_its_classes_allowed():
    model = _model()
    buffer = _saved(model)
    with ag.serialization.safe_globals([nn.Sequential, nn.Linear, nn.ReLU, nn.BatchNorm1d]):
        loaded = ag.load(buffer)  # refused before: "GLOBAL arraygrad.autograd.hooks.HookDict"
    x = ag.randn(4, 2)
    assert ag.equal(loaded(x), model(x))
    assert type(loaded[0]._forward_hooks) is HookDict
    handle = loaded[0].register_forward_hook(lambda *args: None)  # the dicts still work
    handle.remove()


def test_unsafe_globals_name_only_the_model_classes():
    names = ag.serialization.get_unsafe_globals_in_checkpoint(_saved(_model()))
    assert not any("HookDict" in name for name in names)
    assert "arraygrad.nn.modules.linear.Linear" in names


def test_model_classes_still_need_allowing():
    with pytest.raises(pickle.UnpicklingError, match="nn.modules.container.Sequential"):
        ag.load(_saved(_model()))


def _double(module, args, output):
    return output * 2


def test_a_registered_hook_needs_allowing_as_in_pytorch():
    model = nn.Linear(2, 2)
    model.register_forward_hook(_double)
    with ag.serialization.safe_globals([nn.Linear]), pytest.raises(pickle.UnpicklingError,
                                                                    match="_double"):
        ag.load(_saved(model))
    with ag.serialization.safe_globals([nn.Linear, _double]):
        loaded = ag.load(_saved(model))
    x = ag.randn(1, 2)
    assert ag.equal(loaded(x), model(x))
