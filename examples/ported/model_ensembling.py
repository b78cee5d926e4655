"""Model ensembling with vmap, ported by renaming the import, in the form of PyTorch's "Model
ensembling" tutorial (intermediate/ensembling): ten MLPs of one class on MNIST-shaped data,
run one by one in a loop, then all at once: stack_module_state stacks their parameters and
buffers, a copy of one model moved to the meta device serves as the stateless template
(its tensors have shapes and no data), and vmap over functional_call(base_model, (params,
buffers), (x,)) computes every model's predictions in one batched call, on a different
minibatch per model and on one minibatch shared by all. On the CPU. PyTorch prints these
numbers on arraygrad's random stream (tools/programs/shared_stream.py)."""
import copy

import arraygrad as torch
import arraygrad.nn as nn
import arraygrad.nn.functional as F
from arraygrad.func import functional_call, stack_module_state
from arraygrad import vmap

torch.manual_seed(0)


class SimpleMLP(nn.Module):
    def __init__(self):
        super(SimpleMLP, self).__init__()
        self.fc1 = nn.Linear(784, 128)
        self.fc2 = nn.Linear(128, 128)
        self.fc3 = nn.Linear(128, 10)

    def forward(self, x):
        x = x.flatten(1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.fc2(x)
        x = F.relu(x)
        x = self.fc3(x)
        return x


device = "cpu"
num_models = 10

data = torch.randn(100, 64, 1, 28, 28, device=device)
targets = torch.randint(10, (6400,), device=device)

models = [SimpleMLP().to(device) for _ in range(num_models)]

# Option 1: a different minibatch for each model
minibatches = data[:num_models]
predictions_diff_minibatch_loop = [model(minibatch) for model, minibatch in zip(models, minibatches)]

# Option 2: the same minibatch for every model
minibatch = data[0]
predictions2 = [model(minibatch) for model in models]

# Stack the models' states; the base model is a copy on the meta device: a template whose
# parameters have shapes and no data, filled by functional_call
params, buffers = stack_module_state(models)

base_model = copy.deepcopy(models[0])
base_model = base_model.to("meta")


def fmodel(params, buffers, x):
    return functional_call(base_model, (params, buffers), (x,))


print("stacked sizes:", [p.size(0) for p in params.values()])
print("base model weight:", base_model.fc1.weight.device, base_model.fc1.weight.is_meta,
      tuple(base_model.fc1.weight.shape))
assert minibatches.shape == (num_models, 64, 1, 28, 28)

predictions1_vmap = vmap(fmodel)(params, buffers, minibatches)
print("option 1 shape:", tuple(predictions1_vmap.shape))
print("option 1 matches the loop:",
      torch.allclose(predictions1_vmap, torch.stack(predictions_diff_minibatch_loop),
                     atol=1e-3, rtol=1e-5))

predictions2_vmap = vmap(fmodel, in_dims=(0, 0, None))(params, buffers, minibatch)
print("option 2 shape:", tuple(predictions2_vmap.shape))
print("option 2 matches the loop:",
      torch.allclose(predictions2_vmap, torch.stack(predictions2), atol=1e-3, rtol=1e-5))

for k in (0, 4, 9):
    print(f"model {k} first prediction:",
          " ".join(f"{v:.6f}" for v in predictions1_vmap[k, 0, :4].tolist()))
agree = (predictions2_vmap.argmax(-1) == predictions2_vmap[0].argmax(-1)).float().mean()
print(f"final agreement {agree.item():.4f}")
