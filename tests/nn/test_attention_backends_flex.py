"""``nn.attention``: ``sdpa_kernel``/``SDPBackend`` (which backends ``scaled_dot_product_attention``
may use), ``SDPAParams`` and the ``can_use_*`` checks, and ``flex_attention`` (eager
reference: score_mod and mask_mod on the full score matrix, PyTorch's ``BlockMask``)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.autograd import gradcheck
from arraygrad.nn import attention
from arraygrad.nn.attention import SDPBackend, sdpa_kernel
from arraygrad.nn.attention import flex_attention as FA

F = ag.nn.functional


@pytest.mark.parametrize("backend, runs", [
    (SDPBackend.MATH, True), (SDPBackend.FLASH_ATTENTION, True),
    (SDPBackend.EFFICIENT_ATTENTION, False), (SDPBackend.CUDNN_ATTENTION, False),
    (SDPBackend.OVERRIDEABLE, False), (SDPBackend.ERROR, False)])
def test_sdpa_kernel_selects_backends_as_pytorch_cpu(backend, runs):
    q = ag.randn(1, 2, 3, 4)
    with sdpa_kernel(backend) as ctx:
        assert ctx == {}
        if runs:
            F.scaled_dot_product_attention(q, q, q)
        else:
            with pytest.raises(RuntimeError, match="No viable backend"):
                F.scaled_dot_product_attention(q, q, q)
    F.scaled_dot_product_attention(q, q, q)  # restored on exit
    assert len(attention._cur_sdpa_kernel_backends()) == 5


def test_sdpa_kernel_priority_and_errors():
    before = attention._backends.priority()
    with sdpa_kernel([SDPBackend.MATH, SDPBackend.FLASH_ATTENTION], set_priority=True):
        assert attention._backends.priority()[:2] == [0, 1]
        assert attention._cur_sdpa_kernel_backends(with_priority=True) == [
            SDPBackend.MATH, SDPBackend.FLASH_ATTENTION]
    assert attention._backends.priority() == before
    with pytest.raises(AssertionError, match="Backend must be an instance of SDPBackend"):
        with sdpa_kernel("math"):
            pass
    assert int(SDPBackend.FLASH_ATTENTION) == 1 and SDPBackend.MATH.name == "MATH"


def test_sdpa_params_and_can_use():
    q = ag.ones(1, 1, 2, 4)
    params = attention.SDPAParams(q, q, q, None, 0.0, False, False)
    assert params.query is q and params.dropout == 0.0 and not params.is_causal
    assert not attention.can_use_flash_attention(params, True)
    assert not attention.can_use_efficient_attention(params)
    assert attention.WARN_FOR_UNFUSED_KERNELS is False


def _causal(b, h, q, kv):
    return q >= kv


def _window(b, h, q, kv):
    return (q - kv).abs() <= 20


def test_block_mask_matches_pytorch():
    torch = pytest.importorskip("torch", reason="compares against PyTorch")
    from torch.nn.attention import flex_attention as TF

    for L, S, block in [(200, 130, 64), (64, 64, 16)]:
        theirs = TF.create_block_mask(TF.and_masks(_causal, _window), None, 4, L, S,
                                      device="cpu", BLOCK_SIZE=block)
        mine = FA.create_block_mask(FA.and_masks(_causal, _window), None, 4, L, S,
                                    BLOCK_SIZE=block)
        for field in ("kv_num_blocks", "kv_indices", "full_kv_num_blocks", "full_kv_indices",
                      "q_num_blocks", "q_indices", "full_q_num_blocks", "full_q_indices"):
            np.testing.assert_array_equal(getattr(mine, field).numpy(),
                                          getattr(theirs, field).numpy())
        assert mine.shape == theirs.shape and mine.sparsity() == theirs.sparsity()
        assert str(mine) == str(theirs)


def test_flex_attention_matches_pytorch():
    torch = pytest.importorskip("torch", reason="compares against PyTorch")
    from torch.nn.attention import flex_attention as TF

    bias = torch.randn(4, dtype=torch.float64)
    bias_a = ag.tensor(bias.numpy())
    for L, S, block in [(200, 130, 64), (64, 64, 16)]:
        tb = TF.create_block_mask(TF.and_masks(_causal, _window), None, 4, L, S, device="cpu",
                                  BLOCK_SIZE=block)
        ab = FA.create_block_mask(FA.and_masks(_causal, _window), None, 4, L, S,
                                  BLOCK_SIZE=block)
        q, k = torch.randn(2, 4, L, 16, dtype=torch.float64), torch.randn(2, 4, S, 16,
                                                                          dtype=torch.float64)
        v = torch.randn(2, 4, S, 8, dtype=torch.float64)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out, aux = TF.flex_attention(q, k, v, score_mod=lambda s, b, h, i, j:
                                         s + bias[h] * (j - i), block_mask=tb,
                                         return_aux=TF.AuxRequest(lse=True))
        got, got_aux = FA.flex_attention(ag.tensor(q.numpy()), ag.tensor(k.numpy()),
                                         ag.tensor(v.numpy()),
                                         score_mod=lambda s, b, h, i, j: s + bias_a[h] * (j - i),
                                         block_mask=ab, return_aux=FA.AuxRequest(lse=True))
        np.testing.assert_allclose(got.numpy(), out.numpy(), atol=1e-12)
        np.testing.assert_allclose(got_aux.lse.numpy(), aux.lse.numpy(), atol=1e-12)


def test_flex_attention_is_sdpa_for_a_causal_mask_and_differentiates():
    q = ag.randn(1, 2, 6, 4, dtype=ag.float64, requires_grad=True)
    k = ag.randn(1, 2, 6, 4, dtype=ag.float64, requires_grad=True)
    v = ag.randn(1, 2, 6, 3, dtype=ag.float64, requires_grad=True)
    mask = FA.create_block_mask(_causal, None, None, 6, 6, BLOCK_SIZE=4)
    got = FA.flex_attention(q, k, v, block_mask=mask)
    assert ag.allclose(got, F.scaled_dot_product_attention(q, k, v, is_causal=True))
    assert gradcheck(lambda a, b, c: FA.flex_attention(
        a, b, c, score_mod=lambda s, *_: s * 0.5, block_mask=mask), (q, k, v))


def test_fully_masked_rows_gqa_and_lse():
    q, k, v = ag.randn(1, 4, 8, 4), ag.randn(1, 2, 8, 4), ag.randn(1, 2, 8, 4)
    mask = FA.create_block_mask(lambda b, h, i, j: i > 0, None, None, 8, 8, BLOCK_SIZE=4)
    with pytest.warns(FutureWarning, match="return_lse is deprecated"):
        out, lse = FA.flex_attention(q, k, v, block_mask=mask, enable_gqa=True,
                                     return_lse=True)
    assert out[:, :, 0].abs().sum().item() == 0 and lse[0, 0, 0].item() == float("-inf")
    with pytest.raises(ValueError, match="Try setting enable_gqa=True"):
        FA.flex_attention(q, k, v)
    with pytest.raises(ValueError, match="block_mask was created for"):
        FA.flex_attention(q[:, :, :4], k, v, block_mask=mask, enable_gqa=True)


def test_mask_helpers():
    assert FA.noop_mask(ag.tensor(0), ag.tensor(0), ag.tensor(1), ag.tensor(2)).item()
    both = FA.or_masks(_causal, lambda b, h, i, j: j == 3)
    dense = FA.create_mask(both, None, None, 4, 4)
    assert dense.shape == (1, 1, 4, 4) and dense[0, 0, 0, 3].item()
    score = FA.create_mask(lambda s, b, h, i, j: ag.where(i >= j, s, float("-inf")), 1, 1, 3, 3)
    assert ag.equal(score[0, 0], ag.ones(3, 3, dtype=ag.bool).tril())
    with pytest.raises(RuntimeError, match="All inputs should be callable"):
        FA.and_masks(_causal, 3)
    mask = FA.create_block_mask(_causal, 2, 1, 8, 8, BLOCK_SIZE=4, separate_full_blocks=False)
    assert mask.full_kv_num_blocks is None and mask.to_dense().tolist()[0][0] == [[1, 0], [1, 1]]
