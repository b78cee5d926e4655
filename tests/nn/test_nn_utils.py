"""nn.utils: gradient clipping, parameters <-> vector, stateless.functional_call.

Values are checked against hand-computed norms, and against PyTorch where installed.
"""

import math
import warnings

import numpy as np
import pytest

import arraygrad as ag
from arraygrad import nn
from arraygrad.nn.utils import stateless

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def _params_with_grads(grads):
    """Parameters whose ``.grad`` are the given nested lists (None: no grad)."""
    out = []
    for g in grads:
        p = nn.Parameter(ag.zeros(len(g) if g is not None else 1, dtype=ag.float64))
        if g is not None:
            p.grad = ag.tensor(g, dtype=ag.float64)
        out.append(p)
    return out


def _grads(params):
    return [None if p.grad is None else p.grad.tolist() for p in params]


# -- clip_grad_norm_ / get_total_norm / clip_grads_with_norm_ -----------------------------
def test_clip_grad_norm_two_norm_scales_by_max_over_total():
    params = _params_with_grads([[3.0, 0.0], [0.0, 4.0], None])
    total = nn.utils.clip_grad_norm_(params, max_norm=1.0)
    assert isinstance(total, ag.Tensor) and total.item() == pytest.approx(5.0)
    coef = 1.0 / (5.0 + 1e-6)
    assert _grads(params) == [pytest.approx([3 * coef, 0.0]), pytest.approx([0.0, 4 * coef]),
                              None]


def test_clip_grad_norm_below_max_leaves_grads_unchanged():
    params = _params_with_grads([[0.3, 0.4]])
    total = nn.utils.clip_grad_norm_(params, max_norm=10)
    assert total.item() == pytest.approx(0.5)
    assert _grads(params) == [[0.3, 0.4]]  # coefficient clamped at 1


@pytest.mark.parametrize("norm_type, expected", [
    (1, 3 + 1 + 4), (1.0, 8.0), (3, (27 + 1 + 64) ** (1 / 3)), ("inf", 4.0),
    (math.inf, 4.0), (0.5, (math.sqrt(3) + 1 + 2) ** 2)])
def test_total_norm_of_each_order(norm_type, expected):
    grads = [ag.tensor([3.0, -1.0], dtype=ag.float64), ag.tensor([[-4.0]], dtype=ag.float64)]
    assert nn.utils.get_total_norm(grads, norm_type).item() == pytest.approx(expected)
    params = _params_with_grads([[3.0, -1.0], [-4.0]])
    total = nn.utils.clip_grad_norm_(params, 2.0, norm_type=norm_type)
    assert total.item() == pytest.approx(expected)
    coef = min(2.0 / (expected + 1e-6), 1.0)
    assert _grads(params) == [pytest.approx([3 * coef, -coef]), pytest.approx([-4 * coef])]


def test_single_tensor_and_empty_inputs():
    p = _params_with_grads([[6.0, 8.0]])[0]
    assert nn.utils.clip_grad_norm_(p, 5.0).item() == pytest.approx(10.0)
    assert p.grad.tolist() == pytest.approx([3.0, 4.0], rel=1e-6)
    empty = nn.utils.clip_grad_norm_([], 1.0)
    assert empty.item() == 0.0
    assert nn.utils.get_total_norm([]).item() == 0.0
    # parameters without gradients: total norm 0, nothing changes
    q = nn.Parameter(ag.ones(2))
    assert nn.utils.clip_grad_norm_([q], 1.0).item() == 0.0 and q.grad is None


def test_empty_generator_warns_as_pytorch():
    with pytest.warns(UserWarning, match="empty generator, no gradient clipping"):
        nn.utils.clip_grad_norm_((p for p in []), 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nn.utils.clip_grad_norm_([], 1.0)  # a list is not a generator: no warning


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
def test_error_if_nonfinite():
    params = _params_with_grads([[1.0, math.inf]])
    with pytest.raises(RuntimeError, match="The total norm of order 2.0 for gradients from "
                                           "`parameters` is non-finite"):
        nn.utils.clip_grad_norm_(params, 1.0, error_if_nonfinite=True)
    assert _grads(params) == [[1.0, math.inf]]  # nothing changed
    nan_params = _params_with_grads([[math.nan]])
    with pytest.raises(RuntimeError, match="non-finite"):
        nn.utils.get_total_norm([nan_params[0].grad], error_if_nonfinite=True)
    # without the flag the gradients are scaled by the non-finite norm
    total = nn.utils.clip_grad_norm_(params, 1.0)
    assert math.isinf(total.item())


def test_foreach_accepted_and_result_identical():
    a = _params_with_grads([[3.0, 4.0]])
    b = _params_with_grads([[3.0, 4.0]])
    c = _params_with_grads([[3.0, 4.0]])
    for params, foreach in ((a, None), (b, True), (c, False)):
        nn.utils.clip_grad_norm_(params, 1.0, foreach=foreach)
        nn.utils.clip_grad_value_(params, 0.5, foreach=foreach)
    assert _grads(a) == _grads(b) == _grads(c)


def test_clip_grads_with_norm_uses_the_given_total():
    params = _params_with_grads([[1.0, 1.0]])
    nn.utils.clip_grads_with_norm_(params, 1.0, ag.tensor(4.0, dtype=ag.float64))
    assert _grads(params) == [pytest.approx([1 / (4 + 1e-6)] * 2)]
    nn.utils.clip_grads_with_norm_([nn.Parameter(ag.ones(1))], 1.0, ag.tensor(4.0))  # no grads


def test_clipping_is_not_recorded_by_autograd():
    lin = nn.Linear(3, 2)
    lin(ag.randn(4, 3)).pow(2).sum().backward()
    total = nn.utils.clip_grad_norm_(lin.parameters(), 0.01)
    assert total.grad_fn is None and not total.requires_grad
    assert all(p.grad.grad_fn is None for p in lin.parameters())
    assert nn.utils.get_total_norm([p.grad for p in lin.parameters()]).item() == \
        pytest.approx(0.01, rel=1e-4)


def test_deprecated_clip_grad_norm_warns():
    params = _params_with_grads([[3.0, 4.0]])
    with pytest.warns(FutureWarning, match="deprecated in favor of"):
        total = nn.utils.clip_grad_norm(params, 1.0)
    assert total.item() == pytest.approx(5.0)


def test_clip_grad_value():
    params = _params_with_grads([[-3.0, 0.2, 5.0], None])
    assert nn.utils.clip_grad_value_(params, 1) is None
    assert _grads(params) == [pytest.approx([-1.0, 0.2, 1.0]), None]
    p = _params_with_grads([[-0.7, 0.7]])[0]
    nn.utils.clip_grad_value_(p, 0.5)
    assert p.grad.tolist() == [-0.5, 0.5]


# -- parameters_to_vector / vector_to_parameters ----------------------------------------
def test_parameters_to_vector_and_back():
    lin = nn.Linear(3, 2)
    vec = nn.utils.parameters_to_vector(lin.parameters())
    assert vec.shape == (8,)
    expected = lin.weight.detach().reshape(-1).tolist() + lin.bias.detach().tolist()
    assert vec.tolist() == pytest.approx(expected)
    vec.sum().backward()  # differentiable: each parameter gets ones
    assert lin.weight.grad.tolist() == [[1.0] * 3] * 2
    new = ag.arange(8, dtype=ag.float32)
    weight = lin.weight
    nn.utils.vector_to_parameters(new, lin.parameters())
    assert lin.weight is weight  # the same Parameter, new data
    assert lin.weight.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert lin.bias.tolist() == [6.0, 7.0]
    with pytest.raises(TypeError, match="expected arraygrad.Tensor, but got: list"):
        nn.utils.vector_to_parameters([0.0] * 8, lin.parameters())


# -- functional_call --------------------------------------------------------------------
class _Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.foo = nn.Parameter(ag.ones(()))
        self.bar = nn.Linear(1, 1)
        self.tied_foo = self.foo
        self.register_buffer("count", ag.zeros(()))

    def forward(self, x):
        self.count = self.count + 1
        return x + self.foo + self.tied_foo


def test_functional_call_swaps_and_restores():
    lin = nn.Linear(2, 1)
    weight, bias = lin.weight, lin.bias
    w = ag.tensor([[1.0, 2.0]], requires_grad=True)
    out = stateless.functional_call(lin, {"weight": w, "bias": ag.tensor([0.5])},
                                    (ag.tensor([[1.0, 1.0]]),))
    assert out.tolist() == [[3.5]]
    assert lin.weight is weight and lin.bias is bias
    assert isinstance(lin._parameters["weight"], nn.Parameter)
    out.sum().backward()  # gradients reach the given tensor, not the module's
    assert w.grad.tolist() == [[1.0, 1.0]] and weight.grad is None
    # a single non-tuple argument and kwargs
    out = stateless.functional_call(lin, {"bias": ag.tensor([0.0])}, ag.zeros(1, 2))
    assert out.tolist() == [[0.0]]
    assert lin.bias is bias


def test_functional_call_restores_after_an_exception():
    lin = nn.Linear(2, 1)
    weight = lin.weight
    with pytest.raises(Exception):
        stateless.functional_call(lin, {"weight": ag.ones(1, 3)}, (ag.ones(1, 2),))
    assert lin.weight is weight


def test_functional_call_tied_weights_and_buffer_update():
    m = _Tied()
    params = {"foo": ag.zeros(()), "count": ag.tensor(5.0)}
    out = stateless.functional_call(m, params, (ag.zeros(()),))
    assert out.item() == 0.0  # tied_foo follows foo
    assert m.foo.item() == 1.0 and m.tied_foo is m.foo and m.count.item() == 0.0
    assert params["count"].item() == 6.0  # the module's reassignment shows in the dict
    out = stateless.functional_call(m, {"foo": ag.zeros(())}, (ag.zeros(()),),
                                    tie_weights=False)
    assert out.item() == 1.0  # tied_foo keeps the module's value
    with pytest.raises(ValueError, match=r"multiple values for keys \['foo', 'tied_foo'\]"):
        stateless.functional_call(m, {"foo": ag.zeros(()), "tied_foo": ag.ones(())},
                                  (ag.zeros(()),))
    same = ag.zeros(())
    assert stateless.functional_call(m, {"foo": same, "tied_foo": same},
                                     (ag.zeros(()),)).item() == 0.0


def test_functional_call_strict_and_dict_tuples():
    lin = nn.Linear(2, 1)
    with pytest.raises(RuntimeError, match=r"Error\(s\) in reparametrizing for Linear:\n\t"
                                           r"Unexpected key\(s\): 'extra'\.\n\tMissing key\(s\): "
                                           r"'bias'\."):
        stateless.functional_call(lin, {"weight": ag.ones(1, 2), "extra": ag.ones(1)},
                                  (ag.ones(1, 2),), strict=True)
    out = stateless.functional_call(lin, ({"weight": ag.ones(1, 2)}, {"bias": ag.zeros(1)}),
                                    (ag.ones(1, 2),), strict=True)
    assert out.tolist() == [[2.0]]
    with pytest.raises(ValueError, match="appeared in multiple dictionaries"):
        stateless.functional_call(lin, ({"bias": ag.ones(1)}, {"bias": ag.zeros(1)}),
                                  (ag.ones(1, 2),))
    with pytest.raises(AttributeError, match="Linear has no attribute `nope`"):
        stateless.functional_call(lin, {"nope.weight": ag.ones(1)}, (ag.ones(1, 2),))
    with pytest.raises(TypeError, match="is not an instance of arraygrad.Tensor"):
        stateless.functional_call(lin, {"bias": 1.0}, (ag.ones(1, 2),))
    with pytest.raises(RuntimeError, match="can't be used with nn.DataParallel"):
        stateless.functional_call(nn.DataParallel(lin), {}, (ag.ones(1, 2),))


def test_functional_call_nested_names_and_kwargs():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(2, 2), nn.ReLU())

        def forward(self, x, scale=1.0):
            return self.body(x) * scale

    net = Net()
    given = {"body.0.weight": ag.eye(2), "body.0.bias": ag.zeros(2)}
    out = stateless.functional_call(net, given, (ag.tensor([[1.0, -2.0]]),), {"scale": 3.0})
    assert out.tolist() == [[3.0, 0.0]]
    assert isinstance(net.body[0].weight, nn.Parameter)


# -- against PyTorch ----------------------------------------------------------------------
def _twin_models():
    tm = torch.nn.Sequential(torch.nn.Linear(4, 5), torch.nn.Tanh(), torch.nn.Linear(5, 3))
    am = nn.Sequential(nn.Linear(4, 5), nn.Tanh(), nn.Linear(5, 3)).double()
    tm.double()
    am.load_state_dict({k: ag.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    x = np.random.default_rng(0).standard_normal((6, 4))
    tm(torch.tensor(x)).pow(2).sum().backward()
    am(ag.tensor(x)).pow(2).sum().backward()
    return tm, am


@needs_torch
@pytest.mark.parametrize("norm_type", [2.0, 1, 3.5, "inf", 0.5])
def test_clip_grad_norm_matches_pytorch(norm_type):
    tm, am = _twin_models()
    t_total = torch.nn.utils.clip_grad_norm_(tm.parameters(), 0.3, norm_type=norm_type)
    a_total = nn.utils.clip_grad_norm_(am.parameters(), 0.3, norm_type=norm_type)
    assert a_total.item() == pytest.approx(t_total.item(), rel=1e-12)
    for tp, ap in zip(tm.parameters(), am.parameters()):
        np.testing.assert_allclose(np.array(ap.grad.tolist()), tp.grad.numpy(), rtol=1e-12)


@needs_torch
def test_clip_value_and_vector_match_pytorch():
    tm, am = _twin_models()
    torch.nn.utils.clip_grad_value_(tm.parameters(), 0.05)
    nn.utils.clip_grad_value_(am.parameters(), 0.05)
    for tp, ap in zip(tm.parameters(), am.parameters()):
        np.testing.assert_allclose(np.array(ap.grad.tolist()), tp.grad.numpy(), rtol=1e-12)
    tv = torch.nn.utils.parameters_to_vector(tm.parameters())
    av = nn.utils.parameters_to_vector(am.parameters())
    np.testing.assert_array_equal(np.array(av.tolist()), tv.detach().numpy())
    assert set(torch.nn.utils.clip_grad.__all__) <= set(nn.utils.clip_grad.__all__)


@needs_torch
def test_functional_call_matches_pytorch():
    tm, am = _twin_models()
    rng = np.random.default_rng(1)
    new = {k: rng.standard_normal(tuple(v.shape)) for k, v in tm.state_dict().items()}
    x = rng.standard_normal((2, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        t_out = torch.nn.utils.stateless.functional_call(
            tm, {k: torch.tensor(v) for k, v in new.items()}, (torch.tensor(x),))
    a_out = stateless.functional_call(am, {k: ag.tensor(v) for k, v in new.items()},
                                      (ag.tensor(x),))
    np.testing.assert_allclose(np.array(a_out.tolist()), t_out.detach().numpy(), rtol=1e-12)
