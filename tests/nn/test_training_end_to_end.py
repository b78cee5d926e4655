"""An MLP trained end to end on a synthetic set reaches a loss threshold in a few seconds."""

import arraygrad as ag
from arraygrad import nn
from arraygrad.utils.data import DataLoader, TensorDataset


def test_mlp_learns_a_synthetic_regression():
    ag.manual_seed(0)
    x = ag.randn(256, 4)
    true_w = ag.tensor([[1.5], [-2.0], [0.5], [3.0]])
    y = (x @ true_w).tanh() + 0.01 * ag.randn(256, 1)
    model = nn.Sequential(nn.Linear(4, 32), nn.Tanh(), nn.Linear(32, 1))
    opt = ag.optim.Adam(model.parameters(), lr=1e-2)
    loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True,
                        generator=ag.Generator().manual_seed(0))
    first = None
    for epoch in range(40):
        for xb, yb in loader:
            loss = nn.functional.mse_loss(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
        with ag.no_grad():
            full = nn.functional.mse_loss(model(x), y).item()
        first = full if first is None else first
    assert full < 0.01 < first


def test_classifier_with_sgd_momentum_and_scheduler():
    ag.manual_seed(1)
    centers = ag.tensor([[2., 0.], [-2., 0.], [0., 2.]])
    labels = ag.randint(0, 3, (300,))
    x = centers[labels] + 0.5 * ag.randn(300, 2)
    model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 3))
    opt = ag.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sched = ag.optim.lr_scheduler.StepLR(opt, step_size=50, gamma=0.5)
    for _ in range(150):
        loss = nn.functional.cross_entropy(model(x), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
    accuracy = (model(x).argmax(1) == labels).float().mean().item()
    assert accuracy > 0.95 and loss.item() < 0.2
