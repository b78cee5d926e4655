"""Model-agnostic meta-learning, ported by renaming the import, in the form of
dragen1860/MAML-Pytorch (learner.py, meta.py): a functional Learner whose weights live in an
nn.ParameterList (kaiming_normal_ conv weights) and whose forward takes an optional list of
fast weights (F.conv2d, F.relu, F.batch_norm in training mode, F.linear), inner-loop
torch.autograd.grad on the support loss giving fast weights p - lr * g, the query loss of the
last fast weights averaged over tasks and backpropagated through the inner steps into the
meta-parameters, an outer Adam step; fine-tuning a deepcopy at test time. Synthetic 5-way
1-shot tasks of 12x12 images. PyTorch prints these numbers on arraygrad's random stream
(tools/programs/shared_stream.py)."""
from copy import deepcopy

import numpy as np

import arraygrad as torch
from arraygrad import nn, optim
from arraygrad.nn import functional as F

torch.manual_seed(222)
np.random.seed(222)
n_way, k_spt, k_qry, task_num, imgsz = 5, 1, 5, 4, 12
update_lr, meta_lr, update_step, update_step_test = 0.4, 1e-3, 2, 4
classes = (np.random.rand(60, imgsz, imgsz) < 0.35).astype(np.float32)


def next_batch():
    xs, ys, xq, yq = [], [], [], []
    for _ in range(task_num):
        chosen = np.random.choice(len(classes), n_way, replace=False)
        def draw(k):
            imgs = np.tile(classes[chosen], (k, 1, 1)) + 0.8 * np.random.randn(n_way * k, imgsz, imgsz)
            labels = np.tile(np.arange(n_way), k)
            perm = np.random.permutation(n_way * k)
            return imgs[perm].astype(np.float32)[:, None], labels[perm]
        (a, b), (c, d) = draw(k_spt), draw(k_qry)
        xs.append(a), ys.append(b), xq.append(c), yq.append(d)
    return [torch.from_numpy(np.stack(v)) for v in (xs, ys, xq, yq)]


class Learner(nn.Module):
    def __init__(self, config):
        super(Learner, self).__init__()
        self.config = config
        self.vars = nn.ParameterList()
        self.vars_bn = nn.ParameterList()
        for name, param in self.config:
            if name == "conv2d":
                w = nn.Parameter(torch.ones(*param[:4]))
                torch.nn.init.kaiming_normal_(w)
                self.vars.append(w)
                self.vars.append(nn.Parameter(torch.zeros(param[0])))
            elif name == "linear":
                w = nn.Parameter(torch.ones(*param))
                torch.nn.init.kaiming_normal_(w)
                self.vars.append(w)
                self.vars.append(nn.Parameter(torch.zeros(param[0])))
            elif name == "bn":
                self.vars.append(nn.Parameter(torch.ones(param[0])))
                self.vars.append(nn.Parameter(torch.zeros(param[0])))
                self.vars_bn.extend([nn.Parameter(torch.zeros(param[0]), requires_grad=False),
                                     nn.Parameter(torch.ones(param[0]), requires_grad=False)])

    def forward(self, x, vars=None, bn_training=True):
        if vars is None:
            vars = self.vars
        idx = bn_idx = 0
        for name, param in self.config:
            if name == "conv2d":
                x = F.conv2d(x, vars[idx], vars[idx + 1], stride=param[4], padding=param[5])
                idx += 2
            elif name == "linear":
                x = F.linear(x, vars[idx], vars[idx + 1])
                idx += 2
            elif name == "bn":
                running_mean, running_var = self.vars_bn[bn_idx], self.vars_bn[bn_idx + 1]
                x = F.batch_norm(x, running_mean, running_var, weight=vars[idx],
                                 bias=vars[idx + 1], training=bn_training)
                idx += 2
                bn_idx += 2
            elif name == "flatten":
                x = x.view(x.size(0), -1)
            elif name == "relu":
                x = F.relu(x, inplace=param[0])
        return x

    def zero_grad(self, vars=None):
        with torch.no_grad():
            for p in (self.vars if vars is None else vars):
                if p.grad is not None:
                    p.grad.zero_()

    def parameters(self):
        return self.vars


class Meta(nn.Module):
    def __init__(self, config):
        super(Meta, self).__init__()
        self.net = Learner(config)
        self.meta_optim = optim.Adam(self.net.parameters(), lr=meta_lr)

    def forward(self, x_spt, y_spt, x_qry, y_qry):
        querysz = x_qry.size(1)
        losses_q = [0 for _ in range(update_step + 1)]
        corrects = [0 for _ in range(update_step + 1)]
        for i in range(task_num):
            logits = self.net(x_spt[i], vars=None, bn_training=True)
            loss = F.cross_entropy(logits, y_spt[i])
            grad = torch.autograd.grad(loss, self.net.parameters())
            fast_weights = list(map(lambda p: p[1] - update_lr * p[0], zip(grad, self.net.parameters())))
            with torch.no_grad():
                logits_q = self.net(x_qry[i], self.net.parameters(), bn_training=True)
                corrects[0] += torch.eq(F.softmax(logits_q, dim=1).argmax(dim=1), y_qry[i]).sum().item()
            for k in range(1, update_step + 1):
                if k > 1:
                    logits = self.net(x_spt[i], fast_weights, bn_training=True)
                    loss = F.cross_entropy(logits, y_spt[i])
                    grad = torch.autograd.grad(loss, fast_weights)
                    fast_weights = list(map(lambda p: p[1] - update_lr * p[0], zip(grad, fast_weights)))
                logits_q = self.net(x_qry[i], fast_weights, bn_training=True)
                losses_q[k] += F.cross_entropy(logits_q, y_qry[i])
                with torch.no_grad():
                    corrects[k] += torch.eq(F.softmax(logits_q, dim=1).argmax(dim=1), y_qry[i]).sum().item()
        loss_q = losses_q[-1] / task_num
        self.meta_optim.zero_grad()
        loss_q.backward()
        self.meta_optim.step()
        return np.array(corrects) / (querysz * task_num)

    def finetunning(self, x_spt, y_spt, x_qry, y_qry):
        net = deepcopy(self.net)
        logits = net(x_spt)
        grad = torch.autograd.grad(F.cross_entropy(logits, y_spt), net.parameters())
        fast_weights = list(map(lambda p: p[1] - update_lr * p[0], zip(grad, net.parameters())))
        for k in range(1, update_step_test):
            loss = F.cross_entropy(net(x_spt, fast_weights, bn_training=True), y_spt)
            grad = torch.autograd.grad(loss, fast_weights)
            fast_weights = list(map(lambda p: p[1] - update_lr * p[0], zip(grad, fast_weights)))
        with torch.no_grad():
            pred_q = F.softmax(net(x_qry, fast_weights, bn_training=True), dim=1).argmax(dim=1)
        del net
        return torch.eq(pred_q, y_qry).sum().item() / x_qry.size(0)


config = [("conv2d", [16, 1, 3, 3, 2, 0]), ("relu", [True]), ("bn", [16]),
          ("conv2d", [16, 16, 3, 3, 2, 0]), ("relu", [True]), ("bn", [16]),
          ("flatten", []), ("linear", [n_way, 16 * 2 * 2])]
maml = Meta(config)
print("Total trainable tensors:", sum(map(lambda x: np.prod(x.shape), maml.parameters())))
for step in range(31):
    x_spt, y_spt, x_qry, y_qry = next_batch()
    accs = maml(x_spt, y_spt, x_qry, y_qry)
    if step % 10 == 0:
        print("step:", step, "\ttraining acc:", " ".join(f"{a:.4f}" for a in accs))
x_spt, y_spt, x_qry, y_qry = next_batch()
test_accs = [maml.finetunning(a, b, c, d) for a, b, c, d in zip(x_spt, y_spt, x_qry, y_qry)]
print(f"final accuracy {np.mean(test_accs):.4f}")
