"""Generator states: saved and restored exactly, across processes and backends, and loading
one never runs code (the bytes are JSON, not pickle); a wrong state raises and leaves the
stream as it was. Also the ``Generator`` methods PyTorch's CPU generator has."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import textwrap

import pytest

import arraygrad as ag


def _draws(gen: ag.Generator, device: str = "cpu") -> list[float]:
    return ag.rand(4, generator=gen, device=device).tolist()


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_state_round_trip(device: str) -> None:
    gen = ag.Generator(device).manual_seed(7)
    _draws(gen, device)
    state = gen.get_state()
    first = _draws(gen, device)
    gen.set_state(state)
    assert _draws(gen, device) == first
    fresh = ag.Generator(device).manual_seed(11)
    blank = fresh.get_state()  # before any draw
    a = _draws(fresh, device)
    fresh.set_state(blank)
    assert _draws(fresh, device) == a


def test_a_saved_state_restores_in_another_process(tmp_path) -> None:
    gen = ag.Generator().manual_seed(5)
    _draws(gen)
    ag.save({"rng": gen.get_state()}, tmp_path / "rng.pt")
    expected = _draws(gen)
    code = textwrap.dedent(f"""
        import arraygrad as ag
        state = ag.load({str(tmp_path / 'rng.pt')!r})["rng"]
        g = ag.Generator().set_state(state)
        print(ag.rand(4, generator=g).tolist())
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True).stdout
    assert out.strip() == str(expected)


class _Payload:
    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def test_loading_a_pickle_as_a_state_runs_no_code(tmp_path) -> None:
    marker = tmp_path / "ran"
    hostile = ag.tensor(list(pickle.dumps(_Payload(str(marker)))), dtype=ag.int32)
    gen = ag.Generator().manual_seed(1)
    _draws(gen)
    before = gen.get_state()
    with pytest.raises(RuntimeError, match="not a generator state"):
        gen.set_state(hostile)
    assert not os.path.exists(marker)
    assert gen.get_state().tolist() == before.tolist()  # nothing changed on error


@pytest.mark.parametrize("bad, error", [
    (ag.tensor([1.0, 2.0]), TypeError),
    (ag.tensor([[1, 2]], dtype=ag.int32), TypeError),
    (ag.tensor([300, 2], dtype=ag.int32), RuntimeError),
    (ag.tensor(list(b'{"arraygrad_rng":1,"seed":-3,"native":null}'), dtype=ag.int32), RuntimeError),
    (ag.tensor(list(b'{"arraygrad_rng":1,"seed":1,"native":{"backend":"numpy","state":'
                    b'{"bit_generator":"os.system"}}}'), dtype=ag.int32), RuntimeError),
    (ag.tensor(list(b"[" * 100000), dtype=ag.int32), RuntimeError),
])
def test_malformed_states_are_refused(bad, error) -> None:
    gen = ag.Generator().manual_seed(2)
    _draws(gen)
    before = gen.get_state().tolist()
    with pytest.raises(error):
        gen.set_state(bad)
    assert gen.get_state().tolist() == before


def test_a_state_of_another_backend_is_refused() -> None:
    cpu = ag.Generator("cpu").manual_seed(3)
    _draws(cpu)
    strict = ag.Generator("strict").manual_seed(3)
    with pytest.raises(RuntimeError, match="'numpy' backend"):
        strict.set_state(cpu.get_state())


def test_cpu_generator_methods_as_pytorchs() -> None:
    gen = ag.Generator().manual_seed(4)
    assert gen.device == ag.device("cpu")
    with pytest.raises(RuntimeError, match="does not use offset"):
        gen.get_offset()
    with pytest.raises(RuntimeError, match="does not use offset"):
        gen.set_offset(1)
    with pytest.raises(NotImplementedError):
        gen.graphsafe_get_state()
    clone = gen.clone_state()
    assert clone is not gen and _draws(clone) == _draws(gen)
