"""Backends that lack a dtype say so: the error names the backend and the dtype, the backend
declares the lack to the conformance suite, and each built-in backend's declaration holds."""

import pytest

import arraygrad as ag
from arraygrad.conformance.context import make_context
from arraygrad.conformance.declarations import ConformanceRegistrar, Declarations


@pytest.mark.parametrize("name", ["bfloat16", "float16"])
def test_strict_backend_refuses_with_backend_and_dtype_named(name):
    d = getattr(ag, name)
    for make in (lambda: ag.zeros(2, dtype=d, device="strict"),
                 lambda: ag.ones(2, device="strict").to(d),
                 lambda: ag.tensor([1.0], dtype=d, device="strict")):
        with pytest.raises(TypeError, match=f"backend 'strict' does not support dtype "
                                            f"arraygrad.{name}"):
            make()


@pytest.mark.parametrize("backend", ["numpy", "strict"])
def test_declarations_match_what_the_backend_provides(backend):
    from arraygrad.conformance.declarations import collect

    ctx = make_context(backend, collect())
    provided = {d.name for d in ctx.backend.supported_dtypes()}
    everything = {d.name for d in ag.dtypes.ALL_DTYPES}
    assert set(ctx.lacks) == everything - provided
    assert all(reason for reason in ctx.lacks.values())


def test_cupy_declares_bfloat16():
    from arraygrad_cupy import plugin

    into = Declarations()
    plugin.arraygrad_conformance(ConformanceRegistrar("cupy", into))
    lacks = into.backends["cupy"].capabilities["lacks"]
    assert lacks == {"bfloat16": "CuPy has no bfloat16 dtype"} or lacks == {}


def test_a_malformed_lacks_declaration_is_refused():
    reg = ConformanceRegistrar("mine", Declarations())
    with pytest.raises(ValueError, match="lacks"):
        reg.backend("mine", capabilities={"lacks": ["bfloat16"]})
    with pytest.raises(ValueError, match="lacks"):
        reg.backend("mine", capabilities={"lacks": {"bfloat16": ""}})


def test_cuda_bfloat16_support_comes_from_the_backend():
    if ag.cuda.is_available():
        pytest.skip("a CUDA backend is usable here")
    assert ag.cuda.is_bf16_supported() is False
