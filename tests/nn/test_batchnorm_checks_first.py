"""BatchNorm with an input of the wrong width raises before it counts the batch: nothing
changes on error (PyTorch increments num_batches_tracked, then fails; documented)."""

import pytest

import arraygrad as ag


@pytest.mark.parametrize("cls, shape", [(ag.nn.BatchNorm1d, (4, 5)), (ag.nn.BatchNorm1d, (4, 5, 2)),
                                        (ag.nn.BatchNorm2d, (2, 5, 3, 3))])
def test_wrong_width_changes_nothing(cls, shape):
    bn = cls(3)
    before = {k: v.clone() for k, v in bn.state_dict().items()}
    with pytest.raises(RuntimeError, match="running_mean should contain 5 elements not 3"):
        bn(ag.ones(*shape))
    after = bn.state_dict()
    assert all(after[k].tolist() == v.tolist() for k, v in before.items())
    assert int(bn.num_batches_tracked) == 0
