"""PyTorch's quickstart, ported by renaming the import: a classifier trained on synthetic
28x28 "images", with the device chosen through ``torch.accelerator``, DataLoader batches,
train/test loops, and a state_dict saved and loaded back."""
import os
import tempfile

import arraygrad as torch
from arraygrad import nn
from arraygrad.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"
print(f"Using {device} device")

# Ten classes, each a noisy version of its own template image.
templates = torch.rand(10, 28, 28)
labels = torch.randint(0, 10, (600,))
images = templates[labels] + 0.3 * torch.randn(600, 28, 28)
training_data = TensorDataset(images[:500], labels[:500])
test_data = TensorDataset(images[500:], labels[500:])

batch_size = 64
train_dataloader = DataLoader(training_data, batch_size=batch_size, shuffle=True)
test_dataloader = DataLoader(test_data, batch_size=batch_size)
for X, y in test_dataloader:
    print(f"Shape of X [N, H, W]: {X.shape}")
    print(f"Shape of y: {y.shape} {y.dtype}")
    break


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(28 * 28, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 10),
        )

    def forward(self, x):
        x = self.flatten(x)
        return self.linear_relu_stack(x)


model = NeuralNetwork().to(device)
print(model)
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=1e-2)


def train(dataloader, model, loss_fn, optimizer):
    size = len(dataloader.dataset)
    model.train()
    for batch, (X, y) in enumerate(dataloader):
        X, y = X.to(device), y.to(device)
        pred = model(X)
        loss = loss_fn(pred, y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if batch % 4 == 0:
            loss, current = loss.item(), (batch + 1) * len(X)
            print(f"loss: {loss:>7f}  [{current:>5d}/{size:>5d}]")


def test(dataloader, model, loss_fn):
    size = len(dataloader.dataset)
    num_batches = len(dataloader)
    model.eval()
    test_loss, correct = 0, 0
    with torch.no_grad():
        for X, y in dataloader:
            X, y = X.to(device), y.to(device)
            pred = model(X)
            test_loss += loss_fn(pred, y).item()
            correct += (pred.argmax(1) == y).type(torch.float).sum().item()
    test_loss /= num_batches
    correct /= size
    print(f"Test Error: \n Accuracy: {(100*correct):>0.1f}%, Avg loss: {test_loss:>8f} \n")
    return correct


epochs = 5
for t in range(epochs):
    print(f"Epoch {t+1}\n-------------------------------")
    train(train_dataloader, model, loss_fn, optimizer)
    accuracy = test(test_dataloader, model, loss_fn)
print("Done!")

path = os.path.join(tempfile.mkdtemp(), "model.pth")
torch.save(model.state_dict(), path)
model = NeuralNetwork().to(device)
model.load_state_dict(torch.load(path, weights_only=True))
model.eval()
x, y = test_data[0][0], test_data[0][1]
with torch.no_grad():
    pred = model(x.unsqueeze(0).to(device))
    print(f'Predicted: "{pred[0].argmax(0)}", Actual: "{y}"')
print(f"final accuracy {accuracy:.3f}")
