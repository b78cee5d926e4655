"""Write fixtures/torch_checkpoint.pt with real PyTorch, so the suite tests loading a file PyTorch
wrote even where PyTorch is not installed (test_torch_fixture.py).

    python tests/serialization/make_torch_fixture.py

Every value is a closed-form function of its position (no random numbers), so the test can
rebuild what to expect with arraygrad alone; ``expected()`` below is that description, shared
with the test. The file stays a few KB.
"""

from __future__ import annotations

import os
from collections import OrderedDict

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "fixtures", "torch_checkpoint.pt")

# name -> (shape, dtype name, formula over the flat index i); formulas are exact in every dtype
LSTM_KEYS = [f"{kind}_{part}_l{layer}{suffix}" for layer in (0,) for suffix in ("",)
             for kind, part in (("weight", "ih"), ("weight", "hh"), ("bias", "ih"),
                                ("bias", "hh"))]


def _formula(i: int, dtype: str) -> float | int | bool:
    if dtype == "bool":
        return i % 3 == 0
    if dtype in ("int32", "int64"):
        return (i * 7919) % 2003 - 1001 + (2 ** 40 if dtype == "int64" and i == 1 else 0)
    return ((i * 37) % 29 - 14) / 8  # exact in float16 too


def expected() -> dict:
    """What the fixture holds: name -> (shape, dtype name), values by _formula (flat index)."""
    conv = {"conv.weight": ((2, 1, 3, 3), "float32"), "conv.bias": ((2,), "float32"),
            "bn.weight": ((2,), "float32"), "bn.bias": ((2,), "float32"),
            "bn.running_mean": ((2,), "float32"), "bn.running_var": ((2,), "float32"),
            "bn.num_batches_tracked": ((), "int64"), "fc.weight": ((3, 8), "float32"),
            "fc.bias": ((3,), "float32")}
    lstm = {}
    for key in LSTM_KEYS:
        rows = 4 * 3  # 4 gates x hidden 3 (an LSTM(2, 3))
        cols = 2 if key.startswith("weight_ih") else 3
        lstm[key] = ((rows, cols), "float32") if key.startswith("weight") else ((rows,),
                                                                                "float32")
    dtypes = {f"dtype_{d}": ((2, 3), d) for d in ("float16", "float32", "float64", "int32",
                                                  "int64", "bool")}
    return {"conv": conv, "lstm": lstm, "dtypes": dtypes}


def main() -> None:
    import torch

    def make(shape, dtype):
        n = 1
        for s in shape:
            n *= s
        values = [_formula(i, dtype) for i in range(n)]
        return torch.tensor(values, dtype=getattr(torch, dtype)).reshape(shape)

    spec = expected()
    conv = OrderedDict((k, make(*v)) for k, v in spec["conv"].items())
    conv._metadata = OrderedDict([("", {"version": 1}), ("bn", {"version": 2})])
    lstm = OrderedDict((k, make(*v)) for k, v in spec["lstm"].items())
    base = torch.arange(24, dtype=torch.float32).reshape(4, 6) / 4
    views = {"base": base, "t": base.t(), "row": base[2], "cols": base[:, 1::2],
             "expanded": base[0, :1].expand(3, 2), "scalar": torch.tensor(2.5),
             "empty": torch.zeros(0, 3)}
    param = torch.nn.Parameter(make((2, 2), "float32"))
    optim = {"state": {0: {"step": torch.tensor(3.0), "exp_avg": make((2, 2), "float32"),
                           "exp_avg_sq": make((2, 2), "float32").abs()}},
             "param_groups": [{"lr": 0.001, "betas": (0.9, 0.999), "eps": 1e-08,
                               "weight_decay": 0, "amsgrad": False, "foreach": None,
                               "params": [0]}]}
    checkpoint = {"epoch": 7, "model": conv, "lstm": lstm,
                  "dtypes": {k: make(*v) for k, v in spec["dtypes"].items()},
                  "views": views, "param": param, "optim": optim,
                  "extras": {"name": "fixture", "best": float("inf"), "ratio": 0.25,
                             "bytes": b"\x00\xff", "set": {1, 2}, "size": torch.Size([2, 3]),
                             "dtype": torch.float16, "device": torch.device("cpu"),
                             "none": None, "tuple": (1, "a")}}
    os.makedirs(os.path.dirname(FIXTURE), exist_ok=True)
    torch.save(checkpoint, FIXTURE)
    print(f"wrote {FIXTURE} ({os.path.getsize(FIXTURE)} bytes) with torch {torch.__version__}")


if __name__ == "__main__":
    main()
