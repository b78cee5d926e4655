"""The variational autoencoder example, ported by renaming the import: reparameterisation with
randn_like, binary cross entropy (sum) plus KL divergence, Adam, and a training checkpoint
dict (epoch, model and optimizer state) saved, loaded and resumed. Synthetic binary images."""
import os
import tempfile

import arraygrad as torch
from arraygrad import nn, optim
from arraygrad.nn import functional as F
from arraygrad.utils.data import DataLoader, TensorDataset

torch.manual_seed(1)
patterns = (torch.rand(4, 64) > 0.5).float()
labels = torch.randint(0, 4, (256,))
flip = (torch.rand(256, 64) < 0.05).float()
images = (patterns[labels] - flip).abs()
train_loader = DataLoader(TensorDataset(images, labels), batch_size=32, shuffle=True)


class VAE(nn.Module):
    def __init__(self):
        super(VAE, self).__init__()
        self.fc1 = nn.Linear(64, 32)
        self.fc21 = nn.Linear(32, 4)
        self.fc22 = nn.Linear(32, 4)
        self.fc3 = nn.Linear(4, 32)
        self.fc4 = nn.Linear(32, 64)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return torch.sigmoid(self.fc4(h3))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 64))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


def loss_function(recon_x, x, mu, logvar):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, 64), reduction='sum')
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return BCE + KLD


model = VAE()
optimizer = optim.Adam(model.parameters(), lr=1e-2)


def train(epoch):
    model.train()
    train_loss = 0
    for batch_idx, (data, _) in enumerate(train_loader):
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(data)
        loss = loss_function(recon_batch, data, mu, logvar)
        loss.backward()
        train_loss += loss.item()
        optimizer.step()
    avg = train_loss / len(train_loader.dataset)
    print('====> Epoch: {} Average loss: {:.4f}'.format(epoch, avg))
    return avg


for epoch in range(1, 4):
    loss = train(epoch)
path = os.path.join(tempfile.mkdtemp(), "checkpoint.pt")
torch.save({'epoch': epoch, 'model_state_dict': model.state_dict(),
            'optimizer_state_dict': optimizer.state_dict(), 'loss': loss}, path)

model = VAE()
optimizer = optim.Adam(model.parameters(), lr=1e-2)
checkpoint = torch.load(path, weights_only=True)
model.load_state_dict(checkpoint['model_state_dict'])
optimizer.load_state_dict(checkpoint['optimizer_state_dict'])
start = checkpoint['epoch'] + 1
print("resumed at epoch", start, "from loss", round(checkpoint['loss'], 4))
for epoch in range(start, start + 3):
    loss = train(epoch)
with torch.no_grad():
    sample = model.decode(torch.randn(8, 4))
    recon, _, _ = model(images[:64])
    accuracy = ((recon > 0.5).float() == images[:64]).float().mean().item()
print("sample shape", tuple(sample.shape))
print(f"final accuracy {accuracy:.3f}")
