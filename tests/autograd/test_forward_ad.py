"""``autograd.forward_ad``: the API and its errors, views, in-place ops, custom Functions,
forward-over-reverse (Hessian-vector products), and agreement with PyTorch's forward AD."""

from __future__ import annotations

import math

import pytest

import arraygrad as ag
import arraygrad.nn.functional as F
from arraygrad.autograd import forward_ad as fwad

try:
    import torch
    import torch.autograd.forward_ad as tfwad
except ImportError:  # PyTorch is optional: the comparisons are skipped without it
    torch = None

F64 = ag.float64
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def _randn(*shape, seed=0):
    return ag.randn(*shape, dtype=F64, generator=ag.Generator().manual_seed(seed))


def _close(a, b, tol=1e-10):
    return ag.allclose(a, b, rtol=tol, atol=tol)


# -- the API -------------------------------------------------------------------------------

def test_make_unpack_and_levels():
    x, v = _randn(3), _randn(3, seed=1)
    assert fwad.unpack_dual(x) == (x, None)  # no level: as-is
    with fwad.dual_level() as level:
        assert level == 0
        d = fwad.make_dual(x, v)
        unpacked = fwad.unpack_dual(d)
        assert isinstance(unpacked, fwad.UnpackedDualTensor)
        assert unpacked.primal is not d and _close(unpacked.primal, x)
        assert unpacked.tangent is v
        assert fwad.unpack_dual(unpacked.primal).tangent is None
        assert fwad.unpack_dual(x).tangent is None  # make_dual leaves its input alone
        y = d * 2
    # exiting the level drops every tangent
    assert fwad.unpack_dual(d).tangent is None and d._fw_grads is None
    assert y._fw_grads is None
    assert fwad.enter_dual_level() == 0
    fwad.exit_dual_level()


def test_errors_as_pytorch():
    x = _randn(3)
    with pytest.raises(RuntimeError, match="no level exists, make sure to enter_dual_level"):
        fwad.make_dual(x, x)
    with pytest.raises(RuntimeError, match="Dual level must be a positive number"):
        fwad.exit_dual_level()
    with fwad.dual_level():
        with pytest.raises(RuntimeError, match="Nested forward mode AD is not supported"):
            fwad.enter_dual_level()
        with pytest.raises(RuntimeError, match="different size than that of the original Tensor"):
            fwad.make_dual(x, _randn(4))
        with pytest.raises(ValueError, match="Expected primal to be floating point"):
            fwad.make_dual(ag.arange(3), x)
        with pytest.raises(ValueError, match="Expected tangent to be floating point"):
            fwad.make_dual(x, ag.arange(3))
        with pytest.raises(RuntimeError, match="Invalid level given to _make_dual"):
            fwad.make_dual(x, x, level=3)
        with pytest.raises(RuntimeError, match="Invalid level given to _fw_primal"):
            fwad.unpack_dual(x, level=3)
        d = fwad.make_dual(x, x)
        with pytest.raises(RuntimeError, match="already has a forward gradient at the same level"):
            fwad.make_dual(d, x)
        with pytest.raises(RuntimeError, match="not the last one that was created"):
            fwad.exit_dual_level(level=2)
        # a float32 tangent of a float64 primal takes the primal's dtype
        assert fwad.unpack_dual(fwad.make_dual(x, x.float())).tangent.dtype is F64


def test_op_without_rule_raises_naming_it():
    from arraygrad.extend import defop

    rule = defop("MyOpBackward0", key="test_forward_ad.my_op", vjp=(lambda g, n: g,))
    x = _randn(3)
    with fwad.dual_level():
        d = fwad.make_dual(x, x)
        with pytest.raises(NotImplementedError,
                           match="Trying to use forward AD with my_op that does not support it"):
            rule.record(x._data * 2, x._backend, (d,))
        assert rule.record(x._data * 2, x._backend, (x,)) is not None  # no tangent: fine


def test_comparisons_and_integer_results_have_no_tangent():
    x = _randn(4)
    with fwad.dual_level():
        d = fwad.make_dual(x, ag.ones_like(x))
        assert fwad.unpack_dual(d > 0).tangent is None
        assert fwad.unpack_dual(d.argmax()).tangent is None
        values, indices = d.reshape(2, 2).max(1)
        assert fwad.unpack_dual(indices).tangent is None
        assert fwad.unpack_dual(values).tangent is not None


def test_broadcast_tangent_is_expanded_and_cast():
    x, w = _randn(3, 1), _randn(1, 4, seed=1).float()
    with fwad.dual_level():
        y = fwad.make_dual(x, ag.ones_like(x)) + w  # float64 result
        t = fwad.unpack_dual(y).tangent
    assert tuple(t.shape) == (3, 4) and t.dtype is F64 and _close(t, ag.ones(3, 4, dtype=F64))


def test_view_has_view_of_tangent_and_no_grad_keeps_tangents():
    x, v = _randn(2, 3), _randn(2, 3, seed=1)
    with fwad.dual_level():
        d = fwad.make_dual(x, v)
        assert _close(fwad.unpack_dual(d.t()[1:]).tangent, v.t()[1:])
        assert _close(fwad.unpack_dual(d.reshape(6)).tangent, v.reshape(6))
        with ag.no_grad():  # forward AD does not depend on grad mode (as PyTorch)
            assert _close(fwad.unpack_dual(d * 3).tangent, v * 3)


def test_inplace_updates_tangent():
    x, v = _randn(3), _randn(3, seed=1)
    with fwad.dual_level():
        d = fwad.make_dual(x, v)
        y = ag.zeros(3, dtype=F64)
        y.add_(d)
        assert _close(fwad.unpack_dual(y).tangent, v)
        y.mul_(d)
        assert _close(fwad.unpack_dual(y).tangent, 2 * x * v)
        z = d.clone()
        z[1:] = 0.0
        assert _close(fwad.unpack_dual(z).tangent, v * ag.tensor([1.0, 0.0, 0.0], dtype=F64))
        base = ag.zeros(4, dtype=F64)
        before = base.clone()
        with pytest.raises(NotImplementedError, match="in-place operations on views"):
            base[1:].add_(fwad.make_dual(_randn(3), v))
        assert ag.equal(base, before)  # nothing written


# -- custom Functions ------------------------------------------------------------------------

class _Scale(ag.autograd.Function):
    @staticmethod
    def forward(ctx, x, y, k):
        ctx.save_for_forward(x, y)
        ctx.save_for_backward(x, y)
        return x * y * k

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        return g * y * 3, g * x * 3, None

    @staticmethod
    def jvp(ctx, tx, ty, tk):
        x, y = ctx.saved_tensors
        assert tk is None  # a number's tangent
        return (tx * y + x * ty) * 3


class _NoJvp(ag.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


class _SetupStyle(ag.autograd.Function):
    @staticmethod
    def forward(x):
        return x.exp()

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_forward(output)

    @staticmethod
    def backward(ctx, g):
        raise AssertionError("not used")

    @staticmethod
    def jvp(ctx, tx):
        (out,) = ctx.saved_tensors
        return tx * out


@pytest.mark.parametrize("requires_grad", [False, True])
def test_function_jvp(requires_grad):
    x, y, v = _randn(3), _randn(3, seed=1), _randn(3, seed=2)
    x.requires_grad_(requires_grad)
    with fwad.dual_level():
        out = _Scale.apply(fwad.make_dual(x, v), y, 3)  # y: a tensor without tangent (zeros)
        assert _close(fwad.unpack_dual(out).tangent, 3 * v * y)
        out = _SetupStyle.apply(fwad.make_dual(x, v))
        assert _close(fwad.unpack_dual(out).tangent, v * x.detach().exp())
        with pytest.raises(NotImplementedError, match="You must implement the jvp function"):
            _NoJvp.apply(fwad.make_dual(y, v))
        assert fwad.unpack_dual(_NoJvp.apply(y)).tangent is None  # no tangent: no jvp needed


# -- forward-over-reverse ----------------------------------------------------------------------

def _mlp_loss(params, x, target):
    w1, b1, w2, b2 = params
    h = F.gelu(F.linear(x, w1, b1))
    out = F.log_softmax(F.linear(h.tanh(), w2, b2), dim=1)
    return F.nll_loss(out, target) + (w1 ** 2).sum() * 1e-2


def _mlp_inputs():
    params = [_randn(5, 4, seed=1), _randn(5, seed=2), _randn(3, 5, seed=3), _randn(3, seed=4)]
    return params, _randn(6, 4, seed=5), ag.tensor([0, 2, 1, 1, 0, 2])


def test_hvp_forward_over_reverse_matches_functional_hvp():
    params, x, target = _mlp_inputs()
    vs = [_randn(*p.shape, seed=10 + i) for i, p in enumerate(params)]
    with fwad.dual_level():
        duals = [fwad.make_dual(p.detach().requires_grad_(), v) for p, v in zip(params, vs)]
        loss = _mlp_loss(duals, x, target)
        grads = ag.autograd.grad(loss, duals, create_graph=True)
        hvp = [fwad.unpack_dual(g).tangent for g in grads]
    _, expected = ag.autograd.functional.hvp(
        lambda *ps: _mlp_loss(ps, x, target), tuple(params), tuple(vs))
    for got, want in zip(hvp, expected):
        assert _close(got, want, 1e-9)


def test_hessian_columns_by_forward_over_reverse():
    x0 = _randn(4)

    def f(x):
        return (x.sin() * x.cumsum(0)).prod() + x.logsumexp(0) * x.norm()

    hess = ag.autograd.functional.hessian(f, x0)
    for i in range(4):
        with fwad.dual_level():
            d = fwad.make_dual(x0.detach().requires_grad_(), ag.eye(4, dtype=F64)[i])
            (g,) = ag.autograd.grad(f(d), d, create_graph=True)
            assert _close(fwad.unpack_dual(g).tangent, hess[:, i], 1e-9)


# -- against PyTorch ------------------------------------------------------------------------------

def _net(m, F_, x, w, b, k):
    y = F_.conv2d(x, k, padding=1).relu().flatten(1)
    y = F_.layer_norm(F_.silu(y @ w + b), (w.shape[1],))
    z = F_.softmax(y, dim=-1) * F_.elu(y) + F_.sigmoid(y).cumsum(1) - y.var(1, keepdim=True)
    return (F_.mse_loss(z, y.detach() * 0.5) + F_.cross_entropy(z, m.tensor([1, 0]))
            + z.amax(1).sum() + m.stack([z, y]).std() + z.split(2, 1)[1].mean()
            + z.gather(1, m.tensor([[0], [3]])).sum() + m.cat([z, y.flip(1)], 1).pow(2).mean())


@needs_torch
def test_matches_pytorch_forward_ad():
    shapes = [(2, 1, 3, 3), (9, 4), (4,), (1, 1, 3, 3)]
    values = [_randn(*s, seed=i) for i, s in enumerate(shapes)]
    tangents = [_randn(*s, seed=20 + i) for i, s in enumerate(shapes)]
    with fwad.dual_level():
        out = _net(ag, F, *[fwad.make_dual(p, t) for p, t in zip(values, tangents)])
        mine = fwad.unpack_dual(out)
    tv = [torch.tensor(v.numpy()) for v in values]
    tt = [torch.tensor(t.numpy()) for t in tangents]
    with tfwad.dual_level():
        ref = tfwad.unpack_dual(_net(torch, torch.nn.functional,
                                     *[tfwad.make_dual(p, t) for p, t in zip(tv, tt)]))
    assert math.isclose(float(mine.primal), float(ref.primal), rel_tol=1e-10)
    assert math.isclose(float(mine.tangent), float(ref.tangent), rel_tol=1e-8)


def test_module_with_full_backward_hook_and_level_cleanup():
    lin = ag.nn.Linear(3, 2).double()
    lin.register_full_backward_hook(lambda m, gi, go: None)
    x, v = _randn(4, 3), _randn(4, 3, seed=1)
    with fwad.dual_level():
        out = lin(fwad.make_dual(x, v))
        assert _close(fwad.unpack_dual(out).tangent, v @ lin.weight.detach().t())
    from arraygrad.autograd.forward_ad import state

    assert not state.on and state.dual_level == -1 and not state.tracked
    # fast paths are back on after the level
    from arraygrad.ops.rule import fast_paths

    assert fast_paths.on == fast_paths.__class__().on


_FUNCTIONALS = {
    "batch_norm": lambda m, F_, x, y: F_.batch_norm(x, None, None, training=True),
    "group_norm": lambda m, F_, x, y: F_.group_norm(x, 3),
    "max_pool2d": lambda m, F_, x, y: F_.max_pool2d(x, 2),
    "avg_pool2d": lambda m, F_, x, y: F_.avg_pool2d(x, 3, stride=1, padding=1),
    "adaptive_avg_pool2d": lambda m, F_, x, y: F_.adaptive_avg_pool2d(x, 2),
    "interpolate": lambda m, F_, x, y: F_.interpolate(x, scale_factor=2, mode="bilinear"),
    "smooth_l1_loss": lambda m, F_, x, y: F_.smooth_l1_loss(x, y),
    "huber_loss": lambda m, F_, x, y: F_.huber_loss(x, y),
    "kl_div": lambda m, F_, x, y: F_.kl_div(F_.log_softmax(x, 1), F_.softmax(y, 1),
                                            reduction="batchmean"),
    "bce_logits": lambda m, F_, x, y: F_.binary_cross_entropy_with_logits(x, y.sigmoid()),
    "cosine_similarity": lambda m, F_, x, y: F_.cosine_similarity(x, y, dim=1),
    "normalize": lambda m, F_, x, y: F_.normalize(x, dim=1),
    "conv_transpose2d": lambda m, F_, x, y: F_.conv_transpose2d(
        x, y[:, :, :3, :3].transpose(0, 1).contiguous()),
    "activations": lambda m, F_, x, y: (
        F_.softplus(x) + F_.mish(x) + F_.hardswish(x) + F_.leaky_relu(x) + F_.hardtanh(x)
        + F_.logsigmoid(x) + F_.selu(x) + F_.glu(x, 2).repeat(1, 1, 2, 1)),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(_FUNCTIONALS))
def test_nn_functionals_match_pytorch_forward_ad(name):
    f = _FUNCTIONALS[name]
    x, v, y = (_randn(2, 3, 6, 6, seed=s) for s in (30, 31, 32))
    with fwad.dual_level():
        mine = fwad.unpack_dual(f(ag, F, fwad.make_dual(x, v), y)).tangent
    with tfwad.dual_level():
        ref = tfwad.unpack_dual(f(torch, torch.nn.functional,
                                  tfwad.make_dual(torch.tensor(x.numpy()), torch.tensor(v.numpy())),
                                  torch.tensor(y.numpy()))).tangent
    assert ag.allclose(mine, ag.tensor(ref.numpy()), rtol=1e-8, atol=1e-10)
