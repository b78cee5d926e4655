"""Random calls of the op surface, run on PyTorch and on arraygrad from the same data.

Each ``Spec`` names a function (looked up by the same dotted name in ``torch`` and in
``arraygrad``), how many tensor inputs it takes, which values they may hold, and a sampler of
extra arguments. ``compare`` runs one call on both and says whether they agree: the same error
class, or the same dtype, shape and values (NaN where NaN), and, for float64 results, the same
gradient of a random weighted sum with respect to every floating input.
"""

from __future__ import annotations

import dataclasses
import math
import random
from typing import Any, Callable

import numpy as np

Args = Callable[[random.Random, list[tuple[int, ...]]], dict[str, Any]]


@dataclasses.dataclass
class Spec:
    name: str                      # dotted name under torch / arraygrad
    arity: int = 1                 # tensor inputs
    domain: str = "real"           # real | positive | unit | int | bool
    args: Args = lambda r, s: {}   # keyword (and "_pos" positional) extra arguments
    shapes: Any = "same"           # same | broadcast | matmul | square, or a sampler
    grad: bool = True              # compare gradients too
    specials: bool = True          # may inputs hold 0, inf and NaN? (not for LAPACK-backed ops:
                                   # what they return for non-finite input is the library's)
    dtype: str | None = None       # the inputs' dtype whatever the run's (bitwise: int64)
    values: bool = True            # compare values (not for random results: shape and dtype)

    def __post_init__(self) -> None:
        if self.name.startswith("linalg."):
            self.specials = False


def _dim(r: random.Random, shapes: list[tuple[int, ...]], keep: bool = True) -> dict[str, Any]:
    nd = len(shapes[0])
    out: dict[str, Any] = {}
    if nd and r.random() < 0.8:
        out["dim"] = r.randrange(-nd, nd)
        if keep and r.random() < 0.5:
            out["keepdim"] = True
    return out


def _dim_required(r: random.Random, shapes: list[tuple[int, ...]]) -> dict[str, Any]:
    nd = max(1, len(shapes[0]))
    return {"dim": r.randrange(-nd, nd)}


UNARY = ["abs", "neg", "exp", "expm1", "sin", "cos", "tan", "tanh", "sigmoid", "sinh", "cosh",
         "asinh", "atan", "floor", "ceil", "trunc", "round", "sign", "square", "relu", "erf",
         "exp2", "frac", "sgn", "deg2rad", "rad2deg", "nan_to_num", "isnan", "isinf",
         "isfinite", "signbit", "logical_not"]
POSITIVE = ["log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal", "acosh", "lgamma"]
UNIT = ["asin", "acos", "atanh", "erfinv", "logit"]
BINARY = ["add", "sub", "mul", "div", "maximum", "minimum", "fmax", "fmin", "atan2", "hypot",
          "copysign", "fmod", "remainder", "floor_divide", "eq", "ne", "lt", "le", "gt", "ge",
          "logaddexp", "logaddexp2", "xlogy", "heaviside", "isclose"]

SPECS: list[Spec] = (
    [Spec(n) for n in UNARY]
    + [Spec(n, domain="positive") for n in POSITIVE]
    + [Spec(n, domain="unit") for n in UNIT]
    + [Spec(n, arity=2, shapes="broadcast") for n in BINARY]
    + [Spec("pow", arity=2, domain="positive", shapes="broadcast"),
       Spec("float_power", arity=2, domain="positive", shapes="broadcast"),
       Spec("lerp", arity=3, shapes="broadcast"),
       Spec("addcmul", arity=3, shapes="broadcast",
            args=lambda r, s: {"value": r.choice([1, 0.5, -2.0])}),
       Spec("addcdiv", arity=3, domain="positive", shapes="broadcast"),
       Spec("clamp", args=lambda r, s: {"min": r.choice([None, -0.5]), "max": r.choice([0.7, None, 2.0])}),
       Spec("where", arity=2, shapes="broadcast",
            args=lambda r, s: {"_cond": True})]
    + [Spec(n, args=_dim) for n in ("sum", "mean", "prod", "amax", "amin", "logsumexp",
                                     "nansum", "nanmean", "std", "var", "median", "nanmedian")]
    + [Spec(n, args=_dim_required) for n in ("cumsum", "cumprod", "logcumsumexp", "softmax",
                                             "log_softmax", "argsort", "cummax", "cummin")]
    + [Spec("argmax", args=lambda r, s: _dim(r, s), grad=False),
       Spec("argmin", args=lambda r, s: _dim(r, s), grad=False),
       Spec("max", args=lambda r, s: _dim(r, s)),
       Spec("min", args=lambda r, s: _dim(r, s)),
       Spec("sort", args=lambda r, s: {**_dim_required(r, s), "descending": r.random() < 0.5,
                                       "stable": True}),
       Spec("topk", args=lambda r, s: {"k": 1, **_dim_required(r, s)}),
       Spec("kthvalue", args=lambda r, s: {"k": 1, **_dim_required(r, s)}),
       Spec("norm", args=lambda r, s: {"p": r.choice([1, 2, 3, math.inf, "fro"]), **_dim(r, s)}),
       Spec("flip", args=lambda r, s: {"dims": [r.randrange(len(s[0]))] if s[0] else []}),
       Spec("roll", args=lambda r, s: {"shifts": r.randrange(-3, 4),
                                       "dims": r.randrange(len(s[0])) if s[0] else None}),
       Spec("diff", args=lambda r, s: {"dim": -1} if s[0] else {}),
       Spec("t", shapes="matrix"),
       Spec("trace", shapes="square"),
       Spec("tril", shapes="matrix", args=lambda r, s: {"diagonal": r.randrange(-2, 3)}),
       Spec("triu", shapes="matrix", args=lambda r, s: {"diagonal": r.randrange(-2, 3)}),
       Spec("matmul", arity=2, shapes="matmul"),
       Spec("inner", arity=2, shapes="inner"),
       Spec("outer", arity=2, shapes="vectors"),
       Spec("kron", arity=2, shapes="same"),
       Spec("linalg.inv", shapes="square"),
       Spec("linalg.det", shapes="square"),
       Spec("linalg.slogdet", shapes="square"),
       Spec("linalg.matrix_norm", shapes="square"),
       Spec("linalg.vector_norm", args=lambda r, s: {"ord": r.choice([1, 2, 3, math.inf])}),
       Spec("linalg.eigvalsh", shapes="square"),
       Spec("linalg.svdvals", shapes="matrix"),
       Spec("linalg.matrix_exp", shapes="square"),
       Spec("nn.functional.gelu"), Spec("nn.functional.silu"), Spec("nn.functional.elu"),
       Spec("nn.functional.softplus"), Spec("nn.functional.leaky_relu"),
       Spec("nn.functional.logsigmoid"), Spec("nn.functional.hardtanh"),
       Spec("nn.functional.relu6"), Spec("nn.functional.selu"), Spec("nn.functional.mish"),
       Spec("nn.functional.hardswish"), Spec("nn.functional.softsign"),
       Spec("nn.functional.normalize", args=lambda r, s: {"dim": -1}),
       Spec("nn.functional.layer_norm", args=lambda r, s: {"normalized_shape": s[0][-1:]}),
       Spec("nn.functional.mse_loss", arity=2),
       Spec("nn.functional.l1_loss", arity=2),
       Spec("nn.functional.smooth_l1_loss", arity=2),
       Spec("nn.functional.huber_loss", arity=2),
       Spec("nn.functional.binary_cross_entropy_with_logits", arity=2),
       Spec("nn.functional.cosine_similarity", arity=2, shapes="broadcast",
            args=lambda r, s: {"dim": -1}),
       Spec("nn.functional.pairwise_distance", arity=2, shapes="same")]
)


def shapes_for(spec: Spec, r: random.Random) -> list[tuple[int, ...]]:
    """Input shapes for one call (sizes 0 to 4 per dim, 0 to 3 dims)."""
    def shape(nd: int) -> tuple[int, ...]:
        return tuple(r.choice([1, 2, 3, 4, 0] if r.random() < 0.1 else [1, 2, 3, 4])
                     for _ in range(nd))

    if spec.arity == 0:
        return []
    if callable(spec.shapes):
        return spec.shapes(r)
    nd = r.randrange(0, 4)
    if spec.shapes == "matrix":
        return [shape(2)]
    if spec.shapes == "square":
        n = r.randrange(1, 4)
        return [tuple(r.choice([[], [2]]) + [n, n])]
    if spec.shapes == "vectors":
        return [shape(1), shape(1)]
    if spec.shapes == "matmul":
        a, b, c = (r.randrange(1, 4) for _ in range(3))
        lead = r.choice([(), (2,), (1,)])
        forms = [((a,), (a,)), ((a, b), (b,)), ((a,), (a, c)), ((a, b), (b, c)),
                 (lead + (a, b), (b, c)), ((a, b), lead + (b, c))]
        return [tuple(x) for x in r.choice(forms)]
    if spec.shapes == "inner":
        k = r.randrange(1, 4)
        return [shape(r.randrange(0, 3)) + (k,), shape(r.randrange(0, 3)) + (k,)]
    first = shape(nd)
    shapes = [first]
    for _ in range(spec.arity - 1):
        if spec.shapes == "broadcast" and r.random() < 0.5:
            other = tuple(d if r.random() < 0.6 else 1 for d in first[r.randrange(0, len(first) + 1):])
            shapes.append(other)
        else:
            shapes.append(first)
    return shapes


def values_for(domain: str, shape: tuple[int, ...], rng: np.random.Generator,
               specials: bool) -> np.ndarray:
    """float64 data for one input; ``specials`` mixes in 0, +-inf and NaN."""
    if domain == "positive":
        x = rng.uniform(0.2, 3.0, shape)
    elif domain == "unit":
        x = rng.uniform(0.05, 0.95, shape)
    else:
        x = rng.normal(size=shape) * 2
    if specials and x.size:
        flat = x.reshape(-1)
        for _ in range(max(1, flat.size // 4)):
            flat[rng.integers(flat.size)] = rng.choice([0.0, np.inf, -np.inf, np.nan])
    return x


def all_specs() -> list[Spec]:
    """The elementwise, reduction, linalg and activation specs here and the families of
    ``families`` (creation, random, indexing, shape, scatter/gather, bitwise, pooling,
    convolution, losses)."""
    from tests.differential.families import FAMILY_SPECS

    return SPECS + FAMILY_SPECS


def lookup(module: Any, name: str) -> Any:
    for part in name.split("."):
        module = getattr(module, part)
    return module
