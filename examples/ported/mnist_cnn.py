"""The classic MNIST convolutional example, ported by renaming the import: argparse-style
settings, device from torch.accelerator, Conv2d/Dropout/max_pool2d/log_softmax/nll_loss,
Adadelta with StepLR, train and test loops, a checkpoint.
Synthetic 28x28 digits (a class-dependent stroke pattern plus noise) keep it self-contained."""
import argparse
import os
import tempfile

import arraygrad as torch
import arraygrad.nn as nn
import arraygrad.nn.functional as F
import arraygrad.optim as optim
from arraygrad.optim.lr_scheduler import StepLR
from arraygrad.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, 1)
        self.conv2 = nn.Conv2d(8, 16, 3, 1)
        self.dropout1 = nn.Dropout(0.25)
        self.dropout2 = nn.Dropout(0.5)
        self.fc1 = nn.Linear(2304, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.dropout2(x)
        x = self.fc2(x)
        output = F.log_softmax(x, dim=1)
        return output


def train(args, model, device, train_loader, optimizer, epoch):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        if batch_idx % args.log_interval == 0:
            print('Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}'.format(
                epoch, batch_idx * len(data), len(train_loader.dataset),
                100. * batch_idx / len(train_loader), loss.item()))


def test(model, device, test_loader):
    model.eval()
    test_loss = 0
    correct = 0
    with torch.no_grad():
        for data, target in test_loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction='sum').item()
            pred = output.argmax(dim=1, keepdim=True)
            correct += pred.eq(target.view_as(pred)).sum().item()
    test_loss /= len(test_loader.dataset)
    print('\nTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)\n'.format(
        test_loss, correct, len(test_loader.dataset), 100. * correct / len(test_loader.dataset)))
    return correct / len(test_loader.dataset)


def synthetic_digits(n, generator):
    labels = torch.randint(0, 10, (n,), generator=generator)
    images = 0.3 * torch.randn(n, 1, 28, 28, generator=generator)
    rows = torch.arange(28)
    for k in range(10):
        chosen = labels == k
        stroke = torch.zeros(28, 28)
        stroke[2 + 2 * k, 4:24] = 1.0          # a horizontal bar whose height is the class
        stroke[4:24, 3 + 2 * k] = 1.0          # and a vertical one
        images[chosen] += stroke
    return TensorDataset(images, labels)


def main():
    parser = argparse.ArgumentParser(description='MNIST-style Example')
    parser.add_argument('--batch-size', type=int, default=32)
    parser.add_argument('--test-batch-size', type=int, default=100)
    parser.add_argument('--epochs', type=int, default=2)
    parser.add_argument('--lr', type=float, default=1.0)
    parser.add_argument('--gamma', type=float, default=0.7)
    parser.add_argument('--no-accel', action='store_true')
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--log-interval', type=int, default=5)
    parser.add_argument('--save-model', action='store_true', default=True)
    args = parser.parse_args([])

    use_accel = not args.no_accel and torch.accelerator.is_available()
    torch.manual_seed(args.seed)
    if use_accel:
        device = torch.accelerator.current_accelerator()
    else:
        device = torch.device("cpu")
    train_kwargs = {'batch_size': args.batch_size}
    test_kwargs = {'batch_size': args.test_batch_size}
    if use_accel:
        accel_kwargs = {'num_workers': 1, 'pin_memory': True, 'shuffle': True}
        train_kwargs.update(accel_kwargs)
        test_kwargs.update(accel_kwargs)

    g = torch.Generator().manual_seed(args.seed)
    dataset1 = synthetic_digits(320, g)
    dataset2 = synthetic_digits(200, g)
    train_loader = DataLoader(dataset1, shuffle=True, **train_kwargs)
    test_loader = DataLoader(dataset2, **test_kwargs)

    model = Net().to(device)
    optimizer = optim.Adadelta(model.parameters(), lr=args.lr)
    scheduler = StepLR(optimizer, step_size=1, gamma=args.gamma)
    for epoch in range(1, args.epochs + 1):
        train(args, model, device, train_loader, optimizer, epoch)
        accuracy = test(model, device, test_loader)
        scheduler.step()
    print("lr after training:", scheduler.get_last_lr())
    if args.save_model:
        torch.save(model.state_dict(), os.path.join(tempfile.mkdtemp(), "mnist_cnn.pt"))
    print(f"final accuracy {accuracy:.3f}")


if __name__ == '__main__':
    main()
