"""A conditional GAN, ported by renaming the import, in the form of eriklindernoren's
PyTorch-GAN implementations/cgan/cgan.py: label embeddings (nn.Embedding) concatenated to the
noise for the generator and to the flattened image for the discriminator, MLP blocks with
BatchNorm1d(0.8) and LeakyReLU(0.2, inplace=True), Dropout in the discriminator, MSELoss as the
adversarial loss, the legacy FloatTensor/LongTensor constructors fed from np.random, Adam with
betas (0.5, 0.999); synthetic 8x8 images per class. PyTorch prints these numbers on
arraygrad's random stream (tools/programs/shared_stream.py); float64 (set_default_dtype), as
adversarial training amplifies float32 round-off past 1e-5 within a few dozen steps."""
import numpy as np

import arraygrad as torch
import arraygrad.nn as nn
from arraygrad.utils.data import DataLoader, TensorDataset

torch.set_default_dtype(torch.float64)
torch.manual_seed(0)
np.random.seed(0)
n_epochs, batch_size, lr, b1, b2 = 10, 32, 0.001, 0.5, 0.999
latent_dim, n_classes, img_size, channels = 16, 4, 8, 1
img_shape = (channels, img_size, img_size)
templates = torch.rand(n_classes, *img_shape) * 2 - 1
labels = torch.randint(0, n_classes, (256,))
images = (templates[labels] + 0.2 * torch.randn(256, *img_shape)).clamp(-1, 1)
dataloader = DataLoader(TensorDataset(images, labels), batch_size=batch_size, shuffle=True)


class Generator(nn.Module):
    def __init__(self):
        super(Generator, self).__init__()
        self.label_emb = nn.Embedding(n_classes, n_classes)

        def block(in_feat, out_feat, normalize=True):
            layers = [nn.Linear(in_feat, out_feat)]
            if normalize:
                layers.append(nn.BatchNorm1d(out_feat, 0.8))
            layers.append(nn.LeakyReLU(0.2, inplace=True))
            return layers

        self.model = nn.Sequential(*block(latent_dim + n_classes, 32, normalize=False),
                                   *block(32, 64), nn.Linear(64, int(np.prod(img_shape))), nn.Tanh())

    def forward(self, noise, labels):
        gen_input = torch.cat((self.label_emb(labels), noise), -1)
        img = self.model(gen_input)
        return img.view(img.size(0), *img_shape)


class Discriminator(nn.Module):
    def __init__(self):
        super(Discriminator, self).__init__()
        self.label_embedding = nn.Embedding(n_classes, n_classes)
        self.model = nn.Sequential(nn.Linear(n_classes + int(np.prod(img_shape)), 64),
                                   nn.LeakyReLU(0.2, inplace=True), nn.Linear(64, 64),
                                   nn.Dropout(0.4), nn.LeakyReLU(0.2, inplace=True), nn.Linear(64, 1))

    def forward(self, img, labels):
        d_in = torch.cat((img.view(img.size(0), -1), self.label_embedding(labels)), -1)
        return self.model(d_in)


adversarial_loss = torch.nn.MSELoss()
generator, discriminator = Generator(), Discriminator()
optimizer_G = torch.optim.Adam(generator.parameters(), lr=lr, betas=(b1, b2))
optimizer_D = torch.optim.Adam(discriminator.parameters(), lr=lr, betas=(b1, b2))
FloatTensor, LongTensor = torch.DoubleTensor, torch.LongTensor
for epoch in range(n_epochs):
    for i, (imgs, labels_b) in enumerate(dataloader):
        batch_size = imgs.shape[0]
        valid = FloatTensor(batch_size, 1).fill_(1.0)
        fake = FloatTensor(batch_size, 1).fill_(0.0)
        real_imgs, labels_b = imgs.type(FloatTensor), labels_b.type(LongTensor)
        optimizer_G.zero_grad()
        z = FloatTensor(np.random.normal(0, 1, (batch_size, latent_dim)))
        gen_labels = LongTensor(np.random.randint(0, n_classes, batch_size))
        gen_imgs = generator(z, gen_labels)
        g_loss = adversarial_loss(discriminator(gen_imgs, gen_labels), valid)
        g_loss.backward()
        optimizer_G.step()
        optimizer_D.zero_grad()
        d_real_loss = adversarial_loss(discriminator(real_imgs, labels_b), valid)
        d_fake_loss = adversarial_loss(discriminator(gen_imgs.detach(), gen_labels), fake)
        d_loss = (d_real_loss + d_fake_loss) / 2
        d_loss.backward()
        optimizer_D.step()
    print("[Epoch %d/%d] [D loss: %f] [G loss: %f]" % (epoch, n_epochs, d_loss.item(), g_loss.item()))

generator.eval()
with torch.no_grad():
    z = FloatTensor(np.random.normal(0, 1, (n_classes * 8, latent_dim)))
    wanted = LongTensor(np.arange(n_classes).repeat(8))
    samples = generator(z, wanted)
    # a generated image is closest to its own class's template once the labels are used
    nearest = ((samples.unsqueeze(1) - templates.unsqueeze(0)) ** 2).flatten(2).mean(2).argmin(1)
print(f"final accuracy {(nearest == wanted).float().mean().item():.4f}")
