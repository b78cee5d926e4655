"""A graph convolutional network, ported by renaming the import, in the form of tkipf/pygcn
(layers.py, models.py, utils.py, train.py): GraphConvolution with Parameters made by the legacy
FloatTensor constructor and filled by uniform_(-1/sqrt(out), 1/sqrt(out)), the support
torch.mm(input, weight) and the aggregation torch.spmm(adj, support) over a sparse COO
adjacency, ReLU, dropout, log_softmax, NLL loss on the training nodes, Adam with weight decay,
and a validation pass each epoch. The adjacency is built as pygcn's load_data builds it from an
edge list: symmetrised, self-loops added, rows normalised (here with torch.sparse.sum and the
values of the coalesced tensor, where pygcn uses scipy), then handed to
torch.sparse.FloatTensor(indices, values, shape) as sparse_mx_to_torch_sparse_tensor does.
The graph is random (most edges within a class).
PyTorch prints these numbers on arraygrad's random stream (tools/programs/shared_stream.py)."""
import math

import arraygrad as torch
import arraygrad.nn as nn
import arraygrad.nn.functional as F
import arraygrad.optim as optim
from arraygrad.nn.parameter import Parameter

torch.manual_seed(42)
n_nodes, n_feat, n_class = 150, 24, 3
labels = torch.randint(0, n_class, (n_nodes,))
centres = torch.randn(n_class, n_feat)
features = (centres[labels] + 1.5 * torch.randn(n_nodes, n_feat) > 0.7).float()
features = features / features.sum(1, keepdim=True).clamp(min=1)  # pygcn's normalize(features)

# the edge list pygcn reads from cora.cites
same = labels.unsqueeze(0) == labels.unsqueeze(1)
edges = (torch.rand(n_nodes, n_nodes) < torch.where(same, 0.06, 0.015)).nonzero()
adj = torch.sparse_coo_tensor(edges.t(), torch.ones(edges.shape[0]), (n_nodes, n_nodes))
adj = (adj + adj.t()).coalesce()  # symmetric: pygcn's adj + adj.T.multiply(adj.T > adj) ...
adj = torch.sparse_coo_tensor(adj.indices(), (adj.values() > 0).float(), adj.shape)
adj = (adj + torch.eye(n_nodes).to_sparse()).coalesce()  # ... then normalize(adj + eye)
r_inv = torch.sparse.sum(adj, 1).to_dense().pow(-1)
r_inv[torch.isinf(r_inv)] = 0.
values = adj.values() * r_inv[adj.indices()[0]]


def sparse_mx_to_torch_sparse_tensor(indices, values, shape):
    """Convert the (row, col, data) of a scipy sparse matrix to a torch sparse tensor."""
    return torch.sparse.FloatTensor(indices, values, shape)


adj = sparse_mx_to_torch_sparse_tensor(adj.indices(), values, torch.Size([n_nodes, n_nodes]))
idx_train, idx_val, idx_test = torch.arange(0, 50), torch.arange(50, 100), torch.arange(100, 150)


class GraphConvolution(nn.Module):
    """Simple GCN layer, similar to https://arxiv.org/abs/1609.02907"""

    def __init__(self, in_features, out_features, bias=True):
        super(GraphConvolution, self).__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(torch.FloatTensor(in_features, out_features))
        if bias:
            self.bias = Parameter(torch.FloatTensor(out_features))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1. / math.sqrt(self.weight.size(1))
        self.weight.data.uniform_(-stdv, stdv)
        if self.bias is not None:
            self.bias.data.uniform_(-stdv, stdv)

    def forward(self, input, adj):
        support = torch.mm(input, self.weight)
        output = torch.spmm(adj, support)
        if self.bias is not None:
            return output + self.bias
        return output

    def __repr__(self):
        return self.__class__.__name__ + " (" + str(self.in_features) + " -> " \
            + str(self.out_features) + ")"


class GCN(nn.Module):
    def __init__(self, nfeat, nhid, nclass, dropout):
        super(GCN, self).__init__()
        self.gc1 = GraphConvolution(nfeat, nhid)
        self.gc2 = GraphConvolution(nhid, nclass)
        self.dropout = dropout

    def forward(self, x, adj):
        x = F.relu(self.gc1(x, adj))
        x = F.dropout(x, self.dropout, training=self.training)
        x = self.gc2(x, adj)
        return F.log_softmax(x, dim=1)


def accuracy(output, labels):
    preds = output.max(1)[1].type_as(labels)
    correct = preds.eq(labels).double()
    correct = correct.sum()
    return correct / len(labels)


model = GCN(nfeat=features.shape[1], nhid=16, nclass=n_class, dropout=0.5)
optimizer = optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
print(model.gc1, model.gc2, "adjacency nnz", adj._nnz())
for epoch in range(100):
    model.train()
    optimizer.zero_grad()
    output = model(features, adj)
    loss_train = F.nll_loss(output[idx_train], labels[idx_train])
    acc_train = accuracy(output[idx_train], labels[idx_train])
    loss_train.backward()
    optimizer.step()
    model.eval()
    output = model(features, adj)
    loss_val = F.nll_loss(output[idx_val], labels[idx_val])
    acc_val = accuracy(output[idx_val], labels[idx_val])
    if (epoch + 1) % 10 == 0:
        print("Epoch: {:04d}".format(epoch + 1), "loss_train: {:.4f}".format(loss_train.item()),
              "acc_train: {:.4f}".format(acc_train.item()),
              "loss_val: {:.4f}".format(loss_val.item()), "acc_val: {:.4f}".format(acc_val.item()))
model.eval()
output = model(features, adj)
loss_test = F.nll_loss(output[idx_test], labels[idx_test])
acc_test = accuracy(output[idx_test], labels[idx_test])
print("Test set results:", "loss= {:.4f}".format(loss_test.item()),
      "accuracy= {:.4f}".format(acc_test.item()))
print(f"final accuracy {acc_test.item():.4f}")
