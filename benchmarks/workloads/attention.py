"""``attention_step``: one SGD step of ``nn.MultiheadAttention`` self-attention (batch 4,
sequence 16, d_model 64, 4 heads, dropout 0, batch-first, ``need_weights=False`` so the
frameworks go through ``F.scaled_dot_product_attention``); the loss is the squared error
from a fixed target, summed over each sequence and averaged over the batch. (A loss linear in
the outputs, as ``lstm_step``'s, is unbounded here: the in- and out-projections feed each
other's gradients, the weights grow geometrically and the scores overflow float32 after about
35 steps, so the timed steps would run on infinities. This one converges.)"""

from __future__ import annotations

import numpy as np

from workloads.base import Workload, sgd_step, with_frameworks

BATCH, SEQ, EMBED, HEADS = 4, 16, 64, 4


def make_data(seed=0):
    """PyTorch's MultiheadAttention parameters in its order (``in_proj_weight`` (3E, E) packing
    q, k, v; ``in_proj_bias`` (3E); ``out_proj.weight`` (E, E); ``out_proj.bias`` (E)), the
    input (N, L, E) and the target (N, L, E), all float32. The biases are drawn too
    (PyTorch starts them at 0), so their gradients are checked on a general point."""
    rng = np.random.default_rng(seed)
    bound = 1 / np.sqrt(EMBED)
    shapes = [(3 * EMBED, EMBED), (3 * EMBED,), (EMBED, EMBED), (EMBED,)]
    params = [rng.uniform(-bound, bound, s).astype(np.float32) for s in shapes]
    x = rng.standard_normal((BATCH, SEQ, EMBED)).astype(np.float32)
    target = rng.standard_normal((BATCH, SEQ, EMBED)).astype(np.float32)
    return params, x, target


def _split_heads(t):
    """(N*L, E) -> (N, heads, L, head_dim)."""
    return t.reshape(BATCH, SEQ, HEADS, EMBED // HEADS).transpose(0, 2, 1, 3)


def _merge_heads(t):
    """(N, heads, L, head_dim) -> (N*L, E), the inverse of ``_split_heads``."""
    return t.transpose(0, 2, 1, 3).reshape(BATCH * SEQ, EMBED)


def numpy_step(params, x, target, lr=0.01):
    """Forward, hand-written backward and SGD update; returns the gradients."""
    w_in, b_in, w_out, b_out = params
    scale = 1 / np.sqrt(EMBED // HEADS)
    rows = x.reshape(BATCH * SEQ, EMBED)
    # forward: packed in-projection, per-head softmax attention, out-projection
    qkv = rows @ w_in.T + b_in
    q, k, v = (_split_heads(qkv[:, i * EMBED:(i + 1) * EMBED]) for i in range(3))
    scores = (q @ k.transpose(0, 1, 3, 2)) * scale
    p = np.exp(scores - scores.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    heads = _merge_heads(p @ v)
    out = heads @ w_out.T + b_out
    # loss = sum((out - target)**2) / BATCH, so d loss / d out = 2 (out - target) / BATCH
    d_out = (out - target.reshape(BATCH * SEQ, EMBED)) * (2 / BATCH)
    d_w_out = d_out.T @ heads
    d_b_out = d_out.sum(0)
    d_o = _split_heads(d_out @ w_out)  # gradient of each head's p @ v
    d_p = d_o @ v.transpose(0, 1, 3, 2)
    d_v = p.transpose(0, 1, 3, 2) @ d_o
    d_scores = p * (d_p - (d_p * p).sum(-1, keepdims=True))  # softmax backward, per row
    d_q = (d_scores @ k) * scale
    d_k = (d_scores.transpose(0, 1, 3, 2) @ q) * scale
    d_qkv = np.concatenate([_merge_heads(d_q), _merge_heads(d_k), _merge_heads(d_v)], axis=1)
    d_w_in = d_qkv.T @ rows
    d_b_in = d_qkv.sum(0)
    grads = [d_w_in, d_b_in, d_w_out, d_b_out]
    for p_, g_ in zip(params, grads):
        p_ -= lr * g_
    return grads


def _framework(lib):
    """``lib.nn.MultiheadAttention`` (arraygrad or torch) with the floor's parameters."""
    params, x, target = make_data()
    model = lib.nn.MultiheadAttention(EMBED, HEADS, dropout=0.0, batch_first=True)
    mse_loss = lib.nn.functional.mse_loss

    def squared_error(model, xt, target):
        output, _ = model(xt, xt, xt, need_weights=False)
        return mse_loss(output, target, reduction="sum") / BATCH
    return sgd_step(lib, model, params, x, target, loss=squared_error)


def attention_step() -> Workload:
    w = Workload("attention_step", "ms/step", 1e3, repeats=100, rtol=2e-3)
    params, x, target = make_data()
    return with_frameworks(w, lambda: numpy_step(params, x, target), _framework)
