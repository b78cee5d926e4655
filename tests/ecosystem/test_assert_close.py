"""``arraygrad.testing.assert_close``: PyTorch's tolerances and error messages, checked against
PyTorch's own ``assert_close`` on the same inputs (skipped without PyTorch), and by formula."""

from __future__ import annotations

import math
import re
import warnings

import pytest

import arraygrad as ag
from arraygrad.testing import assert_allclose, assert_close

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def _message(lib, check, actual, expected, **kw):
    try:
        check(actual, expected, **kw)
    except Exception as e:  # noqa: BLE001 - the class and text are what is compared
        # the libraries name their own types: compare with the library's prefix taken out
        text = re.sub(r"\b(torch|arraygrad)\.", "LIB.", str(e))
        return type(e).__name__, text.replace("LIB.tensor.Tensor", "LIB.Tensor")
    return None


CASES = [
    (lambda L: L.tensor([1., 2., 3.]), lambda L: L.tensor([1., 2.5, 3.1]), {}),
    (lambda L: L.tensor([1, 2]), lambda L: L.tensor([1, 3]), {}),
    (lambda L: L.tensor([1., 2.]), lambda L: L.tensor([1, 2]), {}),
    (lambda L: L.ones(2, 3), lambda L: L.ones(3, 2), {}),
    (lambda L: 1.0, lambda L: 1.1, {}),
    (lambda L: [L.ones(2)], lambda L: [L.zeros(2)], {}),
    (lambda L: {"a": L.ones(1)}, lambda L: {"a": L.zeros(1)}, {"msg": "custom"}),
    (lambda L: L.tensor([float("nan")]), lambda L: L.tensor([float("nan")]), {}),
    (lambda L: L.tensor([float("nan")]), lambda L: L.tensor([float("nan")]), {"equal_nan": True}),
    (lambda L: L.tensor(1.), lambda L: L.tensor(2.), {}),
    (lambda L: L.ones(2, requires_grad=True), lambda L: L.ones(2), {}),
    (lambda L: True, lambda L: False, {}),
    (lambda L: 1, lambda L: 1.0, {}),
    (lambda L: 1, lambda L: 1.0, {"check_dtype": True}),
    (lambda L: [1, 2], lambda L: [1], {}),
    (lambda L: L.tensor([0., 1.]), lambda L: L.tensor([0., 2.]), {"atol": 0, "rtol": 0}),
    (lambda L: L.tensor([1., 2.]), lambda L: L.tensor([1, 2]), {"check_dtype": False}),
    (lambda L: L.tensor([1.]), lambda L: L.tensor([1.]), {"rtol": 1}),
    (lambda L: {"a": 1}, lambda L: {"b": 1}, {}),
    (lambda L: L.tensor([[1., 2.], [3., 4.]]), lambda L: L.tensor([[1., 2.], [3., 5.]]),
     {"msg": lambda m: m + "!!"}),
    (lambda L: None, lambda L: 0, {}),
    (lambda L: L.tensor([0., 1e-9]), lambda L: L.tensor([0., 0.]), {}),
    (lambda L: L.tensor([1., 2.], dtype=L.float64), lambda L: L.tensor([1., 2. + 1e-6],
                                                                     dtype=L.float64), {}),
    (lambda L: L.tensor([1., 2.], dtype=L.float16), lambda L: L.tensor([1., 2.001],
                                                                     dtype=L.float16), {}),
    (lambda L: L.ones(4, 2).t(), lambda L: L.ones(2, 4), {"check_stride": True}),
    (lambda L: (L.ones(2), 3), lambda L: (L.ones(2), 4), {}),
]


@needs_torch
@pytest.mark.parametrize("index", range(len(CASES)))
def test_outcome_and_message_match_pytorch(index):
    actual, expected, kw = CASES[index]
    ours = _message(ag, assert_close, actual(ag), expected(ag), **kw)
    theirs = _message(torch, torch.testing.assert_close, actual(torch), expected(torch), **kw)
    assert ours == theirs


def test_default_tolerances_by_formula():
    # float32: |a - e| <= 1e-5 + 1.3e-6 |e|
    e = 1000.0
    inside = e + 1e-5 + 1.3e-6 * e - 1e-7
    assert_close(ag.tensor([inside], dtype=ag.float64).float(), ag.tensor([e]))
    with pytest.raises(AssertionError, match="Tensor-likes are not close!"):
        assert_close(ag.tensor([e + 0.01]), ag.tensor([e]))


def test_mismatch_statistics():
    with pytest.raises(AssertionError) as info:
        assert_close(ag.tensor([1., 2., 3., 4.], dtype=ag.float64),
                     ag.tensor([1., 2.5, 3., 5.], dtype=ag.float64))
    text = str(info.value)
    assert "Mismatched elements: 2 / 4 (50.0%)" in text
    assert "Greatest absolute difference: 1.0 at index (3,) (up to 1e-07 allowed)" in text
    assert "Greatest relative difference: 0.2 at index (1,) (up to 1e-07 allowed)" in text


def test_rtol_without_atol_is_a_value_error():
    with pytest.raises(ValueError, match="Both 'rtol' and 'atol' must be either specified"):
        assert_close(ag.ones(1), ag.ones(1), rtol=0.1)


def test_unsupported_pair_is_a_type_error():
    with pytest.raises(TypeError, match="No comparison pair was able to handle"):
        assert_close(ag.ones(2), [1.0, 1.0])


def test_assert_allclose_warns_and_uses_its_old_defaults():
    with pytest.warns(FutureWarning, match="assert_allclose"):
        assert_allclose(ag.tensor([1.0]), [1.00005])  # within float32's old rtol 1e-4
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        with pytest.raises(AssertionError):
            assert_allclose(ag.tensor([1.0]), [1.01])
        assert_allclose(ag.tensor([math.nan]), [math.nan])  # equal_nan=True by default
