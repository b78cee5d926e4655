"""A residual network, ported by renaming the import, in the form of yunjey's
pytorch-tutorial deep_residual_network/main.py: 3x3 conv helpers, ResidualBlocks with
BatchNorm2d, ReLU(inplace=True) and a downsampling shortcut (conv + BatchNorm in an
nn.Sequential) where the stride or width changes, make_layer stacking blocks, AvgPool2d, a
Linear head; Adam, the learning rate decayed by editing optimizer.param_groups, evaluation in
eval mode (running statistics); synthetic 16x16 images with random flips as augmentation.
PyTorch prints these numbers on arraygrad's random stream (tools/programs/shared_stream.py);
float64, because the first Adam steps turn float32 round-off into visible differences."""
import arraygrad as torch
import arraygrad.nn as nn
from arraygrad.utils.data import DataLoader, TensorDataset

torch.set_default_dtype(torch.float64)
torch.manual_seed(0)
num_epochs, batch_size, learning_rate = 5, 32, 0.01
templates = torch.rand(4, 3, 16, 16)
labels = torch.randint(0, 4, (256,))
images = (templates[labels] * 0.7 + torch.rand(256, 3, 16, 16) * 0.3)
flips = torch.rand(256) < 0.5
images[flips] = images[flips].flip(-1)
train_loader = DataLoader(TensorDataset(images[:192], labels[:192]), batch_size=batch_size, shuffle=True)
test_loader = DataLoader(TensorDataset(images[192:], labels[192:]), batch_size=batch_size, shuffle=False)


def conv3x3(in_channels, out_channels, stride=1):
    return nn.Conv2d(in_channels, out_channels, kernel_size=3, stride=stride, padding=1, bias=False)


class ResidualBlock(nn.Module):
    def __init__(self, in_channels, out_channels, stride=1, downsample=None):
        super(ResidualBlock, self).__init__()
        self.conv1 = conv3x3(in_channels, out_channels, stride)
        self.bn1 = nn.BatchNorm2d(out_channels)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(out_channels, out_channels)
        self.bn2 = nn.BatchNorm2d(out_channels)
        self.downsample = downsample

    def forward(self, x):
        residual = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.downsample:
            residual = self.downsample(x)
        out += residual
        return self.relu(out)


class ResNet(nn.Module):
    def __init__(self, block, layers, num_classes=4):
        super(ResNet, self).__init__()
        self.in_channels = 8
        self.conv = conv3x3(3, 8)
        self.bn = nn.BatchNorm2d(8)
        self.relu = nn.ReLU(inplace=True)
        self.layer1 = self.make_layer(block, 8, layers[0])
        self.layer2 = self.make_layer(block, 16, layers[1], 2)
        self.avg_pool = nn.AvgPool2d(8)
        self.fc = nn.Linear(16, num_classes)

    def make_layer(self, block, out_channels, blocks, stride=1):
        downsample = None
        if (stride != 1) or (self.in_channels != out_channels):
            downsample = nn.Sequential(conv3x3(self.in_channels, out_channels, stride=stride),
                                       nn.BatchNorm2d(out_channels))
        layers = [block(self.in_channels, out_channels, stride, downsample)]
        self.in_channels = out_channels
        for i in range(1, blocks):
            layers.append(block(out_channels, out_channels))
        return nn.Sequential(*layers)

    def forward(self, x):
        out = self.relu(self.bn(self.conv(x)))
        out = self.layer2(self.layer1(out))
        out = self.avg_pool(out)
        return self.fc(out.view(out.size(0), -1))


model = ResNet(ResidualBlock, [1, 1])
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)


def update_lr(optimizer, lr):
    for param_group in optimizer.param_groups:
        param_group["lr"] = lr


total_step = len(train_loader)
curr_lr = learning_rate
for epoch in range(num_epochs):
    for i, (images_b, labels_b) in enumerate(train_loader):
        outputs = model(images_b)
        loss = criterion(outputs, labels_b)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if (i + 1) % 3 == 0:
            print("Epoch [{}/{}], Step [{}/{}] Loss: {:.6f}".format(
                epoch + 1, num_epochs, i + 1, total_step, loss.item()))
    if (epoch + 1) % 2 == 0:
        curr_lr /= 3
        update_lr(optimizer, curr_lr)

model.eval()
with torch.no_grad():
    correct = total = 0
    for images_b, labels_b in test_loader:
        _, predicted = torch.max(model(images_b).data, 1)
        total += labels_b.size(0)
        correct += (predicted == labels_b).sum().item()
print(f"final accuracy {correct / total:.4f}")
