"""Raw-tensor example: fit a small model with arraygrad's autograd and no nn.

A two-layer network written with raw tensors (``nn`` comes later) learns to
separate two interleaved spirals; gradients come from ``backward()``, the
update runs under ``no_grad``. It prints the backends found, the loss as it
falls, and the final training accuracy.
"""

import math

import arraygrad as ag


def spirals(n_per_class: int, generator: ag.Generator):
    """Two interleaved spirals in 2-D, labels 0 and 1."""
    t = ag.linspace(0.25, 3 * math.pi, n_per_class)
    noise = ag.randn(2 * n_per_class, 2, generator=generator) * 0.15
    a = ag.stack([t * t.cos(), t * t.sin()], dim=1)
    points = ag.cat([a, -a]) / 4 + noise
    labels = ag.cat([ag.zeros(n_per_class), ag.ones(n_per_class)])
    return points, labels


def main() -> None:
    print("backends:")
    for info in ag.backends.available():
        status = "available" if info.available else f"unavailable ({info.reason})"
        print(f"  {info.name:<8} {info.device_type:<6} {status}")
    gen = ag.Generator().manual_seed(0)
    x, y = spirals(200, gen)
    hidden = 64
    w1 = (ag.randn(2, hidden, generator=gen) * 0.7).requires_grad_()
    b1 = ag.zeros(hidden, requires_grad=True)
    w2 = (ag.randn(hidden, 1, generator=gen) * 0.2).requires_grad_()
    b2 = ag.zeros(1, requires_grad=True)
    params = [w1, b1, w2, b2]
    lr = 1.0
    for step in range(1, 4001):
        logits = ((x @ w1 + b1).tanh() @ w2 + b2).squeeze(1)
        # binary cross-entropy written with stable primitives
        loss = (ag.relu(logits) - logits * y + (-logits.abs()).exp().log1p()).mean()
        for p in params:
            p.grad = None
        loss.backward()
        with ag.no_grad():
            for p in params:
                p -= lr * p.grad
        if step % 500 == 0:
            accuracy = ((logits > 0).float() == y).float().mean().item()
            print(f"step {step:5d}  loss {loss.item():.4f}  train accuracy {accuracy:.3f}")


if __name__ == "__main__":
    main()
