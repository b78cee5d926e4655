"""``arraygrad.vmap`` / ``arraygrad.func.vmap``: in_dims/out_dims (ints, None, negative,
pytrees), non-tensor and keyword arguments, nesting, composition with grad/vjp/jacrev and
functional_call, randomness modes, chunk_size, and PyTorch's errors (compared with
``torch.func.vmap`` where PyTorch is installed)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag
import arraygrad.nn.functional as F
from arraygrad import nn
from arraygrad.func import functional_call, grad, jacrev, stack_module_state, vjp, vmap

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
F64 = ag.float64


def rand(*shape):
    return ag.randn(*shape, dtype=F64)


def close(a, b, tol=1e-10):
    return a.shape == b.shape and ag.allclose(a.detach(), b.detach(), atol=tol, rtol=tol)


def loop(f, in_dims, args, out_dim=0):
    """The reference: f on each sample (slices along in_dims), stacked along out_dim."""
    n = next(a.shape[d] for a, d in zip(args, in_dims) if d is not None)
    outs = [f(*[a if d is None else a[(slice(None),) * (d % a.ndim) + (i,)]
                for a, d in zip(args, in_dims)])
            for i in range(n)]
    return ag.stack(outs, dim=out_dim)


# -- in_dims, out_dims, arguments -----------------------------------------------------------

def test_exported_names():
    assert ag.vmap is vmap and ag.func.vmap is vmap


@pytest.mark.parametrize("in_dims", [(0, 0), (1, 0), (-1, None), (None, -2), (0, None)])
def test_in_dims_match_the_loop(in_dims):
    x, y = rand(3, 3), rand(3, 3)
    f = lambda a, b: (a * b.exp()).sum() + a @ b
    assert close(vmap(f, in_dims=in_dims)(x, y), loop(f, in_dims, (x, y)))


@pytest.mark.parametrize("out_dims", [0, 1, -1, -2])
def test_out_dims(out_dims):
    x = rand(4, 2, 3)
    f = lambda a: a.T * 2
    assert close(vmap(f, out_dims=out_dims)(x), loop(f, (0,), (x,), out_dim=out_dims))


def test_pytree_in_and_out_dims():
    x, y = rand(3, 4), rand(4, 3)
    out = vmap(lambda d, s: {"sum": d["a"] + d["b"] * s, "pair": (d["a"], 2.0)},
               in_dims=({"a": 0, "b": 1}, None), out_dims={"sum": 1, "pair": (0, None)})(
                   {"a": x, "b": y}, 3.0)
    assert close(out["sum"], (x + y.T * 3.0).T)
    assert close(out["pair"][0], x) and out["pair"][1] == 2.0


def test_keyword_arguments_are_not_mapped():
    x, k = rand(3, 4), rand(4)
    assert close(vmap(lambda a, *, k: a * k)(x, k=k), x * k)


def test_unbatched_output_is_expanded():
    c = rand(4)
    out = vmap(lambda a: c)(rand(3, 2))
    assert close(out, c.expand(3, 4))
    assert vmap(lambda a: (a, c), out_dims=(0, None))(rand(3, 2))[1] is c


def test_captured_tensors_mix_with_batched_ones():
    w, b, x = rand(5, 4), rand(5), rand(7, 4)
    assert close(vmap(lambda r: F.linear(r, w, b))(x), F.linear(x, w, b))
    assert close(vmap(lambda r: ag.cat([w[0], r]))(x), ag.cat([w[0].expand(7, 4), x], 1))
    assert close(vmap(lambda r: ag.where(r > 0, w[0], r))(x), ag.where(x > 0, w[0], x))


def test_nested_vmap_in_dims_on_both_levels():
    x, y = rand(3, 4), rand(4, 5)
    inner = vmap(lambda a, b: (a * b).sum(), in_dims=(None, 1))
    out = vmap(inner, in_dims=(0, None))(x, y)
    assert close(out, x @ y)
    out = vmap(lambda a: vmap(lambda b: (a - b).abs().max())(y.T))(x)  # captured outer value
    assert close(out, (x[:, None, :] - y.T[None]).abs().amax(-1))


def test_three_levels():
    x = rand(2, 3, 4)
    out = vmap(vmap(vmap(lambda a: a * a.sin())))(x)
    assert close(out, x * x.sin())


# -- composition with the other transforms -------------------------------------------------

def test_vmap_of_grad():
    x = rand(5, 3)
    assert close(vmap(grad(lambda a: (a ** 3).sum()))(x), 3 * x ** 2)


def test_grad_of_vmap_and_backward_through_vmap():
    x = rand(4, 3)
    f = lambda a: (a.sin() * a).sum()
    assert close(grad(lambda z: vmap(f)(z).sum())(x), x.sin() + x * x.cos())
    xx = x.clone().requires_grad_()
    vmap(f, in_dims=1)(xx).pow(2).sum().backward()
    ref = x.clone().requires_grad_()
    (ref.sin() * ref).sum(0).pow(2).sum().backward()
    assert close(xx.grad, ref.grad)


def test_vmap_of_vjp_and_jacrev():
    x, v = rand(4, 3), rand(4, 3)
    out = vmap(lambda a, u: vjp(ag.tanh, a)[1](u)[0])(x, v)
    assert close(out, v * (1 - x.tanh() ** 2))
    jac = vmap(jacrev(lambda a: a.sin() * a.sum()))(x)
    for i in range(4):
        assert close(jac[i], jacrev(lambda a: a.sin() * a.sum())(x[i]))


def test_vmap_of_hessian_rows():
    x = rand(3, 4)
    f = lambda a: (a ** 3).sum()
    hess = vmap(jacrev(jacrev(f)))(x)
    assert close(hess, ag.stack([ag.diag(6 * x[i]) for i in range(3)]))


def _small_conv_net():
    ag.manual_seed(0)
    return nn.Sequential(nn.Conv2d(1, 3, 3), nn.ReLU(), nn.Flatten(), nn.Linear(3 * 4 * 4, 2)).double()


def test_per_sample_gradients_of_a_conv_net():
    model = _small_conv_net()
    params = {k: v.detach() for k, v in model.named_parameters()}
    x, t = rand(6, 1, 6, 6), ag.tensor([0, 1, 1, 0, 1, 0])

    def loss(p, xi, ti):
        out = functional_call(model, p, (xi.unsqueeze(0),))
        return F.cross_entropy(out, ti.unsqueeze(0))

    batched = vmap(grad(loss), in_dims=(None, 0, 0))(params, x, t)
    for i in range(6):
        one = grad(loss)(params, x[i], t[i])
        for k in params:
            assert close(batched[k][i], one[k], 1e-9), k


def test_model_ensembling_with_stack_module_state():
    ag.manual_seed(1)
    models = [nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2)).double() for _ in range(3)]
    params, buffers = stack_module_state(models)
    x = rand(5, 4)
    out = vmap(lambda p, b: functional_call(models[0], (p, b), (x,)))(params, buffers)
    for i, m in enumerate(models):
        assert close(out[i], m(x), 1e-12)


# -- randomness, chunk_size ----------------------------------------------------------------

def test_randomness_modes():
    x = rand(4, 5)
    diff = vmap(lambda a: ag.rand_like(a) + ag.randn(5), randomness="different")(x)
    assert not close(diff[0], diff[1])
    same = vmap(lambda a: ag.rand_like(a) + ag.randn(5), randomness="same")(x)
    assert all(close(same[0], same[i]) for i in range(4))
    drop = vmap(lambda a: F.dropout(a, 0.5), randomness="different")(ag.ones(6, 50))
    assert not close(drop[0], drop[1])


def test_chunk_size_with_same_randomness_shares_one_draw():
    x = rand(5, 3)
    out = vmap(lambda a: a * 0 + ag.rand(3), randomness="same", chunk_size=2)(x)
    assert all(close(out[0], out[i]) for i in range(5))


def test_chunk_size_gives_the_same_values():
    x, y = rand(7, 3), rand(3, 7)
    f = lambda a, b: (a.exp() * b, (a @ b).sum())
    whole = vmap(f, in_dims=(0, 1), out_dims=(1, 0))(x, y)
    for chunk in (1, 2, 3, 7, 10):
        parts = vmap(f, in_dims=(0, 1), out_dims=(1, 0), chunk_size=chunk)(x, y)
        assert close(parts[0], whole[0]) and close(parts[1], whole[1])


# -- errors ----------------------------------------------------------------------------------

def _error(fn):
    try:
        fn()
    except Exception as exc:
        return type(exc).__name__, str(exc)
    return None


def f_id(a):
    return a


def f_add(a, b):
    return a + b


ERRORS = [  # (name, how to call with a namespace ``m`` (ag or torch) and its vmap)
    ("item", lambda m, v, x: v(lambda t: t.sum().item())(x)),
    ("float", lambda m, v, x: v(lambda t: float(t.sum()))(x)),
    ("bool", lambda m, v, x: v(lambda t: t if t.sum() > 0 else -t)(x)),
    ("tolist", lambda m, v, x: v(lambda t: t.tolist())(x)),
    ("random_error_mode", lambda m, v, x: v(lambda t: t + m.randn(4))(x)),
    ("random_like_error_mode", lambda m, v, x: v(lambda t: m.rand_like(t))(x)),
    ("inplace_batched_into_unbatched", lambda m, v, x: v(lambda t: m.zeros(4).copy_(t))(x)),
    ("setitem_batched_into_unbatched",
     lambda m, v, x: v(lambda t: m.zeros(4).__setitem__(0, t[0]))(x)),
    ("nonzero", lambda m, v, x: v(lambda t: t.nonzero())(x)),
    ("mismatched_sizes", lambda m, v, x: v(f_add)(x, x[:2])),
    ("in_dims_type", lambda m, v, x: v(f_id, in_dims="a")(x)),
    ("in_dims_list", lambda m, v, x: v(f_add, in_dims=[0, 1])(x, x)),
    ("in_dims_float", lambda m, v, x: v(f_id, in_dims=0.5)(x)),
    ("in_dims_none", lambda m, v, x: v(f_id, in_dims=None)(x)),
    ("in_dim_out_of_range", lambda m, v, x: v(f_id, in_dims=2)(x)),
    ("in_dim_negative_out_of_range", lambda m, v, x: v(f_id, in_dims=-3)(x)),
    ("in_dim_of_0d", lambda m, v, x: v(f_id)(x[0, 0])),
    ("in_dim_on_non_tensor", lambda m, v, x: v(f_add, in_dims=(0, 0))(x, 3)),
    ("in_dim_entry_type", lambda m, v, x: v(f_id, in_dims=("a",))(x)),
    ("nothing_mapped", lambda m, v, x: v(f_add, in_dims=(None, None))(x, x)),
    ("no_inputs", lambda m, v, x: v(lambda: x)()),
    ("out_dim_out_of_range", lambda m, v, x: v(f_id, out_dims=2)(x)),
    ("out_dims_type", lambda m, v, x: v(f_id, out_dims="x")(x)),
    ("out_dim_none_for_batched", lambda m, v, x: v(f_id, out_dims=None)(x)),
    ("non_tensor_output", lambda m, v, x: v(lambda t: 3)(x)),
    ("none_output", lambda m, v, x: v(lambda t: None)(x)),
    ("randomness_value", lambda m, v, x: v(f_id, randomness="x")(x)),
    ("chunk_size_zero", lambda m, v, x: v(f_id, chunk_size=0)(x)),
]
# PyTorch prints its own TreeSpec in these: the class and the message up to it must match
STRUCTURE = [
    ("in_dims_structure", lambda m, v, x: v(f_add, in_dims=(0,))(x, x)),
    ("out_dims_structure", lambda m, v, x: v(lambda a: (a, a), out_dims=(0, 0, 0))(x)),
]


@pytest.mark.parametrize("name,call", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_have_pytorch_class_and_message(name, call):
    ours = _error(lambda: call(ag, vmap, rand(3, 4)))
    assert ours is not None, name
    if torch is None:
        assert ours[0] in ("RuntimeError", "ValueError", "IndexError")
        return
    theirs = _error(lambda: call(torch, torch.func.vmap, torch.randn(3, 4, dtype=torch.float64)))
    assert ours == theirs


@needs_torch
@pytest.mark.parametrize("name,call", STRUCTURE, ids=[e[0] for e in STRUCTURE])
def test_structure_errors(name, call):
    ours = _error(lambda: call(ag, vmap, rand(3, 4)))
    theirs = _error(lambda: call(torch, torch.func.vmap, torch.randn(3, 4, dtype=torch.float64)))
    assert ours is not None and ours[0] == theirs[0]
    assert ours[1].split(" has structure")[0] == theirs[1].split(" has structure")[0]


def test_fallback_warns_once_naming_the_function():
    from arraygrad.func._vmap import _fallback

    _fallback._warned.discard("searchsorted")
    rows = ag.sort(rand(3, 5), dim=1).values
    vals = rand(3, 2)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        out = vmap(ag.searchsorted)(rows, vals)
        vmap(ag.searchsorted)(rows, vals)
    mine = [w for w in seen if "no batching rule" in str(w.message)]
    assert len(mine) == 1 and "'searchsorted'" in str(mine[0].message)
    assert close(out, ag.stack([ag.searchsorted(rows[i], vals[i]) for i in range(3)]))


# -- random programs -----------------------------------------------------------------------

UNARY = [ag.exp, ag.tanh, lambda a: a.sum(-1, keepdim=True), lambda a: a.amax(0),
         lambda a: a.cumsum(-1), lambda a: a.flip(0), lambda a: a.T, lambda a: a.reshape(-1),
         lambda a: a.softmax(-1), lambda a: a.sort(-1).values, lambda a: a[1:, ::2],
         lambda a: a.unsqueeze(1).expand(-1, 2, -1), lambda a: ag.cat([a, a * 2], -1),
         lambda a: ag.stack([a, -a], 1), lambda a: a @ a.T, lambda a: a.mean(),
         lambda a: a.std(0), lambda a: a.argmax(-1), lambda a: a.roll(1, 0)]
BINARY = [ag.add, ag.mul, ag.maximum, lambda a, b: a @ b.T, lambda a, b: ag.where(a > b, a, b),
          lambda a, b: (a - b).pow(2).sum(-1)]


@settings(max_examples=40, deadline=None)
@given(rows=st.integers(2, 4), cols=st.integers(1, 4), n=st.integers(1, 3),
       dim=st.integers(-3, 2), k=st.integers(0, len(UNARY) - 1))
def test_random_unary_programs(rows, cols, n, dim, k):
    f = UNARY[k]
    x = rand(rows, cols)
    d = dim % 3
    stacked = ag.stack([x * (i + 1) for i in range(n)], dim=d)
    assert close(vmap(f, in_dims=dim)(stacked), loop(f, (d,), (stacked,)))


@settings(max_examples=40, deadline=None)
@given(rows=st.integers(1, 4), cols=st.integers(1, 4), n=st.integers(1, 3),
       da=st.sampled_from([0, 1, -1, None]), db=st.sampled_from([0, 2, -3, None]),
       k=st.integers(0, len(BINARY) - 1))
def test_random_binary_programs(rows, cols, n, da, db, k):
    if da is None and db is None:
        da = 0
    f = BINARY[k]
    a = ag.stack([rand(rows, cols) for _ in range(n)], dim=da % 3) if da is not None else rand(rows, cols)
    b = ag.stack([rand(rows, cols) for _ in range(n)], dim=db % 3) if db is not None else rand(rows, cols)
    dims = (None if da is None else da % 3, None if db is None else db % 3)
    assert close(vmap(f, in_dims=(da, db))(a, b), loop(f, dims, (a, b)))


def test_forward_mode_through_vmap():
    """Jacobian columns as a vmapped JVP (what jacfwd builds on), and a dual tensor fed to a
    vmapped function."""
    import arraygrad.autograd.forward_ad as fwAD

    x = rand(4)
    f = lambda a: a.sin() * a.sum()

    def column(t):
        with fwAD.dual_level():
            return fwAD.unpack_dual(f(fwAD.make_dual(x, t))).tangent

    assert close(vmap(column)(ag.eye(4, dtype=F64)).T, jacrev(f)(x))
    xs, ts = rand(3, 4), rand(3, 4)
    with fwAD.dual_level():
        out = fwAD.unpack_dual(vmap(f)(fwAD.make_dual(xs, ts))).tangent
    assert close(out, ag.stack([jacrev(f)(xs[i]) @ ts[i] for i in range(3)]))


def test_moving_a_batched_tensor_to_its_own_device_keeps_it():
    x = rand(3, 4)
    out = vmap(lambda a: a.to("cpu").cpu().to(x.device, ag.float32) * 2)(x)
    assert out.dtype == ag.float32 and close(out.double(), (x * 2).float().double(), 1e-6)


def test_vmap_over_grad_outputs_of_a_recorded_graph():
    """``autograd.grad`` with a batch of grad_outputs (what ``is_grads_batched`` builds on): the
    graph recorded outside vmap runs once for the whole batch of cotangents."""
    ag.manual_seed(2)
    x = rand(4, 3).requires_grad_()
    lin = nn.Linear(3, 5).double()
    out = (lin(x).tanh() * 2).sum(0)
    eye = ag.eye(5, dtype=F64)
    for wrt in (x, lin.weight):
        rows = ag.stack([ag.autograd.grad(out, wrt, eye[i], retain_graph=True)[0]
                         for i in range(5)])
        got = vmap(lambda g: ag.autograd.grad(out, wrt, g, retain_graph=True,
                                              create_graph=True)[0])(eye)
        assert close(got, rows) and got.requires_grad


def test_gradients_of_captured_tensors_sum_over_the_batch():
    """A parameter captured by the vmapped function (``vmap(model)(x)`` then ``backward``) gets
    the sum of the per-sample gradients, as in PyTorch; inside vmap, ``grad`` keeps them per
    sample."""
    ag.manual_seed(3)
    model = nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 2)).double()
    x = rand(5, 4)
    vmap(model)(x).pow(2).sum().backward()
    got = {k: p.grad.clone() for k, p in model.named_parameters()}
    model.zero_grad()
    model(x).pow(2).sum().backward()
    for k, p in model.named_parameters():
        assert close(got[k], p.grad), k
    w = rand(4).requires_grad_()
    (g,) = ag.autograd.grad(vmap(lambda r: (r * w).sum())(x).sum(), w)
    assert close(g, x.sum(0))
    constant = vmap(lambda r: w.sum() + r.sum() * 0)(x).sum()  # the same gradient per sample
    assert close(ag.autograd.grad(constant, w)[0], ag.full((4,), 5.0, dtype=F64))
    assert close(vmap(grad(lambda v, r: (r * v).sum()), in_dims=(None, 0))(w, x), x)


_STRICT = "strict" in {b.name for b in ag.backends.available() if b.available}


@pytest.mark.skipif(not _STRICT, reason="array-api-strict backend not installed")
def test_vmap_on_the_strict_backend():
    """The batching namespace over array-api-strict (a namespace with nothing beyond the
    standard): per-sample gradients of a small MLP and a few op families."""
    ag.manual_seed(4)
    model = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 2)).double().to("strict")
    params = {k: v.detach() for k, v in model.named_parameters()}
    x = ag.randn(4, 3, dtype=F64).to("strict")
    loss = lambda p, xi: functional_call(model, p, (xi,)).pow(2).sum()
    batched = vmap(grad(loss), in_dims=(None, 0))(params, x)
    for i in range(4):
        one = grad(loss)(params, x[i])
        for k in params:
            assert close(batched[k][i].cpu(), one[k].cpu()), k
    y = ag.randn(4, 3, 2, dtype=F64).to("strict")
    f = lambda a: (a.softmax(-1).cumsum(0) @ a.T).sum(-1).sort().values
    assert close(vmap(f)(y).cpu(), ag.stack([f(y[i]) for i in range(4)]).cpu())
