"""Model steps as public examples write them, with no hand-written NumPy floor (their
gradients are checked against PyTorch's): ``mnist_cnn`` (PyTorch's MNIST example network,
Adadelta), ``char_rnn`` (a 2-layer LSTM language model, Adam) and ``gpt_block`` (one
pre-norm transformer block, causal SDPA, AdamW).

Each step loads the same parameters into both frameworks (``draw_params``, in
``model.parameters()`` order). A model with dropout runs its first call, the one the check
compares, in eval mode (the frameworks' dropout masks differ); every later call, all the
timed ones, trains with dropout on.
"""

from __future__ import annotations

import math

import numpy as np

from workloads.base import Workload, draw_params, sgd_step, with_frameworks


def _first_call_in_eval(model, run):
    """``run`` whose first call has ``model`` in eval mode (dropout off), the rest in train."""
    calls = [0]

    def step():
        model.train(calls[0] > 0)
        calls[0] += 1
        return run()
    return step


def _load(lib, model, seed):
    """``sgd_step``'s ``params``: one array per parameter of ``model``, drawn by shape."""
    return draw_params([tuple(p.shape) for p in model.parameters()], seed)


# -- PyTorch's MNIST example -------------------------------------------------------------

MNIST_BATCH = 64


def _mnist_net(lib):
    nn, F = lib.nn, lib.nn.functional

    class Net(nn.Module):
        """examples/mnist/main.py's network, as published."""

        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 32, 3, 1)
            self.conv2 = nn.Conv2d(32, 64, 3, 1)
            self.dropout1 = nn.Dropout(0.25)
            self.dropout2 = nn.Dropout(0.5)
            self.fc1 = nn.Linear(9216, 128)
            self.fc2 = nn.Linear(128, 10)

        def forward(self, x):
            x = F.relu(self.conv1(x))
            x = F.relu(self.conv2(x))
            x = self.dropout1(F.max_pool2d(x, 2))
            x = self.dropout2(F.relu(self.fc1(lib.flatten(x, 1))))
            return F.log_softmax(self.fc2(x), dim=1)
    return Net()


def _mnist_framework(lib):
    rng = np.random.default_rng(1)
    x = rng.random((MNIST_BATCH, 1, 28, 28)).astype(np.float32)
    y = rng.integers(0, 10, MNIST_BATCH)
    model = _mnist_net(lib)

    def nll(m, xt, yt):
        return lib.nn.functional.nll_loss(m(xt), yt)
    run = sgd_step(lib, model, _load(lib, model, 0), x, y, loss=nll,
                   optimizer=lambda lib, ps: lib.optim.Adadelta(ps, lr=1.0))
    return _first_call_in_eval(model, run)


def mnist_cnn() -> Workload:
    """One training step of PyTorch's MNIST example (batch 64 of 1x28x28, Adadelta)."""
    w = Workload("mnist_cnn", "ms/step", 1e3, repeats=10, rtol=2e-3, compiled=False)
    return with_frameworks(w, None, _mnist_framework)


# -- a character-level LSTM language model -----------------------------------------------

VOCAB, SEQ, BATCH, HIDDEN = 65, 64, 32, 128


def _char_rnn_framework(lib):
    nn = lib.nn

    class CharRNN(nn.Module):
        """Embedding -> 2-layer LSTM (batch first) -> Linear, as char-rnn ports write it."""

        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(VOCAB, HIDDEN)
            self.rnn = nn.LSTM(HIDDEN, HIDDEN, num_layers=2, batch_first=True)
            self.head = nn.Linear(HIDDEN, VOCAB)

        def forward(self, x):
            out, _ = self.rnn(self.embed(x))
            return self.head(out)
    rng = np.random.default_rng(2)
    x = rng.integers(0, VOCAB, (BATCH, SEQ))
    y = rng.integers(0, VOCAB, (BATCH, SEQ))
    model = CharRNN()

    def loss(m, xt, yt):
        return lib.nn.functional.cross_entropy(m(xt).reshape(-1, VOCAB), yt.reshape(-1))
    return sgd_step(lib, model, _load(lib, model, 0), x, y, loss=loss,
                    optimizer=lambda lib, ps: lib.optim.Adam(ps, lr=2e-3))


def char_rnn() -> Workload:
    """One training step of a char-RNN: 2 LSTM layers of 128, sequence 64, batch 32, Adam."""
    w = Workload("char_rnn", "ms/step", 1e3, repeats=10, rtol=2e-3, compiled=False)
    return with_frameworks(w, None, _char_rnn_framework)


# -- a GPT block ---------------------------------------------------------------------------

GPT_BATCH, GPT_SEQ, WIDTH, HEADS = 16, 64, 128, 4


def _gpt_framework(lib):
    nn, F = lib.nn, lib.nn.functional

    class Block(nn.Module):
        """A pre-norm GPT block: x + attn(ln1(x)), then x + mlp(ln2(x)); causal SDPA."""

        def __init__(self):
            super().__init__()
            self.ln1 = nn.LayerNorm(WIDTH)
            self.qkv = nn.Linear(WIDTH, 3 * WIDTH)
            self.proj = nn.Linear(WIDTH, WIDTH)
            self.ln2 = nn.LayerNorm(WIDTH)
            self.fc = nn.Linear(WIDTH, 4 * WIDTH)
            self.out = nn.Linear(4 * WIDTH, WIDTH)

        def forward(self, x):
            n, t, c = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
            q, k, v = (z.view(n, t, HEADS, c // HEADS).transpose(1, 2) for z in (q, k, v))
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(a.transpose(1, 2).contiguous().view(n, t, c))
            return x + self.out(F.gelu(self.fc(self.ln2(x))))
    rng = np.random.default_rng(3)
    x = rng.standard_normal((GPT_BATCH, GPT_SEQ, WIDTH)).astype(np.float32)
    target = rng.standard_normal((GPT_BATCH, GPT_SEQ, WIDTH)).astype(np.float32)
    model = Block()

    def loss(m, xt, target):  # bounded below: the steps converge, never overflow
        return F.mse_loss(m(xt), target) * math.sqrt(WIDTH)
    return sgd_step(lib, model, _load(lib, model, 0), x, target, loss=loss,
                    optimizer=lambda lib, ps: lib.optim.AdamW(ps, lr=1e-3))


def gpt_block() -> Workload:
    """One training step of a GPT block: width 128, 4 heads, sequence 64, batch 16, AdamW."""
    w = Workload("gpt_block", "ms/step", 1e3, repeats=10, rtol=2e-3, compiled=False)
    return with_frameworks(w, None, _gpt_framework)
