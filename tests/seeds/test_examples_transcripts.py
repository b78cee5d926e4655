"""The seed walkthroughs in examples/ print exactly the seeds' numbers (seed 000's module-hook
walkthrough is checked in tests/nn/test_seed_000_module_hooks.py)."""

import pathlib
import subprocess
import sys

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"

TRANSCRIPTS = {
    "seed_001_variable.py": """\
AddBackward0
tensor([1.])
tensor([-1.])
tensor([0., 0., 0., 6., 3., 2.])
(False, True, True)
(tensor([1., 1., 1.]), tensor([1., 1., 1.]), None)
(tensor([1., 1., 1.]),)
y grad: tensor([1., 1., 1.])
tensor([2., 4., 6.])
tensor([2., 4., 6.])
""",
    "seed_002_register_hook.py": """\
None
tensor([2., 4., 6.])
tensor([0., 0., 0.])
tensor([1., 2., 3.])
tensor([ 28.,  64., 108.])
running the hook...
[tensor([[1.0000, 2.5000],
        [5.0000, 8.5000]])]
tensor([[ 2., 10.],
        [30., 68.]])
tensor([20200910., 20200910., 20200910., 20200910.])
tensor([0., 0., 0., 0.])
tensor([1., 1., 1., 1.])
""",
    "seed_003_autograd_api.py": """\
tensor([2., 2.]) tensor([3., 3.])
RuntimeError: Trying to backward through the graph a second time
(tensor([4., 4.]), tensor([6., 6.]), tensor([2., 2.]))
(None, None)
False
False tensor([ 6., 11.])
tensor([2., 2.])
tensor([2., 2.])
(tensor([ 5.7183, 10.3891]), tensor([22.0855, 56.5981]))
True
False
""",
}


@pytest.mark.parametrize("script", sorted(TRANSCRIPTS))
def test_example_prints_seed_numbers(script):
    proc = subprocess.run([sys.executable, "-W", "ignore", str(EXAMPLES / script)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == TRANSCRIPTS[script]
