"""Quality: numfuzz finds deliberately broken executors, and replay confirms the findings."""

import json

import pytest
import torch
from helpers import FIRST_OPS, LATER_SHARES_OFF, read_json

from numfuzz.judge.execute import evaluate
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.targets import resolve

pytestmark = pytest.mark.thunder  # the planted bugs are Thunder executors


@pytest.mark.parametrize(
    "executor, symptom, graphs",
    [("bug_expm1", "less_accurate", 60), ("bug_cast", "less_accurate", 80), ("bug_softplus", "nonfinite", 60), ("bug_sum", "less_accurate", 80)],
)
def test_fuzz_finds_planted_bug(cli, planted_bugs, tmp_path, executor, symptom, graphs):
    # The graph counts were measured over the table's first 50 ops; it has grown, and the bugs' ops are drawn less.
    ops = ",".join(FIRST_OPS)
    args = ("fuzz", "--import", planted_bugs, "--target", f"thunder:{executor}", "--graphs", graphs, "--corpus", tmp_path, "--samples", 8, "--ops", ops)
    result = cli(*args, *LATER_SHARES_OFF)
    assert result.exit_code == 0, result.output
    found = sorted((tmp_path / "findings").glob("*.json"))
    symptoms = {read_json(p)["result"]["verdict"] for p in found}
    assert symptom in symptoms, (symptoms, result.output)
    case = next(p for p in found if read_json(p)["result"]["verdict"] == symptom)
    replay = cli("replay", case, "--import", planted_bugs, "--json")
    assert replay.exit_code == 1
    assert json.loads(replay.output)["verdict"] == symptom
    # The same case on a correct target is no finding.
    assert cli("replay", case, "--target", "thunder:torch").exit_code == 0


def test_a_dropped_round_trip_cast_is_less_accurate(planted_bugs):
    """y = x.to(bf16).float() * 3 in fp32: the reference rounds at the casts, bug_cast elides them."""
    nodes = (Node.make("cast", [0], dtype="bf16"), Node.make("cast", [1], dtype="fp32"), Node.make("mul_scalar", [2], value=3.0))
    graph = Graph((TensorSpec((64,), "fp32"),), nodes, (3,))
    samples = [[torch.randn(64, dtype=torch.float32)] for _ in range(4)]
    assert evaluate(graph, samples, resolve("thunder:bug_cast"), "cpu").verdict == Verdict.LESS_ACCURATE
    assert evaluate(graph, samples, resolve("thunder:torch"), "cpu").verdict == Verdict.EQUAL
