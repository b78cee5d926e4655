"""``arraygrad.backends``' flag modules against ``torch.backends``: defaults, ``set_flags``
and ``flags()`` save-and-restore, the global freeze, the fp32-precision settings and their
inheritance, the attention switches, and what the CPU-only libraries report."""

from __future__ import annotations

import pytest

import arraygrad as ag

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
B = ag.backends


@needs_torch
def test_cudnn_set_flags_and_flags_as_pytorch():
    for m in (torch.backends.cudnn, B.cudnn):
        saved = m.set_flags(None, None, None, None, None, None, None)
        assert saved[:2] == (True, False) and saved[3:5] == (False, True)
        assert saved[6] == "auto" and m.depthwise_kernel == "auto"
        with m.flags(enabled=False, benchmark=True, deterministic=True):
            assert (m.enabled, m.benchmark, m.deterministic) == (False, True, True)
        assert (m.enabled, m.benchmark, m.deterministic) == (True, False, False)
        assert m.is_available() is False and m.version() is None
        assert m.is_acceptable(ag.ones(1) if m is B.cudnn else torch.ones(1)) is False
    assert {d.name for d in B.cudnn.CUDNN_TENSOR_DTYPES} == {
        str(d).split(".")[1] for d in torch.backends.cudnn.CUDNN_TENSOR_DTYPES}


def test_disable_global_flags_freezes_plain_assignment():
    assert B.flags_frozen() is False
    B.disable_global_flags()
    try:
        assert B.flags_frozen() is True
        with pytest.raises(RuntimeError, match="not allowed to set .*cudnn flags"):
            B.cudnn.benchmark = True
        with pytest.raises(RuntimeError, match="not allowed to set"):
            B.mkldnn.enabled = False
        with B.cudnn.flags(benchmark=True):
            assert B.cudnn.benchmark is True
        assert B.cudnn.benchmark is False
    finally:
        from arraygrad.backends import flag_state

        flag_state._frozen[0] = False  # no public way back, as in PyTorch
    B.cudnn.benchmark = False


def test_fp32_precision_inherits_as_pytorch():
    # PyTorch's answers in a fresh process (its cudnn.flags() leaves its own settings
    # explicit afterwards, so it is not compared live here)
    for m in (B,):
        assert m.fp32_precision == "none"
        try:
            m.fp32_precision = "tf32"
            assert m.cudnn.fp32_precision == "tf32" and m.cudnn.conv.fp32_precision == "tf32"
            assert m.cuda.matmul.fp32_precision == "tf32"
            assert m.mkldnn.matmul.fp32_precision == "tf32"
            m.fp32_precision = "ieee"
            assert m.cudnn.rnn.fp32_precision == "ieee"
            with pytest.raises(RuntimeError, match="Unknown precision: bad"):
                m.fp32_precision = "bad"
            with m.flags(fp32_precision="tf32"):
                assert m.fp32_precision == "tf32"
            assert m.fp32_precision == "ieee"
        finally:
            m.fp32_precision = "none"
    with pytest.raises(AttributeError, match="Unknown attribute"):
        B.cudnn.conv.something = 1


@needs_torch
def test_sdp_switches_as_pytorch():
    for m in (torch.backends.cuda, B.cuda):
        assert (m.flash_sdp_enabled(), m.mem_efficient_sdp_enabled(), m.math_sdp_enabled(),
                m.cudnn_sdp_enabled()) == (True, True, True, True)
        m.enable_flash_sdp(False)
        assert m.flash_sdp_enabled() is False
        m.enable_flash_sdp(True)
        with pytest.warns(FutureWarning, match="sdp_kernel"):
            with m.sdp_kernel(enable_math=False):
                assert m.math_sdp_enabled() is False
        assert m.math_sdp_enabled() is True
        assert m.fp16_bf16_reduction_math_sdp_allowed() is False
        assert m.is_flash_attention_available() is False
    assert [b.name for b in B.cuda.SDPBackend] == list(torch.backends.cuda.SDPBackend.__members__)
    assert [int(b) for b in B.cuda.SDPBackend] == [
        int(v) for v in torch.backends.cuda.SDPBackend.__members__.values()]
    # one state with nn.attention: with math and flash off, no backend computes here, and
    # attention raises PyTorch's RuntimeError (as PyTorch's CPU build)
    q = ag.ones(1, 2, 3)
    with pytest.warns(FutureWarning):
        with B.cuda.sdp_kernel(enable_math=False, enable_flash=False):
            assert ag.nn.attention.SDPBackend.MATH not in ag.attention_backends.enabled()
            with pytest.raises(RuntimeError, match="No viable backend"):
                ag.nn.functional.scaled_dot_product_attention(q, q, q)
    assert ag.nn.functional.scaled_dot_product_attention(q, q, q).shape == (1, 2, 3)


@needs_torch
def test_other_flag_modules_as_pytorch():
    tb = torch.backends
    assert B.mha.get_fastpath_enabled() is tb.mha.get_fastpath_enabled() is True
    B.mha.set_fastpath_enabled(False)
    assert B.mha.get_fastpath_enabled() is False
    B.mha.set_fastpath_enabled(True)
    assert B.miopen.immediate is tb.miopen.immediate is False
    with B.miopen.flags(immediate=True):
        assert B.miopen.immediate is True
    assert B.miopen.set_flags(None) == (False,)
    assert B.opt_einsum.set_flags(None, None) == (False, None)
    if not tb.opt_einsum.is_available():  # (PyTorch's flags follow the package's presence:
        # arraygrad's einsum never uses it, docs/differences.md; jax installs it)
        assert tb.opt_einsum.set_flags(None, None) == (False, None)
    with pytest.raises(ValueError, match="strategy"):
        B.opt_einsum.set_flags(None, "fastest")
    assert B.nnpack.set_flags(True) == (True,)
    assert B.cusparselt.is_available() is tb.cusparselt.is_available() is False
    assert B.cusparselt.version() is None and B.kleidiai.is_available() is False
    # libraries arraygrad itself does not call (PyTorch's CPU build links them)
    assert B.mkl.is_available() is False and B.mkldnn.is_available() is False
    assert B.openmp.is_available() is False and B.opt_einsum.is_available() is False
    assert B.cpu.get_cpu_capability() == "DEFAULT"
    with B.mkl.verbose(B.mkl.VERBOSE_ON), B.mkldnn.verbose(B.mkldnn.VERBOSE_ON):
        pass
    with B.mkldnn.flags(enabled=False):
        assert B.mkldnn.enabled is False
    assert B.mkldnn.enabled is True


@needs_torch
def test_mps_backend_as_cpu_build():
    for m in (torch.backends.mps, B.mps):
        assert m.is_available() is False and m.is_built() is False
        with pytest.raises(RuntimeError, match="without MPS backend"):
            m.is_macos_or_newer(13, 0)
        with pytest.raises(RuntimeError, match="without MPS backend"):
            m.is_macos13_or_newer()
    with pytest.raises(AttributeError, match="no arraygrad backend serves mps"):
        B.mps.get_name  # noqa: B018


def test_listed_backend_names_say_why():
    with pytest.raises(AttributeError, match="quantized dtypes"):
        B.quantized  # noqa: B018
    with pytest.raises(AttributeError, match="kernel selection"):
        B.cuda.preferred_linalg_library  # noqa: B018
