"""scaled_dot_product_attention as one node (PyTorch's CPU flash kernel's
``ScaledDotProductFlashAttentionForCpuBackward0``) where PyTorch takes that kernel: values and
gradients against the composite (the math backend, which the same call takes under
``sdpa_kernel(MATH)``), fully masked rows, gradcheck/gradgradcheck through the recorded vjp,
reference mode, forward mode, the saved tensors' version check, where the composite stays; and
``nn.MultiheadAttention``'s packed self-attention path against its general path and PyTorch."""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag
import arraygrad.nn.functional as F
from arraygrad.autograd import gradcheck, gradgradcheck
from arraygrad.nn.attention import SDPBackend, sdpa_kernel
from arraygrad.ops.rule import reference_mode

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

NODE = "ScaledDotProductFlashAttentionForCpuBackward0"


def _inputs(rng, b, h, length, source, e, dtype):
    return [rng.standard_normal(s).astype(dtype)
            for s in ((b, h, length, e), (b, h, source, e), (b, h, source, e))]


def _mask(rng, kind, length, source, dtype):
    if kind == "bool":
        m = rng.random((length, source)) > 0.4
        m[0] = False  # one row with every key masked
        return m
    if kind == "float":
        m = rng.standard_normal((1, 1, length, source)).astype(dtype)
        m[..., -1, :] = -np.inf  # another fully masked row, as an added -inf
        return m
    return None


def _run(arrays, weights, mask=None, math_only=False, **kw):
    """The output and the three gradients of ``sum(out * weights)``."""
    q, k, v = (ag.tensor(a, requires_grad=True) for a in arrays)
    if mask is not None:
        kw = dict(kw, attn_mask=ag.tensor(mask))
    if math_only:
        with sdpa_kernel(SDPBackend.MATH):
            out = F.scaled_dot_product_attention(q, k, v, **kw)
    else:
        out = F.scaled_dot_product_attention(q, k, v, **kw)
    (out * ag.tensor(weights)).sum().backward()
    return out, [out.detach().numpy(), q.grad.numpy(), k.grad.numpy(), v.grad.numpy()]


@settings(max_examples=40, deadline=None)
@given(b=st.integers(1, 3), h=st.integers(1, 3), length=st.integers(1, 7),
       source=st.integers(1, 7), e=st.integers(1, 6),
       mask=st.sampled_from([None, "bool", "float", "causal"]),
       scale=st.sampled_from([None, 0.7, -0.4]), dtype=st.sampled_from([np.float32, np.float64]),
       seed=st.integers(0, 2**16))
def test_one_node_matches_the_composite(b, h, length, source, e, mask, scale, dtype, seed):
    rng = np.random.default_rng(seed)
    arrays = _inputs(rng, b, h, length, source, e, dtype)
    weights = rng.standard_normal((b, h, length, e)).astype(dtype)
    m = _mask(rng, mask, length, source, dtype)
    kw = {"scale": scale, "is_causal": mask == "causal"}
    out, fused = _run(arrays, weights, m, **kw)
    assert out.grad_fn.name() == NODE
    ref_out, composite = _run(arrays, weights, m, math_only=True, **kw)
    assert ref_out.grad_fn.name() != NODE
    tol = 1e-4 if dtype == np.float32 else 1e-11
    for got, want in zip(fused, composite):
        assert got.dtype == dtype
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    with reference_mode():  # the recorded vjp in Tensor ops
        _, recorded = _run(arrays, weights, m, **kw)
    for got, want in zip(recorded, composite):
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def test_fully_masked_rows_give_zero_and_no_nan():
    rng = np.random.default_rng(0)
    arrays = _inputs(rng, 2, 2, 3, 4, 5, np.float64)
    mask = np.ones((3, 4), bool)
    mask[1] = False
    out, (o, gq, gk, gv) = _run(arrays, np.ones((2, 2, 3, 5)), mask)
    assert out.grad_fn.name() == NODE
    assert np.all(o[:, :, 1] == 0) and np.all(gq[:, :, 1] == 0)
    assert all(np.isfinite(a).all() for a in (o, gq, gk, gv))


def test_gradcheck_and_gradgradcheck_through_the_node():
    rng = np.random.default_rng(1)
    q, k, v = (ag.tensor(a, requires_grad=True)
               for a in _inputs(rng, 1, 2, 3, 4, 2, np.float64))
    mask = ag.tensor(rng.random((3, 4)) > 0.3)
    for kw in ({}, {"is_causal": True}, {"attn_mask": mask, "scale": -0.6}):
        def f(q, k, v, kw=kw):
            return F.scaled_dot_product_attention(q, k, v, **kw)
        assert f(q, k, v).grad_fn.name() == NODE
        assert gradcheck(f, (q, k, v))
        assert gradgradcheck(f, (q, k, v))


def test_only_the_needed_gradients_are_made():
    rng = np.random.default_rng(2)
    q, k, v = _inputs(rng, 1, 1, 3, 3, 2, np.float64)
    qt, kt, vt = ag.tensor(q, requires_grad=True), ag.tensor(k), ag.tensor(v)
    out = F.scaled_dot_product_attention(qt, kt, vt)
    assert out.grad_fn.name() == NODE and out.grad_fn.next_functions[1][0] is None
    out.sum().backward()
    assert qt.grad is not None and kt.grad is None and vt.grad is None
    vt2 = ag.tensor(v, requires_grad=True)
    out = F.scaled_dot_product_attention(ag.tensor(q), ag.tensor(k), vt2)
    (gv,) = ag.autograd.grad(out.sum(), (vt2,))
    with sdpa_kernel(SDPBackend.MATH):
        vt3 = ag.tensor(v, requires_grad=True)
        (want,) = ag.autograd.grad(F.scaled_dot_product_attention(
            ag.tensor(q), ag.tensor(k), vt3).sum(), (vt3,))
    np.testing.assert_allclose(gv.numpy(), want.numpy(), rtol=1e-12)


def test_forward_mode_matches_the_composite():
    rng = np.random.default_rng(3)
    arrays = _inputs(rng, 1, 2, 3, 4, 3, np.float64)
    tangents = _inputs(rng, 1, 2, 3, 4, 3, np.float64)

    def jvp(math_only):
        def f(q, k, v):
            return F.scaled_dot_product_attention(q, k, v, is_causal=True)
        prims = tuple(ag.tensor(a) for a in arrays)
        tans = tuple(ag.tensor(t) for t in tangents)
        if math_only:
            with sdpa_kernel(SDPBackend.MATH):
                return ag.func.jvp(f, prims, tans)
        return ag.func.jvp(f, prims, tans)
    (out, tan), (ref_out, ref_tan) = jvp(False), jvp(True)
    np.testing.assert_allclose(out.numpy(), ref_out.numpy(), rtol=1e-12)
    np.testing.assert_allclose(tan.numpy(), ref_tan.numpy(), rtol=1e-10, atol=1e-12)


def test_a_saved_input_changed_in_place_is_refused():
    rng = np.random.default_rng(4)
    q, k, v = (ag.tensor(a, requires_grad=True) for a in _inputs(rng, 1, 1, 2, 2, 2, np.float64))
    k2 = k * 1.0
    out = F.scaled_dot_product_attention(q, k2, v)
    with ag.no_grad():
        k2.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


@pytest.mark.parametrize("case", ["three_dims", "dropout", "mask_needs_grad", "other_value_dim",
                                  "broadcast_batch", "flash_disabled", "flash_last", "float16"])
def test_the_node_is_taken_where_pytorch_takes_its_flash_kernel(case):
    """Where PyTorch's CPU build takes its math kernel, the composite runs; where it takes the
    flash kernel whatever the priority order, the node (checked against PyTorch too)."""
    rng = np.random.default_rng(5)
    q, k, v = _inputs(rng, 2, 2, 3, 4, 2, np.float32)
    kw = {}
    if case == "three_dims":
        q, k, v = q[0], k[0], v[0]
    elif case == "dropout":
        kw["dropout_p"] = 0.3
    elif case == "other_value_dim":
        v = rng.standard_normal((2, 2, 4, 3)).astype(np.float32)
    elif case == "broadcast_batch":
        k, v = k[:1], v[:1]
    elif case == "float16":
        q, k, v = (a.astype(np.float16) for a in (q, k, v))
    names = []
    for lib in (ag, torch) if torch is not None else (ag,):
        ts = [lib.tensor(a, requires_grad=True) for a in (q, k, v)]
        call = dict(kw)
        if case == "mask_needs_grad":
            call["attn_mask"] = lib.zeros(3, 4, requires_grad=True)
        kernel = lib.nn.attention
        if case == "flash_disabled":
            with kernel.sdpa_kernel(kernel.SDPBackend.MATH):
                out = lib.nn.functional.scaled_dot_product_attention(*ts, **call)
        elif case == "flash_last":
            with kernel.sdpa_kernel([kernel.SDPBackend.MATH, kernel.SDPBackend.FLASH_ATTENTION],
                                    set_priority=True):
                out = lib.nn.functional.scaled_dot_product_attention(*ts, **call)
        else:
            out = lib.nn.functional.scaled_dot_product_attention(*ts, **call)
        names.append(out.grad_fn.name())
    fused = case in ("flash_last", "float16")
    # float16 takes PyTorch's flash kernel but the composite here (float32 opmath)
    assert (names[0] == NODE) == (case == "flash_last")
    if len(names) == 2:
        assert (names[1] == NODE) == fused


@needs_torch
@pytest.mark.parametrize("kw", [{}, {"is_causal": True}, {"scale": 0.3}, {"mask": "bool"},
                                {"mask": "float"}])
def test_matches_pytorch_values_gradients_node_and_saved_params(kw):
    rng = np.random.default_rng(6)
    arrays = _inputs(rng, 2, 3, 5, 6, 4, np.float64)
    weights = rng.standard_normal((2, 3, 5, 4))
    kw = dict(kw)
    mask = _mask(rng, kw.pop("mask", None), 5, 6, np.float64)
    results = []
    for lib in (ag, torch):
        q, k, v = (lib.tensor(a, requires_grad=True) for a in arrays)
        call = dict(kw) if mask is None else dict(kw, attn_mask=lib.tensor(mask))
        out = lib.nn.functional.scaled_dot_product_attention(q, k, v, **call)
        node = out.grad_fn
        (out * lib.tensor(weights)).sum().backward()
        results.append((node, [out.detach().numpy(), q.grad.numpy(), k.grad.numpy(),
                               v.grad.numpy()]))
    (ours, got), (theirs, want) = results
    assert ours.name() == theirs.name() == NODE
    for name in ("_saved_scale", "_saved_is_causal", "_saved_dropout_p"):
        assert getattr(ours, name) == getattr(theirs, name)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def _mha_pair(seed):
    rng = np.random.default_rng(seed)
    m = ag.nn.MultiheadAttention(8, 2)
    with ag.no_grad():
        for p in m.parameters():
            p.copy_(ag.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32) * 0.3))
    x = rng.standard_normal((5, 3, 8)).astype(np.float32)
    return m, x, rng


def test_mha_packed_self_attention_matches_the_general_path():
    m, x, rng = _mha_pair(7)
    mask = ag.nn.Transformer.generate_square_subsequent_mask(5)
    pad = ag.tensor(np.where(rng.random((3, 5)) > 0.8, -np.inf, 0.0).astype(np.float32))
    results = []
    for same in (True, False):
        xt = ag.tensor(x, requires_grad=True)
        # a key that is not the query object takes the general path (same values)
        key = xt if same else xt.view_as(xt)
        out, weights = m(xt, key, key, attn_mask=mask, key_padding_mask=pad, need_weights=False)
        assert weights is None
        out.square().sum().backward()
        results.append([out.detach().numpy(), xt.grad.numpy()] +
                       [p.grad.numpy() for p in m.parameters()])
        m.zero_grad()
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=1e-6)


@needs_torch
@pytest.mark.parametrize("case", ["self", "self_batch_first", "cross", "separate_kdim_vdim"])
def test_mha_through_sdpa_matches_pytorch(case):
    """Self-attention's heads from the packed projection, a decoder's cross-attention (key is
    value) and separate projections, each straight to SDPA's (N, heads, L, head_dim)."""
    rng = np.random.default_rng(8)
    batch_first = case == "self_batch_first"
    kw = {"kdim": 3, "vdim": 5} if case == "separate_kdim_vdim" else {}
    x = rng.standard_normal((5, 3, 8)).astype(np.float32)
    mem = rng.standard_normal((4, 3, 8)).astype(np.float32)
    key_in = rng.standard_normal((4, 3, 3)).astype(np.float32)
    value_in = rng.standard_normal((4, 3, 5)).astype(np.float32)
    results = []
    state = None
    for lib in (ag, torch):
        mod = lib.nn.MultiheadAttention(8, 2, batch_first=batch_first, **kw)
        with lib.no_grad():
            if state is None:
                state = [rng.standard_normal(tuple(p.shape)).astype(np.float32) * 0.3
                         for p in mod.parameters()]
            for p, a in zip(mod.parameters(), state):
                p.copy_(lib.tensor(a))
        xt = lib.tensor(x, requires_grad=True)
        others = []
        if case in ("self", "self_batch_first"):
            size = 3 if batch_first else 5
            out, _ = mod(xt, xt, xt, need_weights=False,
                         attn_mask=lib.nn.Transformer.generate_square_subsequent_mask(size))
        elif case == "cross":
            mt = lib.tensor(mem, requires_grad=True)
            others.append(mt)
            out, _ = mod(xt, mt, mt, need_weights=False)
        else:
            kt, vt = (lib.tensor(a, requires_grad=True) for a in (key_in, value_in))
            others += [kt, vt]
            out, _ = mod(xt, kt, vt, need_weights=False,
                         key_padding_mask=lib.tensor([[False, True, False, False]] * 3))
        out.square().sum().backward()
        results.append([out.detach().numpy(), xt.grad.numpy()]
                       + [t.grad.numpy() for t in others]
                       + [p.grad.numpy() for p in mod.parameters()])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
    assert math.isfinite(float(results[0][0].sum()))
