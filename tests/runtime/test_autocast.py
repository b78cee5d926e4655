"""``arraygrad.autocast`` on the CPU in float16, against PyTorch's CPU autocast: which ops
compute in float16, which in float32, gradients' dtypes, nesting, the disabled cases and
their warnings, ``custom_fwd``/``custom_bwd``, and the top-level autocast switches."""

from __future__ import annotations

import warnings

import pytest

import arraygrad as ag
import arraygrad.nn.functional as F

try:
    import torch
    import torch.nn.functional as TF
except ImportError:
    torch = TF = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

# op name -> (arraygrad call, torch call), each on (h: float16 4x5, f: float32 4x5, t: targets)
OPS = {
    "mm": (lambda m, h, f, t: m.mm(f, f.t())),
    "matmul": (lambda m, h, f, t: f @ f.t()),
    "bmm": (lambda m, h, f, t: m.bmm(f[None], f.t()[None])),
    "addmm": (lambda m, h, f, t: m.addmm(m.zeros(4, 4), f, f.t())),
    "baddbmm": (lambda m, h, f, t: m.baddbmm(m.zeros(1, 4, 4), f[None], f.t()[None])),
    "addbmm": (lambda m, h, f, t: m.addbmm(m.zeros(4, 4), f[None], f.t()[None])),
    "mixed_mm": (lambda m, h, f, t: m.mm(f, h.t())),
    "einsum": (lambda m, h, f, t: m.einsum("ij,kj->ik", f, f)),
    "add": (lambda m, h, f, t: f + h),
    "exp": (lambda m, h, f, t: m.exp(h)),
    "mv": (lambda m, h, f, t: m.mv(f, f[0])),
    "mm_float64": (lambda m, h, f, t: m.mm(f.double(), f.double().t())),
    "mm_int": (lambda m, h, f, t: m.mm(t[:2, None] * 0 + 1, t[None, :2] * 0 + 1)),
}
FUNCTIONAL = {
    "linear": (lambda F, m, h, f, t: F.linear(f, f)),
    "conv1d": (lambda F, m, h, f, t: F.conv1d(f[None], m.ones(2, 4, 3))),
    "prelu": (lambda F, m, h, f, t: F.prelu(f, m.tensor([0.1]))),
    "sdpa": (lambda F, m, h, f, t: F.scaled_dot_product_attention(f[None], f[None], f[None])),
    "softmax": (lambda F, m, h, f, t: F.softmax(h, dim=-1)),
    "layer_norm": (lambda F, m, h, f, t: F.layer_norm(h, (5,))),
    "cross_entropy": (lambda F, m, h, f, t: F.cross_entropy(h, t)),
    "nll_loss": (lambda F, m, h, f, t: F.nll_loss(h, t)),
    "mse_loss": (lambda F, m, h, f, t: F.mse_loss(h, h)),
    "l1_loss": (lambda F, m, h, f, t: F.l1_loss(h, h)),
    "smooth_l1_loss": (lambda F, m, h, f, t: F.smooth_l1_loss(h, h)),
    "huber_loss": (lambda F, m, h, f, t: F.huber_loss(h, h)),
    "bce_with_logits": (lambda F, m, h, f, t: F.binary_cross_entropy_with_logits(h, h * 0)),
    "kl_div": (lambda F, m, h, f, t: F.kl_div(h, h, reduction="batchmean")),
    "prod": (lambda F, m, h, f, t: h.prod()),
    "dropout": (lambda F, m, h, f, t: F.dropout(h, training=False)),
}


def _inputs(m):
    f = m.tensor([[0.5, -1.0, 2.0, 0.25, 1.5]] * 4)
    return f.half(), f, m.tensor([0, 1, 2, 3])


@needs_torch
@pytest.mark.parametrize("name", sorted(OPS))
def test_op_dtype_under_cpu_autocast_is_pytorchs(name):
    fn = OPS[name]
    with torch.autocast("cpu", dtype=torch.float16):
        theirs = fn(torch, *_inputs(torch)).dtype
    with ag.autocast("cpu", dtype=ag.float16):
        ours = fn(ag, *_inputs(ag)).dtype
    assert str(ours).split(".")[-1] == str(theirs).split(".")[-1]


@needs_torch
@pytest.mark.parametrize("name", sorted(FUNCTIONAL))
def test_functional_dtype_under_cpu_autocast_is_pytorchs(name):
    fn = FUNCTIONAL[name]
    with torch.autocast("cpu", dtype=torch.float16):
        theirs = fn(TF, torch, *_inputs(torch)).dtype
    with ag.autocast("cpu", dtype=ag.float16):
        ours = fn(F, ag, *_inputs(ag)).dtype
    assert str(ours).split(".")[-1] == str(theirs).split(".")[-1]


@needs_torch
def test_linear_values_and_grads_as_pytorch():
    x = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]
    w = [[0.1, 0.2, 0.3], [-0.4, 0.5, -0.6]]
    tw = torch.tensor(w, requires_grad=True)
    aw = ag.tensor(w, requires_grad=True)
    with torch.autocast("cpu", dtype=torch.float16):
        ty = TF.linear(torch.tensor(x), tw)
        tl = TF.mse_loss(ty, torch.zeros(2, 2))
    with ag.autocast("cpu", dtype=ag.float16):
        ay = F.linear(ag.tensor(x), aw)
        al = F.mse_loss(ay, ag.zeros(2, 2))
    tl.backward()
    al.backward()
    assert ay.dtype is ag.float16 and al.dtype is ag.float32
    assert ay.float().tolist() == ty.float().tolist()
    assert abs(al.item() - tl.item()) < 1e-6
    assert aw.grad.dtype is ag.float32
    assert ag.allclose(aw.grad, ag.tensor(tw.grad.tolist()), atol=1e-3)


def test_nested_disabled_region_and_restore():
    a = ag.ones(2, 2)
    assert not ag.is_autocast_enabled("cpu")
    with ag.autocast("cpu", dtype=ag.float16):
        assert ag.is_autocast_enabled("cpu") and ag.get_autocast_dtype("cpu") is ag.float16
        with ag.autocast("cpu", enabled=False):
            assert ag.mm(a, a).dtype is ag.float32
            assert not ag.is_autocast_enabled("cpu")
        assert ag.mm(a, a).dtype is ag.float16
    assert not ag.is_autocast_enabled("cpu") and ag.mm(a, a).dtype is ag.float32


def test_decorator_form():
    @ag.autocast("cpu", dtype=ag.float16)
    def f(x):
        return x @ x

    assert f(ag.ones(2, 2)).dtype is ag.float16
    with pytest.raises(TypeError, match="requires a callable"):
        ag.autocast("cpu", dtype=ag.float16)(3)


def test_backward_inside_the_region_does_not_autocast_its_formulas():
    w = ag.ones(3, 3, requires_grad=True)
    with ag.autocast("cpu", dtype=ag.float16):
        y = (ag.ones(2, 3) @ w).float().sum()
        y.backward()
    assert w.grad.dtype is ag.float32 and w.grad.tolist() == [[2.0] * 3] * 3


@needs_torch
def test_cpu_default_dtype_is_bfloat16_and_casts():
    with ag.autocast("cpu"):
        assert ag.mm(ag.ones(2, 2), ag.ones(2, 2)).dtype is ag.bfloat16
    assert ag.get_autocast_dtype("cpu") is ag.bfloat16
    with pytest.warns(UserWarning, match="target dtype is not supported"):
        torch.autocast("cpu", dtype=torch.float64)
    with pytest.warns(UserWarning, match="target dtype is not supported"):
        ag.autocast("cpu", dtype=ag.float64)


@pytest.mark.skipif(ag.cuda.is_available(), reason="a CUDA backend is usable here")
def test_cuda_autocast_without_cuda_warns_and_disables():
    with pytest.warns(UserWarning, match="CUDA is not available"):
        with ag.autocast("cuda"):
            assert not ag.is_autocast_enabled("cuda")
    with pytest.warns(FutureWarning, match="deprecated"):
        ag.cuda.amp.autocast()
    with pytest.warns(FutureWarning, match="deprecated"):
        ag.cpu.amp.autocast(dtype=ag.float16)


def test_bad_device_types():
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        ag.autocast(3)
    with pytest.raises(RuntimeError, match="unsupported autocast device_type"):
        ag.autocast("mkldnn")
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda"):
        ag.is_autocast_enabled("foo")


@needs_torch
def test_switches_as_pytorch():
    for m in (torch, ag):
        assert m.is_autocast_cache_enabled() is True
        m.set_autocast_cache_enabled(False)
        assert m.is_autocast_cache_enabled() is False
        m.set_autocast_cache_enabled(True)
        assert [m.autocast_increment_nesting(), m.autocast_increment_nesting(),
                m.autocast_decrement_nesting(), m.autocast_decrement_nesting()] == [1, 2, 1, 0]
        m.set_autocast_enabled("cpu", True)
        assert m.is_autocast_enabled("cpu")
        m.set_autocast_enabled("cpu", False)
        m.set_autocast_enabled(True)
        assert m.is_autocast_enabled() and m.is_autocast_enabled("cuda")
        m.set_autocast_enabled(False)
        assert m.clear_autocast_cache() is None
        assert str(m.get_autocast_dtype("cuda")).endswith("float16")
        assert m.amp.is_autocast_available("cpu") is True
    with pytest.warns(DeprecationWarning):
        assert ag.get_autocast_gpu_dtype() is ag.float16
    with pytest.warns(DeprecationWarning):
        assert ag.is_autocast_cpu_enabled() is False
    with pytest.raises(TypeError):
        ag.set_autocast_dtype("cpu", 3)


def test_custom_fwd_casts_inputs_and_custom_bwd_keeps_the_state():
    seen = {}

    class Square(ag.autograd.Function):
        @staticmethod
        @ag.amp.custom_fwd(device_type="cpu", cast_inputs=ag.float32)
        def forward(ctx, x):
            seen["fwd"] = (x.dtype, ag.is_autocast_enabled("cpu"))
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @ag.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            seen["bwd"] = ag.is_autocast_enabled("cpu")
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = ag.tensor([1.0, 2.0], requires_grad=True)
    with ag.autocast("cpu", dtype=ag.float16):
        y = Square.apply(x.half())
    y.sum().backward()
    assert seen["fwd"] == (ag.float32, False) and seen["bwd"] is False
    assert x.grad.tolist() == [2.0, 4.0]
    with pytest.raises(ValueError, match="device_type"):
        ag.amp.custom_fwd(device_type=3)


def test_autocast_warnings_do_not_leak():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with ag.autocast("cpu", dtype=ag.float16, cache_enabled=False):
            assert not ag.is_autocast_cache_enabled()
        assert ag.is_autocast_cache_enabled()


try:
    from hypothesis import given, settings, strategies as st
except ImportError:  # hypothesis is in the test extra
    given = None

if given is not None and torch is not None:
    _DTYPES = ("float16", "float32", "float64")

    @settings(max_examples=30, deadline=None)
    @given(n=st.integers(1, 4), k=st.integers(1, 4), a=st.sampled_from(_DTYPES),
           b=st.sampled_from(_DTYPES), op=st.sampled_from(["mm", "matmul", "mse_loss", "add"]))
    def test_result_dtype_matches_pytorch_for_any_shapes_and_dtypes(n, k, a, b, op):
        def run(m, fn):
            x = m.ones(n, k, dtype=getattr(m, a))
            y = m.ones(k if op in ("mm", "matmul") else n, n if op in ("mm", "matmul") else k,
                       dtype=getattr(m, b))
            if op == "mm":
                return m.mm(x, y).dtype
            if op == "matmul":
                return (x @ y).dtype
            if op == "add":
                return (x + y).dtype
            return fn.mse_loss(x, y).dtype

        with torch.autocast("cpu", dtype=torch.float16):
            try:
                theirs = str(run(torch, TF)).split(".")[-1]
            except RuntimeError:
                theirs = "error"
        with ag.autocast("cpu", dtype=ag.float16):
            try:
                ours = str(run(ag, F)).split(".")[-1]
            except RuntimeError:
                ours = "error"
        assert ours == theirs
