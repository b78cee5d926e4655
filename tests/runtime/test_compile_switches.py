"""``arraygrad.compile``'s keywords from PyTorch 2.13 (``name``, ``recompile_limit``,
``isolate_recompiles``, ``shapes_spec``) and the ``torch._dynamo``/``torch._inductor``
settings programs set (``arraygrad._dynamo.config``...)."""

from __future__ import annotations

import inspect
import warnings

import pytest

import arraygrad as ag
from arraygrad.compiler import compiled

try:
    import torch
except ImportError:
    torch = None


def _double(x):
    return x * 2


@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
def test_compile_takes_pytorchs_keywords():
    theirs = set(inspect.signature(torch.compile).parameters)
    assert theirs <= set(inspect.signature(ag.compile).parameters)


def test_recompile_limit_is_per_call():
    f = ag.compile(_double, recompile_limit=1, name="doubler")
    assert repr(f) == "<compiled doubler>"
    assert f(ag.ones(2)).tolist() == [2.0, 2.0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert f(ag.ones(3)).tolist() == [2.0] * 3  # a second shape: past the limit
    assert any("doubler runs eagerly" in str(w.message) and "(1)" in str(w.message)
               for w in caught)
    assert f(ag.ones(2)).tolist() == [2.0, 2.0] and f.stats["eager"] == 1  # eager from now on
    with pytest.raises(ValueError, match="recompile_limit"):
        ag.compile(_double, recompile_limit=-1)


def test_isolate_recompiles_and_shapes_spec_are_accepted():
    f = ag.compile(_double, isolate_recompiles=True, shapes_spec={"x": None}, dynamic=True)
    assert f(ag.ones(2)).tolist() == [2.0, 2.0]
    g = ag.compile(isolate_recompiles=False, name="deco")(_double)
    assert repr(g) == "<compiled deco>" and g(ag.ones(1)).tolist() == [2.0]


def test_dynamo_config_limit_is_compiles():
    config = ag._dynamo.config
    assert config.cache_size_limit == config.recompile_limit == compiled.cache_size_limit == 8
    try:
        config.recompile_limit = 3
        assert compiled.cache_size_limit == 3 and config.cache_size_limit == 3
    finally:
        config.cache_size_limit = 8
    config.suppress_errors = True
    assert config.suppress_errors is True
    config.suppress_errors = False
    with pytest.raises(AttributeError, match="does not exist"):
        config.no_such_setting = 1
    with config.patch(verbose=True):
        assert config.verbose is True
    assert config.verbose is False

    @config.patch("capture_scalar_outputs", True)
    def inside():
        return config.capture_scalar_outputs

    assert inside() is True and config.capture_scalar_outputs is False


def test_dynamo_reset_forgets_programs():
    f = ag.compile(_double)
    f(ag.ones(2))
    f(ag.ones(2))
    assert f.stats["replays"] == 1
    ag._dynamo.reset()
    f(ag.ones(2))
    assert f.stats["records"] == 2
    t = ag.ones(3)
    assert ag._dynamo.mark_dynamic(t, 0) is None and ag._dynamo.mark_static(t) is None
    assert ag._dynamo.is_compiling() is False


def test_inductor_config_is_stored():
    config = ag._inductor.config
    assert config.max_autotune is False and config.triton.cudagraphs is False
    config.triton.cudagraphs = True
    try:
        assert config.triton.cudagraphs is True
    finally:
        config.triton.cudagraphs = False
    with pytest.raises(AttributeError, match="does not exist"):
        config.triton.nothing  # noqa: B018
