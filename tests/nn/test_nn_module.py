"""nn.Module and nn.Parameter: registration, iteration, modes, conversion, state_dict, repr."""

import copy
import pickle  # noqa: F401  (imported to show no pickling is needed)

import pytest

import arraygrad as ag
from arraygrad import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 1)

    def forward(self, x):
        return self.fc(x)


class Tree(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(3, 2)
        self.own = nn.Parameter(ag.zeros(2))
        self.b = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
        self.register_buffer("steps", ag.tensor(0))
        self.register_buffer("scratch", ag.zeros(1), persistent=False)

    def forward(self, x):
        return self.b(self.a(x) + self.own)


# -- Parameter ----------------------------------------------------------------------

def test_parameter_shares_data_and_requires_grad():
    t = ag.tensor([1., 2.])
    p = nn.Parameter(t)
    assert isinstance(p, ag.Tensor) and p.requires_grad and p.is_leaf
    assert repr(p) == "Parameter containing:\ntensor([1., 2.], requires_grad=True)"
    with ag.no_grad():
        p.mul_(2)
    assert t.tolist() == [2., 4.]
    assert repr(nn.Parameter(ag.ones(1), requires_grad=False)) == "Parameter containing:\ntensor([1.])"
    assert nn.Parameter().shape == (0,)
    # ops on a parameter give plain tensors
    assert type(p * 2) is ag.Tensor


def test_parameter_deepcopy_stays_parameter():
    p = nn.Parameter(ag.ones(2))
    q = copy.deepcopy(p)
    assert isinstance(q, nn.Parameter) and q.requires_grad
    assert q._data is not p._data


# -- registration -------------------------------------------------------------------

def test_named_parameters_order_own_first_and_dedup():
    m = Tree()
    assert [n for n, _ in m.named_parameters()] == [
        "own", "a.weight", "a.bias", "b.0.weight", "b.0.bias"]
    shared = nn.Linear(2, 2)
    s = nn.Sequential(shared, shared)
    assert len(list(s.parameters())) == 2
    assert len(list(s.named_parameters(remove_duplicate=False))) == 4
    assert [n for n, _ in m.named_parameters(recurse=False)] == ["own"]
    assert [n for n, _ in m.named_parameters(prefix="model")][0] == "model.own"


def test_buffers_children_modules():
    m = Tree()
    assert [n for n, _ in m.named_buffers()] == ["steps", "scratch"]
    assert [n for n, _ in m.named_children()] == ["a", "b"]
    assert [n for n, _ in m.named_modules()] == ["", "a", "b", "b.0", "b.1"]
    assert list(m.children())[0] is m.a
    assert len(list(m.modules())) == 5
    seen = []
    assert m.apply(lambda mod: seen.append(type(mod).__name__)) is m
    assert seen == ["Linear", "Linear", "ReLU", "Sequential", "Tree"]


def test_setattr_replaces_and_deletes():
    m = Tree()
    m.own = None
    assert m.own is None and "own" not in dict(m.named_parameters())
    with pytest.raises(TypeError, match="cannot assign 'arraygrad.Tensor' as parameter 'own'"):
        m.own = ag.zeros(2)
    m.a = nn.Linear(3, 5)
    assert m.a.out_features == 5
    with pytest.raises(TypeError, match="as child module 'a'"):
        m.a = 3
    m.steps = ag.tensor(4)
    assert m._buffers["steps"].item() == 4
    with pytest.raises(TypeError, match="as buffer 'steps'"):
        m.steps = 1
    m.a = nn.Parameter(ag.ones(1))  # a parameter now replaces the module
    assert "a" not in m._modules and "a" in m._parameters
    del m.a
    with pytest.raises(AttributeError, match="'Tree' object has no attribute 'a'"):
        m.a
    assert "b" in dir(m) and "steps" in dir(m)


def test_registration_errors():
    m = nn.Module()
    with pytest.raises(KeyError, match="contain"):
        m.register_parameter("a.b", None)
    with pytest.raises(KeyError, match="already exists"):
        m.register_buffer("training", None)
    with pytest.raises(TypeError, match="is not a Module subclass"):
        m.add_module("x", 3)
    with pytest.raises(TypeError, match="cannot assign 'arraygrad.Tensor' object to parameter"):
        m.register_parameter("w", ag.zeros(1))
    with pytest.raises(ValueError, match="Cannot assign non-leaf Tensor"):
        leaf = nn.Parameter(ag.ones(1))
        p = leaf * 2
        p.__class__ = nn.Parameter
        m.register_parameter("w", p)

    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(ag.ones(1))

    with pytest.raises(AttributeError, match="cannot assign parameters before Module.__init__"):
        Early()
    with pytest.raises(NotImplementedError, match='missing the required "forward"'):
        nn.Module()(1)
    m.register_module("sub", nn.ReLU())
    assert m.get_submodule("sub") is m.sub


def test_train_eval_requires_grad_zero_grad():
    m = Tree()
    assert m.training and m.b[1].training
    assert m.eval() is m
    assert not m.training and not m.b[0].training
    m.train()
    assert m.b[0].training
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        m.train("yes")
    m(ag.ones(1, 3)).sum().backward()
    assert m.a.weight.grad is not None
    m.zero_grad(set_to_none=False)
    assert m.a.weight.grad.tolist() == [[0.] * 3] * 2
    m.zero_grad()
    assert m.a.weight.grad is None
    m.requires_grad_(False)
    assert not any(p.requires_grad for p in m.parameters())


def test_frozen_submodule_new_head_still_trains():
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
            self.head = nn.Linear(2, 1)

        def forward(self, x):
            return self.head(self.encoder(x))

    model = Model()
    assert all(p.requires_grad for p in model.encoder.parameters())
    for p in model.encoder.parameters():
        p.requires_grad = False
    model.head = nn.Linear(2, 3)
    before = [p.detach().clone() for p in model.encoder.parameters()]
    out = model(ag.randn(5, 4))
    assert out.shape == (5, 3)
    out.pow(2).sum().backward()
    assert all(p.grad is None for p in model.encoder.parameters())
    assert model.head.weight.grad is not None and model.head.bias.grad is not None
    with ag.no_grad():
        for p in model.parameters():
            if p.requires_grad:
                p -= 0.1 * p.grad
    assert all(a.tolist() == b.tolist() for a, b in zip(before, model.encoder.parameters()))


def test_to_double_float_keep_parameter_identity():
    m = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    w = m[0].weight
    m.double()
    assert m[0].weight is w and w.dtype is ag.float64
    assert m[1].running_mean.dtype is ag.float64
    assert m[1].num_batches_tracked.dtype is ag.int64  # integer buffers keep their dtype
    m.to(ag.float32)
    assert w.dtype is ag.float32 and isinstance(w, nn.Parameter) and w.requires_grad
    m.float().cpu()
    assert m.to("cpu") is m
    with pytest.raises(TypeError, match="floating point"):
        m.to(ag.int64)


# -- state_dict -------------------------------------------------------------------------

def test_state_dict_keys_detached_and_persistent_only():
    m = Tree()
    sd = m.state_dict()
    assert list(sd) == ["own", "steps", "a.weight", "a.bias", "b.0.weight", "b.0.bias"]
    assert all(not v.requires_grad for v in sd.values())
    assert type(sd["own"]) is ag.Tensor
    assert isinstance(m.state_dict(keep_vars=True)["own"], nn.Parameter)


def test_state_dict_round_trip():
    src, dst = Tree(), Tree()
    with ag.no_grad():
        src.own.fill_(3.)
        src.steps.fill_(7)
    result = dst.load_state_dict(src.state_dict())
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert repr(result) == "<All keys matched successfully>"
    for (k, a), (_, b) in zip(src.state_dict().items(), dst.state_dict().items()):
        assert a.tolist() == b.tolist(), k
    assert dst.steps.item() == 7
    # loading copies: the destination keeps its own memory
    with ag.no_grad():
        src.own.fill_(0.)
    assert dst.own.tolist() == [3., 3.]


def _snapshot(m):
    return {k: v.tolist() for k, v in m.state_dict().items()}


def test_load_state_dict_strict_errors_modify_nothing():
    class Outer(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(4, 1)
            self.fc = nn.Linear(4, 1)

    m = Outer()
    before = _snapshot(m)
    sd = {"fc.weight": ag.ones(1, 4), "fc.bias": ag.ones(1), "extra": ag.ones(1)}
    with pytest.raises(RuntimeError) as err:
        m.load_state_dict(sd)
    assert str(err.value) == (
        "Error(s) in loading state_dict for Outer:\n"
        '\tMissing key(s) in state_dict: "a.weight", "a.bias". \n'
        '\tUnexpected key(s) in state_dict: "extra". ')
    assert _snapshot(m) == before
    result = m.load_state_dict(sd, strict=False)
    assert result == (["a.weight", "a.bias"], ["extra"])
    assert result.missing_keys == ["a.weight", "a.bias"]
    assert m.fc.weight.tolist() == [[1.] * 4]


def test_load_state_dict_size_mismatch_raises_even_when_not_strict():
    m = Net()
    before = _snapshot(m)
    sd = {"fc.weight": ag.ones(2, 4), "fc.bias": ag.ones(1)}
    for strict in (True, False):
        with pytest.raises(RuntimeError) as err:
            m.load_state_dict(sd, strict=strict)
        assert str(err.value) == (
            "Error(s) in loading state_dict for Net:\n\tsize mismatch for fc.weight: copying a param "
            "with shape arraygrad.Size([2, 4]) from checkpoint, the shape in current model is "
            "arraygrad.Size([1, 4]).")
        assert _snapshot(m) == before  # fc.bias was fine, but nothing is copied on error


# -- repr and calling ---------------------------------------------------------------------

def test_repr_tree():
    assert repr(Net()) == "Net(\n  (fc): Linear(in_features=4, out_features=1, bias=True)\n)"
    m = nn.Sequential(nn.Linear(2, 3, bias=False), nn.Sequential(nn.ReLU(), nn.Dropout(0.1)))
    assert repr(m) == (
        "Sequential(\n"
        "  (0): Linear(in_features=2, out_features=3, bias=False)\n"
        "  (1): Sequential(\n"
        "    (0): ReLU()\n"
        "    (1): Dropout(p=0.1, inplace=False)\n"
        "  )\n"
        ")")

    class WithExtra(nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = nn.Identity()

        def extra_repr(self):
            return "k=3"

    assert repr(WithExtra()) == "WithExtra(\n  k=3\n  (inner): Identity()\n)"


def test_call_runs_forward_with_kwargs():
    class Scale(nn.Module):
        def forward(self, x, factor=1.0):
            return x * factor

    assert Scale()(ag.ones(2), factor=3.).tolist() == [3., 3.]


def test_deepcopy_module():
    m = Net()
    c = copy.deepcopy(m)
    assert c.fc.weight is not m.fc.weight
    assert c.fc.weight.tolist() == m.fc.weight.tolist()
    assert isinstance(c.fc.weight, nn.Parameter)
