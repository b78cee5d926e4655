"""Containers: ParameterDict (dict API, state_dict keys, repr), and the edge API of
Sequential, ModuleList, ModuleDict and ParameterList, against PyTorch where installed."""

from collections import OrderedDict

import pytest

import arraygrad as ag
from arraygrad import nn

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


# -- ParameterDict ----------------------------------------------------------------------------
def test_parameter_dict_registers_parameters():
    w = nn.Parameter(ag.ones(2, 3))
    pd = nn.ParameterDict({"w": w, "b": ag.zeros(3)})
    assert list(pd) == ["b", "w"]  # a plain dict is added in sorted key order, as PyTorch
    assert pd["w"] is w and isinstance(pd["b"], nn.Parameter) and pd["b"].requires_grad
    assert list(pd.state_dict()) == ["b", "w"]
    assert [n for n, _ in pd.named_parameters()] == ["b", "w"]
    holder = nn.Module()
    holder.extra = pd
    assert list(holder.state_dict()) == ["extra.b", "extra.w"]
    assert "w" in pd and "x" not in pd and len(pd) == 2
    ordered = nn.ParameterDict(OrderedDict([("z", ag.ones(1)), ("a", ag.ones(1))]))
    assert list(ordered.keys()) == ["z", "a"]  # an OrderedDict keeps its order
    pairs = nn.ParameterDict([("z", ag.ones(1)), ("a", ag.ones(1))])
    assert list(pairs) == ["z", "a"]
    assert list(reversed(pairs)) == ["a", "z"]


def test_parameter_dict_dict_api():
    pd = nn.ParameterDict()
    pd["a"] = ag.ones(1)
    pd["obj"] = "plain"  # non-tensors are kept as plain attributes
    assert pd["obj"] == "plain" and list(pd.state_dict()) == ["a"]
    assert pd.get("a") is pd["a"] and pd.get("zz", 5) == 5
    d = pd.setdefault("c", ag.zeros(2))
    assert isinstance(d, nn.Parameter) and pd.setdefault("c", ag.ones(9)) is d
    assert [k for k, _ in pd.items()] == ["a", "obj", "c"]
    assert [type(v).__name__ for v in pd.values()] == ["Parameter", "str", "Parameter"]
    popped = pd.pop("a")
    assert isinstance(popped, nn.Parameter) and "a" not in pd and not hasattr(pd, "a")
    assert pd.popitem() == ("c", d) and list(pd) == ["obj"]
    cp = pd.copy()
    assert list(cp) == ["obj"] and cp is not pd
    pd.update({"x": ag.ones(1)})
    merged = pd | nn.ParameterDict({"y": ag.ones(1)})
    assert list(merged) == ["obj", "x", "y"] and list(pd) == ["obj", "x"]
    pd |= nn.ParameterDict({"q": ag.ones(1)})
    assert list(pd) == ["obj", "x", "q"]
    shared = ag.ones(2)
    fk = pd.fromkeys(["m", "n"], shared)
    assert list(fk) == ["m", "n"] and isinstance(fk, nn.ParameterDict)
    pd.clear()
    assert len(pd) == 0 and list(pd.state_dict()) == []
    with pytest.raises(KeyError):
        pd.popitem()
    with pytest.raises(KeyError):
        del pd["nothing"]
    with pytest.raises(TypeError, match="not a string \\(type is 'int'\\)"):
        pd[3] = ag.ones(1)
    with pytest.raises(RuntimeError, match="ParameterDict should not be called"):
        pd(ag.ones(1))


def test_parameter_dict_update_errors_change_nothing():
    pd = nn.ParameterDict({"a": ag.ones(1)})
    with pytest.raises(TypeError, match="ParametersDict.update should be called with an iterable"):
        pd.update(3)
    with pytest.raises(ValueError, match="element #1 has length 3; 2 is required"):
        pd.update([("b", ag.ones(1)), ("c", ag.ones(1), 0)])
    with pytest.raises(TypeError, match="element #0 should be Iterable; isint"):
        pd.update([5])
    assert list(pd) == ["a"]  # the valid first pair was not added either


def test_parameter_dict_repr_and_load():
    pd = nn.ParameterDict({"b": nn.Parameter(ag.ones(2, 3)), "a": ag.zeros(2, dtype=ag.float64),
                           "c": 3})
    assert repr(pd) == ("ParameterDict(\n"
                        "    (a): Parameter containing: [arraygrad.DoubleTensor of size 2]\n"
                        "    (b): Parameter containing: [arraygrad.FloatTensor of size 2x3]\n"
                        "    (c): Object of type: int\n)")
    pd.load_state_dict({"a": ag.tensor([1.0, 2.0]), "b": ag.zeros(2, 3)})
    assert pd["a"].tolist() == [1.0, 2.0]


# -- Sequential -------------------------------------------------------------------------------
def test_sequential_edge_api():
    a, b, c = nn.ReLU(), nn.Tanh(), nn.Sigmoid()
    s = nn.Sequential(a, b)
    assert s.append(c) is s and list(s) == [a, b, c]
    assert s.insert(1, nn.Identity()) is s and [type(m).__name__ for m in s] == [
        "ReLU", "Identity", "Tanh", "Sigmoid"]
    assert list(s._modules) == ["0", "1", "2", "3"]
    s.insert(-1, nn.ELU())
    assert type(s[3]).__name__ == "ELU"
    with pytest.raises(IndexError, match="Index out of range: 9"):
        s.insert(9, nn.ReLU())
    with pytest.raises(AssertionError, match="module should be of type"):
        s.insert(0, 3)
    del s[1]
    assert list(s._modules) == ["0", "1", "2", "3"] and s[1] is b
    del s[::2]
    assert list(s) == [b, c] and list(s._modules) == ["0", "1"]
    assert isinstance(s[0:1], nn.Sequential) and list(s[0:1]) == [b]
    assert s.pop(0) is b and list(s) == [c]
    assert s.extend([a, b]) is s and list(s) == [c, a, b]
    both = s + nn.Sequential(a)
    assert list(both) == [c, a, b, a] and list(s) == [c, a, b]
    s += nn.Sequential(nn.Identity())
    assert len(s) == 4
    with pytest.raises(ValueError, match="add operator supports only objects of Sequential"):
        s + [a]
    twice = nn.Sequential(a, b) * 2
    assert list(twice) == [a, b, a, b] and list(2 * nn.Sequential(a)) == [a, a]
    t = nn.Sequential(a)
    t *= 3
    assert list(t) == [a, a, a]
    with pytest.raises(ValueError, match="Non-positive multiplication factor 0"):
        t * 0
    with pytest.raises(TypeError, match="unsupported operand type"):
        t * 1.5
    with pytest.raises(IndexError, match="index 5 is out of range"):
        t[5]
    named = nn.Sequential(OrderedDict([("first", nn.ReLU()), ("second", nn.Tanh())]))
    assert list(named.state_dict()) == [] and list(named._modules) == ["first", "second"]


# -- ModuleList / ModuleDict / ParameterList --------------------------------------------------
def test_module_list_edge_api():
    a, b = nn.ReLU(), nn.Tanh()
    ml = nn.ModuleList([a])
    assert ml.append(b) is ml
    assert ml.extend(nn.Sequential(nn.ReLU(), nn.ELU())) is ml  # a Sequential is iterable
    assert len(ml) == 4
    with pytest.raises(TypeError, match="ModuleList.extend should be called with an iterable"):
        ml.extend(nn.Linear(1, 1))
    ml.insert(0, nn.Identity())
    assert type(ml[0]).__name__ == "Identity" and ml[1] is a
    assert ml.pop(1) is a and len(ml) == 4
    del ml[0:2]
    assert [type(m).__name__ for m in ml] == ["ReLU", "ELU"] and list(ml._modules) == ["0", "1"]
    combined = ml + [b]
    assert isinstance(combined, nn.ModuleList) and len(combined) == 3
    assert repr(nn.ModuleList([nn.ReLU(), nn.ReLU(), nn.Linear(1, 2)])) == (
        "ModuleList(\n  (0-1): 2 x ReLU()\n  (2): Linear(in_features=1, out_features=2, "
        "bias=True)\n)")
    assert repr(nn.ModuleList()) == "ModuleList()"


def test_module_dict_update_errors():
    md = nn.ModuleDict({"b": nn.ReLU(), "a": nn.Tanh()})
    assert list(md) == ["b", "a"]  # ModuleDict keeps a dict's order (PyTorch sorts only for
    # ParameterDict)
    with pytest.raises(ValueError, match="element #0 has length 3; 2 is required"):
        md.update([("c", nn.ReLU(), 1)])
    with pytest.raises(TypeError, match="element #0 should be Iterable; isint"):
        md.update([1])
    with pytest.raises(TypeError, match="ModuleDict.update should be called with an iterable"):
        md.update(5)
    md.update(nn.ModuleDict({"c": nn.ELU()}))
    assert list(md) == ["b", "a", "c"]


def test_parameter_list_slicing_and_repr():
    pl = nn.ParameterList([ag.ones(2), nn.Parameter(ag.zeros(1)), "x"])
    assert isinstance(pl[0], nn.Parameter) and len(pl) == 3
    sub = pl[:2]
    assert isinstance(sub, nn.ParameterList) and sub[0] is pl[0]
    assert pl.append(ag.ones(1)) is pl and pl.extend([ag.ones(1)]) is pl and len(pl) == 5
    assert repr(nn.ParameterList([ag.ones(2), "x"])) == (
        "ParameterList(\n    (0): Parameter containing: [arraygrad.float32 of size 2]\n"
        "    (1): Object of type: str\n)")
    with pytest.raises(TypeError, match="ParameterList.extend should be called with an iterable"):
        pl.extend(ag.ones(2))


# -- against PyTorch --------------------------------------------------------------------------
@needs_torch
def test_parameter_dict_matches_pytorch():
    def build(lib):
        pd = lib.nn.ParameterDict({"w": lib.ones(2, 3), "b": lib.zeros(3), "n": 4})
        pd.update([("z", lib.ones(1)), ("a", lib.ones(2))])
        pd.setdefault("m", lib.ones(1))
        popped = pd.popitem()[0]
        merged = pd | lib.nn.ParameterDict({"y": lib.ones(1)})
        return (list(pd), list(pd.state_dict()), popped, list(merged),
                [k for k, _ in pd.named_parameters()], pd.get("n"), len(pd))

    assert build(ag) == build(torch)
    t_repr = repr(torch.nn.ParameterDict({"b": torch.ones(2, 3), "c": 3}))
    a_repr = repr(nn.ParameterDict({"b": ag.ones(2, 3), "c": 3}))
    assert a_repr == t_repr.replace("torch.FloatTensor", "arraygrad.FloatTensor")


@needs_torch
def test_container_edge_api_matches_pytorch():
    def build(lib):
        nn_ = lib.nn
        s = nn_.Sequential(nn_.ReLU(), nn_.Tanh(), nn_.Sigmoid())
        s.insert(-2, nn_.Identity())
        del s[0]
        s = s + nn_.Sequential(nn_.ELU())
        s = 2 * s
        ml = nn_.ModuleList([nn_.ReLU(), nn_.ReLU(), nn_.Tanh()])
        return (repr(s), list(s._modules), repr(ml), repr(ml[1:]),
                repr(nn_.ModuleDict([("x", nn_.ReLU()), ("a", nn_.Tanh())])))

    assert build(ag) == build(torch)
