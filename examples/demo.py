"""The main job (``make demo``): train a small convolutional network on handwritten digits.

The data set is scikit-learn's 8x8 digits (1,797 images, shipped inside the
package: nothing is downloaded). The network trains on the NumPy backend with
``nn``, ``optim`` and ``utils.data``, shows a tqdm bar per epoch with loss and
accuracy, then saves the model with ``arraygrad.save_safetensors``, reloads it into a fresh
network and checks the test accuracy is identical. It writes
``demo-out/loss.png`` (train loss and test accuracy per epoch) and
``demo-out/graph.svg`` (or ``graph.dot`` without Graphviz): the autograd graph
of one training step.
"""

from __future__ import annotations

import argparse
import pathlib
import time

import arraygrad as ag
from arraygrad import nn
from arraygrad.utils.data import DataLoader, TensorDataset


def digits(seed: int):
    """Train and test splits of the digits as (N, 1, 8, 8) float tensors and int64 labels."""
    from sklearn.datasets import load_digits

    data = load_digits()
    images = ag.tensor(data.images, dtype=ag.float32).unsqueeze(1) / 16.0
    labels = ag.tensor(data.target, dtype=ag.int64)
    order = ag.randperm(len(labels), generator=ag.Generator().manual_seed(seed))
    images, labels = images[order], labels[order]
    n_test = 360
    return (images[n_test:], labels[n_test:]), (images[:n_test], labels[:n_test])


class DigitNet(nn.Module):
    """Two 3x3 convolutions, a max-pool and two linear layers."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(),
            nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(
            nn.Flatten(), nn.Linear(32 * 4 * 4, 64), nn.ReLU(), nn.Dropout(0.2), nn.Linear(64, 10),
        )

    def forward(self, x):
        return self.classifier(self.features(x))


def accuracy(model: nn.Module, images, labels) -> float:
    """Fraction of correct predictions, in eval mode and without recording."""
    model.eval()
    with ag.no_grad():
        predicted = model(images).argmax(dim=1)
    model.train()
    return (predicted == labels).float().mean().item()


def draw_graph(model, images, labels, out_dir: pathlib.Path) -> pathlib.Path:
    """The autograd graph of one training step: SVG with Graphviz, else DOT text."""
    loss = nn.functional.cross_entropy(model(images[:4]), labels[:4])
    dot = ag.viz.make_dot(loss, params=dict(model.named_parameters()))
    try:
        return dot.render(out_dir / "graph", format="svg")
    except RuntimeError:
        return dot.save(out_dir / "graph.dot")


def plot(history: list[dict], path: pathlib.Path) -> None:
    """Train loss and test accuracy per epoch, side by side."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    epochs = [h["epoch"] for h in history]
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.5))
    left.plot(epochs, [h["loss"] for h in history], marker="o")
    left.set(title="train loss", xlabel="epoch")
    right.plot(epochs, [h["test_accuracy"] for h in history], marker="o", color="tab:green")
    right.set(title="test accuracy", xlabel="epoch", ylim=(0.8, 1.0))
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv=None) -> int:
    from tqdm import tqdm

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="demo-out")
    args = parser.parse_args(argv)
    out_dir = pathlib.Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)

    ag.manual_seed(args.seed)
    (train_x, train_y), (test_x, test_y) = digits(args.seed)
    loader = DataLoader(TensorDataset(train_x, train_y), batch_size=64, shuffle=True,
                        generator=ag.Generator().manual_seed(args.seed))
    model = DigitNet()
    optimizer = ag.optim.Adam(model.parameters(), lr=3e-3)
    scheduler = ag.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    loss_fn = nn.CrossEntropyLoss()
    print(f"digits: {len(train_y)} train / {len(test_y)} test images; "
          f"{sum(p.numel() for p in model.parameters())} parameters; backend "
          f"{train_x._backend.name}")

    history = []
    start = time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        total, correct, seen = 0.0, 0, 0
        bar = tqdm(loader, desc=f"epoch {epoch:2d}/{args.epochs}", unit="batch", leave=True)
        for images, labels in bar:
            logits = model(images)
            loss = loss_fn(logits, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(labels)
            correct += int((logits.argmax(dim=1) == labels).sum().item())
            seen += len(labels)
            bar.set_postfix(loss=f"{total / seen:.4f}", acc=f"{correct / seen:.3f}")
        scheduler.step()
        test_acc = accuracy(model, test_x, test_y)
        history.append({"epoch": epoch, "loss": total / seen, "test_accuracy": test_acc})
        bar.write(f"epoch {epoch:2d}: train loss {total / seen:.4f}, test accuracy {test_acc:.4f}")
    elapsed = time.perf_counter() - start

    final = accuracy(model, test_x, test_y)
    weights = out_dir / "digitnet.safetensors"
    ag.save_safetensors(model.state_dict(), weights)
    reloaded = DigitNet()
    reloaded.load_state_dict(ag.load(weights))
    again = accuracy(reloaded, test_x, test_y)
    plot(history, out_dir / "loss.png")
    graph = draw_graph(model, train_x, train_y, out_dir)

    print(f"trained {args.epochs} epochs in {elapsed:.1f} s; test accuracy {final:.4f}")
    print(f"saved {weights}; reloaded model's test accuracy {again:.4f} "
          f"({'identical' if again == final else 'DIFFERENT'})")
    print(f"wrote {out_dir / 'loss.png'} and {graph}")
    if again != final:
        return 1
    return 0 if final >= 0.97 else 2


if __name__ == "__main__":
    raise SystemExit(main())
