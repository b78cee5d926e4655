"""The autograd tutorial, ported by renaming the import: a one-layer network's gradients,
grad_fn, disabling tracking, Jacobian-vector products, retain_graph, hooks, retain_grad,
higher-order gradients and torch.autograd.functional. Deterministic."""
import arraygrad as torch

x = torch.ones(5)
y = torch.zeros(3)
w = torch.linspace(-1.0, 1.0, 15).reshape(5, 3).requires_grad_()
b = torch.tensor([0.1, -0.2, 0.3], requires_grad=True)
z = torch.matmul(x, w) + b
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
print(f"Gradient function for z = {type(z.grad_fn).__name__}")
print(f"Gradient function for loss = {type(loss.grad_fn).__name__}")
loss.backward()
print(w.grad)
print(b.grad)
z = torch.matmul(x, w) + b
print(z.requires_grad)
with torch.no_grad():
    z = torch.matmul(x, w) + b
print(z.requires_grad)
z_det = (torch.matmul(x, w) + b).detach()
print(z_det.requires_grad)

inp = torch.eye(4, 5, requires_grad=True)
out = (inp + 1).pow(2).t()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"First call\n{inp.grad}")
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nSecond call\n{inp.grad}")
inp.grad.zero_()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nCall after zeroing gradients\n{inp.grad}")

# hooks and retain_grad
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
h = a * 2
h.retain_grad()
seen = []
handle = h.register_hook(lambda g: seen.append(g.clone()) or g * 10)
(h ** 2).sum().backward()
handle.remove()
print("hook saw", seen[0].tolist(), "h.grad", h.grad.tolist(), "a.grad", a.grad.tolist())

# higher order
s = torch.tensor(0.5, requires_grad=True)
f = torch.sin(s) * s ** 3
(g,) = torch.autograd.grad(f, s, create_graph=True)
(gg,) = torch.autograd.grad(g, s)
print(f"f' = {g.item():.10f} f'' = {gg.item():.10f}")

# functional API
def model(u):
    return torch.stack([u[0] * u[1], torch.exp(u[1]) - u[2] ** 2])

u = torch.tensor([1.0, 0.5, -2.0], dtype=torch.float64)
print("jacobian", torch.autograd.functional.jacobian(model, u).tolist())
print("hessian", torch.autograd.functional.hessian(lambda v: (v ** 3).sum() * v[0], u).tolist())
print("vjp", torch.autograd.functional.vjp(model, u, torch.tensor([1.0, -1.0], dtype=torch.float64))[1].tolist())
print("gradcheck", torch.autograd.gradcheck(lambda v: model(v).sum(), (u.clone().requires_grad_(),)))
