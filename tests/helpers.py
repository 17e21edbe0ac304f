"""Paths and small helpers shared by the tests; import it as `helpers`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from numfuzz.judge.verdicts import Verdict
    from numfuzz.program.ir import Graph

ROOT = Path(__file__).resolve().parent.parent
PLANTED_BUGS = ROOT / "examples" / "planted_bugs.py"
PLANTED_CRASHES = str(ROOT / "examples" / "planted_crashes.py")
GATED_TARGET = str(ROOT / "tests" / "gated_target.py")  # the `gated` target: holds cases until the test lets them go
SEEDS = ROOT / "corpus" / "seeds"
FINDINGS = ROOT / "corpus" / "findings"
# The shares added after these tests' campaigns were measured (model scale, real models, gradients, the reach
# issue's empty dims and out-of-domain arguments, odd tails, float64 programs): off, a campaign draws the graphs the tests expect.
LATER_SHARES_OFF = (
    "--large-share", "0", "--threads-share", "0", "--autocast-share", "0", "--blocks-share", "0", "--models-share", "0", "--grad-share", "0",
    "--empty-share", "0", "--out-of-domain-share", "0", "--odd-tail-share", "0", "--fp64-share", "0",
)  # fmt: skip


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


def save_finding(
    folder, graph: Graph, target: str, verdict: Verdict, op: str, dtype: str, cause: str, node: int = 0, located: str = "single op", value: float = 1.0, **extra
):
    """A stored accuracy finding (no run): its recorded outcome, analysis and signature, as a campaign saves one."""
    import torch

    from numfuzz.corpus.case import Case
    from numfuzz.corpus.store import save_case
    from numfuzz.judge.execute import Outcome
    from numfuzz.judge.facts import Analysis
    from numfuzz.judge.oracle import OutputErrors
    from numfuzz.judge.signature import Signature

    errors = OutputErrors(0, dtype, 4, 0.5, 0.3, 64.0, 8.0, 0, 0, 0, 0, 4, 0, 0, 0, verdict.value)
    analysis = {"output": 0, "cause": cause, "evidence": ["..."], "op": op, "dtype": dtype}
    analysis["culprit"] = {"node": node, "op": op, "dtype": dtype, "verdict": verdict.value, "located": located}
    analysis.update(extra)
    result = Outcome(verdict, outputs=[errors], analysis=Analysis.from_json(analysis)).to_json()  # the keys of a version-1 analysis read too
    tensors = [
        torch.full(spec.shape, value, dtype=getattr(torch, {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16"}[spec.dtype])) for spec in graph.inputs
    ]
    case = Case.from_tensors(graph, [tensors], target, provenance={"torch": "2.15.0", "device": "cpu"}, result=result)
    case.extra["signature"] = Signature(target, verdict.value, (op,), dtype, cause).to_json()
    return save_case(case, folder)


def plain_config(**settings):
    """A campaign without the features `numfuzz fuzz` turns on by default (no shares, no search, no tracing), as the
    tests written before those defaults reached `CampaignConfig` assume; `settings` override."""
    from numfuzz.campaign.config import CampaignConfig
    from numfuzz.program.space import GenConfig
    from numfuzz.run_spec import RunMix

    return CampaignConfig(**{"gen": GenConfig(), "mix": RunMix(), "search": 0.0, "trace_share": 0.0, **settings})


class StandIn:
    """A target whose compile of any program is `fn`: a test's own stand-in for a compiler."""

    name = "stand-in"

    def __init__(self, fn):
        self.fn = fn

    def available(self):
        return True, ""

    def reset(self):
        pass

    def prepare(self, program_fn, device):
        return lambda *args: self.fn(*args)

    def final_trace(self, compiled):
        return None
