"""``arraygrad.utils``' smaller modules: hooks, dlpack, weak, swap_tensors, set_module,
collect_env, model_zoo; and ``arraygrad.version``."""

from __future__ import annotations

import gc
import warnings

import pytest

import arraygrad as ag
from arraygrad import utils
from arraygrad.utils import collect_env, dlpack, hooks, weak

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def test_removable_handle_takes_pytorchs_arguments():
    from collections import OrderedDict

    d, extra = OrderedDict(), OrderedDict()
    h = hooks.RemovableHandle(d, extra_dict=[extra])
    d[h.id] = extra[h.id] = "hook"
    h.remove()
    assert not d and not extra
    with hooks.RemovableHandle(d) as h2:
        d[h2.id] = 1
    assert not d
    x = ag.ones(2, requires_grad=True)
    assert isinstance(x.register_hook(lambda g: g), hooks.RemovableHandle)


def test_warn_if_has_hooks_and_unserializable_hook():
    x = ag.ones(2, requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: g)
    with pytest.warns(UserWarning, match="will not be serialized"):
        hooks.warn_if_has_hooks(y)
    z = x * 3
    z.register_hook(hooks.unserializable_hook(lambda g: g))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        hooks.warn_if_has_hooks(z)
        hooks.warn_if_has_hooks(ag.ones(1))


def test_backward_hook_is_the_modules():
    from arraygrad.nn.modules._backward_hook import BackwardHook

    assert hooks.BackwardHook is BackwardHook


def test_dlpack_round_trip_and_capsules():
    x = ag.arange(6.0).reshape(2, 3)
    y = dlpack.from_dlpack(dlpack.to_dlpack(x))
    assert y.tolist() == x.tolist()
    assert ag.from_dlpack(ag.to_dlpack(x)).tolist() == x.tolist()
    capsule = dlpack.to_dlpack(x)
    ag.from_dlpack(capsule)
    with pytest.raises(TypeError, match="consumed only once"):
        ag.from_dlpack(capsule)
    assert dlpack.DLDeviceType.kDLCPU == 1


@needs_torch
def test_dlpack_capsules_cross_with_pytorch():
    x = ag.arange(4.0)
    assert torch.utils.dlpack.from_dlpack(ag.to_dlpack(x)).tolist() == [0.0, 1.0, 2.0, 3.0]
    t = torch.arange(3.0)
    assert ag.from_dlpack(torch.utils.dlpack.to_dlpack(t)).tolist() == [0.0, 1.0, 2.0]


def test_weak_id_key_dictionary():
    d = weak.WeakIdKeyDictionary()
    a, b = ag.ones(2), ag.ones(2)  # equal values, distinct keys
    d[a], d[b] = 1, 2
    assert d[a] == 1 and d[b] == 2 and len(d) == 2 and a in d
    del b
    gc.collect()
    assert len(d) == 1 and list(d) == [a]
    r = weak.TensorWeakRef(a)
    assert r() is a
    with pytest.raises(AssertionError, match="expected torch.Tensor"):
        weak.TensorWeakRef(1)
    assert weak.WeakTensorKeyDictionary is weak.WeakIdKeyDictionary


def test_swap_tensors():
    a = ag.ones(2, requires_grad=True)
    b = ag.zeros(3)
    a.note = "a"
    utils.swap_tensors(a, b)
    assert a.tolist() == [0.0, 0.0, 0.0] and not a.requires_grad
    assert b.tolist() == [1.0, 1.0] and b.requires_grad and b.note == "a"
    p, q = ag.nn.Parameter(ag.ones(1)), ag.zeros(1)
    utils.swap_tensors(p, q)
    assert type(q) is ag.nn.Parameter and type(p) is ag.Tensor
    c = ag.ones(1)
    keep = __import__("weakref").ref(c)
    with pytest.raises(RuntimeError, match="has weakref associated"):
        utils.swap_tensors(c, ag.ones(1))
    del keep


def test_set_module():
    def f():
        pass

    utils.set_module(f, "somewhere")
    assert f.__module__ == "somewhere"
    with pytest.raises(TypeError, match="should be a string"):
        utils.set_module(f, 1)


def test_collect_env(capsys):
    env = collect_env.get_env_info()
    assert env.arraygrad_version == ag.__version__
    assert any(name == "numpy" for name, *_ in env.backends)
    collect_env.main()
    assert "arraygrad version:" in capsys.readouterr().out


def test_version_module():
    assert ag.version.__version__ == ag.__version__
    assert ag.version.cuda is None and ag.version.hip is None and ag.version.debug is False
    assert isinstance(ag.version.git_version, str)


def test_listed_utils_say_why():
    with pytest.raises(AttributeError, match="C\\+\\+"):
        utils.get_cpp_backtrace  # noqa: B018
