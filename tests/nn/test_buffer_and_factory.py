"""``nn.Buffer`` (assigning one registers a buffer), ``nn.factory_kwargs``,
``nn.common_types``, and ``bias=`` of ``InstanceNorm*d``/``SyncBatchNorm``."""

from __future__ import annotations

import pytest

import arraygrad as ag
from arraygrad import nn


class _WithBuffers(nn.Module):
    def __init__(self):
        super().__init__()
        self.kept = nn.Buffer(ag.ones(2))
        self.scratch = nn.Buffer(ag.zeros(1), persistent=False)


def test_assigning_a_buffer_registers_it():
    m = _WithBuffers()
    assert [n for n, _ in m.named_buffers()] == ["kept", "scratch"]
    assert list(m.state_dict()) == ["kept"]
    assert not list(m.parameters())
    assert isinstance(m.kept, nn.Buffer) and not isinstance(ag.ones(1), nn.Buffer)


def test_buffer_is_a_detached_alias():
    x = ag.ones(3, requires_grad=True)
    b = nn.Buffer(x)
    assert b.requires_grad and b.grad_fn is None and b.persistent


def test_buffer_over_a_plain_attribute_is_refused():
    m = nn.Module()
    m.x = 1
    with pytest.raises(KeyError, match="attribute 'x' already exists"):
        m.x = nn.Buffer(ag.ones(1))


def test_factory_kwargs():
    assert nn.factory_kwargs({"dtype": ag.float64, "factory_kwargs": {"device": "cpu"}}) == {
        "device": "cpu", "dtype": ag.float64}
    assert nn.factory_kwargs(None) == {}
    with pytest.raises(TypeError, match="unexpected kwargs"):
        nn.factory_kwargs({"size": 3})
    with pytest.raises(TypeError, match="dtype specified twice"):
        nn.factory_kwargs({"dtype": ag.float32, "factory_kwargs": {"dtype": ag.float64}})


def test_common_types():
    assert nn.common_types._size_2_t == int | tuple[int, int]


@pytest.mark.parametrize("cls", [nn.InstanceNorm1d, nn.InstanceNorm2d, nn.InstanceNorm3d,
                                 nn.SyncBatchNorm, nn.BatchNorm1d])
def test_norm_bias_false(cls):
    m = cls(3, affine=True, bias=False)
    assert m.bias is None and m.weight is not None
    assert "bias=False" in repr(m)


def test_convert_sync_batchnorm_keeps_bias_false():
    m = nn.SyncBatchNorm.convert_sync_batchnorm(nn.BatchNorm1d(3, bias=False))
    assert type(m) is nn.SyncBatchNorm and m.bias is None
