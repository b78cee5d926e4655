"""``cond``/``while_loop`` (eager, PyTorch's checks), ``segment_reduce`` (values against
PyTorch, gradients by gradcheck), the ``sym_*`` utilities and ``torch.signal.windows``."""

from __future__ import annotations

import math

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.autograd import gradcheck

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def test_cond():
    x = ag.tensor([1.0, 2.0])
    assert ag.cond(x.sum() > 0, lambda t: t * 2, lambda t: t * 3, (x,)).tolist() == [2.0, 4.0]
    assert ag.cond(False, lambda t: t * 2, lambda t: t * 3, [x]).tolist() == [3.0, 6.0]
    with pytest.raises(RuntimeError, match="single-element tensor"):
        ag.cond(x > 0, lambda t: t, lambda t: t, (x,))
    with pytest.raises(RuntimeError, match="bool or tensor"):
        ag.cond("yes", lambda t: t, lambda t: t, (x,))
    with pytest.raises(RuntimeError, match="tensor leaves"):
        ag.cond(True, lambda t: t, lambda t: t, (1,))
    with pytest.raises(RuntimeError, match="callable"):
        ag.cond(True, 1, lambda t: t, (x,))


def test_while_loop():
    i, s = ag.while_loop(lambda i, s: i < 5, lambda i, s: (i + 1, s + i), (ag.tensor(0),
                                                                           ag.tensor(0)))
    assert (i.item(), s.item()) == (5, 10)
    a = ag.tensor(9)
    (same,) = ag.while_loop(lambda a: a < 5, lambda a: (a + 1,), (a,))
    assert same.item() == 9 and same is not a
    with pytest.raises(RuntimeError, match="boolean scalar tensor or a boolean"):
        ag.while_loop(lambda a: a, lambda a: (a,), (ag.tensor([1, 2]),))
    with pytest.raises(AssertionError, match="should return a tuple"):
        ag.while_loop(lambda a: a < 5, lambda a: a + 1, (ag.tensor(0),))


@needs_torch
def test_cond_and_while_loop_match_pytorch():
    def body(i, x):
        return i + 1, x * 2

    ours = ag.while_loop(lambda i, x: i < 3, body, (ag.tensor(0), ag.ones(2)))
    theirs = torch.while_loop(lambda i, x: i < 3, body, (torch.tensor(0), torch.ones(2)))
    assert [t.tolist() for t in ours] == [t.tolist() for t in theirs]


@needs_torch
@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "min", "prod", "amax", "amin"])
@pytest.mark.parametrize("initial", [None, 7.0])
def test_segment_reduce_matches_pytorch(reduce, initial):
    data = [1.0, -2.0, 3.0, 4.0, 5.0, 6.0]
    lengths = [2, 0, 3, 1]
    ours = ag.segment_reduce(ag.tensor(data), reduce, lengths=ag.tensor(lengths),
                             initial=initial)
    theirs = torch.segment_reduce(torch.tensor(data), reduce, lengths=torch.tensor(lengths),
                                  initial=initial)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)
    d2 = np.arange(12.0).reshape(2, 6)
    l2 = [[2, 4], [3, 3]]
    ours = ag.segment_reduce(ag.tensor(d2), reduce, lengths=ag.tensor(l2), axis=1,
                             initial=initial)
    theirs = torch.segment_reduce(torch.tensor(d2), reduce, lengths=torch.tensor(l2), axis=1,
                                  initial=initial)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
    offsets = [0, 2, 2, 5, 6]
    ours = ag.segment_reduce(ag.tensor(data), reduce, offsets=ag.tensor(offsets))
    theirs = torch.segment_reduce(torch.tensor(data), reduce, offsets=torch.tensor(offsets))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "prod"])
def test_segment_reduce_gradcheck(reduce):
    x = ag.tensor([0.3, -1.2, 2.5, 0.7, 1.9, -0.4], dtype=ag.float64, requires_grad=True)
    lengths = ag.tensor([2, 3, 1])
    assert gradcheck(lambda t: ag.segment_reduce(t, reduce, lengths=lengths, initial=0.5), (x,))


def test_segment_reduce_checks():
    d = ag.ones(6)
    with pytest.raises(RuntimeError, match="Expected all rows of lengths along axis to sum"):
        ag.segment_reduce(d, "sum", lengths=ag.tensor([2, 2]))
    with pytest.raises(RuntimeError, match="reduce argument must be either"):
        ag.segment_reduce(d, "foo", lengths=ag.tensor([6]))
    with pytest.raises(RuntimeError, match="Either lengths or offsets"):
        ag.segment_reduce(d, "sum")
    with pytest.raises(RuntimeError, match="lengths contains negative value"):
        ag.segment_reduce(d, "sum", lengths=ag.tensor([7, -1]))
    with pytest.raises(RuntimeError, match="last dimension of lengths"):
        ag.segment_reduce(ag.ones(2, 3), "sum", lengths=ag.tensor([1, 2]), axis=1)
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        ag.segment_reduce(ag.tensor([1, 2]), "sum", lengths=ag.tensor([2]))


def test_sym_utilities():
    assert ag.sym_int(-2.7) == -2 and ag.sym_float(3) == 3.0 and ag.sym_not(True) is False
    assert ag.sym_max(1, 2.0) == 2.0 and isinstance(ag.sym_max(1, 2), int)
    assert ag.sym_min(3, 2) == 2 and ag.sym_sum([1, 2, 3]) == 6 and ag.sym_sum(1, 2) == 3
    assert ag.sym_sqrt(4) == 2.0 and ag.sym_ite(False, 1, 2) == 2
    assert ag.sym_fresh_size(ag.tensor(4)) == 4
    with pytest.raises(AssertionError, match="expected SymBool or bool"):
        ag.sym_ite(1, 1, 2)
    with pytest.raises(AssertionError, match="type mismatch"):
        ag.sym_ite(True, 1, 2.0)
    with pytest.raises(AssertionError, match="expected"):
        ag.sym_max("a", 1)
    ag.sym_constrain_range(5, min=0, max=10)
    with pytest.raises(RuntimeError, match=r"Invalid value range for 5 between \[6, 10\]"):
        ag.sym_constrain_range(5, min=6, max=10)
    with pytest.raises(RuntimeError, match=r"between \[0, 9223372036854775807\]"):
        ag.sym_constrain_range_for_size(-1)
    with pytest.raises(RuntimeError, match="must be greater than 2"):
        ag.sym_constrain_range_for_size(1, max=2)
    assert not isinstance(3, ag.SymInt) and not isinstance(3.0, (ag.SymFloat, ag.SymBool))
    with pytest.raises(TypeError, match="no symbolic values"):
        ag.SymInt(3)


@needs_torch
def test_sym_constrain_messages_match_pytorch():
    for f, kw in [("sym_constrain_range", {"max": 3}), ("sym_constrain_range", {"min": 7}),
                  ("sym_constrain_range_for_size", {"max": 3})]:
        with pytest.raises(RuntimeError) as ours:
            getattr(ag, f)(5, **kw)
        with pytest.raises(RuntimeError) as theirs:
            getattr(torch, f)(5, **kw)
        assert str(ours.value) == str(theirs.value)


@needs_torch
@pytest.mark.parametrize("name", ["bartlett", "blackman", "cosine", "exponential", "gaussian",
                                  "general_cosine", "general_hamming", "hamming", "hann",
                                  "kaiser", "nuttall"])
@pytest.mark.parametrize("M", [0, 1, 2, 7, 10])
@pytest.mark.parametrize("sym", [True, False])
def test_windows_match_pytorch(name, M, sym):
    kw = {"a": [0.5, 0.3, 0.2]} if name == "general_cosine" else {}
    for dtype in ("float32", "float64"):
        ours = getattr(ag.signal.windows, name)(M, sym=sym, dtype=getattr(ag, dtype), **kw)
        theirs = getattr(torch.signal.windows, name)(M, sym=sym, dtype=getattr(torch, dtype),
                                                     **kw)
        assert ours.dtype == getattr(ag, dtype)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6, atol=1e-7)


def test_windows_checks_and_gradient():
    with pytest.raises(ValueError, match="non-negative window length"):
        ag.signal.windows.hann(-1)
    with pytest.raises(ValueError, match="expects float32 or float64"):
        ag.signal.windows.hann(3, dtype=ag.int32)
    with pytest.raises(ValueError, match="Center must be None"):
        ag.signal.windows.exponential(3, center=1.0)
    w = ag.signal.windows.gaussian(5, std=2.0, dtype=ag.float64)
    assert w.tolist()[2] == 1.0
    assert math.isclose(w.tolist()[0], math.exp(-(2 ** 2) / (2 * 2.0 ** 2)))
    g = ag.signal.windows.hann(4, requires_grad=True)
    assert g.requires_grad


def test_classproperty_and_install_paths():
    class A:
        @ag.classproperty
        def name(cls):
            return cls.__name__.lower()

    assert A.name == "a" and A().name == "a"
    import os
    assert os.path.isdir(ag.get_file_path("arraygrad"))
    assert ag.prepare_multiprocessing_environment("x") is None
