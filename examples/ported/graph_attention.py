"""A graph attention network, ported by renaming the import, in the form of Diego999/pyGAT
(layers.py, models.py, train.py): GraphAttentionLayer with Parameters initialised by
nn.init.xavier_uniform_(gain=1.414), attention logits from a split `a` vector broadcast over
node pairs, LeakyReLU, masking of non-edges with -9e15 through torch.where, softmax, dropout on
features and on attention, several heads concatenated, an output attention layer, ELU,
log_softmax, NLL loss on the training nodes, Adam with weight decay, and a per-epoch
validation pass in eval mode. The graph is random (two-thirds of edges within a class).
PyTorch prints these numbers on arraygrad's random stream (tools/programs/shared_stream.py)."""
import arraygrad as torch
import arraygrad.nn as nn
import arraygrad.nn.functional as F
import arraygrad.optim as optim

torch.manual_seed(72)
n_nodes, n_feat, n_class = 120, 16, 3
labels = torch.randint(0, n_class, (n_nodes,))
centres = torch.randn(n_class, n_feat)
features = (centres[labels] + 1.5 * torch.randn(n_nodes, n_feat) > 0.5).float()
features = features / features.sum(1, keepdim=True).clamp(min=1)
same = labels.unsqueeze(0) == labels.unsqueeze(1)
adj = ((torch.rand(n_nodes, n_nodes) < torch.where(same, 0.08, 0.02)) | torch.eye(n_nodes).bool()).float()
adj = ((adj + adj.t()) > 0).float()
idx_train, idx_val, idx_test = torch.arange(0, 40), torch.arange(40, 80), torch.arange(80, 120)


class GraphAttentionLayer(nn.Module):
    def __init__(self, in_features, out_features, dropout, alpha, concat=True):
        super(GraphAttentionLayer, self).__init__()
        self.dropout, self.alpha, self.concat = dropout, alpha, concat
        self.out_features = out_features
        self.W = nn.Parameter(torch.empty(size=(in_features, out_features)))
        nn.init.xavier_uniform_(self.W.data, gain=1.414)
        self.a = nn.Parameter(torch.empty(size=(2 * out_features, 1)))
        nn.init.xavier_uniform_(self.a.data, gain=1.414)
        self.leakyrelu = nn.LeakyReLU(self.alpha)

    def forward(self, h, adj):
        Wh = torch.mm(h, self.W)
        e = self._prepare_attentional_mechanism_input(Wh)
        zero_vec = -9e15 * torch.ones_like(e)
        attention = torch.where(adj > 0, e, zero_vec)
        attention = F.softmax(attention, dim=1)
        attention = F.dropout(attention, self.dropout, training=self.training)
        h_prime = torch.matmul(attention, Wh)
        return F.elu(h_prime) if self.concat else h_prime

    def _prepare_attentional_mechanism_input(self, Wh):
        Wh1 = torch.matmul(Wh, self.a[:self.out_features, :])
        Wh2 = torch.matmul(Wh, self.a[self.out_features:, :])
        return self.leakyrelu(Wh1 + Wh2.T)


class GAT(nn.Module):
    def __init__(self, nfeat, nhid, nclass, dropout, alpha, nheads):
        super(GAT, self).__init__()
        self.dropout = dropout
        self.attentions = [GraphAttentionLayer(nfeat, nhid, dropout=dropout, alpha=alpha, concat=True)
                           for _ in range(nheads)]
        for i, attention in enumerate(self.attentions):
            self.add_module("attention_{}".format(i), attention)
        self.out_att = GraphAttentionLayer(nhid * nheads, nclass, dropout=dropout, alpha=alpha, concat=False)

    def forward(self, x, adj):
        x = F.dropout(x, self.dropout, training=self.training)
        x = torch.cat([att(x, adj) for att in self.attentions], dim=1)
        x = F.dropout(x, self.dropout, training=self.training)
        x = F.elu(self.out_att(x, adj))
        return F.log_softmax(x, dim=1)


def accuracy(output, labels):
    preds = output.max(1)[1].type_as(labels)
    return preds.eq(labels).double().sum() / len(labels)


model = GAT(nfeat=n_feat, nhid=8, nclass=n_class, dropout=0.3, alpha=0.2, nheads=4)
optimizer = optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
for epoch in range(60):
    model.train()
    optimizer.zero_grad()
    output = model(features, adj)
    loss_train = F.nll_loss(output[idx_train], labels[idx_train])
    loss_train.backward()
    optimizer.step()
    model.eval()
    output = model(features, adj)
    loss_val = F.nll_loss(output[idx_val], labels[idx_val])
    if (epoch + 1) % 15 == 0:
        print("Epoch: {:04d}".format(epoch + 1), "loss_train: {:.6f}".format(loss_train.item()),
              "loss_val: {:.6f}".format(loss_val.item()),
              "acc_val: {:.4f}".format(accuracy(output[idx_val], labels[idx_val]).item()))
model.eval()
output = model(features, adj)
acc_test = accuracy(output[idx_test], labels[idx_test])
print("Test set results:", "loss= {:.6f}".format(F.nll_loss(output[idx_test], labels[idx_test]).item()))
print(f"final accuracy {acc_test.item():.4f}")
