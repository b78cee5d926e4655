"""NumPy references for the attention tests (imported as a plain module: tests/nn is on
sys.path): multi-head attention and the Transformer's layers, written from the formulas."""

from __future__ import annotations

import math

import numpy as np
from nn_helpers import arr


def softmax(x):
    """Softmax over the last axis."""
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def layer_norm(x, norm):
    """LayerNorm over the last axis with ``norm``'s weight, bias and eps."""
    mean = x.mean(-1, keepdims=True)
    var = x.var(-1, keepdims=True)
    out = (x - mean) / np.sqrt(var + norm.eps)
    if norm.weight is not None:
        out = out * arr(norm.weight)
    if norm.bias is not None:
        out = out + arr(norm.bias)
    return out


def linear(x, lin):
    """``x @ W^T + b`` with ``lin``'s parameters."""
    out = x @ arr(lin.weight).T
    return out if lin.bias is None else out + arr(lin.bias)


def mha(m, query, key, value, additive=None):
    """MultiheadAttention ``m`` on (L, N, E) arrays; (output, per-head weights (N, H, L, S)).

    ``additive`` (broadcasting to (N, L, S)) is added to every head's scores.
    """
    query, key, value = (np.asarray(x) if isinstance(x, np.ndarray) else arr(x)
                         for x in (query, key, value))
    e, h = m.embed_dim, m.num_heads
    d = e // h
    if m.in_proj_weight is not None:
        wq, wk, wv = np.split(arr(m.in_proj_weight), 3)
    else:
        wq, wk, wv = arr(m.q_proj_weight), arr(m.k_proj_weight), arr(m.v_proj_weight)
    bq, bk, bv = (np.split(arr(m.in_proj_bias), 3) if m.in_proj_bias is not None
                  else (0.0, 0.0, 0.0))
    q, k, v = query @ wq.T + bq, key @ wk.T + bk, value @ wv.T + bv
    length, n, _ = q.shape
    out = np.zeros((length, n, e))
    weights = np.zeros((n, h, length, k.shape[0]))
    if additive is not None:
        additive = np.broadcast_to(additive, (n, length, k.shape[0]))
    for b in range(n):
        for i in range(h):
            sl = slice(i * d, (i + 1) * d)
            scores = q[:, b, sl] @ k[:, b, sl].T / math.sqrt(d)
            if additive is not None:
                scores = scores + additive[b]
            w = softmax(scores)
            weights[b, i] = w
            out[:, b, sl] = w @ v[:, b, sl]
    return linear(out, m.out_proj), weights


def encoder_layer(layer, x, additive=None, activation=lambda z: np.maximum(z, 0)):
    """TransformerEncoderLayer (sequence-first, eval) on the array ``x``."""
    def sa(y):
        return mha(layer.self_attn, y, y, y, additive)[0]

    def ff(y):
        return linear(activation(linear(y, layer.linear1)), layer.linear2)

    if layer.norm_first:
        x = x + sa(layer_norm(x, layer.norm1))
        return x + ff(layer_norm(x, layer.norm2))
    x = layer_norm(x + sa(x), layer.norm1)
    return layer_norm(x + ff(x), layer.norm2)


def decoder_layer(layer, x, memory, tgt_additive=None, memory_additive=None):
    """TransformerDecoderLayer (sequence-first, eval, relu) on the arrays ``x``, ``memory``."""
    def sa(y):
        return mha(layer.self_attn, y, y, y, tgt_additive)[0]

    def ca(y):
        return mha(layer.multihead_attn, y, memory, memory, memory_additive)[0]

    def ff(y):
        return linear(np.maximum(linear(y, layer.linear1), 0), layer.linear2)

    if layer.norm_first:
        x = x + sa(layer_norm(x, layer.norm1))
        x = x + ca(layer_norm(x, layer.norm2))
        return x + ff(layer_norm(x, layer.norm3))
    x = layer_norm(x + sa(x), layer.norm1)
    x = layer_norm(x + ca(x), layer.norm2)
    return layer_norm(x + ff(x), layer.norm3)
