"""A dynamic network, ported by renaming the import, in the form of jcjohnson's
pytorch-examples nn/dynamic_net.py: each forward pass reuses one hidden Linear layer a random
number of times (Python's random.randint: the graph changes every step), clamp(min=0) as ReLU,
MSELoss(reduction='sum'), SGD with momentum. PyTorch prints these numbers on arraygrad's
random stream (tools/programs/shared_stream.py); float64, because the first steps' large
losses make float32 round-off grow past 1e-5 within a few hundred momentum steps."""
import random

import arraygrad as torch

torch.set_default_dtype(torch.float64)
torch.manual_seed(0)
random.seed(0)


class DynamicNet(torch.nn.Module):
    def __init__(self, D_in, H, D_out):
        super(DynamicNet, self).__init__()
        self.input_linear = torch.nn.Linear(D_in, H)
        self.middle_linear = torch.nn.Linear(H, H)
        self.output_linear = torch.nn.Linear(H, D_out)

    def forward(self, x):
        h_relu = self.input_linear(x).clamp(min=0)
        for _ in range(random.randint(0, 3)):
            h_relu = self.middle_linear(h_relu).clamp(min=0)
        return self.output_linear(h_relu)


N, D_in, H, D_out = 64, 200, 50, 10
x = torch.randn(N, D_in)
y = torch.randn(N, D_out)
model = DynamicNet(D_in, H, D_out)
criterion = torch.nn.MSELoss(reduction="sum")
optimizer = torch.optim.SGD(model.parameters(), lr=1e-4, momentum=0.9)
for t in range(300):
    y_pred = model(x)
    loss = criterion(y_pred, y)
    if t % 50 == 49:
        print(t, f"{loss.item():.6f}")
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f"final loss {loss.item() / (N * D_out):.6f}")
