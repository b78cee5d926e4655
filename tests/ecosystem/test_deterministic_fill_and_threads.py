"""``utils.deterministic.fill_uninitialized_memory`` (``empty`` fills NaN / the largest
integer under deterministic algorithms, as PyTorch), ``utils.benchmark.set_torch_threads``, and
``autograd.profiler.Future``."""

from __future__ import annotations

import math

import pytest

import arraygrad as ag


@pytest.fixture
def deterministic():
    ag.use_deterministic_algorithms(True)
    yield
    ag.use_deterministic_algorithms(False)
    ag.utils.deterministic.fill_uninitialized_memory = True


def test_empty_fills_under_deterministic_algorithms(deterministic) -> None:
    assert all(math.isnan(v) for v in ag.empty(3).tolist())
    assert ag.empty(2, dtype=ag.int64).tolist() == [2**63 - 1] * 2
    assert ag.empty(2, dtype=ag.int32).tolist() == [2**31 - 1] * 2
    assert ag.empty(2, dtype=ag.bool).tolist() == [True, True]
    assert all(math.isnan(v) for v in ag.empty_like(ag.ones(2)).tolist())


def test_the_fill_switch(deterministic) -> None:
    ag.utils.deterministic.fill_uninitialized_memory = False
    assert ag.utils.deterministic.fill_uninitialized_memory is False
    ag.empty(3)  # no fill asked: any values
    with pytest.raises(TypeError):
        ag.utils.deterministic.fill_uninitialized_memory = 1


def test_empty_is_not_filled_without_the_switch() -> None:
    assert not ag.are_deterministic_algorithms_enabled()
    assert ag.empty(2).shape == (2,)


def test_same_fill_as_pytorch(deterministic) -> None:
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    torch.use_deterministic_algorithms(True)
    try:
        assert ag.empty(2, dtype=ag.int64).tolist() == torch.empty(2, dtype=torch.int64).tolist()
        assert math.isnan(torch.empty(1).item()) and math.isnan(ag.empty(1).item())
    finally:
        torch.use_deterministic_algorithms(False)


def test_set_torch_threads_restores_the_count() -> None:
    before = ag.get_num_threads()
    with ag.utils.benchmark.set_torch_threads(1):
        assert ag.get_num_threads() == 1
    assert ag.get_num_threads() == before


def test_profiler_future_is_the_futures_class() -> None:
    assert ag.autograd.profiler.Future is ag.futures.Future
