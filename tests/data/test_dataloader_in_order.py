"""``DataLoader(in_order=False)``: with workers, batches come as they are ready, not in
sampler order (PyTorch's ``in_order``). The first item waits for a file the main process
writes only once it has a later batch, so the test needs no clock: in order, it would wait
for ever (the loader's timeout then fails it)."""

import os
import time

import pytest

from arraygrad.utils.data import DataLoader, Dataset

workers = pytest.mark.timeout(120)


class WaitsForFile(Dataset):
    def __init__(self, path, n):
        self.path, self.n = path, n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i == 0:
            while not os.path.exists(self.path):
                time.sleep(0.01)
        return i


@workers
def test_out_of_order_batches_come_when_ready(tmp_path):
    flag = tmp_path / "go"
    loader = DataLoader(WaitsForFile(str(flag), 6), batch_size=1, num_workers=2,
                        in_order=False, timeout=60)
    seen = []
    for batch in loader:
        seen.append(int(batch[0]))
        if len(seen) == 1:
            assert seen[0] != 0  # item 0 is still waiting
            flag.write_text("")
    assert sorted(seen) == list(range(6)) and seen.index(0) > 0


@workers
@pytest.mark.parametrize("in_order", [True, False])
def test_every_batch_comes_once(in_order, tmp_path):
    flag = tmp_path / "go"
    flag.write_text("")
    loader = DataLoader(WaitsForFile(str(flag), 23), batch_size=4, num_workers=2,
                        in_order=in_order, prefetch_factor=1)
    batches = [b.tolist() for b in loader]
    assert sorted(i for b in batches for i in b) == list(range(23)) and len(batches) == 6
    if in_order:
        assert batches == [list(range(i, min(i + 4, 23))) for i in range(0, 23, 4)]


def test_in_order_is_kept_and_defaults_true():
    assert DataLoader(range(3)).in_order is True
    assert DataLoader(range(3), in_order=False).in_order is False
    assert [int(b) for b in DataLoader(range(3), in_order=False)] == [0, 1, 2]  # no workers
