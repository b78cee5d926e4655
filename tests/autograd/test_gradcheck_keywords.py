"""gradcheck/gradgradcheck's keywords with PyTorch's meaning: forward-mode Jacobians
(``check_forward_ad``), reverse mode off (``check_backward_ad=False``), batched gradients by
vmap, gradient dtypes, fast mode (``v^T J u``), undefined output gradients, reentrancy, and
gradgradcheck's forward-over-reverse."""

import warnings

import pytest

import arraygrad as ag
from arraygrad.autograd import GradcheckError, gradcheck, gradgradcheck


def _inputs(lib=ag):
    x = lib.tensor([0.3, -1.2, 2.0], dtype=lib.float64, requires_grad=True)
    y = lib.tensor([[0.5, 1.5], [-0.7, 0.2], [1.1, 0.4]], dtype=lib.float64, requires_grad=True)
    return x, y


def _f(a, b):
    return (a.sin().unsqueeze(1) * b).exp(), (a * a).sum()


SWITCHES = [
    {}, dict(fast_mode=True), dict(check_forward_ad=True),
    dict(check_forward_ad=True, fast_mode=True),
    dict(check_forward_ad=True, check_backward_ad=False), dict(check_batched_grad=True),
    dict(check_forward_ad=True, check_batched_forward_grad=True),
    dict(check_grad_dtypes=True), dict(masked=False), dict(nondet_tol=1e-12),
]


@pytest.mark.parametrize("kw", SWITCHES, ids=[str(s) for s in SWITCHES])
def test_gradcheck_passes_a_correct_function(kw):
    assert gradcheck(_f, _inputs(), **kw)


GG_SWITCHES = [
    {}, dict(check_fwd_over_rev=True),
    dict(check_fwd_over_rev=True, check_rev_over_rev=False, check_undefined_grad=False),
    dict(check_batched_grad=True), dict(fast_mode=True), dict(gen_non_contig_grad_outputs=True),
]


@pytest.mark.parametrize("kw", GG_SWITCHES, ids=[str(s) for s in GG_SWITCHES])
def test_gradgradcheck_passes_a_correct_function(kw):
    assert gradgradcheck(_f, _inputs(), **kw)


class WrongBackward(ag.autograd.Function):
    """x * x with a wrong backward (3x) and a wrong jvp (2t)."""

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * a

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return g * 3 * a

    @staticmethod
    def jvp(ctx, t):
        return t * 2


class RightBackwardWrongJvp(WrongBackward):
    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return g * 2 * a


def test_reverse_mode_mismatch_names_output_and_input():
    x, _ = _inputs()
    with pytest.raises(GradcheckError, match="^Jacobian mismatch for output 0 with respect to "
                                             "input 0,\nnumerical:tensor"):
        gradcheck(WrongBackward.apply, (x,))
    assert gradcheck(WrongBackward.apply, (x,), raise_exception=False) is False


def test_forward_mode_is_checked_only_when_asked():
    x, _ = _inputs()
    assert gradcheck(RightBackwardWrongJvp.apply, (x,))  # forward mode not checked
    with pytest.raises(GradcheckError, match="Jacobian computed with forward mode mismatch for "
                                             "output 0 with respect to input 0"):
        gradcheck(RightBackwardWrongJvp.apply, (x,), check_forward_ad=True)
    # reverse mode off: the wrong backward goes unnoticed, the wrong jvp does not
    with pytest.raises(GradcheckError, match="forward mode"):
        gradcheck(WrongBackward.apply, (x,), check_forward_ad=True, check_backward_ad=False)


def test_fast_mode_finds_the_wrong_backward():
    x, _ = _inputs()
    with pytest.raises(GradcheckError, match="fast mode"):
        gradcheck(WrongBackward.apply, (x,), fast_mode=True)
    with pytest.raises(GradcheckError, match="forward mode"):
        gradcheck(RightBackwardWrongJvp.apply, (x,), fast_mode=True, check_forward_ad=True)


def test_fast_mode_keeps_the_callers_random_stream():
    ag.manual_seed(5)
    expected = ag.rand(3).tolist()
    ag.manual_seed(5)
    gradcheck(_f, _inputs(), fast_mode=True)
    assert ag.rand(3).tolist() == expected


class NotBatchable(ag.autograd.Function):
    """A correct backward that reads its gradient's values: vmap cannot batch it."""

    @staticmethod
    def forward(ctx, a):
        return a * 2

    @staticmethod
    def backward(ctx, g):
        return ag.tensor([v * 2 for v in g.tolist()], dtype=g.dtype)


def test_batched_grad_is_checked_by_vmap():
    x, _ = _inputs()
    assert gradcheck(NotBatchable.apply, (x,))
    with pytest.raises(GradcheckError, match="While computing batched gradients, got"):
        gradcheck(NotBatchable.apply, (x,), check_batched_grad=True)


class UndefinedUnsafe(ag.autograd.Function):
    """A backward that gives a gradient when none flows in."""

    @staticmethod
    def forward(ctx, a):
        return a * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2 if bool((g != 0).any()) else ag.ones_like(g)


def test_undefined_output_gradients():
    x, _ = _inputs()
    with pytest.warns(UserWarning, match="Backwards compatibility"):
        with pytest.raises(GradcheckError, match="Expected all input grads to be undefined or "
                                                 "zero"):
            gradcheck(UndefinedUnsafe.apply, (x,))
    assert gradcheck(UndefinedUnsafe.apply, (x,), check_undefined_grad=False)


class Noisy(ag.autograd.Function):
    """A backward that differs between two runs by 1e-9."""

    calls = 0

    @staticmethod
    def forward(ctx, a):
        return a * 2

    @staticmethod
    def backward(ctx, g):
        Noisy.calls += 1
        return g * (2 + 1e-9 * Noisy.calls)


def test_nondeterminism_tolerance():
    x, _ = _inputs()
    with pytest.raises(GradcheckError, match="Backward is not reentrant"):
        gradcheck(Noisy.apply, (x,))
    assert gradcheck(Noisy.apply, (x,), nondet_tol=1e-6)


def test_switch_combinations_are_refused_as_pytorch():
    x, _ = _inputs()
    with pytest.raises(AssertionError, match="at least one of check_forward_ad or "
                                             "check_backward_ad"):
        gradcheck(_f, (x,), check_backward_ad=False)
    with pytest.raises(AssertionError, match="check_batched_grad=True requires "
                                             "check_backward_ad"):
        gradcheck(_f, (x,), check_batched_grad=True, check_backward_ad=False,
                  check_forward_ad=True)
    with pytest.raises(AssertionError, match="check_batched_forward_grad=True requires"):
        gradcheck(_f, (x,), check_batched_forward_grad=True)
    with pytest.raises(AssertionError, match="at least one of check_fwd_over_rev"):
        gradgradcheck(_f, (x,), check_rev_over_rev=False)
    with pytest.raises(AssertionError, match="check_undefined_grad=True requires "
                                             "check_rev_over_rev"):
        gradgradcheck(_f, (x,), check_rev_over_rev=False, check_fwd_over_rev=True)


def test_no_differentiable_output_needs_a_zero_numerical_gradient():
    x, _ = _inputs()
    assert gradcheck(lambda a: (a > 0).double(), (x,))
    with pytest.raises(GradcheckError, match="Numerical gradient for function expected to be "
                                             "zero"):
        gradcheck(lambda a: a.detach() * a.detach(), (x,))


def test_gradgradcheck_forward_over_reverse_catches_a_wrong_double_backward():
    class WrongDouble(ag.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a ** 3

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return g * 3 * a.detach() ** 2  # first order right, not differentiable in a

        @staticmethod
        def jvp(ctx, t):
            return t * 0

    x, _ = _inputs()
    assert gradcheck(WrongDouble.apply, (x,))
    with pytest.raises(GradcheckError):
        gradgradcheck(WrongDouble.apply, (x,))
    with pytest.raises(GradcheckError, match="forward mode"):
        gradgradcheck(WrongDouble.apply, (x,), check_fwd_over_rev=True,
                      check_rev_over_rev=False, check_undefined_grad=False)


@pytest.mark.parametrize("kw", SWITCHES[:8], ids=[str(s) for s in SWITCHES[:8]])
def test_agrees_with_pytorch(kw):
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert torch.autograd.gradcheck(_f, _inputs(torch), **kw) == gradcheck(_f, _inputs(), **kw)
    tx, = _inputs(torch)[:1]

    class TorchWrong(torch.autograd.Function):
        forward, backward, jvp = (WrongBackward.forward, WrongBackward.backward,
                                  WrongBackward.jvp)

    kw = dict(kw, raise_exception=False, check_batched_grad=False,
              check_batched_forward_grad=False)
    assert torch.autograd.gradcheck(TorchWrong.apply, (tx,), **kw) is False
    assert gradcheck(WrongBackward.apply, (_inputs()[0],), **kw) is False


def test_mismatch_message_matches_pytorchs():
    torch = pytest.importorskip("torch", reason="compares with PyTorch")

    class TorchWrong(torch.autograd.Function):
        forward, backward = WrongBackward.forward, WrongBackward.backward

    with pytest.raises(Exception) as theirs:
        torch.autograd.gradcheck(TorchWrong.apply, (_inputs(torch)[0],))
    with pytest.raises(GradcheckError) as ours:
        gradcheck(WrongBackward.apply, (_inputs()[0],))
    assert str(ours.value).replace("arraygrad", "torch").replace("-0.0000", " 0.0000") == \
        str(theirs.value).replace("-0.0000", " 0.0000")
