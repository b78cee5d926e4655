"""vmap over every conformance case: ``vmap(case.fn)(stacked inputs)`` equals the stack of
``case.fn`` on each sample, for in_dims drawn per case (every input mapped, at a random
dimension, negative ones included) and for each input mapped alone (the others captured
from outside), plus random cases, in_dims and batch sizes drawn by hypothesis.

The few cases arraygrad cannot batch are listed in ``UNBATCHABLE`` with the reason; for those
the test checks that vmap refuses loudly (a RuntimeError) rather than computing wrong values.
The functions that took the loop-and-stack fallback are checked against ``FALLBACK``.
"""

from __future__ import annotations

import random
import warnings

import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag
from arraygrad.conformance.case import InputMaker
from arraygrad.conformance.cases import BUILTIN_CASES
from arraygrad.func import vmap
from arraygrad.func._vmap import fallback_functions

B = 3

# Boolean masks become index arrays through ``nonzero``, whose size differs per sample: PyTorch
# refuses those with the same message ("can output dynamic shape"). The other ops read sizes
# or lengths from their tensor arguments on the host.
_MASK = "a batched boolean mask goes through nonzero (dynamic shape)"
UNBATCHABLE = {
    "getitem/bool-mask": _MASK, "getitem/bool-mask-rows": _MASK, "getitem/ellipsis-mask": _MASK,
    "masked_select/broadcast": _MASK, "masked_scatter/basic": _MASK,
    "gaussian_nll_loss/full": "checks its variance argument with Python control flow",
    "embedding_bag/sum-weights": "offsets read on the host",
    "embedding_bag/mean-padding": "offsets read on the host",
    "embedding_bag/max": "offsets read on the host",
    "ctc_loss/log_softmax": "lengths read on the host",
    "repeat_interleave/tensor": "the output size is read from the repeats",
    "cov/aweights": "checks its weights' sign and sum with Python control flow, as PyTorch's",
    **{name: "vmap does not batch sparse tensors (arraygrad.sparse)" for name in (
        "sparse_coo_tensor/to_dense", "sparse_coo_tensor/hybrid", "sparse.mm/basic",
        "sparse.addmm/scaled", "mm/sparse_dense", "mm/dense_sparse", "sparse.sum/dim",
        "sparse.softmax/dim1", "sparse.mul/dense", "sparse.add/sparse", "sparse.values/tanh")},
    **{name: "the Array API fft extension has no batching rules (vmap refuses xp.fft)"
       for name in ("fft.fft/complex-padded", "fft.fft/real", "fft.ifft/complex-cut",
                    "fft.fftn/complex-sizes", "fft.rfft/padded", "fft.irfft/complex-ortho",
                    "fft.rfftn/basic", "fft.irfftn/complex-sizes", "fft.hfft/complex-padded",
                    "fft.ihfft/basic")},
}
FALLBACK: set[str] = set()
"""Array functions without a batching rule that the cases reach (loop-and-stack)."""


def _samples(case, n=B):
    sets = [case.inputs(InputMaker("cpu", ag.float64, seed=s)) for s in range(n)]
    return [s if isinstance(s, (tuple, list)) else (s,) for s in sets]


def _run(case, dims, n=B):
    sets = _samples(case, n)
    n = len(sets[0])
    args = [sets[0][k] if dims[k] is None else
            ag.stack([s[k].detach() for s in sets], dim=dims[k]) for k in range(n)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the ops' own warnings, per sample and batched alike
        expected = [case.fn(*[s[k].detach() if dims[k] is not None else sets[0][k]
                              for k in range(n)]) for s in sets]
        got = vmap(case.fn, in_dims=tuple(dims))(*args)
    if isinstance(got, ag.Tensor):
        got, expected = (got,), [(e,) for e in expected]
    assert len(got) == len(expected[0])
    for j, g in enumerate(got):
        if not isinstance(g, ag.Tensor):
            continue
        want = ag.stack([e[j] for e in expected])
        assert tuple(g.shape) == tuple(want.shape), case.name
        assert g.dtype == want.dtype, case.name
        wide = ag.complex128 if g.dtype.is_complex else ag.float64  # (both parts compared)
        assert ag.allclose(g.detach().to(wide), want.detach().to(wide), rtol=1e-6, atol=1e-7,
                           equal_nan=True), case.name


def _all_dims(case):
    rng = random.Random(case.name)
    first = _samples(case)[0]
    return [rng.randrange(-(x.ndim + 1), x.ndim + 1) if isinstance(x, ag.Tensor) else None
            for x in first]


def _one_mapped(case):
    """For each tensor input: only that one mapped (the others come from outside the call,
    the mix where ops must take the batched operand's backend)."""
    first = _samples(case)[0]
    return [[0 if i == k else None for i in range(len(first))]
            for k, x in enumerate(first) if isinstance(x, ag.Tensor)]


@pytest.mark.parametrize("case", BUILTIN_CASES, ids=lambda c: c.name)
def test_vmap_matches_stacked_samples(case):
    for dims in [_all_dims(case)] + _one_mapped(case):
        if not isinstance(_samples(case)[0][0], ag.Tensor):
            pytest.skip("the case's first input is not a tensor")
        if case.name in UNBATCHABLE:
            try:
                _run(case, dims)
            except (RuntimeError, TypeError):  # refused, or a native library refused the array
                continue
            except AssertionError:
                pytest.fail(f"{case.name}: computed wrong values instead of refusing")
            continue  # this configuration batches (e.g. the mask is not mapped)
        try:
            _run(case, dims)
        except RuntimeError as exc:  # as PyTorch: writing a batched value in place into an
            # unbatched tensor (a case writing into its unmapped input's clone) is refused
            if not str(exc).startswith("vmap: inplace arithmetic"):
                raise


def test_unbatchable_cases_exist():
    """The list names real cases (a renamed case must not silently leave it)."""
    names = {c.name for c in BUILTIN_CASES}
    assert set(UNBATCHABLE) <= names


def test_fallback_list_is_short():
    """Runs last in this file: the array functions the cases sent to the fallback."""
    assert fallback_functions() <= FALLBACK | {"searchsorted", "__getitem__"}


_BATCHABLE = [c for c in BUILTIN_CASES if c.name not in UNBATCHABLE]


@settings(max_examples=60, deadline=None)
@given(data=st.data(), case=st.sampled_from(_BATCHABLE), n=st.integers(1, 4))
def test_random_cases_in_dims_and_batch_sizes(data, case, n):
    """Any case, any batch size, each tensor input mapped at any dimension or not at all."""
    first = _samples(case, 1)[0]
    dims = [data.draw(st.one_of(st.none(), st.integers(-(x.ndim + 1), x.ndim)), label=f"dim{k}")
            if isinstance(x, ag.Tensor) else None for k, x in enumerate(first)]
    if all(d is None for d in dims):
        dims[next(k for k, x in enumerate(first) if isinstance(x, ag.Tensor))] = 0
    try:
        _run(case, dims, n)
    except RuntimeError as exc:  # refused in place, as in test_vmap_matches_stacked_samples
        if not str(exc).startswith("vmap: inplace arithmetic"):
            raise
