"""Paths and small helpers shared by the tests; import it as `helpers`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from numfuzz.campaign.config import CampaignConfig
    from numfuzz.judge.verdicts import Verdict
    from numfuzz.program.ir import Graph
    from numfuzz.program.space import GenConfig

ROOT = Path(__file__).resolve().parent.parent
PLANTED_BUGS = ROOT / "examples" / "planted_bugs.py"
PLANTED_CRASHES = str(ROOT / "examples" / "planted_crashes.py")
GATED_TARGET = str(ROOT / "tests" / "gated_target.py")  # the `gated` target: holds cases until the test lets them go
SEEDS = ROOT / "corpus" / "seeds"
FINDINGS = ROOT / "corpus" / "findings"

# Versions a finding is stored under, as known-issue rules read them.
CPU_29 = {"torch": "2.9.1+cu128", "device": "cpu", "thunder": "0.2.6"}
CPU_214 = {"torch": "2.14.1+cu130", "device": "cpu", "thunder": "absent"}
THUNDER_MAIN = {"torch": "2.11.0+cu130", "device": "cpu", "thunder": "0.2.7.dev0"}  # a prerelease: specifiers take it


def read_json(path: Path) -> dict:
    return json.loads(Path(path).read_text())


# The op table's first 50 ops, in the order they were registered: the ops whose references are tested by kind
# (a later op has a test of its own) and that Thunder's torch executor runs with eager's kernels.
FIRST_FIFTY_OPS = (
    "neg", "abs", "exp", "expm1", "sin", "cos", "tanh", "sigmoid", "silu", "relu", "softplus", "erf",
    "log", "log1p", "sqrt", "rsqrt", "reciprocal", "gelu", "pow_scalar", "mul_scalar", "add_scalar",
    "add", "sub", "mul", "div", "maximum", "minimum", "pow", "where", "lerp", "addcmul",
    "cast", "cat", "reshape", "permute", "transpose", "unsqueeze", "expand", "slice", "chunk",
    "sum", "mean", "amax", "var", "softmax", "log_softmax", "layer_norm", "rms_norm", "linear", "matmul",
)  # fmt: skip


def campaign_seed(gen: GenConfig, graphs: int, holds: Callable[[list[Graph]], bool], tries: int = 500) -> int:
    """The first campaign seed whose first `graphs` graphs, drawn from `gen` as a campaign draws them, satisfy `holds`:
    a test states what its campaign must draw, not which seed once drew it."""
    for seed in range(tries):
        if holds(campaign_graphs(seed, gen, graphs)):
            return seed
    raise AssertionError(f"no campaign seed below {tries} draws what the test needs")


def through(op: str, graphs: list[Graph]) -> int:
    """How many of `graphs` compute `op`."""
    return sum(any(n.op == op for n in g.nodes) for g in graphs)


NARROW = ("bf16", "fp16")


def planted_bug_shows(executor: str, graph: Graph) -> bool:
    """Whether `graph` holds what a planted bug (examples/planted_bugs.py) needs to show: its op, and for two of them the
    dtypes they need."""
    from numfuzz.program.ops import infer_specs

    specs, k = infer_specs(graph), len(graph.inputs)
    if executor == "bug_sum":  # summed in the input's dtype: a bf16 or fp16 sum of a few terms
        return any(n.op == "sum" and specs[n.args[0]].dtype in NARROW and specs[n.args[0]].numel >= 8 for n in graph.nodes)
    if executor == "bug_cast":  # an fp32 value cast down, and cast back up (the round trip the executor elides)
        down = {k + j for j, n in enumerate(graph.nodes) if n.op == "cast" and specs[k + j].dtype in NARROW and specs[n.args[0]].dtype == "fp32"}
        return any(n.op == "cast" and n.args[0] in down and specs[k + j].dtype == "fp32" for j, n in enumerate(graph.nodes))
    return any(n.op == executor.removeprefix("bug_") for n in graph.nodes)


def until_shown(config: CampaignConfig, target: str, holds: Callable[[Graph], bool], symptom: str, within: int = 3000, seeds: int = 1) -> tuple[int, int]:
    """A campaign seed and how many graphs it draws up to its first case on `target` whose graph `holds` and which, judged
    alone, shows `symptom`: the first of `seeds` seeds from `config.seed` that has one within `within` graphs. A campaign
    of that seed and that many graphs must find it, whichever stream drew it."""
    from numfuzz.address import CaseAddress
    from numfuzz.corpus.make import make_case
    from numfuzz.program.generator import generate
    from numfuzz.runner.case_runner import run_case
    from numfuzz.targets import resolve

    run, compiled = config.run_for(target), resolve(target)
    for seed in range(config.seed, config.seed + seeds):
        for index in range(within):
            address = CaseAddress.fresh(seed, index)
            if holds(generate(address.seed, config.gen, widths=run.device_kind)[0]):  # the graph alone first: samples cost
                if run_case(make_case(address, run, config.gen, config.mix), compiled, config.device).verdict.value == symptom:
                    return seed, index + 1
    raise AssertionError(f"no {symptom} case on {target} in the first {within} graphs of {seeds} campaign seeds")


def campaign_graphs(seed: int, gen: GenConfig, graphs: int) -> list[Graph]:
    """The first `graphs` graphs a campaign of `seed` draws from `gen` (not guided)."""
    from numfuzz.address import CaseAddress
    from numfuzz.program.generator import generate

    return [generate(CaseAddress.fresh(seed, i).seed, gen)[0] for i in range(graphs)]


# A campaign's graphs drawn from its --ops alone: a real model's block and a window of a model's graph bring ops of their own.
ONLY_THE_OPS_GIVEN = ("--blocks-share", "0", "--models-share", "0")


def cli_flags(gen: GenConfig) -> tuple[str, ...]:
    """The share options under which `numfuzz fuzz` draws `gen`'s program space and no run mix (every case static,
    default options, one thread, forward only): its cases are those `make_case(address, run, gen)` makes."""
    from numfuzz.share_table import SHARES

    return tuple(x for s in SHARES if s.of != "campaign" for x in (s.flag, str(getattr(gen, s.field) if s.of == "gen" else 0)))


def cli_campaign(cli, monkeypatch, *args) -> CampaignConfig:
    """The campaign configuration `numfuzz fuzz *args` would run (nothing runs)."""
    import importlib

    caught = []
    with monkeypatch.context() as patch:  # undone on leaving, the test's other patches kept
        patch.setattr(importlib.import_module("numfuzz.cli.fuzz"), "_run", caught.append)
        result = cli("fuzz", *args)
    assert result.exit_code == 0 and len(caught) == 1, result.output
    return caught[0]


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
    """A campaign that draws only what its test asks: no shares, no search, no tracing, so that its cases are those
    `make_case(address, run, gen)` makes and compile as the test says; `settings` override."""
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
