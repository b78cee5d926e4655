"""Float32 numerics on the backend: a mid-sized MLP's gradients against float64.

``numerics[mlp_float32_grads]``: a ReLU MLP with cross entropy, in float32, on the
backend; its parameter gradients must match the same network in float64 (on the
same backend; on the cpu reference where the backend has no float64) to within
``FACTOR * sqrt(K) * eps32`` of each gradient's largest entry, ``K`` being the
longest sum in the network (the widest fan-in, or the batch the weight and bias
gradients sum over). NumPy's float32 stays below a third of that bound; a matmul
or reduction that loses bits (TF32 or float16 inside, a float32 sum in a bad order
over a long axis) is far above it.

The float64 run follows the float32 run's ReLU pattern: a pre-activation within
float32 rounding of 0 can have a different sign in the two precisions, and one such
flip moves its layer's gradients by about ``1 / sqrt(batch)`` of their largest
entry (2e-2 for a batch of 2048) -- a property of the kink, not an error of the
backend.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import arraygrad as ag
from arraygrad.conformance._suite import suite_test

if TYPE_CHECKING:
    from arraygrad.tensor import Tensor
    from arraygrad.conformance.context import Context

SIZES = (64, 256, 256, 100)
"""Features in, two hidden layers, classes."""
BATCH = 1024
FACTOR = 4.0
EPS32 = 2.0 ** -23


def _problem(seed: int = 0) -> tuple[Any, ...]:
    """Weights with PyTorch's Linear bounds, inputs and labels; float32 values held in float64
    on the cpu reference, so both precisions start from identical numbers."""
    g = ag.Generator("cpu").manual_seed(seed)
    params = []
    for fan_in, fan_out in zip(SIZES[:-1], SIZES[1:]):
        bound = 1.0 / math.sqrt(fan_in)
        for shape in ((fan_out, fan_in), (fan_out,)):
            params.append(((ag.rand(*shape, generator=g, dtype=ag.float64) * 2 - 1) * bound))
    x = ag.randn(BATCH, SIZES[0], generator=g, dtype=ag.float64)
    y = ag.randint(0, SIZES[-1], (BATCH,), generator=g)
    return [p.float().double() for p in params], x.float().double(), y


def _gradients(params: Any, x: Tensor, y: Tensor, dtype: Any, device: Any,
               masks: Any = None) -> tuple[Any, ...]:
    """The MLP's parameter gradients in ``dtype`` on ``device``, and its ReLU masks.

    With ``masks`` the hidden layers multiply by them instead of applying ReLU (the same
    function on the same branch).
    """
    from arraygrad.nn import functional as F

    # fresh leaves: .to() returns the tensor itself when nothing changes
    ps = [p.to(device, dtype).clone().requires_grad_(True) for p in params]
    h = x.to(device, dtype)
    seen = []
    n_layers = len(ps) // 2
    for i in range(n_layers):
        h = F.linear(h, ps[2 * i], ps[2 * i + 1])
        if i < n_layers - 1:
            if masks is None:
                seen.append(h.detach() > 0)
                h = F.relu(h)
            else:
                h = h * masks[i].to(device, dtype)
    F.cross_entropy(h, y.to(device)).backward()
    return [p.grad for p in ps], seen


def relative_errors(grads: Any, reference: Any) -> list[float]:
    """Per gradient: the largest deviation from the reference, over the reference's largest entry."""
    out = []
    for g, r in zip(grads, reference):
        g, r = g.to("cpu").double(), r.to("cpu").double()
        out.append(float((g - r).abs().max()) / float(r.abs().max()))
    return out


def bound() -> float:
    """The allowed relative error: ``FACTOR * sqrt(K) * eps32``."""
    return FACTOR * math.sqrt(max(*SIZES[:-1], BATCH)) * EPS32


def mlp_float32_grads(ctx: Context) -> None:
    ctx.require_values("float32 numerics")
    params, x, y = _problem()
    grads32, masks = _gradients(params, x, y, ag.float32, ctx.device)
    ref_device = ctx.device if ctx.float64 else "cpu"
    grads64, _ = _gradients(params, x, y, ag.float64, ref_device,
                            masks=[m.to(ref_device) for m in masks])
    for i, (g32, rel) in enumerate(zip(grads32, relative_errors(grads32, grads64))):
        name = f"{'weight' if i % 2 == 0 else 'bias'} of layer {i // 2}"
        assert g32.dtype is ag.float32 and g32.device == ctx.device, \
            f"{name}: gradient is {g32.dtype} on {g32.device}"
        assert rel <= bound(), (
            f"{name}: float32 gradient off the float64 one by {rel:.3g} of its largest entry; "
            f"bound {bound():.3g} = {FACTOR:g} sqrt({max(*SIZES[:-1], BATCH)}) eps32")


CHECKS = {"mlp_float32_grads": mlp_float32_grads}

test_numerics = suite_test(CHECKS)
