"""Paths and small helpers shared by the tests; import it as `helpers`."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PLANTED_BUGS = ROOT / "examples" / "planted_bugs.py"
PLANTED_CRASHES = str(ROOT / "examples" / "planted_crashes.py")
GATED_TARGET = str(ROOT / "tests" / "gated_target.py")  # the `gated` target: holds cases until the test lets them go
SEEDS = ROOT / "corpus" / "seeds"
FINDINGS = ROOT / "corpus" / "findings"


def read_json(path: Path) -> dict:
    return json.loads(Path(path).read_text())


# The op table's first 50 ops, in the order they were registered, before it grew to 125.
FIRST_OPS = (
    "neg", "abs", "exp", "expm1", "sin", "cos", "tanh", "sigmoid", "silu", "relu", "softplus", "erf",
    "log", "log1p", "sqrt", "rsqrt", "reciprocal", "gelu", "pow_scalar", "mul_scalar", "add_scalar",
    "add", "sub", "mul", "div", "maximum", "minimum", "pow", "where", "lerp", "addcmul",
    "cast", "cat", "reshape", "permute", "transpose", "unsqueeze", "expand", "slice", "chunk",
    "sum", "mean", "amax", "var", "softmax", "log_softmax", "layer_norm", "rms_norm", "linear", "matmul",
)  # fmt: skip
