"""nn.Module API: global hooks, registration, lookup by path, state_dict/load_state_dict hooks,
the _load_from_state_dict override point, extra state, assign=True, bulk conversions.

Each behaviour is checked on small hand-made modules, and against PyTorch where installed.
"""

import warnings
from collections import OrderedDict

import pytest

import arraygrad as ag
from arraygrad import nn
from arraygrad.nn.modules import module as module_mod

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
        self.act = nn.ReLU()
        self.register_buffer("steps", ag.tensor(0))
        self.register_buffer("cache", ag.zeros(2), persistent=False)

    def forward(self, x):
        return self.act(self.fc(x))


def _values(module):
    return {k: v.tolist() for k, v in module.state_dict().items()}


# -- global hooks -------------------------------------------------------------------------
def test_global_forward_hooks_run_before_local_and_are_removable():
    calls = []
    net = Net()
    net.register_forward_pre_hook(lambda m, a: calls.append(("local pre", type(m).__name__)))
    net.register_forward_hook(lambda m, a, o: calls.append(("local post", type(m).__name__)))
    h1 = module_mod.register_module_forward_pre_hook(
        lambda m, a: calls.append(("global pre", type(m).__name__)))
    h2 = module_mod.register_module_forward_hook(
        lambda m, a, o: calls.append(("global post", type(m).__name__)))
    try:
        net(ag.ones(1, 2))
    finally:
        h1.remove()
        h2.remove()
    assert calls == [("global pre", "Net"), ("local pre", "Net"),
                     ("global pre", "Linear"), ("global post", "Linear"),
                     ("global pre", "ReLU"), ("global post", "ReLU"),
                     ("global post", "Net"), ("local post", "Net")]
    calls.clear()
    net(ag.ones(1, 2))
    assert calls == [("local pre", "Net"), ("local post", "Net")]


def test_global_hooks_change_inputs_and_outputs_with_kwargs_and_always_call():
    lin = nn.Linear(1, 1)
    nn.init.ones_(lin.weight)
    nn.init.zeros_(lin.bias)
    seen = []
    hooks = [
        module_mod.register_module_forward_pre_hook(lambda m, a: a[0] * 2),
        module_mod.register_module_forward_hook(
            lambda m, a, kw, o: seen.append(sorted(kw)) or o + 1, with_kwargs=True),
    ]
    try:
        assert lin(ag.tensor([[3.0]])).item() == 7.0
        assert seen == [[]]
    finally:
        for h in hooks:
            h.remove()
    assert not module_mod._g._global_forward_hooks_with_kwargs

    class Boom(nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    outs = []
    h = module_mod.register_module_forward_hook(lambda m, a, o: outs.append(o),
                                                always_call=True)
    try:
        with pytest.raises(ValueError, match="boom"):
            Boom()(ag.ones(1))
    finally:
        h.remove()
    assert outs == [None]
    assert not module_mod._g._global_forward_hooks_always_called


def test_global_backward_hooks_before_local():
    calls = []
    lin = nn.Linear(2, 1)
    lin.register_full_backward_pre_hook(lambda m, go: calls.append("local pre"))
    lin.register_full_backward_hook(lambda m, gi, go: calls.append("local"))
    handles = [
        module_mod.register_module_full_backward_pre_hook(lambda m, go: calls.append("global pre")),
        module_mod.register_module_full_backward_hook(
            lambda m, gi, go: calls.append(("global", tuple(gi[0].shape)))),
    ]
    try:
        x = ag.ones(3, 2, requires_grad=True)
        lin(x).sum().backward()
    finally:
        for h in handles:
            h.remove()
    assert calls == ["global pre", "local pre", ("global", (3, 2)), "local"]
    # a global hook may replace grad_input
    h = module_mod.register_module_full_backward_hook(lambda m, gi, go: (gi[0] * 0,))
    try:
        x = ag.ones(1, 2, requires_grad=True)
        nn.Linear(2, 1)(x).sum().backward()
    finally:
        h.remove()
    assert x.grad.tolist() == [[0.0, 0.0]]
    assert module_mod.register_module_backward_hook is not None


def test_registration_hooks_may_replace_values():
    seen = []

    def on_buffer(m, name, t):
        seen.append(("buffer", name))
        return t * 0 + 7 if t is not None else None

    def on_param(m, name, p):
        seen.append(("param", name))

    def on_module(m, name, sub):
        seen.append(("module", name))
        return nn.Identity() if isinstance(sub, nn.Tanh) else None

    handles = [module_mod.register_module_buffer_registration_hook(on_buffer),
               module_mod.register_module_parameter_registration_hook(on_param),
               module_mod.register_module_module_registration_hook(on_module)]
    try:
        m = nn.Module()
        m.register_buffer("b", ag.zeros(2))
        m.p = nn.Parameter(ag.ones(1))
        m.act = nn.Tanh()
        m.b = ag.ones(2)  # assignment to a buffer goes through register_buffer
        m.add_module("other", nn.ReLU())
    finally:
        for h in handles:
            h.remove()
    assert m.b.tolist() == [7.0, 7.0]
    assert isinstance(m.act, nn.Identity) and isinstance(m.other, nn.ReLU)
    assert seen == [("buffer", "b"), ("param", "p"), ("module", "act"), ("buffer", "b"),
                    ("module", "other")]
    m.register_buffer("c", ag.zeros(1))
    assert m.c.tolist() == [0.0]  # removed


# -- registration, lookup ------------------------------------------------------------------
def test_non_persistent_buffers_left_out_of_state_dict():
    net = Net()
    assert list(net.state_dict()) == ["steps", "fc.weight", "fc.bias"]
    assert [k for k, _ in net.named_buffers()] == ["steps", "cache"]
    net.cache = ag.ones(2)  # stays non-persistent when reassigned
    assert "cache" not in net.state_dict()
    net.register_buffer("cache", ag.ones(2), persistent=True)
    assert "cache" in net.state_dict()
    net.load_state_dict({**net.state_dict()})


def test_get_submodule_parameter_buffer_and_set_submodule():
    outer = nn.Sequential(Net(), nn.Linear(2, 3))
    assert outer.get_submodule("") is outer
    assert outer.get_submodule("0.fc") is outer[0].fc
    assert outer.get_parameter("0.fc.weight") is outer[0].fc.weight
    assert outer.get_buffer("0.steps") is outer[0].steps
    with pytest.raises(AttributeError, match="Net has no attribute `nope`"):
        outer.get_submodule("0.nope")
    with pytest.raises(AttributeError, match="`steps` is not an nn.Module"):
        outer.get_submodule("0.steps")
    with pytest.raises(AttributeError, match="`steps` is not an nn.Parameter"):
        outer.get_parameter("0.steps")
    with pytest.raises(AttributeError, match="`weight` is not a buffer"):
        outer.get_buffer("1.weight")
    with pytest.raises(AttributeError, match="Linear has no attribute `gamma`"):
        outer.get_buffer("1.gamma")
    new = nn.Tanh()
    outer.set_submodule("0.act", new)
    assert outer[0].act is new
    outer.set_submodule("0.extra", nn.ReLU())
    assert isinstance(outer[0].extra, nn.ReLU)
    with pytest.raises(AttributeError, match="Net has no attribute `missing`"):
        outer.set_submodule("0.missing", nn.ReLU(), strict=True)
    with pytest.raises(AttributeError, match="`steps` is not an nn.Module"):
        outer.set_submodule("0.steps", nn.ReLU())
    with pytest.raises(ValueError, match="Cannot set the submodule without a target name"):
        outer.set_submodule("", nn.ReLU())
    with pytest.raises(ValueError, match="`module` is not an nn.Module"):
        outer.set_submodule("0.act", 3)


def test_named_modules_parameters_duplicates_and_apply():
    shared = nn.Linear(2, 2)
    m = nn.Sequential(shared, nn.ReLU(), shared)
    assert [n for n, _ in m.named_modules()] == ["", "0", "1"]
    assert [n for n, _ in m.named_modules(remove_duplicate=False)] == ["", "0", "1", "2"]
    assert len(list(m.modules(remove_duplicate=False))) == 4
    assert [n for n, _ in m.named_modules(prefix="top")] == ["top", "top.0", "top.1"]
    memo = {shared}
    assert [n for n, _ in m.named_modules(memo=memo)] == ["", "1"]
    assert m in memo
    assert [n for n, _ in m.named_parameters()] == ["0.weight", "0.bias"]
    assert [n for n, _ in m.named_parameters(remove_duplicate=False)] == [
        "0.weight", "0.bias", "2.weight", "2.bias"]
    order = []
    assert m.apply(lambda mod: order.append(type(mod).__name__)) is m
    assert order == ["Linear", "ReLU", "Sequential"]


def test_zero_grad_requires_grad_and_conversions():
    net = Net()
    net(ag.ones(1, 2)).sum().backward()
    net.zero_grad(set_to_none=False)
    assert net.fc.weight.grad.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    net.zero_grad()
    assert net.fc.weight.grad is None
    assert net.requires_grad_(False) is net and not net.fc.weight.requires_grad
    net.requires_grad_()
    w = net.fc.weight
    assert net.double() is net and net.fc.weight.dtype == ag.float64 and net.fc.weight is w
    assert net.steps.dtype == ag.int64  # only floating tensors are cast
    net.half()
    assert net.fc.bias.dtype == ag.float16
    net.float()
    assert net.fc.bias.dtype == ag.float32
    assert net.type(ag.float64) is net and net.steps.dtype == ag.float64  # type casts everything
    assert net.share_memory() is net
    empty = nn.Linear(3, 2).to_empty(device="cpu")
    assert empty.weight.shape == (2, 3) and isinstance(empty.weight, nn.Parameter)
    shallow = nn.Sequential(nn.Linear(1, 1))
    old = shallow[0].weight.dtype
    shallow._apply(lambda t: t.double(), recurse=False)
    assert shallow[0].weight.dtype == old


# -- state_dict ------------------------------------------------------------------------------
def test_state_dict_metadata_and_deprecated_positional_args():
    net = Net()
    sd = net.state_dict()
    assert isinstance(sd, OrderedDict)
    assert sd._metadata == {"": {"version": 1}, "fc": {"version": 1}, "act": {"version": 1}}
    with pytest.warns(FutureWarning, match="Positional args are being deprecated"):
        dest = net.state_dict({}, "p.")
    assert list(dest) == ["p.steps", "p.fc.weight", "p.fc.bias"]
    # the metadata is consumed by load_state_dict: each module sees its own
    seen = {}

    def pre(module, state_dict, prefix, local_metadata, *rest):
        seen[prefix] = dict(local_metadata)

    net.fc.register_load_state_dict_pre_hook(pre)
    net.load_state_dict(sd)
    assert seen == {"fc.": {"version": 1}}


def test_state_dict_pre_and_post_hooks():
    net = Net()
    calls = []
    net.fc.register_state_dict_pre_hook(lambda m, prefix, keep_vars: calls.append(
        (type(m).__name__, prefix, keep_vars)))

    def post(module, state_dict, prefix, local_metadata):
        state_dict[prefix + "note"] = ag.tensor(1.0)
        calls.append(("post", prefix, local_metadata["version"]))

    h = net.fc.register_state_dict_post_hook(post)
    sd = net.state_dict(keep_vars=True)
    assert calls == [("Linear", "fc.", True), ("post", "fc.", 1)]
    assert "fc.note" in sd and sd["fc.weight"] is net.fc.weight
    h.remove()
    net.register_state_dict_post_hook(lambda *a: {})
    with pytest.raises(RuntimeError, match="state_dict post-hook must return None"):
        net.state_dict()
    other = Net()
    other._register_state_dict_hook(lambda m, sd, p, meta: OrderedDict(only=ag.ones(1)))
    assert list(other.state_dict()) == ["only"]  # the private API may replace the result

    def public(*a):
        return None

    other.register_state_dict_post_hook(public)
    with pytest.raises(RuntimeError, match="Cannot register the same function"):
        other._register_state_dict_hook(public)


class Scaler(nn.Module):
    """A module with extra (non-tensor) state."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(ag.ones(2))
        self.factor = 1.0

    def get_extra_state(self):
        return {"factor": self.factor}

    def set_extra_state(self, state):
        self.factor = state["factor"]


def test_extra_state_round_trip_and_strict_keys():
    a = Scaler()
    a.factor = 3.0
    sd = a.state_dict()
    assert list(sd) == ["w", "_extra_state"] and sd["_extra_state"] == {"factor": 3.0}
    b = nn.Sequential(Scaler())
    b.load_state_dict({"0." + k: v for k, v in sd.items()})
    assert b[0].factor == 3.0
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "0._extra_state"'):
        b.load_state_dict({"0.w": ag.ones(2)})
    res = b.load_state_dict({"0.w": ag.zeros(2)}, strict=False)
    assert res.missing_keys == ["0._extra_state"] and b[0].w.tolist() == [0.0, 0.0]
    with pytest.raises(RuntimeError, match='Unexpected key\\(s\\) in state_dict: "_extra_state"'):
        nn.Linear(1, 1).load_state_dict({"weight": ag.ones(1, 1), "bias": ag.ones(1),
                                         "_extra_state": 5})
    with pytest.raises(RuntimeError, match="should never be called"):
        nn.Module().get_extra_state()


def test_load_state_dict_assign_replaces_parameters_keeping_requires_grad():
    lin = nn.Linear(2, 1)
    lin.bias.requires_grad_(False)
    old_w = lin.weight
    new_w = ag.tensor([[1.0, 2.0]], dtype=ag.float64)
    lin.load_state_dict({"weight": new_w, "bias": ag.tensor([0.5])}, assign=True)
    assert lin.weight is not old_w and isinstance(lin.weight, nn.Parameter)
    assert lin.weight.dtype == ag.float64  # assign keeps the checkpoint's tensor as is
    assert lin.weight.requires_grad and not lin.bias.requires_grad
    assert lin.weight.tolist() == [[1.0, 2.0]]
    new_w.add_(1)  # shares memory with the checkpoint tensor
    assert lin.weight.tolist() == [[2.0, 3.0]]
    given = nn.Parameter(ag.ones(1), requires_grad=True)
    lin.load_state_dict({"weight": ag.ones(1, 2), "bias": given}, assign=True)
    assert lin.bias is given and not given.requires_grad  # the module's requires_grad wins
    bn = nn.BatchNorm1d(2)
    rm = ag.tensor([5.0, 6.0])
    bn.load_state_dict({**bn.state_dict(), "running_mean": rm}, assign=True)
    assert bn.running_mean is rm
    # an error still changes nothing
    w = lin.weight
    with pytest.raises(RuntimeError, match="size mismatch for bias"):
        lin.load_state_dict({"weight": ag.zeros(1, 2), "bias": ag.zeros(3)}, assign=True)
    assert lin.weight is w


def test_load_hooks_pre_rename_and_post_clear():
    lin = nn.Linear(2, 2)

    def rename(module, state_dict, prefix, *rest):
        assert module is lin
        for old in [k for k in state_dict if k.startswith(prefix + "w")]:
            state_dict[prefix + "weight"] = state_dict.pop(old)

    lin.register_load_state_dict_pre_hook(rename)
    lin.load_state_dict({"w": ag.ones(2, 2), "bias": ag.zeros(2)})
    assert lin.weight.tolist() == [[1.0, 1.0], [1.0, 1.0]]

    calls = []
    other = nn.Linear(1, 1)
    other._register_load_state_dict_pre_hook(lambda sd, prefix, *rest: calls.append(prefix))

    def clear(module, keys):
        calls.append((list(keys.missing_keys), module.weight.tolist()))
        keys.missing_keys.clear()

    other.register_load_state_dict_post_hook(clear)
    res = other.load_state_dict({"weight": ag.tensor([[4.0]])})  # bias missing: cleared
    assert res.missing_keys == [] and other.weight.tolist() == [[4.0]]
    assert calls == ["", (["bias"], [[4.0]])]  # the post hook sees the loaded values


def test_load_post_hook_error_undoes_everything():
    net = Net()
    before = _values(net)

    def add_key(module, keys):
        keys.unexpected_keys.append("invented")

    net.fc.register_load_state_dict_post_hook(add_key)
    sd = {k: v * 0 + 9 for k, v in net.state_dict().items()}
    with pytest.raises(RuntimeError, match='Unexpected key\\(s\\) in state_dict: "invented"'):
        net.load_state_dict(sd)
    assert _values(net) == before
    assert net.load_state_dict(sd, strict=False).unexpected_keys == ["invented"]
    assert net.fc.bias.tolist() == [9.0, 9.0]

    def bad(module, keys):
        return keys

    m = nn.Linear(1, 1)
    m.register_load_state_dict_post_hook(bad)
    w = m.weight.tolist()
    with pytest.raises(AssertionError, match="not expected to return new values"):
        m.load_state_dict({"weight": ag.ones(1, 1), "bias": ag.ones(1)})
    assert m.weight.tolist() == w


class OldNamesLinear(nn.Linear):
    """Overrides _load_from_state_dict to accept checkpoints with old key names."""

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        if prefix + "kernel" in state_dict:
            state_dict[prefix + "weight"] = state_dict.pop(prefix + "kernel")
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)


def test_load_from_state_dict_override_point_and_all_or_nothing():
    model = nn.Sequential(OldNamesLinear(2, 2), nn.Linear(2, 1))
    sd = {"0.kernel": ag.ones(2, 2), "0.bias": ag.zeros(2), "1.weight": ag.ones(1, 2),
          "1.bias": ag.zeros(1)}
    assert repr(model.load_state_dict(sd)) == "<All keys matched successfully>"
    assert model[0].weight.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    before = _values(model)
    bad = dict(sd, **{"0.kernel": ag.full((2, 2), 5.0), "1.weight": ag.ones(3, 3)})
    with pytest.raises(RuntimeError, match="size mismatch for 1.weight"):
        model.load_state_dict(bad)
    assert _values(model) == before  # the override's loaded entries were not written either
    # called directly (outside load_state_dict), _load_from_state_dict writes at once
    missing, unexpected, errors = [], [], []
    model[1]._load_from_state_dict({"w.weight": ag.full((1, 2), 2.0)}, "w.", {}, True, missing,
                                   unexpected, errors)
    assert model[1].weight.tolist() == [[2.0, 2.0]] and missing == ["w.bias"] and not errors


def test_load_state_dict_errors_and_scalar_compatibility():
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like"):
        nn.Linear(1, 1).load_state_dict([("weight", ag.ones(1, 1))])
    m = nn.Module()
    m.register_buffer("count", ag.tensor(0.0))
    m.load_state_dict({"count": ag.tensor([3.0])})  # (1,) loads into a 0-d buffer
    assert m.count.item() == 3.0 and m.count.dim() == 0
    lin = nn.Linear(1, 1)
    with pytest.raises(RuntimeError, match='While copying the parameter named "weight", expected '
                                           'arraygrad.Tensor'):
        lin.load_state_dict({"weight": [[1.0]], "bias": ag.ones(1)})
    lin.load_state_dict({"weight": ag.tensor([[2]]), "bias": ag.tensor([1.0],
                                                                       dtype=ag.float64)})
    assert lin.weight.dtype == ag.float32 and lin.weight.item() == 2.0  # copied, converted


def test_setstate_fills_missing_hook_dicts():
    lin = nn.Linear(1, 1)
    state = dict(lin.__dict__)
    del state["_state_dict_pre_hooks"], state["_load_state_dict_post_hooks"]
    clone = nn.Linear.__new__(nn.Linear)
    clone.__setstate__(state)
    assert list(clone.state_dict()) == ["weight", "bias"]
    clone.register_load_state_dict_post_hook(lambda m, k: None)


# -- against PyTorch -------------------------------------------------------------------------
def _torch_net():
    class TNet(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(2, 2)
            self.act = torch.nn.ReLU()
            self.register_buffer("steps", torch.tensor(0))
            self.register_buffer("cache", torch.zeros(2), persistent=False)

        def forward(self, x):
            return self.act(self.fc(x))

    return TNet()


@needs_torch
def test_state_dict_keys_metadata_and_errors_match_pytorch():
    tn, an = _torch_net(), Net()
    assert list(an.state_dict()) == list(tn.state_dict())
    assert dict(an.state_dict()._metadata) == dict(tn.state_dict()._metadata)
    for bad in ({"fc.weight": 1}, {"steps": 0, "fc.weight": 0, "fc.bias": 0, "extra.x": 0,
                                   "fc.nope": 0, "y": 0}):
        t_sd = {k: torch.zeros(2, 3) if v == 1 else torch.tensor(0) for k, v in bad.items()}
        a_sd = {k: ag.zeros(2, 3) if v == 1 else ag.tensor(0) for k, v in bad.items()}
        with pytest.raises(RuntimeError) as t_err:
            tn.load_state_dict(t_sd)
        with pytest.raises(RuntimeError) as a_err:
            an.load_state_dict(a_sd)
        want = str(t_err.value).replace("TNet", "Net").replace("torch.Size", "arraygrad.Size")
        assert str(a_err.value) == want
    t_res = tn.load_state_dict({"steps": torch.tensor(1), "z": torch.ones(1)}, strict=False)
    a_res = an.load_state_dict({"steps": ag.tensor(1), "z": ag.ones(1)}, strict=False)
    assert a_res.missing_keys == t_res.missing_keys
    assert a_res.unexpected_keys == t_res.unexpected_keys


@needs_torch
def test_hook_order_matches_pytorch():
    def run(lib, net):
        calls = []
        mm = lib.nn.modules.module
        handles = [
            mm.register_module_forward_pre_hook(lambda m, a: calls.append("gpre " + m._get_name())),
            mm.register_module_forward_hook(lambda m, a, o: calls.append("gpost " + m._get_name())),
            mm.register_module_full_backward_hook(
                lambda m, gi, go: calls.append("gbw " + m._get_name())),
            net.register_forward_pre_hook(lambda m, a: calls.append("pre")),
            net.register_forward_hook(lambda m, a, o: calls.append("post")),
            net.register_full_backward_hook(lambda m, gi, go: calls.append("bw")),
        ]
        try:
            x = lib.ones(1, 2, requires_grad=True)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                net(x).sum().backward()
        finally:
            for h in handles:
                h.remove()
        return calls

    theirs = [c.replace("TNet", "Net") for c in run(torch, _torch_net())]
    assert run(ag, Net()) == theirs


@needs_torch
def test_assign_and_extra_state_match_pytorch():
    class TScaler(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.ones(2))
            self.factor = 1.0

        def get_extra_state(self):
            return {"factor": self.factor}

        def set_extra_state(self, state):
            self.factor = state["factor"]

    assert list(TScaler().state_dict()) == list(Scaler().state_dict())
    tl, al = torch.nn.Linear(2, 1), nn.Linear(2, 1)
    tl.bias.requires_grad_(False)
    al.bias.requires_grad_(False)
    tl.load_state_dict({"weight": torch.ones(1, 2, dtype=torch.float64),
                        "bias": torch.zeros(1)}, assign=True)
    al.load_state_dict({"weight": ag.ones(1, 2, dtype=ag.float64), "bias": ag.zeros(1)},
                       assign=True)
    for name in ("weight", "bias"):
        t, a = getattr(tl, name), getattr(al, name)
        assert (type(t).__name__, t.requires_grad, str(t.dtype).split(".")[-1]) == \
            (type(a).__name__, a.requires_grad, str(a.dtype).split(".")[-1])
