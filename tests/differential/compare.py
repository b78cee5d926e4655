"""Run one random call on PyTorch and arraygrad and compare (see ``calls``)."""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from tests.differential.bad_calls import mutate
from tests.differential.calls import SPECS, Spec, lookup, shapes_for, values_for


def _as_arrays(out: Any) -> list[Any]:
    if isinstance(out, (tuple, list)):
        return [a for o in out for a in _as_arrays(o)]
    return [out]


def _numpy(t: Any) -> np.ndarray:
    t = t.detach()
    if str(t.dtype).endswith("bfloat16"):  # PyTorch has no NumPy bfloat16: compare as float32
        t = t.float()
    if getattr(t, "_is_zerotensor", lambda: False)():  # PyTorch's symbolic zero gradient
        return np.zeros(tuple(t.shape))
    return np.asarray(t.numpy())


def _same_error(theirs: BaseException, ours: BaseException) -> bool:
    """The same error class (PyTorch's ``_LinAlgError`` is ``linalg.LinAlgError``)."""
    name = type(theirs).__name__.lstrip("_")
    return name == type(ours).__name__ or isinstance(ours, type(theirs))


def _close(a: np.ndarray, b: np.ndarray, dtype: str = "float64") -> bool:
    if a.shape != b.shape:
        return False
    if a.dtype.kind in "biu" or b.dtype.kind in "biu":
        return bool(np.array_equal(a, b))
    if dtype == "bfloat16":  # a composite may round each step: within a few bfloat16 steps
        return bool(np.allclose(a, b, rtol=2 ** -5, atol=2 ** -5, equal_nan=True))
    if dtype not in ("float64", "complex128"):  # integer inputs computed in float32
        return bool(np.allclose(a, b, rtol=1e-5, atol=1e-6, equal_nan=True))
    return bool(np.allclose(a, b, rtol=1e-6, atol=1e-8, equal_nan=True))


def _typed(lib: Any, a: np.ndarray, dtype: str, needs_grad: bool) -> Any:
    """Input data as a tensor of ``dtype``: float64 as it is; bfloat16 from float32 (both
    libraries round it alike); integers rounded and wrapped into the dtype's range; complex
    with ``a`` as the real part and ``a`` reversed (times 0.7) as the imaginary part."""
    if dtype == "float64":
        return lib.tensor(a, dtype=lib.float64, requires_grad=needs_grad)
    if dtype in ("complex64", "complex128"):
        z = a + 0.7j * np.flip(a)
        return lib.tensor(z.astype(dtype), dtype=getattr(lib, dtype), requires_grad=needs_grad)
    if dtype in ("bfloat16", "float32"):
        return lib.tensor(a.astype(np.float32)).to(getattr(lib, dtype))
    if dtype == "bool":
        return lib.tensor((a > 0).reshape(-1).tolist(), dtype=lib.bool).reshape(a.shape)
    info = np.iinfo(dtype)
    ints = np.round(np.nan_to_num(a * 20, nan=0.0, posinf=info.max, neginf=info.min))
    ints = np.clip(ints, max(info.min, -2 ** 62), min(info.max, 2 ** 62)).astype(np.int64)
    return lib.tensor(ints.tolist(), dtype=getattr(lib, dtype)).reshape(a.shape)


_NATIVE_NAMES = {np.dtype(np.int64): "int64", np.dtype(bool): "bool",
                 np.dtype(np.float64): "float64"}


def _argument(lib: Any, v: Any) -> Any:
    """An argument in ``lib``'s terms: NumPy arrays (indices, masks, targets) as tensors of
    their dtype, dtype names as ``lib``'s dtypes, tuples and lists element by element."""
    if isinstance(v, np.ndarray):
        flat = lib.tensor(v.reshape(-1).tolist(), dtype=getattr(lib, _NATIVE_NAMES[v.dtype]))
        return flat.reshape(v.shape)
    if isinstance(v, tuple):
        return tuple(_argument(lib, e) for e in v)
    if isinstance(v, list):
        return [_argument(lib, e) for e in v]
    return v


def _call(lib: Any, spec: Spec, arrays: list[np.ndarray], cond: Any, kwargs: dict[str, Any],
          needs_grad: bool, dtype: str = "float64") -> tuple[list[Any], Any]:
    kwargs = dict(kwargs)
    pos = [_argument(lib, v) for v in kwargs.pop("_pos", [])]
    as_list, inplace = kwargs.pop("_as_list", False), kwargs.pop("_inplace", False)
    together = kwargs.pop("_list", False)
    kwargs = {k: getattr(lib, v) if k == "dtype" and isinstance(v, str) else _argument(lib, v)
              for k, v in kwargs.items() if not (k == "dtype" and v is None)}
    inputs = [_typed(lib, a, dtype, needs_grad) for a in arrays]
    args: list[Any] = list(inputs)
    if as_list and args:  # the "type" mutation: a Python list where a tensor belongs
        args[0] = args[0].tolist()
    if together:
        args = [args]
    if cond is not None:
        args = [lib.tensor(cond)] + args
    out = lookup(lib, spec.name)(*args, *pos, **kwargs)
    return inputs, (inputs[0] if inplace else out)


def run_one(spec: Spec, seed: int, torch: Any, ag: Any, dtype: str = "float64",
            bad: float = 0.0) -> tuple[bool, str]:
    """Whether PyTorch and arraygrad agree on one random call of ``spec`` with inputs of
    ``dtype`` (gradients compared for float64 and complex128 only; a complex output's
    gradient through a real weighted sum of its parts). With probability ``bad`` the call
    is mutated into a (probably) bad one first (``bad_calls``)."""
    r = random.Random(seed)
    rng = np.random.default_rng(seed)
    shapes = shapes_for(spec, r)
    dtype = spec.dtype or dtype
    # (complex infinities and NaN: NumPy follows C99's complex arithmetic, PyTorch its own
    # formulas, docs/complex.md; complex draws hold none)
    specials = spec.specials and r.random() < 0.15 and not dtype.startswith("complex")
    kwargs = spec.args(r, shapes)
    kind = "good"
    mutator = random.Random(seed + 1)  # its own stream: the good calls stay as they were
    if bad and mutator.random() < bad:
        shapes, kwargs, dtype, kind = mutate(mutator, spec, shapes, kwargs, dtype)
    arrays = [values_for(spec.domain, s, rng, specials) for s in shapes]
    cond = None
    if kwargs.pop("_cond", False):
        try:
            cond = rng.random(np.broadcast_shapes(*shapes)) < 0.5
        except ValueError:  # a mutated shape: the condition takes the first input's
            cond = rng.random(shapes[0]) < 0.5
    where = f"{spec.name}{[tuple(s) for s in shapes]} {kwargs} specials={specials} {dtype} {kind}"
    grad = spec.grad and dtype in ("float64", "complex128")
    results = []
    for lib in (torch, ag):
        try:
            results.append(("ok", _call(lib, spec, arrays, cond, kwargs, grad, dtype)))
        except Exception as exc:  # the error class is part of the contract
            results.append(("err", exc))
    (tk, tv), (ak, av) = results
    if tk == "err" or ak == "err":
        if tk == ak == "err":
            return _same_error(tv, av), f"{where}: torch {type(tv).__name__}, ours {type(av).__name__}: {av}"
        return False, f"{where}: torch {tk} {tv if tk == 'err' else ''} / ours {ak} {av if ak == 'err' else ''}"
    (t_in, t_out), (a_in, a_out) = tv, av
    t_arrays, a_arrays = _as_arrays(t_out), _as_arrays(a_out)
    if len(t_arrays) != len(a_arrays):
        return False, f"{where}: {len(t_arrays)} outputs vs {len(a_arrays)}"
    for t, a in zip(t_arrays, a_arrays):
        if not hasattr(t, "dtype"):
            if t != a:
                return False, f"{where}: {t!r} vs {a!r}"
            continue
        if str(t.dtype).replace("torch.", "") != str(a.dtype).replace("arraygrad.", ""):
            return False, f"{where}: dtype {t.dtype} vs {a.dtype}"
        if not spec.values and tuple(t.shape) != tuple(a.shape):
            return False, f"{where}: shape {tuple(t.shape)} vs {tuple(a.shape)}"
        if spec.values and not _close(_numpy(t), _numpy(a), dtype):
            return False, f"{where}: values\n{_numpy(t)}\nvs\n{_numpy(a)}"
    if not grad:
        return True, where
    pairs = [(t, a) for t, a in zip(t_arrays, a_arrays)
             if hasattr(t, "requires_grad") and t.requires_grad
             and (t.dtype.is_floating_point or t.dtype.is_complex)]
    if not pairs:
        return True, where
    weights = [rng.normal(size=tuple(t.shape) + ((2,) if t.dtype.is_complex else ()))
               for t, _ in pairs]

    def parts(lib: Any, o: Any) -> Any:
        return lib.view_as_real(o) if o.dtype.is_complex else o

    grads = []
    for lib, outs, ins in ((torch, [p[0] for p in pairs], t_in), (ag, [p[1] for p in pairs], a_in)):
        try:
            total = sum((parts(lib, o) * lib.tensor(w, dtype=lib.float64)).sum()
                        for o, w in zip(outs, weights))
            got = lib.autograd.grad(total, ins, allow_unused=True)
            grads.append(("ok", [None if g is None else _numpy(g) for g in got]))
        except Exception as exc:
            grads.append(("err", exc))
    (tk, tg), (ak, agr) = grads
    if tk != ak:
        return False, f"{where}: gradient torch {tk} {tg if tk == 'err' else ''} / ours {ak} {agr if ak == 'err' else ''}"
    if tk == "err":
        return _same_error(tg, agr), f"{where}: grad errors {tg!r} / {agr!r}"
    for x, gt, ga in zip(arrays, tg, agr):
        gt = np.zeros_like(x) if gt is None else gt
        ga = np.zeros_like(x) if ga is None else ga
        if not _close(gt, ga):
            return False, f"{where}: gradient\n{gt}\nvs\n{ga}"
    return True, where


def run(n: int, seed: int, torch: Any, ag: Any, dtypes: tuple[str, ...] = ("float64",),
        specs: list[Spec] | None = None, bad: float = 0.0) -> tuple[int, list[str]]:
    """``n`` random calls of ``specs`` (default ``calls.SPECS``), each with inputs of one of
    ``dtypes`` and, with probability ``bad``, mutated into a bad call; the number that
    agree and the descriptions of the others."""
    specs = SPECS if specs is None else specs
    r = random.Random(seed)
    failures = []
    agree = 0
    for i in range(n):
        spec = specs[r.randrange(len(specs))]
        dtype = dtypes[r.randrange(len(dtypes))] if len(dtypes) > 1 else dtypes[0]
        ok, detail = run_one(spec, seed * 100003 + i, torch, ag, dtype, bad)
        if ok:
            agree += 1
        else:
            failures.append(detail)
    return agree, failures
